// Inspector niceties for PhysicsBuoyancy: the default inspector (so Undo, prefabs and
// multi-editing work as usual), a warning when the hull mesh cannot be used, and the last
// step's figures while playing.
// SPDX-License-Identifier: MIT OR Apache-2.0
using UnityEditor;
using UnityEngine;

namespace Keel.Editor
{
    [CustomEditor(typeof(PhysicsBuoyancy))]
    [CanEditMultipleObjects]
    public sealed class PhysicsBuoyancyEditor : UnityEditor.Editor
    {
        public override void OnInspectorGUI()
        {
            DrawDefaultInspector();
            var body = (PhysicsBuoyancy)target;
            MeshFilter filter = body.hullMesh != null ? body.hullMesh : body.GetComponent<MeshFilter>();
            if (filter == null || filter.sharedMesh == null)
                EditorGUILayout.HelpBox("No MeshFilter with a mesh: the body gets no buoyancy.", MessageType.Warning);
            else if (!filter.sharedMesh.isReadable)
                EditorGUILayout.HelpBox("The mesh is not readable: enable Read/Write in its import settings.", MessageType.Error);
            if (Application.isPlaying && body.BodyHandle != 0)
            {
                var f = body.LastForces;
                EditorGUILayout.LabelField("Submerged volume", f.submerged_volume.ToString("F3") + " m^3");
                EditorGUILayout.LabelField("Wetted ratio", f.wetted_ratio.ToString("P0"));
                EditorGUILayout.LabelField("Force", new Vector3(f.force.x, f.force.y, f.force.z).ToString());
            }
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
