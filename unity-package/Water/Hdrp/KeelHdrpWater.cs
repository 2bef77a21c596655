// HDRP's water (WaterSurface) as Keel's water: every batch of points Keel asks for is
// answered by HDRP's CPU water simulation, in one WaterSimulationSearchJob (HDRP 15+,
// Unity 2023.1 and 6) or point by point (ProjectPointOnWaterSurface on 15+,
// FindWaterSurfaceHeight on 14, Unity 2022.3). Compiled only where HDRP is installed
// (versionDefines on its package name). Needs Script Interactions on the surface and in the
// HDRP asset. Normals come from two extra points per point (HDRP's query gives heights),
// and HDRP 15+ gives the current's direction at each point, which Keel's drag then feels.
// SPDX-License-Identifier: MIT OR Apache-2.0
using System;
using Unity.Collections;
using Unity.Jobs;
using Unity.Mathematics;
using UnityEngine;
using UnityEngine.Rendering.HighDefinition;

namespace Keel.Water
{
    [DisallowMultipleComponent]
    [AddComponentMenu("Keel/Water/HDRP Water Surface")]
    public sealed class KeelHdrpWater : MonoBehaviour, IKeelWaterSource
    {
        [Tooltip("The HDRP WaterSurface bodies float on (Script Interactions enabled).")]
        public WaterSurface surface;
        [Tooltip("Search iterations per point (HDRP's maxIterations; its samples use 8).")]
        [Range(1, 32)] public int maxIterations = 8;
        [Tooltip("Horizontal error at which the search stops, m.")]
        [Min(1e-5f)] public float error = 0.01f;
        [Tooltip("Include the surface's deformers (HDRP 15+).")]
        public bool includeDeformation = true;
        [Tooltip("Spacing of the two extra points each normal is taken from, m.")]
        [Min(0.001f)] public float normalSpacing = 0.1f;
        [Tooltip("Current speed along HDRP's current direction, m/s (HDRP's query gives the direction, not the speed; 0: none). HDRP 15+.")]
        [Min(0f)] public float currentSpeed = 0f;
        [Tooltip("Answer each batch with one WaterSimulationSearchJob (HDRP 15+); off: point by point.")]
        public bool batched = true;

        private Vector3[] m_Points = new Vector3[0];
        private float[] m_Heights = new float[0];
        private Vector3[] m_Currents = new Vector3[0];
#if KEEL_HDRP_15_OR_NEWER
        private NativeArray<float3> m_Target, m_Projected, m_Candidate, m_Direction;
        private NativeArray<float> m_Error;
        private NativeArray<int> m_Steps;
#endif

        private void OnEnable() { KeelRuntime.SetWaterSource(this); }

        private void OnDisable()
        {
            if (ReferenceEquals(KeelRuntime.WaterSource, this)) KeelRuntime.SetWaterSource(null);
#if KEEL_HDRP_15_OR_NEWER
            DisposeBuffers();
#endif
        }

        public void SampleWater(Vector3[] points, int count, float[] heights, Vector3[] normals, Vector3[] velocities)
        {
            if (surface == null) throw new InvalidOperationException("KeelHdrpWater on '" + name + "': assign its WaterSurface.");
            // With normals, each point brings two neighbours: +x and +z by normalSpacing.
            int per = normals != null ? 3 : 1;
            int n = count * per;
            if (m_Points.Length < n) { m_Points = new Vector3[n]; m_Heights = new float[n]; m_Currents = new Vector3[n]; }
            for (int i = 0; i < count; i++)
            {
                Vector3 p = points[i];
                m_Points[i * per] = p;
                if (per == 3)
                {
                    m_Points[i * per + 1] = new Vector3(p.x + normalSpacing, p.y, p.z);
                    m_Points[i * per + 2] = new Vector3(p.x, p.y, p.z + normalSpacing);
                }
            }
#if KEEL_HDRP_15_OR_NEWER
            if (batched) QueryBatch(n);
            else
#endif
                QueryEach(n);
            for (int i = 0; i < count; i++)
            {
                float h = m_Heights[i * per];
                heights[i] = h;
                if (normals != null)
                {
                    // The plane through the point and its two neighbours: n = (-dh/dx, 1, -dh/dz).
                    float dx = (m_Heights[i * per + 1] - h) / normalSpacing, dz = (m_Heights[i * per + 2] - h) / normalSpacing;
                    normals[i] = new Vector3(-dx, 1f, -dz).normalized;
                }
                if (velocities != null) velocities[i] = m_Currents[i * per] * currentSpeed;
            }
        }

        private void QueryEach(int n)
        {
            var search = new WaterSearchParameters { error = error, maxIterations = maxIterations };
            for (int i = 0; i < n; i++)
            {
                WaterSearchResult result;
#if KEEL_HDRP_15_OR_NEWER
                search.startPositionWS = m_Points[i];
                search.targetPositionWS = m_Points[i];
                search.includeDeformation = includeDeformation;
                if (!surface.ProjectPointOnWaterSurface(search, out result)) throw Refused();
                m_Heights[i] = result.projectedPositionWS.y;
                m_Currents[i] = result.currentDirectionWS;
#else
                search.startPosition = m_Points[i];
                search.targetPosition = m_Points[i];
                if (!surface.FindWaterSurfaceHeight(search, out result)) throw Refused();
                m_Heights[i] = result.height;
                m_Currents[i] = Vector3.zero;
#endif
            }
        }

        private Exception Refused()
        {
            return new InvalidOperationException("the WaterSurface '" + surface.name + "' answered no height: enable Script Interactions on it and in the HDRP asset.");
        }

#if KEEL_HDRP_15_OR_NEWER
        private void QueryBatch(int n)
        {
            var data = new WaterSimSearchData();
            if (!surface.FillWaterSearchData(ref data)) throw Refused();
            if (m_Target.Length < n)
            {
                int size = Mathf.Max(n, 2 * m_Target.Length);
                DisposeBuffers();
                m_Target = new NativeArray<float3>(size, Allocator.Persistent);
                m_Projected = new NativeArray<float3>(size, Allocator.Persistent);
                m_Candidate = new NativeArray<float3>(size, Allocator.Persistent);
                m_Direction = new NativeArray<float3>(size, Allocator.Persistent);
                m_Error = new NativeArray<float>(size, Allocator.Persistent);
                m_Steps = new NativeArray<int>(size, Allocator.Persistent);
            }
            for (int i = 0; i < n; i++) m_Target[i] = m_Points[i];
            var job = new WaterSimulationSearchJob
            {
                simSearchData = data,
                startPositionWSBuffer = m_Target,
                targetPositionWSBuffer = m_Target,
                maxIterations = maxIterations,
                error = error,
                includeDeformation = includeDeformation,
                excludeSimulation = false,
                projectedPositionWSBuffer = m_Projected,
                candidateLocationWSBuffer = m_Candidate,
                directionBuffer = m_Direction,
                errorBuffer = m_Error,
                stepCountBuffer = m_Steps,
            };
            // Keel asks from inside its step, on the thread of FixedUpdate: complete at once.
            job.Schedule(n, 64).Complete();
            for (int i = 0; i < n; i++) { m_Heights[i] = m_Projected[i].y; m_Currents[i] = m_Direction[i]; }
        }

        private void DisposeBuffers()
        {
            if (!m_Target.IsCreated) return;
            m_Target.Dispose(); m_Projected.Dispose(); m_Candidate.Dispose();
            m_Direction.Dispose(); m_Error.Dispose(); m_Steps.Dispose();
        }
#endif
    }
}
