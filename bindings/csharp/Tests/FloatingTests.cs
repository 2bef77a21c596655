// PhysicsBuoyancy against analytic hydrostatics: Archimedes' draft, box stability, and a
// hull riding Gerstner waves smoothly.
// SPDX-License-Identifier: MIT OR Apache-2.0
using System;
using System.Collections.Generic;
using Keel;
using Keel.Native;
using NUnit.Framework;
using UnityEngine;

namespace Keel.Tests
{
    [TestFixture]
    public class FloatingTests : SceneTest
    {
        [Test]
        public void RaftSettlesLevelAtArchimedesDraftAndRests()
        {
            var size = new Vector3(2f, 0.5f, 2f);
            const float mass = 1000f;
            PhysicsBuoyancy raft = Box("Raft", size, mass, new Vector3(0f, 0.3f, 0f));
            StandInPlayerLoop.Run(20f);

            // Archimedes: m = rho A T.
            float draft = mass / (RhoWater * size.x * size.z);
            float bottom = raft.transform.position.y - size.y / 2f;
            Console.WriteLine("raft: draft {0:F4} m (Archimedes {1:F4}), tilt {2:F3} deg", -bottom, draft, TiltDegrees(raft.transform));
            Assert.That(-bottom, Is.EqualTo(draft).Within(0.005f), "draft");
            Assert.That(TiltDegrees(raft.transform), Is.LessThan(0.5f), "the raft lists");
            var rb = raft.GetComponent<Rigidbody>();
            Assert.That(rb.velocity.magnitude, Is.LessThan(0.005f), "still moving");
            Assert.That(rb.angularVelocity.magnitude, Is.LessThan(0.005f), "still turning");
            Assert.That(raft.LastForces.force.y, Is.EqualTo(mass * G).Within(0.01f * mass * G), "force at rest is the weight");
            Assert.That(raft.LastForces.submerged_volume, Is.EqualTo(mass / RhoWater).Within(0.01f));
            Assert.AreEqual(0, Debug.StandInErrors.Count, string.Join("\n", Debug.StandInErrors.ToArray()));
        }

        [Test]
        public void RaftSettlesTheSameWithPerTriangleForces()
        {
            var size = new Vector3(2f, 0.5f, 2f);
            PhysicsBuoyancy raft = Box("Raft", size, 1000f, new Vector3(0f, 0.3f, 0f));
            raft.forceApplication = KeelForceApplication.PerTriangle;
            StandInPlayerLoop.Run(20f);
            float draft = 1000f / (RhoWater * size.x * size.z);
            Assert.That(-(raft.transform.position.y - size.y / 2f), Is.EqualTo(draft).Within(0.005f));
            Assert.That(TiltDegrees(raft.transform), Is.LessThan(0.5f));
        }

        [Test]
        public void HalfDensityCubeTipsOverButKeepsArchimedesVolume()
        {
            // GM = T/2 + B^2/(12 T) - H/2 with T = 0.5, B = H = 1: -1/12 m < 0, unstable upright.
            PhysicsBuoyancy cube = Box("Cube", Vector3.one, 500f, new Vector3(0f, 0f, 0f));
            cube.transform.rotation = Quaternion.Euler(0f, 0f, 3f);
            StandInPlayerLoop.Run(40f);

            // No face may point up any more.
            Transform t = cube.transform;
            float nearestFace = 180f;
            foreach (Vector3 axis in new[] { t.up, -t.up, t.right, -t.right, t.forward, -t.forward })
                nearestFace = Mathf.Min(nearestFace, Vector3.Angle(axis, Vector3.up));
            Console.WriteLine("half-density cube: nearest face {0:F1} deg from up, submerged {1:F3} m^3", nearestFace, cube.LastForces.submerged_volume);
            Assert.That(nearestFace, Is.GreaterThan(15f), "the cube still floats face up");
            Assert.That(cube.LastForces.submerged_volume, Is.EqualTo(0.5f).Within(0.01f), "Archimedes");
            Assert.That(cube.GetComponent<Rigidbody>().velocity.magnitude, Is.LessThan(0.02f));
        }

        [Test]
        public void BargeHeavesAndRollsOnGerstnerWavesWithoutJitter()
        {
            WaveController waves = Water(KeelWaterModel.Gerstner);
            const float amplitude = 0.3f, wavelength = 20f;
            waves.gerstnerWaves = new[]
            {
                new GerstnerWave { amplitude = amplitude, wavelength = wavelength, direction = new Vector2(0.6f, 0.8f), steepness = 0.2f },
            };
            waves.Apply();
            var size = new Vector3(6f, 1f, 2f);
            PhysicsBuoyancy barge = Box("Barge", size, 0.5f * RhoWater * size.x * size.y * size.z, Vector3.zero);

            var heights = new List<float>();
            var rolls = new List<float>();
            for (int i = 0; i < 1500; i++)
            {
                StandInPlayerLoop.Step(1);
                if (i < 250) continue;
                heights.Add(barge.transform.position.y);
                rolls.Add(Vector3.Angle(barge.transform.up, Vector3.up));
            }
            float omega = Mathf.Sqrt(G * 2f * Mathf.PI / wavelength);
            float heave = Max(heights) - Min(heights);
            // A 6 m barge on 20 m waves follows most of the 2A trough-to-crest.
            Assert.That(heave, Is.GreaterThan(2f * amplitude * 0.5f), "no heave");
            Assert.That(Max(rolls), Is.GreaterThan(1f), "no roll");
            Assert.That(Max(rolls), Is.LessThan(45f), "capsizing");

            // Jitter would show as vertical accelerations flipping sign near every step;
            // the waves' own make about two sign changes per period.
            float dt = Time.fixedDeltaTime;
            int flips = 0;
            float previous = 0f, maxAccel = 0f;
            for (int i = 1; i + 1 < heights.Count; i++)
            {
                float a = (heights[i + 1] - 2f * heights[i] + heights[i - 1]) / (dt * dt);
                if (a * previous < 0f) flips++;
                previous = a;
                maxAccel = Mathf.Max(maxAccel, Mathf.Abs(a));
            }
            float seconds = heights.Count * dt;
            float wavePeriodsSeconds = 2f * Mathf.PI / omega;
            Console.WriteLine("barge: heave {0:F3} m, max roll {1:F2} deg, {2} acceleration sign flips in {3:F0} s, max |a| {4:F2} m/s^2",
                heave, Max(rolls), flips, seconds, maxAccel);
            Assert.That(flips / seconds, Is.LessThan(4f * 2f / wavePeriodsSeconds), "vertical jitter: " + flips + " sign flips");
            Assert.That(maxAccel, Is.LessThan(3f * amplitude * omega * omega + 1f), "acceleration spikes");
        }

        [Test]
        public void SimpleDragFollowsTheWettedRatio()
        {
            PhysicsBuoyancy raft = Box("Raft", new Vector3(2f, 0.5f, 2f), 1000f, new Vector3(0f, 0.3f, 0f));
            raft.useSimpleDrag = true;
            raft.minDrag = 0.1f;
            raft.maxDrag = 2f;
            StandInPlayerLoop.Run(5f);
            float ratio = raft.LastForces.wetted_ratio;
            Assert.That(ratio, Is.GreaterThan(0.1f).And.LessThan(0.9f));
            Assert.That(raft.GetComponent<Rigidbody>().drag, Is.EqualTo(0.1f + 1.9f * ratio).Within(1e-4f));
        }

        private static float Max(List<float> xs) { float m = float.MinValue; foreach (float x in xs) m = Math.Max(m, x); return m; }
        private static float Min(List<float> xs) { float m = float.MaxValue; foreach (float x in xs) m = Math.Min(m, x); return m; }
    }
}
