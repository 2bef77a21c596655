// Crest 5 (the com.waveharmonic.crest package; compiled where it is installed, by versionDefines) as Keel's water: each batch of points Keel asks for is one Crest query of heights,
// normals and surface velocities, plus one flow query whose flow (Crest's currents) is added
// to the velocities, so Keel's drag carries bodies along with it. Crest answers queries
// asynchronously (GPU readback): until its first results arrive the surface is taken flat
// at the sea level, as Crest's own fallback does.
// SPDX-License-Identifier: MIT OR Apache-2.0
using System;
using System.Collections.Generic;
using WaveHarmonic.Crest;
using UnityEngine;

namespace Keel.Water
{
    [DisallowMultipleComponent]
    [AddComponentMenu("Keel/Water/Crest 5 Ocean")]
    public sealed class KeelCrest5Water : MonoBehaviour, IKeelWaterSource
    {
        [Tooltip("Smallest wavelength that matters to the bodies, m (Crest's minimum spatial length; 0: all detail).")]
        [Min(0f)] public float minimumLength = 0f;
        [Tooltip("Add Crest's flow (its currents) to the water velocity Keel's drag sees.")]
        public bool useFlow = true;

        private readonly Dictionary<int, KeelQueryBuffers> m_Buffers = new Dictionary<int, KeelQueryBuffers>();
        private int m_Hash;

        private void OnEnable()
        {
            // Crest keys its result slots by this id: one stable id per adapter.
            m_Hash = GetInstanceID();
            KeelRuntime.SetWaterSource(this);
        }

        private void OnDisable() { if (ReferenceEquals(KeelRuntime.WaterSource, this)) KeelRuntime.SetWaterSource(null); }

        public void SampleWater(Vector3[] points, int count, float[] heights, Vector3[] normals, Vector3[] velocities)
        {
            WaterRenderer water = WaterRenderer.Instance;
            if (water == null) throw new InvalidOperationException("KeelCrest5Water on '" + name + "': there is no enabled WaterRenderer in the scene.");
            KeelQueryBuffers b = KeelQueryBuffers.For(m_Buffers, count);
            Array.Copy(points, b.Points, count);
            // A provider can be missing (collision or flow turned off in Crest's settings).
            ICollisionProvider collision = (water.AnimatedWavesLod != null ? water.AnimatedWavesLod.Provider : null);
            IFlowProvider flows = (water.FlowLod != null ? water.FlowLod.Provider : null);
            bool ready = collision != null && collision.RetrieveSucceeded(collision.Query(m_Hash, minimumLength, b.Points, b.Heights,
                normals != null ? b.Normals : null, velocities != null ? b.Velocities : null));
            bool flow = ready && velocities != null && useFlow && flows != null
                && flows.RetrieveSucceeded(flows.Query(m_Hash, minimumLength, b.Points, b.Flows));
            float level = water.SeaLevel;
            for (int i = 0; i < count; i++)
            {
                heights[i] = ready ? b.Heights[i] : level;
                if (normals != null) normals[i] = ready ? b.Normals[i] : Vector3.up;
                if (velocities != null) velocities[i] = !ready ? Vector3.zero : flow ? b.Velocities[i] + b.Flows[i] : b.Velocities[i];
            }
        }
    }
}
