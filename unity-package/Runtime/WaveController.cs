// The thesis's wave controller (function 2.2): the water every Keel body floats in.
// Heights come from the native library, so what GenerateWave shows is what bodies feel.
// SPDX-License-Identifier: MIT OR Apache-2.0
using System;
using Keel.Native;
using UnityEngine;

namespace Keel
{
    /// <summary>Which water the WaveController makes.</summary>
    public enum KeelWaterModel
    {
        Flat = 0,
        /// <summary>The thesis's Perlin waves (function 2.2).</summary>
        Perlin = 1,
        /// <summary>A sum of Gerstner (trochoidal) waves.</summary>
        Gerstner = 2,
        /// <summary>Gerstner waves drawn from a wind-sea spectrum.</summary>
        Spectrum = 3,
    }

    /// <summary>The wave spectrum of <see cref="KeelWaterModel.Spectrum"/>.</summary>
    public enum KeelSpectrumType { PiersonMoskowitz = 0, Jonswap = 1 }

    /// <summary>One Gerstner wave, as the inspector edits it.</summary>
    [Serializable]
    public struct GerstnerWave
    {
        [Tooltip("Crest height above the mean level, m.")] public float amplitude;
        [Tooltip("Crest to crest, m (> 0).")] public float wavelength;
        [Tooltip("Horizontal travel direction (x, z); normalised.")] public Vector2 direction;
        [Tooltip("Q: 0 = sine wave, 1 = sharpest crest, 2 pi amplitude / wavelength = the sea's own trochoid. It shapes the crests, not how far the water moves. Keep the sum over waves below 1.")]
        [Range(0f, 1f)] public float steepness;
        [Tooltip("Phase, radians.")] public float phase;
    }

    /// <summary>
    /// The scene's water (thesis function 2.2). Buoyancy and GenerateWave use the one that is
    /// enabled (<see cref="Active"/>) unless given another; the GameObject's tag is the
    /// user's and is never changed (the thesis tagged it GameController to find it).
    /// </summary>
    [DisallowMultipleComponent]
    [AddComponentMenu("Keel/Wave Controller")]
    public sealed unsafe class WaveController : MonoBehaviour
    {
        [Tooltip("Which water: flat, the thesis's Perlin waves, Gerstner waves or a wind-sea spectrum.")]
        public KeelWaterModel waterModel = KeelWaterModel.Perlin;
        [Tooltip("Mean water height, m.")]
        public float waterLevel = 0f;

        [Header("Perlin (thesis function 2.2)")]
        [Tooltip("perlinScale: how many noise cells per metre; smaller = longer waves.")]
        public float perlinScale = 0.1f;
        [Tooltip("wavespeed: how fast the noise scrolls, noise units per second.")]
        public float waveSpeed = 0.5f;
        [Tooltip("waveHeight: trough to crest of the main octave, m.")]
        public float waveHeight = 1.0f;
        [Tooltip("onlyX: the thesis's swell that varies mostly along one axis.")]
        public bool onlyX = false;

        [Header("Gerstner")]
        public GerstnerWave[] gerstnerWaves = new GerstnerWave[]
        {
            new GerstnerWave { amplitude = 0.5f, wavelength = 20f, direction = new Vector2(1f, 0f), steepness = 0.3f },
            new GerstnerWave { amplitude = 0.2f, wavelength = 8f, direction = new Vector2(0.6f, 0.8f), steepness = 0.2f, phase = 1f },
        };

        [Header("Spectrum")]
        public KeelSpectrumType spectrum = KeelSpectrumType.PiersonMoskowitz;
        [Tooltip("Wind speed, m/s: 5 gives 0.5 m significant wave height (sea state 3), 10 gives 2.1 m.")]
        [Min(0.01f)] public float windSpeed = 5f;
        [Tooltip("Direction the wind blows towards (x, z).")]
        public Vector2 windDirection = new Vector2(1f, 0f);
        [Tooltip("Number of Gerstner waves drawn from the spectrum (1 to 256).")]
        [Range(1, 256)] public int waveCount = 32;
        [Tooltip("Random seed of the drawn waves.")]
        public int seed = 1;

        private readonly KeelVec3[] m_Point = new KeelVec3[1];
        private readonly float[] m_Height = new float[1];
        private KeelGerstnerWave[] m_Waves = new KeelGerstnerWave[0];

        /// <summary>
        /// The WaveController the package's worlds use now (the last one enabled), or else any
        /// in the scene; null when there is none.
        /// </summary>
        public static WaveController Active
        {
            get
            {
                WaveController waves = KeelRuntime.Waves;
                return waves != null ? waves : FindObjectOfType<WaveController>();
            }
        }

        private void OnEnable() { KeelRuntime.SetWaveController(this); }

        private void OnDisable()
        {
            if (KeelRuntime.Waves == this) KeelRuntime.SetWaveController(null);
        }

        private void OnValidate()
        {
            if (isActiveAndEnabled && KeelRuntime.Waves == this) KeelRuntime.SetWaveController(this);
        }

        /// <summary>Re-sends the settings after changing fields from a script.</summary>
        public void Apply() { if (KeelRuntime.Waves == this) KeelRuntime.SetWaveController(this); }

        internal void ApplyTo(ulong world)
        {
            switch (waterModel)
            {
                case KeelWaterModel.Flat:
                    KeelLibrary.Check(KeelNative.keel_water_set_flat(world, waterLevel));
                    break;
                case KeelWaterModel.Perlin:
                    var desc = new KeelPerlinWaterDesc();
                    KeelNative.keel_perlin_water_desc_default(ref desc);
                    desc.level = waterLevel;
                    desc.perlin_scale = perlinScale;
                    desc.wave_speed = waveSpeed;
                    desc.wave_height = waveHeight;
                    desc.only_x = onlyX;
                    KeelLibrary.Check(KeelNative.keel_water_set_perlin(world, ref desc));
                    break;
                case KeelWaterModel.Gerstner:
                    if (m_Waves.Length != gerstnerWaves.Length) m_Waves = new KeelGerstnerWave[gerstnerWaves.Length];
                    for (int i = 0; i < gerstnerWaves.Length; i++)
                    {
                        GerstnerWave w = gerstnerWaves[i];
                        m_Waves[i] = new KeelGerstnerWave
                        {
                            amplitude = w.amplitude, wavelength = w.wavelength, direction_x = w.direction.x,
                            direction_z = w.direction.y, steepness = w.steepness, phase = w.phase,
                        };
                    }
                    fixed (KeelGerstnerWave* waves = m_Waves)
                        KeelLibrary.Check(KeelNative.keel_water_set_gerstner(world, waves, (uint)m_Waves.Length, waterLevel));
                    break;
                case KeelWaterModel.Spectrum:
                    KeelLibrary.Check(KeelNative.keel_water_set_spectrum(world, (uint)spectrum, windSpeed, windDirection.x,
                        windDirection.y, (uint)waveCount, (ulong)seed));
                    break;
            }
        }

        /// <summary>The surface height under (x, z) now (thesis function 2.2).</summary>
        public float GetWaveYPos(float x_coord, float z_coord)
        {
            m_Point[0] = new KeelVec3 { x = x_coord, y = 0f, z = z_coord };
            GetWaveYPos(m_Point, m_Height, 1);
            return m_Height[0];
        }

        /// <summary>Heights under the first <paramref name="count"/> points, in one native call.</summary>
        public void GetWaveYPos(KeelVec3[] points, float[] heights, int count)
        {
            if (count > points.Length || count > heights.Length) throw new ArgumentException("count exceeds the arrays");
            ulong world = KeelRuntime.GetWorld(KeelRuntime.DefaultWaterDensity);
            KeelRuntime.SyncTime();
            fixed (KeelVec3* p = points)
            fixed (float* h = heights)
                KeelLibrary.Check(KeelNative.keel_water_sample(world, p, (uint)count, h, null, null));
        }

        /// <summary>Heights, normals and water velocities at once; normals/velocities may be null.</summary>
        public void SampleWater(KeelVec3[] points, float[] heights, KeelVec3[] normals, KeelVec3[] velocities, int count)
        {
            ulong world = KeelRuntime.GetWorld(KeelRuntime.DefaultWaterDensity);
            KeelRuntime.SyncTime();
            fixed (KeelVec3* p = points)
            fixed (float* h = heights)
            fixed (KeelVec3* n = normals)
            fixed (KeelVec3* v = velocities)
                KeelLibrary.Check(KeelNative.keel_water_sample(world, p, (uint)count, h, n, v));
        }
    }
}
