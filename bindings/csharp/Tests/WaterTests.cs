// The thesis's water components against the native water function.
// SPDX-License-Identifier: MIT OR Apache-2.0
using System;
using Keel;
using Keel.Native;
using NUnit.Framework;
using UnityEngine;

namespace Keel.Tests
{
    [TestFixture]
    public unsafe class WaterTests : SceneTest
    {
        /// The Perlin surface under (x, z) at time t, from a world of its own.
        private static float NativePerlin(WaveController w, float x, float z, float t)
        {
            ulong world;
            KeelWorldDesc worldDesc;
            KeelNative.keel_world_desc_default(&worldDesc);
            KeelLibrary.Check(KeelNative.keel_world_create(&worldDesc, &world));
            try
            {
                var desc = new KeelPerlinWaterDesc();
                KeelNative.keel_perlin_water_desc_default(ref desc);
                desc.level = w.waterLevel;
                desc.perlin_scale = w.perlinScale;
                desc.wave_speed = w.waveSpeed;
                desc.wave_height = w.waveHeight;
                desc.only_x = w.onlyX;
                KeelLibrary.Check(KeelNative.keel_water_set_perlin(world, ref desc));
                KeelLibrary.Check(KeelNative.keel_world_set_time(world, t));
                var p = new KeelVec3 { x = x, y = 0f, z = z };
                float h;
                KeelLibrary.Check(KeelNative.keel_water_sample(world, &p, 1, &h, null, null));
                return h;
            }
            finally
            {
                KeelNative.keel_world_destroy(world);
            }
        }

        [Test]
        public void GenerateWaveHeightsMatchTheNativeFunctionAtEveryVertex()
        {
            WaveController waves = Water(KeelWaterModel.Perlin);
            GameObject sea = GameObject.CreatePrimitive(PrimitiveType.Plane);
            sea.transform.position = new Vector3(3f, 0f, -2f);
            sea.transform.localScale = new Vector3(2f, 1f, 2f);
            sea.AddComponent<GenerateWave>();
            StandInPlayerLoop.Run(1.5f);

            Vector3[] vertices = sea.GetComponent<MeshFilter>().mesh.vertices;
            Assert.AreEqual(121, vertices.Length);
            float t = Time.timeSinceLevelLoad, spread = 0f;
            foreach (Vector3 v in vertices)
            {
                Vector3 world = sea.transform.TransformPoint(v);
                float expected = NativePerlin(waves, world.x, world.z, t);
                Assert.That(world.y, Is.EqualTo(expected).Within(1e-4f), "vertex at " + world);
                spread = Mathf.Max(spread, Mathf.Abs(expected));
            }
            Assert.That(spread, Is.GreaterThan(0.05f), "the surface is flat: the comparison proves nothing");
        }

        [Test]
        public void GetWaveYPosIsTheNativeSurfaceAtTimeSinceLevelLoad()
        {
            WaveController waves = Water(KeelWaterModel.Perlin);
            waves.onlyX = true;
            waves.Apply();
            StandInPlayerLoop.Run(0.7f);
            float t = Time.timeSinceLevelLoad;
            Assert.That(t, Is.GreaterThan(0.5f));
            for (int i = 0; i < 10; i++)
            {
                float x = i * 3.7f - 12f, z = 5f - i * 1.3f;
                Assert.That(waves.GetWaveYPos(x, z), Is.EqualTo(NativePerlin(waves, x, z, t)).Within(1e-5f));
            }
        }

        [Test]
        public void ChapterThreeCubeStaysOnThePerlinSurface()
        {
            WaveController waves = Water(KeelWaterModel.Perlin);
            GameObject cube = GameObject.CreatePrimitive(PrimitiveType.Cube);
            cube.transform.position = new Vector3(4f, 2f, 7f);
            var buoyancy = cube.AddComponent<Buoyancy>();

            // SmoothDamp lags a surface moving at speed v by about v * smoothTime, so the
            // bound is the surface's own fastest vertical speed under the cube.
            float maxRate = 0f, maxError = 0f, previous = float.NaN;
            StandInPlayerLoop.Run(2f);
            for (int i = 0; i < 500; i++)
            {
                StandInPlayerLoop.Step(1);
                Vector3 p = cube.transform.position;
                float h = waves.GetWaveYPos(p.x, p.z);
                if (!float.IsNaN(previous)) maxRate = Mathf.Max(maxRate, Mathf.Abs(h - previous) / Time.deltaTime);
                previous = h;
                maxError = Mathf.Max(maxError, Mathf.Abs(p.y - h));
                Assert.That(Vector3.Angle(buoyancy.SurfaceNormal, Vector3.up), Is.LessThan(45f));
            }
            Console.WriteLine("chapter-3 cube: max |y - surface| {0:F3} m, surface speed up to {1:F3} m/s", maxError, maxRate);
            Assert.That(maxRate, Is.GreaterThan(0.05f), "the surface does not move: nothing tested");
            Assert.That(maxError, Is.LessThan(1.5f * maxRate * buoyancy.smoothTime + 0.01f));
        }

        [Test]
        public void ChapterThreeCubeTiltsWithTheSurfaceNormal()
        {
            WaveController waves = Water(KeelWaterModel.Gerstner);
            waves.gerstnerWaves = new[] { new GerstnerWave { amplitude = 0.5f, wavelength = 10f, direction = new Vector2(1f, 0f), steepness = 0f } };
            waves.Apply();
            GameObject cube = GameObject.CreatePrimitive(PrimitiveType.Cube);
            var buoyancy = cube.AddComponent<Buoyancy>();
            float maxTilt = 0f;
            for (int i = 0; i < 300; i++)
            {
                StandInPlayerLoop.Step(1);
                maxTilt = Mathf.Max(maxTilt, Vector3.Angle(buoyancy.SurfaceNormal, Vector3.up));
            }
            // A sine of slope A k has a steepest tilt of atan(A k) = 17.4 deg; the two
            // triangles' 0.5 m chords see a little less.
            float steepest = Mathf.Atan(0.5f * 2f * Mathf.PI / 10f) * Mathf.Rad2Deg;
            Assert.That(maxTilt, Is.GreaterThan(0.8f * steepest).And.LessThan(1.05f * steepest));
        }

        [Test]
        public void ChapterThreeCubeTiltsToTheNativeNormalUnderIt()
        {
            // A sine wave A sin(k x - w t): its unit normal is (-A k cos, 1, 0) normalised. With
            // no sampling distance the cube's up axis is the native normal under its centre.
            WaveController waves = Water(KeelWaterModel.Gerstner);
            const float amplitude = 0.5f, wavelength = 10f;
            waves.gerstnerWaves = new[] { new GerstnerWave { amplitude = amplitude, wavelength = wavelength, direction = new Vector2(1f, 0f), steepness = 0f } };
            waves.Apply();
            GameObject cube = GameObject.CreatePrimitive(PrimitiveType.Cube);
            cube.transform.position = new Vector3(1.3f, 0f, 0f);
            var buoyancy = cube.AddComponent<Buoyancy>();
            buoyancy.tiltSampleDistance = 0f;
            float k = 2f * Mathf.PI / wavelength, worst = 0f, steepest = 0f;
            var point = new[] { new KeelVec3 { x = 1.3f } };
            var height = new float[1];
            var normal = new KeelVec3[1];
            for (int i = 0; i < 200; i++)
            {
                StandInPlayerLoop.Step(1);
                waves.SampleWater(point, height, normal, null, 1);
                Vector3 n = V(normal[0]);
                // The analytic slope's bound: |n.x / n.y| <= A k everywhere.
                Assert.That(Mathf.Abs(n.x / n.y), Is.LessThanOrEqualTo(amplitude * k * 1.001f));
                worst = Mathf.Max(worst, Vector3.Angle(buoyancy.SurfaceNormal, n));
                steepest = Mathf.Max(steepest, Vector3.Angle(n, Vector3.up));
            }
            Assert.That(steepest, Is.GreaterThan(0.9f * Mathf.Atan(amplitude * k) * Mathf.Rad2Deg), "the sampled surface never tilts");
            Assert.That(worst, Is.LessThan(0.05f), "degrees between the cube's up axis and the water normal");
        }

        [Test]
        public void WaveControllerLeavesTheUsersTagAlone()
        {
            var go = new GameObject("Sea");
            go.tag = "Player";
            var untagged = new GameObject("Other sea");
            var waves = go.AddComponent<WaveController>();
            untagged.AddComponent<WaveController>().enabled = false;
            StandInPlayerLoop.Step(2);
            Assert.AreEqual("Player", go.tag);
            Assert.AreEqual("Untagged", untagged.tag);
            Assert.AreSame(waves, WaveController.Active, "the enabled controller is the scene's water");
            GameObject cube = GameObject.CreatePrimitive(PrimitiveType.Cube);
            cube.AddComponent<Buoyancy>();
            StandInPlayerLoop.Step(2);
            Assert.AreEqual(0, Debug.StandInErrors.Count, string.Join("\n", Debug.StandInErrors.ToArray()));
        }

        private sealed class Pond : IKeelWaterSource
        {
            public float Level;
            public int Calls;
            public bool Throw;
            public void SampleWater(Vector3[] points, int count, float[] heights, Vector3[] normals, Vector3[] velocities)
            {
                Calls++;
                if (Throw) throw new InvalidOperationException("broken ocean");
                for (int i = 0; i < count; i++)
                {
                    heights[i] = Level;
                    if (normals != null) normals[i] = Vector3.up;
                    if (velocities != null) velocities[i] = Vector3.zero;
                }
            }
        }

        [Test]
        public void WaterSourceInterfaceCarriesTheRaft()
        {
            var pond = new Pond { Level = 1.5f };
            KeelRuntime.SetWaterSource(pond);
            PhysicsBuoyancy raft = Box("Raft", new Vector3(2f, 0.5f, 2f), 1000f, new Vector3(0f, 1.8f, 0f));
            StandInPlayerLoop.Run(15f);
            float draft = 1000f / (RhoWater * 4f);
            Assert.That(pond.Level - (raft.transform.position.y - 0.25f), Is.EqualTo(draft).Within(0.005f));
            Assert.That(pond.Calls, Is.GreaterThan(100));
        }

        [Test]
        public void ThrowingWaterSourceLogsOnceAndNeverCrashes()
        {
            var pond = new Pond { Throw = true };
            KeelRuntime.SetWaterSource(pond);
            PhysicsBuoyancy raft = Box("Raft", new Vector3(2f, 0.5f, 2f), 1000f, new Vector3(0f, 0.3f, 0f));
            StandInPlayerLoop.Run(1f);
            Assert.That(pond.Calls, Is.GreaterThan(10));
            Assert.That(raft.LastForces.force.y, Is.EqualTo(0f), "a failed step applied a force");
            int sourceErrors = 0, bodyErrors = 0;
            foreach (string e in Debug.StandInErrors)
            {
                if (e.Contains("IKeelWaterSource")) sourceErrors++;
                if (e.Contains("'Raft'")) bodyErrors++;
            }
            Assert.AreEqual(1, sourceErrors, string.Join("\n", Debug.StandInErrors.ToArray()));
            Assert.AreEqual(1, bodyErrors, string.Join("\n", Debug.StandInErrors.ToArray()));
            pond.Throw = false;
            pond.Level = 0f;
            raft.ResetFailure();
            StandInPlayerLoop.Run(1f);
            Assert.That(raft.LastForces.force.y, Is.GreaterThan(0f), "the body does not recover");
        }
    }
}
