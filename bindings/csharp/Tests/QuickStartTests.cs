// The quick start of Documentation~/index.md, done as it says, with every figure the page
// gives read from the page itself, so that the page and the package cannot drift apart.
// SPDX-License-Identifier: MIT OR Apache-2.0
using System;
using System.Globalization;
using System.IO;
using System.Text.RegularExpressions;
using Keel;
using NUnit.Framework;
using UnityEngine;

namespace Keel.Tests
{
    [TestFixture]
    public class QuickStartTests : SceneTest
    {
        private static string QuickStart()
        {
            string package = Environment.GetEnvironmentVariable("KEEL_UNITY_PACKAGE");
            Assert.IsNotNull(package, "KEEL_UNITY_PACKAGE (the unity-package folder) is not set");
            string page = File.ReadAllText(Path.Combine(package, "Documentation~", "index.md"));
            int start = page.IndexOf("## Quick start", StringComparison.Ordinal);
            Assert.That(start, Is.GreaterThanOrEqualTo(0), "index.md has no quick start");
            int end = page.IndexOf("\n## ", start + 1, StringComparison.Ordinal);
            // The page wraps lines: figures are matched across them.
            return Regex.Replace(page.Substring(start, end - start), @"\s+", " ");
        }

        private static float[] Numbers(string text, string pattern)
        {
            Match m = Regex.Match(text, pattern);
            Assert.IsTrue(m.Success, "the quick start no longer says /" + pattern + "/");
            var values = new float[m.Groups.Count - 1];
            for (int i = 1; i < m.Groups.Count; i++) values[i - 1] = float.Parse(m.Groups[i].Value, CultureInfo.InvariantCulture);
            return values;
        }

        private const string Number = @"(-?[0-9]+(?:\.[0-9]+)?)";

        [Test]
        public void TheRaftOfTheQuickStartDoesWhatThePageSays()
        {
            string page = QuickStart();
            float[] position = Numbers(page, @"Position to \(" + Number + ", " + Number + ", " + Number + @"\)");
            float[] scale = Numbers(page, @"Scale to \(" + Number + ", " + Number + ", " + Number + @"\)");
            float mass = Numbers(page, @"Rigidbody\*\* with Mass " + Number)[0];
            float seconds = Numbers(page, @"within " + Number + " s")[0];
            float tilt = Numbers(page, @"under " + Number + " degrees of tilt")[0];
            float draft = Numbers(page, @"bottom " + Number + " m under the surface")[0];
            float volume = Numbers(page, @"submerged volume \(" + Number + @" m\^3\)")[0];
            StringAssert.Contains("*Water Model* to **Flat**", page);

            // Archimedes, independently of the page: m = rho L B T.
            Assert.That(draft, Is.EqualTo(mass / (RhoWater * scale[0] * scale[2])).Within(1e-6f), "the page's draft is not Archimedes'");
            Assert.That(volume, Is.EqualTo(mass / RhoWater).Within(1e-6f), "the page's volume is not Archimedes'");

            // Steps 1 and 3, as a user does them.
            var water = new GameObject("GameObject").AddComponent<WaveController>();
            water.waterModel = KeelWaterModel.Flat;
            water.Apply();
            GameObject cube = GameObject.CreatePrimitive(PrimitiveType.Cube);
            cube.transform.position = new Vector3(position[0], position[1], position[2]);
            cube.transform.localScale = new Vector3(scale[0], scale[1], scale[2]);
            cube.AddComponent<Rigidbody>().mass = mass;
            PhysicsBuoyancy raft = cube.AddComponent<PhysicsBuoyancy>();
            StandInPlayerLoop.Run(seconds);

            float bottom = cube.transform.position.y - scale[1] / 2f;
            var rb = cube.GetComponent<Rigidbody>();
            KeelBodyReport report = raft.Report();
            Console.WriteLine("quick start: draft {0:F4} m (page {1}), report {2:F4} m, tilt {3:F3} deg, speed {4:F5} m/s, volume {5:F4} m^3",
                -bottom, draft, report.Draft, TiltDegrees(cube.transform), rb.velocity.magnitude, report.SubmergedVolume);
            Assert.That(-bottom, Is.EqualTo(draft).Within(0.005f), "draft");
            Assert.That(report.Draft, Is.EqualTo(draft).Within(0.005f), "the inspector's draft");
            Assert.That(report.SubmergedVolume, Is.EqualTo(volume).Within(0.01f * volume), "the inspector's submerged volume");
            Assert.That(TiltDegrees(cube.transform), Is.LessThan(tilt), "not level");
            Assert.That(rb.velocity.magnitude, Is.LessThan(0.005f), "not at rest");
            Assert.That(rb.angularVelocity.magnitude, Is.LessThan(0.005f), "still turning");
            Assert.AreEqual(0, Debug.StandInErrors.Count, string.Join("\n", Debug.StandInErrors.ToArray()));
        }
    }
}
