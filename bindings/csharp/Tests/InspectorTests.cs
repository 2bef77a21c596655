// The PhysicsBuoyancy inspector speaks physics: edit mode shows the hull's volume and the
// water the mass displaces, with warnings for a body too heavy to float and an open hull;
// play mode shows the draft, submerged volume, wetted share and the largest force, checked
// against Archimedes on a raft at rest.
// SPDX-License-Identifier: MIT OR Apache-2.0
using System;
using Keel;
using Keel.Editor;
using NUnit.Framework;
using UnityEditor;
using UnityEngine;

namespace Keel.Tests
{
    [TestFixture]
    public class InspectorTests : SceneTest
    {
        private static string[] Inspect(PhysicsBuoyancy body, bool playing)
        {
            EditorGUILayout.StandInLines.Clear();
            EditorGUILayout.StandInTooltips.Clear();
            Application.StandInIsPlaying = playing;
            try
            {
                var editor = new PhysicsBuoyancyEditor { target = body };
                editor.OnInspectorGUI();
                Assert.AreEqual(playing, editor.RequiresConstantRepaint(), "figures in play mode must refresh");
            }
            finally
            {
                Application.StandInIsPlaying = true;
            }
            foreach (string tip in EditorGUILayout.StandInTooltips) Assert.That(tip, Is.Not.Null.And.Not.Empty, "a figure without a tooltip");
            Console.WriteLine(string.Join("\n", EditorGUILayout.StandInLines.ToArray()));
            return EditorGUILayout.StandInLines.ToArray();
        }

        [Test]
        public void EditModeShowsHullVolumeDisplacementAndWhetherItFloats()
        {
            // A 2 x 0.5 x 2 m box holds 2 m^3; 1000 kg displaces 1 m^3 of fresh water.
            PhysicsBuoyancy raft = Box("Raft", new Vector3(2f, 0.5f, 2f), 1000f, Vector3.zero);
            KeelHullReport hull = raft.InspectHull();
            Assert.IsTrue(hull.Valid && hull.Closed && hull.CanFloat, hull.Problem);
            Assert.That(hull.Volume, Is.EqualTo(2f).Within(1e-4f));
            Assert.That(hull.Displacement, Is.EqualTo(1f).Within(1e-6f));
            CollectionAssert.Contains(Inspect(raft, false), "Hull volume: 2.000 m^3");
            CollectionAssert.Contains(EditorGUILayout.StandInLines, "Displacement at mass: 1.000 m^3");
            CollectionAssert.Contains(EditorGUILayout.StandInLines, "Floats with: 50 % of its volume under water");

            // 2500 kg would need 2.5 m^3: it sinks, and the inspector says so, with the limit.
            raft.GetComponent<Rigidbody>().mass = 2500f;
            hull = raft.InspectHull();
            Assert.IsFalse(hull.CanFloat);
            string[] lines = Inspect(raft, false);
            Assert.That(Array.Exists(lines, l => l.StartsWith("Warning: ") && l.Contains("it sinks") && l.Contains("2000 kg")), string.Join("\n", lines));
            Assert.AreEqual(0u, Keel.Native.KeelNative.keel_live_world_count(), "InspectHull left a world");
        }

        [Test]
        public void EditModeWarnsAboutAnOpenHull()
        {
            GameObject plane = GameObject.CreatePrimitive(PrimitiveType.Plane);
            plane.AddComponent<Rigidbody>().mass = 10f;
            PhysicsBuoyancy body = plane.AddComponent<PhysicsBuoyancy>();
            KeelHullReport hull = body.InspectHull();
            Assert.IsTrue(hull.Valid);
            Assert.IsFalse(hull.Closed);
            Assert.IsFalse(hull.CanFloat);
            string[] lines = Inspect(body, false);
            CollectionAssert.Contains(lines, "Hull volume: open hull");
            Assert.That(Array.Exists(lines, l => l.StartsWith("Warning: The hull is open")), string.Join("\n", lines));
        }

        [Test]
        public void PlayModeShowsDraftVolumeWettedShareAndTheLargestForce()
        {
            Water(KeelWaterModel.Flat);
            PhysicsBuoyancy raft = Box("Raft", new Vector3(2f, 0.5f, 2f), 1000f, new Vector3(0f, 2f, 0f));
            StandInPlayerLoop.Step(3);
            KeelBodyReport falling = raft.Report();
            Assert.IsFalse(falling.InWater, "1.75 m above the water");
            CollectionAssert.Contains(Inspect(raft, true), "In water: no");

            StandInPlayerLoop.Run(25f);
            KeelBodyReport r = raft.Report();
            // At rest: draft m / (rho A) = 0.25 m, volume 1 m^3, wetted share (bottom 4 m^2 +
            // sides 4 x 2 m x 0.25 m) / (2 x 4 m^2 + 4 x 2 m x 0.5 m) = 6 / 12, and buoyancy
            // carries the weight.
            Assert.IsTrue(r.InWater);
            Assert.That(r.Draft, Is.EqualTo(0.25f).Within(0.003f));
            Assert.That(r.SubmergedVolume, Is.EqualTo(1f).Within(0.01f));
            Assert.That(r.WettedShare, Is.EqualTo(0.5f).Within(0.01f));
            Assert.AreEqual("buoyancy", r.LargestForceName);
            Assert.That(r.LargestForce.y, Is.EqualTo(1000f * G).Within(0.01f * 1000f * G));
            string[] lines = Inspect(raft, true);
            CollectionAssert.Contains(lines, "In water: yes");
            CollectionAssert.Contains(lines, "Draft: " + r.Draft.ToString("F3", System.Globalization.CultureInfo.InvariantCulture) + " m");
            CollectionAssert.Contains(lines, "Wetted share: 50 %");
            Assert.That(Array.Exists(lines, l => l.StartsWith("Largest force: buoyancy, 98")), string.Join("\n", lines));
        }
    }
}
