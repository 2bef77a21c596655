// What a designer tunes by, for the inspector (and scripts): in play mode the draft, the
// submerged volume, the wetted share and the largest force; in edit mode the hull's
// volume and closedness and the water its mass displaces. The engine reports the volume,
// the wetted share and the forces; the draft is measured here from the hull's vertices and
// the native water height under each (keel_water_sample), as the ABI has no draft getter.
// SPDX-License-Identifier: MIT OR Apache-2.0
using System;
using Keel.Native;
using UnityEngine;

namespace Keel
{
    /// <summary>A body's last step, in the terms a designer tunes by.</summary>
    public struct KeelBodyReport
    {
        /// <summary>True when the last step found part of the hull under water.</summary>
        public bool InWater;
        /// <summary>Depth of the hull's lowest point under the water surface above it, m (0 when dry).</summary>
        public float Draft;
        /// <summary>Submerged volume, m^3.</summary>
        public float SubmergedVolume;
        /// <summary>Wetted area over the hull's area, 0 to 1.</summary>
        public float WettedShare;
        /// <summary>The largest of the step's forces: "buoyancy", "viscous", "pressure drag", "slamming", "air" or "damping".</summary>
        public string LargestForceName;
        /// <summary>That force, N, world axes.</summary>
        public Vector3 LargestForce;
    }

    /// <summary>A hull's facts before playing: what its shape and the body's mass allow.</summary>
    public struct KeelHullReport
    {
        /// <summary>False when there is no usable mesh; <see cref="Problem"/> says why.</summary>
        public bool Valid;
        /// <summary>Every edge shared by two triangles: the hull holds water out.</summary>
        public bool Closed;
        /// <summary>Hull volume, m^3 (0 for an open hull).</summary>
        public float Volume;
        /// <summary>Water the body's mass displaces when floating, m^3: mass / rhoWater.</summary>
        public float Displacement;
        /// <summary>True when a closed hull can carry the mass (Displacement &lt; Volume).</summary>
        public bool CanFloat;
        /// <summary>Usable triangles.</summary>
        public int Triangles;
        /// <summary>What is wrong, or null.</summary>
        public string Problem;
    }

    public sealed unsafe partial class PhysicsBuoyancy
    {
        private Mesh m_ReportMesh;
        private Vector3[] m_ReportVertices;
        private KeelVec3[] m_ReportPoints = new KeelVec3[0];
        private float[] m_ReportHeights = new float[0];

        /// <summary>The last step in a designer's terms; default (not in water) before the first step.</summary>
        public KeelBodyReport Report()
        {
            var report = new KeelBodyReport { LargestForceName = "none" };
            if (BodyHandle == 0) return report;
            KeelBodyForces f = CurrentForces();
            report.SubmergedVolume = f.submerged_volume;
            report.WettedShare = f.wetted_ratio;
            report.InWater = f.submerged_volume > 0f || f.wetted_ratio > 0f;
            Largest(ref report, "buoyancy", f.buoyancy_force);
            Largest(ref report, "viscous", f.viscous_force);
            Largest(ref report, "pressure drag", f.pressure_drag_force);
            Largest(ref report, "slamming", f.slamming_force);
            Largest(ref report, "air", f.air_force);
            Largest(ref report, "damping", f.damping_force);
            if (report.InWater) report.Draft = MeasureDraft();
            return report;
        }

        private static void Largest(ref KeelBodyReport report, string name, KeelVec3 force)
        {
            Vector3 v = force.ToUnity();
            if (v.sqrMagnitude > report.LargestForce.sqrMagnitude) { report.LargestForce = v; report.LargestForceName = name; }
        }

        /// <summary>The deepest hull vertex under the native surface above it, m.</summary>
        private float MeasureDraft()
        {
            MeshFilter filter = hullMesh != null ? hullMesh : GetComponent<MeshFilter>();
            Mesh mesh = filter != null ? filter.sharedMesh : null;
            if (mesh == null) return 0f;
            if (m_ReportMesh != mesh) { m_ReportVertices = mesh.vertices; m_ReportMesh = mesh; }
            int n = m_ReportVertices.Length;
            if (m_ReportPoints.Length < n) { m_ReportPoints = new KeelVec3[n]; m_ReportHeights = new float[n]; }
            Transform t = filter.transform;
            for (int i = 0; i < n; i++) m_ReportPoints[i] = t.TransformPoint(m_ReportVertices[i]).ToKeel();
            KeelRuntime.SyncTime();
            fixed (KeelVec3* p = m_ReportPoints)
            fixed (float* h = m_ReportHeights)
                if (KeelNative.keel_water_sample(m_World, p, (uint)n, h, null, null) != KeelStatus.KEEL_OK) return 0f;
            float draft = 0f;
            for (int i = 0; i < n; i++) draft = Mathf.Max(draft, m_ReportHeights[i] - m_ReportPoints[i].y);
            return draft;
        }

        /// <summary>
        /// The hull's volume and closedness from the engine (a short-lived native world, so it
        /// works in edit mode) and the water the Rigidbody's mass displaces. Meant for the
        /// inspector: it builds the hull each call, so cache the result.
        /// </summary>
        public KeelHullReport InspectHull()
        {
            var report = new KeelHullReport();
            MeshFilter filter = hullMesh != null ? hullMesh : GetComponent<MeshFilter>();
            Mesh mesh = filter != null ? filter.sharedMesh : null;
            Rigidbody rb = GetComponent<Rigidbody>();
            if (rb != null) report.Displacement = rb.mass / Mathf.Max(rhoWater, 1e-3f);
            if (mesh == null) { report.Problem = "No MeshFilter with a mesh: the body gets no buoyancy."; return report; }
            if (!mesh.isReadable) { report.Problem = "The mesh is not readable: enable Read/Write in its import settings."; return report; }
            int[] triangles = mesh.triangles;
            if (triangles.Length < 3) { report.Problem = "The mesh has no triangles."; return report; }
            KeelVec3[] local = BodyLocalVertices(filter, mesh);
            ulong world;
            try
            {
                // First, so that a missing library is a message in the inspector, not an
                // exception out of the editor's GUI.
                KeelLibrary.EnsureCompatible();
                KeelWorldDesc worldDesc;
                KeelNative.keel_world_desc_default(&worldDesc);
                worldDesc.thread_count = 1;
                KeelLibrary.Check(KeelNative.keel_world_create(&worldDesc, &world));
            }
            catch (KeelException e) { report.Problem = e.Message; return report; }
            try
            {
                KeelHullInfo info;
                ulong hull;
                KeelStatus status;
                fixed (KeelVec3* v = local)
                fixed (int* idx = triangles)
                {
                    var desc = new KeelHullDesc { vertices = v, vertex_count = (uint)local.Length, indices = (uint*)idx, index_count = (uint)triangles.Length };
                    status = KeelNative.keel_hull_create(world, ref desc, &hull);
                }
                if (status != KeelStatus.KEEL_OK) { report.Problem = "The mesh is refused: " + KeelLibrary.LastErrorMessage(); return report; }
                KeelLibrary.Check(KeelNative.keel_hull_get_info(world, hull, out info));
                report.Valid = true;
                report.Closed = info.is_closed;
                report.Volume = info.volume;
                report.Triangles = (int)info.triangle_count;
                report.CanFloat = info.is_closed && report.Displacement < info.volume;
                if (!info.is_closed)
                    report.Problem = "The hull is open (some edge has no neighbour): buoyancy is taken on its wetted faces only, and the Volume and AreaRatio models are wrong.";
                else if (!report.CanFloat)
                    report.Problem = string.Format("The mass displaces {0:F3} m^3 of water but the hull holds {1:F3} m^3: it sinks. Lower the mass below {2:F0} kg.",
                        report.Displacement, info.volume, info.volume * rhoWater);
                return report;
            }
            catch (KeelException e) { report.Valid = false; report.Problem = e.Message; return report; }
            finally
            {
                KeelNative.keel_world_destroy(world);
            }
        }
    }
}
