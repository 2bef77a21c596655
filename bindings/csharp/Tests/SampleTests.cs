// The "Thesis Scenes" sample builds its scenes and they float: cubes on Perlin waves with
// the manager, the plates of figures 20-21 dropped from 3 m, and the bunny.
// SPDX-License-Identifier: MIT OR Apache-2.0
using System;
using System.IO;
using Keel;
using Keel.Samples;
using Keel.Samples.Editor;
using UnityEditor;
using UnityEditor.SceneManagement;
using NUnit.Framework;
using UnityEngine;

namespace Keel.Tests
{
    [TestFixture]
    public class SampleTests : SceneTest
    {
        [Test]
        public void HundredCubesRideThePerlinWaves()
        {
            PhysicsBuoyancy[] cubes = ThesisScenes.Build(ThesisScene.HundredCubes, true, null);
            StandInPlayerLoop.Run(8f);
            Assert.AreEqual(100, BuoyancyManager.Instance.Count);
            WaveController waves = WaveController.Active;
            foreach (PhysicsBuoyancy c in cubes)
            {
                Vector3 p = c.transform.position;
                // A 1 m birch cube (483 kg) floats with its centre near the surface: never
                // more than its half diagonal away.
                Assert.That(Mathf.Abs(p.y - waves.GetWaveYPos(p.x, p.z)), Is.LessThan(0.87f), c.name);
            }
            Assert.AreEqual(0, Debug.StandInErrors.Count, string.Join("\n", Debug.StandInErrors.ToArray()));
        }

        [Test]
        public void FallingPlatesEndAfloatAtTheirDraft()
        {
            PhysicsBuoyancy[] plates = ThesisScenes.Build(ThesisScene.FallingPlates, false, null);
            float lowest = float.MaxValue;
            for (int i = 0; i < 1000; i++)
            {
                StandInPlayerLoop.Step(1);
                lowest = Mathf.Min(lowest, plates[0].transform.position.y);
            }
            // 100 kg on 2 m x 2 m: 0.025 m draft, centre 0.025 m above the water.
            float draft = 100f / (RhoWater * 4f);
            Assert.That(plates[0].transform.position.y, Is.EqualTo(0.05f - draft).Within(0.005f));
            Assert.That(lowest, Is.GreaterThan(-1f), "the flat plate dived far below the surface");
            Assert.That(plates[1].transform.position.y, Is.LessThan(1f), "the edge-on plate never came down");
        }

        [Test]
        public void MenuSavesTheThesisSceneAndItFloatsTheBunnyOnPlay()
        {
            string package = Environment.GetEnvironmentVariable("KEEL_UNITY_PACKAGE");
            Assert.IsNotNull(package, "KEEL_UNITY_PACKAGE (the unity-package folder) is not set");
            var bunnyAsset = new TextAsset(File.ReadAllText(Path.Combine(package, "Samples~", "Thesis Scenes", "bunny.obj.txt")));
            AssetDatabase.StandInAssets.Clear();
            EditorSceneManager.StandInSavedPaths.Clear();

            // Before the sample is imported the menu says what to do and saves nothing.
            string problem = ThesisSceneMenu.Create(ThesisSceneMenu.ScenePath);
            StringAssert.Contains("import the Thesis Scenes sample", problem);
            Assert.AreEqual(0, EditorSceneManager.StandInSavedPaths.Count);

            // Where the Package Manager imports a sample.
            AssetDatabase.StandInAssets["Assets/Samples/Keel Buoyancy/0.1.0/Thesis Scenes/bunny.obj.txt"] = bunnyAsset;
            Assert.IsNull(ThesisSceneMenu.Create(ThesisSceneMenu.ScenePath));
            CollectionAssert.AreEqual(new[] { "Assets/Keel Samples/Thesis Scene.unity" }, EditorSceneManager.StandInSavedPaths);
            Assert.IsTrue(AssetDatabase.IsValidFolder("Assets/Keel Samples"));
            CollectionAssert.AreEquivalent(new[] { "Main Camera", "Directional Light", "Water", "Sea (GenerateWave)", "Thesis Scenes" },
                EditorSceneManager.StandInSavedObjects);
            var scenes = GameObject.Find("Thesis Scenes").GetComponent<ThesisScenes>();
            Assert.AreSame(bunnyAsset, scenes.bunnyObj, "the bunny is assigned, not left to the user");
            Assert.AreEqual(ThesisScene.Bunny, scenes.scene);

            // Play: the component builds the bunny into the scene's water, which the plane shows.
            StandInPlayerLoop.Run(10f);
            Assert.AreEqual(1, UnityEngine.Object.FindObjectsOfType<WaveController>().Length, "the sample made a second water");
            PhysicsBuoyancy bunny = GameObject.Find("Bunny").GetComponent<PhysicsBuoyancy>();
            Vector3 p = bunny.GetComponent<Rigidbody>().worldCenterOfMass;
            float surface = WaveController.Active.GetWaveYPos(p.x, p.z);
            Console.WriteLine("sample scene: bunny centre of mass {0:F3} m from the surface, submerged {1:F4} m^3", p.y - surface, bunny.LastForces.submerged_volume);
            Assert.That(bunny.LastForces.submerged_volume, Is.GreaterThan(0.01f), "the bunny is not in the water");
            Assert.That(Mathf.Abs(p.y - surface), Is.LessThan(1f), "the bunny is far from the surface");
            float seaSpread = 0f;
            foreach (Vector3 v in GameObject.Find("Sea (GenerateWave)").GetComponent<MeshFilter>().mesh.vertices) seaSpread = Mathf.Max(seaSpread, Mathf.Abs(v.y));
            Assert.That(seaSpread, Is.GreaterThan(0.01f), "the sea plane does not show the waves");
            Assert.AreEqual(0, Debug.StandInErrors.Count, string.Join("\n", Debug.StandInErrors.ToArray()));
        }

        [Test]
        public void BunnyFloatsWithArchimedesVolume()
        {
            string obj = Environment.GetEnvironmentVariable("KEEL_TEST_BUNNY");
            if (string.IsNullOrEmpty(obj) || !File.Exists(obj)) Assert.Ignore("skipped: KEEL_TEST_BUNNY does not name tests/meshes/bunny.obj");
            ThesisScenes.Build(ThesisScene.Bunny, false, File.ReadAllText(obj));
            PhysicsBuoyancy bunny = GameObject.Find("Bunny").GetComponent<PhysicsBuoyancy>();
            // Flat water, so that the bunny can come to rest.
            WaveController waves = WaveController.Active;
            waves.waterModel = KeelWaterModel.Flat;
            waves.Apply();
            StandInPlayerLoop.Run(20f);
            Rigidbody rb = bunny.GetComponent<Rigidbody>();
            Console.WriteLine("bunny: force {0:F1} N (weight {1:F1} N), v {2}, w {3}", bunny.LastForces.force.y, 150f * G, rb.velocity, rb.angularVelocity);
            // The bunny is open at the bottom; pressure buoyancy still carries its weight.
            Assert.That(bunny.LastForces.force.y, Is.EqualTo(150f * G).Within(0.03f * 150f * G));
            Assert.That(bunny.GetComponent<Rigidbody>().velocity.magnitude, Is.LessThan(0.05f));
        }
    }
}
