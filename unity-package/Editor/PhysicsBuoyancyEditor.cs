// Inspector for PhysicsBuoyancy: the default inspector (so Undo, prefabs and multi-editing
// work as usual) and, below it, what a designer tunes by: in edit mode the hull's volume,
// the water the mass displaces and warnings (unusable mesh, open hull, too heavy to float);
// in play mode the draft, submerged volume, wetted share and the largest force.
// SPDX-License-Identifier: MIT OR Apache-2.0
using System.Globalization;
using UnityEditor;
using UnityEngine;

namespace Keel.Editor
{
    [CustomEditor(typeof(PhysicsBuoyancy))]
    [CanEditMultipleObjects]
    public sealed class PhysicsBuoyancyEditor : UnityEditor.Editor
    {
        // InspectHull builds the hull natively: once per mesh, scale, mass and density.
        private KeelHullReport m_Hull;
        private Mesh m_HullMesh;
        private Vector3 m_HullScale;
        private float m_HullMass = float.NaN, m_HullDensity;

        public override bool RequiresConstantRepaint() { return Application.isPlaying; }

        public override void OnInspectorGUI()
        {
            DrawDefaultInspector();
            var body = (PhysicsBuoyancy)target;
            if (Application.isPlaying) PlayModeFigures(body);
            else EditModeFigures(body);
        }

        // Invariant: the inspector reads the same on every machine (and in the tests).
        private static string F(float value, int decimals) { return value.ToString("F" + decimals, CultureInfo.InvariantCulture); }

        private static string Percent(float share) { return F(100f * share, 0) + " %"; }

        private static void Row(string label, string value, string tooltip)
        {
            EditorGUILayout.LabelField(new GUIContent(label, tooltip), new GUIContent(value, tooltip));
        }

        private void EditModeFigures(PhysicsBuoyancy body)
        {
            MeshFilter filter = body.hullMesh != null ? body.hullMesh : body.GetComponent<MeshFilter>();
            Mesh mesh = filter != null ? filter.sharedMesh : null;
            Rigidbody rb = body.GetComponent<Rigidbody>();
            float mass = rb != null ? rb.mass : 0f;
            Vector3 scale = filter != null ? filter.transform.lossyScale : Vector3.one;
            if (mesh != m_HullMesh || scale != m_HullScale || mass != m_HullMass || body.rhoWater != m_HullDensity)
            {
                m_Hull = body.InspectHull();
                m_HullMesh = mesh; m_HullScale = scale; m_HullMass = mass; m_HullDensity = body.rhoWater;
            }
            if (m_Hull.Valid)
            {
                EditorGUILayout.Space();
                Row("Hull volume", m_Hull.Closed ? F(m_Hull.Volume, 3) + " m^3" : "open hull",
                    "The volume the closed hull encloses, m^3, with the object's scale.");
                Row("Displacement at mass", F(m_Hull.Displacement, 3) + " m^3",
                    "Water the Rigidbody's mass displaces when floating: mass / rhoWater, m^3.");
                if (m_Hull.Closed && m_Hull.Volume > 0f)
                    Row("Floats with", Percent(m_Hull.Displacement / m_Hull.Volume) + " of its volume under water",
                        "Displacement over hull volume: under 100 % it floats.");
            }
            if (m_Hull.Problem != null)
                EditorGUILayout.HelpBox(m_Hull.Problem, m_Hull.Valid ? MessageType.Warning : MessageType.Error);
        }

        private static void PlayModeFigures(PhysicsBuoyancy body)
        {
            if (body.HasFailed) { EditorGUILayout.HelpBox("The hull was refused (see the console): the body gets no buoyancy.", MessageType.Error); return; }
            if (body.BodyHandle == 0) return;
            KeelBodyReport r = body.Report();
            EditorGUILayout.Space();
            Row("In water", r.InWater ? "yes" : "no", "Whether the last step found part of the hull under water.");
            Row("Draft", F(r.Draft, 3) + " m", "Depth of the hull's lowest point under the water surface above it, m.");
            Row("Submerged volume", F(r.SubmergedVolume, 3) + " m^3", "Volume of the hull under water in the last step, m^3.");
            Row("Wetted share", Percent(r.WettedShare), "Wetted hull area over the whole hull area.");
            Row("Largest force", r.LargestForceName + ", " + F(r.LargestForce.magnitude, 0) + " N",
                "The largest of buoyancy, viscous, pressure drag, slamming, air and damping forces in the last step, N.");
        }
    }

    /// Leaving play mode in the editor also destroys the package's worlds (Application.quitting
    /// covers it too; this covers editors that skip it, e.g. on a script error).
    [InitializeOnLoad]
    internal static class KeelEditorLifecycle
    {
        static KeelEditorLifecycle()
        {
            EditorApplication.playModeStateChanged -= OnPlayModeChanged;
            EditorApplication.playModeStateChanged += OnPlayModeChanged;
        }

        private static void OnPlayModeChanged(PlayModeStateChange change)
        {
            if (change == PlayModeStateChange.ExitingPlayMode) KeelRuntime.Shutdown();
        }
    }
}
