// The HDRP and Crest water adapters against stand-ins of those packages written from their
// public APIs: the answers are the stand-ins' analytic swell (heights exactly, normals to
// the finite difference's accuracy), currents and flow reach Keel and carry a raft along,
// failures are one clear error, and nothing is allocated or leaked once warm.
// SPDX-License-Identifier: MIT OR Apache-2.0
using System;
using System.IO;
using System.Text.RegularExpressions;
using Keel.Water;
using NUnit.Framework;
using Unity.Collections;
using UnityEngine;
using UnityEngine.Rendering.HighDefinition;

namespace Keel.Tests
{
    [TestFixture]
    public class WaterAdapterTests : SceneTest
    {
        private static readonly Vector3[] Probe = { new Vector3(0f, 0f, 0f), new Vector3(3.3f, 0f, -1f), new Vector3(-7.1f, 0f, 4f), new Vector3(12.5f, 0f, 2f) };

        /// A sine swell A sin(k x - w t) has the unit normal (-A k cos, 1, 0) normalised.
        private static Vector3 SineNormal(float amplitude, float wavelength, float x)
        {
            float k = 2f * Mathf.PI / wavelength, omega = Mathf.Sqrt(9.81f * k);
            return new Vector3(-amplitude * k * Mathf.Cos(k * x - omega * Time.timeSinceLevelLoad), 1f, 0f).normalized;
        }

        /// The quick start's raft (2 x 0.5 x 2 m, 1000 kg), just above the water.
        private static PhysicsBuoyancy Raft()
        {
            return Box("Raft", new Vector3(2f, 0.5f, 2f), 1000f, new Vector3(0f, 0.2f, 0f));
        }

        private static WaterSurface Surface()
        {
            var surface = new GameObject("Ocean").AddComponent<WaterSurface>();
            surface.StandInAmplitude = 0.3f;
            surface.StandInWavelength = 20f;
            return surface;
        }

        [Test]
        public void HdrpBatchedAnswersTheSurfaceAndItsCurrentCarriesTheRaft() { HdrpCarriesTheRaft(true); }

        [Test]
        public void HdrpPointByPointAnswersTheSurfaceAndItsCurrentCarriesTheRaft() { HdrpCarriesTheRaft(false); }

        private static void HdrpCarriesTheRaft(bool batched)
        {
            WaterSurface surface = Surface();
            var adapter = new GameObject("Keel water").AddComponent<KeelHdrpWater>();
            adapter.surface = surface;
            adapter.batched = batched;
            adapter.currentSpeed = 0.5f;
            StandInPlayerLoop.Step(7);

            var heights = new float[Probe.Length];
            var normals = new Vector3[Probe.Length];
            var velocities = new Vector3[Probe.Length];
            adapter.SampleWater(Probe, Probe.Length, heights, normals, velocities);
            for (int i = 0; i < Probe.Length; i++)
            {
                Assert.That(heights[i], Is.EqualTo(surface.StandInHeight(Probe[i].x)).Within(1e-6f), "height at " + Probe[i]);
                // Forward differences over 0.1 m on a 20 m swell: within a degree.
                Assert.That(Vector3.Angle(normals[i], SineNormal(0.3f, 20f, Probe[i].x)), Is.LessThan(1f), "normal at " + Probe[i]);
                Assert.That((velocities[i] - new Vector3(0.5f, 0f, 0f)).magnitude, Is.LessThan(1e-6f), "current at " + Probe[i]);
            }

            PhysicsBuoyancy raft = Raft();
            StandInPlayerLoop.Run(20f);
            Vector3 p = raft.transform.position;
            Console.WriteLine("HDRP ({0}): raft at {1}, {2} queries", batched ? "batched" : "point by point", p, surface.StandInQueries);
            Assert.That(Mathf.Abs(p.y - surface.StandInHeight(p.x)), Is.LessThan(0.5f), "the raft left the surface");
            // Drag carries the raft towards the current's 0.5 m/s: 10 m in 20 s once up to
            // speed (the swell rocks it back and forth meanwhile).
            Assert.That(p.x / 20f, Is.EqualTo(0.5f).Within(0.15f), "the raft does not drift with the current");
            Assert.AreEqual(0, Debug.StandInErrors.Count, string.Join("\n", Debug.StandInErrors.ToArray()));

            UnityEngine.Object.DestroyImmediate(adapter.gameObject);
            Assert.AreEqual(0, NativeArray<float>.StandInLive + NativeArray<Unity.Mathematics.float3>.StandInLive + NativeArray<int>.StandInLive,
                "the adapter leaked NativeArrays");
        }

        [Test]
        public void HdrpWithoutScriptInteractionsSaysSoOnceAndNeverCrashes()
        {
            WaterSurface surface = Surface();
            surface.scriptInteractions = false;
            new GameObject("Keel water").AddComponent<KeelHdrpWater>().surface = surface;
            Raft();
            StandInPlayerLoop.Run(1f);
            // 50 failed steps: one error from the water and one from the body, not one per step.
            Assert.AreEqual(2, Debug.StandInErrors.Count, string.Join("\n", Debug.StandInErrors.ToArray()));
            StringAssert.Contains("enable Script Interactions", Debug.StandInErrors[0]);
        }

        [Test]
        public void Crest4HeightsNormalsAndFlowReachKeelWithNoAllocationOnceWarm()
        {
            var ocean = new GameObject("Ocean").AddComponent<Crest.OceanRenderer>();
            ocean.transform.position = new Vector3(0f, 0.5f, 0f);
            ocean.StandInProvider.Flow = new Vector3(0f, 0f, -0.4f);
            // Crest's first readbacks are not there yet: the adapter answers the sea level.
            ocean.StandInProvider.FailuresLeft = 3;
            var adapter = new GameObject("Keel water").AddComponent<KeelCrest4Water>();
            StandInPlayerLoop.Step(1);
            var heights = new float[Probe.Length];
            var normals = new Vector3[Probe.Length];
            var velocities = new Vector3[Probe.Length];
            ocean.StandInProvider.FailuresLeft = 1;
            adapter.SampleWater(Probe, Probe.Length, heights, normals, velocities);
            CollectionAssert.AreEqual(new[] { 0.5f, 0.5f, 0.5f, 0.5f }, heights, "before Crest's data, the sea level");
            adapter.SampleWater(Probe, 3, heights, normals, velocities);
            for (int i = 0; i < 3; i++)
            {
                Assert.That(heights[i], Is.EqualTo(ocean.StandInProvider.Height(Probe[i].x)).Within(1e-6f));
                Assert.That(Vector3.Angle(normals[i], SineNormal(0.4f, 16f, Probe[i].x)), Is.LessThan(0.01f));
                Assert.That((velocities[i] - new Vector3(0f, 0f, -0.4f)).magnitude, Is.LessThan(1e-6f), "flow");
            }
            // Every batch size once (each gets its exact-size arrays), then none allocates.
            for (int i = 0; i < 4; i++) adapter.SampleWater(Probe, 1 + i, heights, normals, velocities);
            long before = GC.GetAllocatedBytesForCurrentThread();
            for (int i = 0; i < 20; i++) adapter.SampleWater(Probe, 1 + i % 4, heights, normals, velocities);
            Assert.AreEqual(0L, GC.GetAllocatedBytesForCurrentThread() - before, "bytes allocated by 20 warm queries");

            PhysicsBuoyancy raft = Raft();
            StandInPlayerLoop.Run(20f);
            Vector3 p = raft.transform.position;
            Console.WriteLine("Crest 4: raft at {0}", p);
            Assert.That(Mathf.Abs(p.y - ocean.StandInProvider.Height(p.x)), Is.LessThan(0.5f));
            Assert.That(p.z, Is.LessThan(-2f), "the flow did not carry the raft");
            Assert.AreEqual(0, Debug.StandInErrors.Count, string.Join("\n", Debug.StandInErrors.ToArray()));
        }

        [Test]
        public void Crest5HeightsNormalsAndFlowReachKeel()
        {
            var water = new GameObject("Water").AddComponent<WaveHarmonic.Crest.WaterRenderer>();
            water.StandInProvider.Flow = new Vector3(0.3f, 0f, 0f);
            var adapter = new GameObject("Keel water").AddComponent<KeelCrest5Water>();
            StandInPlayerLoop.Step(3);
            var heights = new float[Probe.Length];
            var normals = new Vector3[Probe.Length];
            var velocities = new Vector3[Probe.Length];
            adapter.SampleWater(Probe, Probe.Length, heights, normals, velocities);
            for (int i = 0; i < Probe.Length; i++)
            {
                Assert.That(heights[i], Is.EqualTo(water.StandInProvider.Height(Probe[i].x)).Within(1e-6f));
                Assert.That(Vector3.Angle(normals[i], SineNormal(0.4f, 16f, Probe[i].x)), Is.LessThan(0.01f));
                Assert.That((velocities[i] - new Vector3(0.3f, 0f, 0f)).magnitude, Is.LessThan(1e-6f));
            }
            PhysicsBuoyancy raft = Raft();
            StandInPlayerLoop.Run(20f);
            Assert.That(raft.transform.position.x, Is.GreaterThan(1.5f), "the flow did not carry the raft");
            Assert.AreEqual(0, Debug.StandInErrors.Count, string.Join("\n", Debug.StandInErrors.ToArray()));
        }

        [Test]
        public void EachAdapterCompilesOnlyWhereItsWaterPackageIs()
        {
            string package = Environment.GetEnvironmentVariable("KEEL_UNITY_PACKAGE");
            Assert.IsNotNull(package, "KEEL_UNITY_PACKAGE (the unity-package folder) is not set");
            string[] files = Directory.GetFiles(Path.Combine(package, "Water"), "*.asmdef", SearchOption.AllDirectories);
            Assert.AreEqual(3, files.Length);
            foreach (string file in files)
            {
                string text = Regex.Replace(File.ReadAllText(file), @"\s+", "");
                Match constraint = Regex.Match(text, "\"defineConstraints\":\\[\"([A-Z0-9_]+)\"\\]");
                Assert.IsTrue(constraint.Success, file + " compiles without its water package");
                string define = constraint.Groups[1].Value;
                // Crest 4 sets CREST_OCEAN itself; the packages' defines come from versionDefines.
                if (define != "CREST_OCEAN")
                    StringAssert.Contains("\"define\":\"" + define + "\"", text, file + ": nothing defines " + define);
            }
        }
    }
}
