// Builds the thesis's test scenes at runtime (chapter 6): 1, 100 or 1024 birch cubes
// (483 kg, Hakkila 1979) on Perlin waves, the Stanford bunny, and the falling plates of
// figures 20-21, with the FPS counter. Tools > Keel > Create Thesis Sample Scene saves a
// scene with it set up; or put it on an empty GameObject and press Play.
// SPDX-License-Identifier: MIT OR Apache-2.0
using UnityEngine;

namespace Keel.Samples
{
    public enum ThesisScene { OneCube, HundredCubes, Cubes1024, Bunny, FallingPlates }

    public sealed class ThesisScenes : MonoBehaviour
    {
        [Tooltip("Which of the thesis's scenes to build.")]
        public ThesisScene scene = ThesisScene.HundredCubes;
        [Tooltip("Step every body in one native batch (BuoyancyManager); off, each steps alone.")]
        public bool useManager = true;
        [Tooltip("The Stanford bunny's OBJ text (bunny.obj.txt in this sample).")]
        public TextAsset bunnyObj;
        [Tooltip("Show the thesis's FPS counter.")]
        public bool showFps = true;

        private void Start() { Build(scene, useManager, bunnyObj != null ? bunnyObj.text : null); if (showFps) gameObject.AddComponent<FpsCounter>(); }

        /// <summary>Builds a scene; returns the floating bodies. bunnyText is needed for the bunny only.</summary>
        public static PhysicsBuoyancy[] Build(ThesisScene scene, bool useManager, string bunnyText)
        {
            // A scene saved by Tools > Keel > Create Thesis Sample Scene has its water (shown
            // by a GenerateWave plane) already; otherwise the sample makes one.
            WaveController water = WaveController.Active;
            if (water == null) water = new GameObject("Water").AddComponent<WaveController>();
            water.waterModel = scene == ThesisScene.FallingPlates ? KeelWaterModel.Flat : KeelWaterModel.Perlin;
            water.Apply();
            if (useManager) new GameObject("Buoyancy Manager").AddComponent<BuoyancyManager>();
            switch (scene)
            {
                case ThesisScene.OneCube: return Cubes(1);
                case ThesisScene.HundredCubes: return Cubes(100);
                case ThesisScene.Cubes1024: return Cubes(1024);
                case ThesisScene.Bunny: return new[] { Bunny(bunnyText, Vector3.zero) };
                default: return Plates();
            }
        }

        /// <summary>Birch cubes of 1 m and 483 kg on a square grid, 3 m apart.</summary>
        public static PhysicsBuoyancy[] Cubes(int count)
        {
            int side = Mathf.Max(1, Mathf.RoundToInt(Mathf.Sqrt(count)));
            var bodies = new PhysicsBuoyancy[count];
            for (int i = 0; i < count; i++)
            {
                GameObject cube = GameObject.CreatePrimitive(PrimitiveType.Cube);
                cube.name = "Cube " + i;
                cube.transform.position = new Vector3(3f * (i % side), 0.5f, 3f * (i / side));
                cube.AddComponent<Rigidbody>().mass = 483f;
                bodies[i] = cube.AddComponent<PhysicsBuoyancy>();
            }
            return bodies;
        }

        /// <summary>The Stanford bunny, about 1 m tall, at half the density of water.</summary>
        public static PhysicsBuoyancy Bunny(string objText, Vector3 position)
        {
            var go = new GameObject("Bunny");
            go.transform.position = position;
            go.AddComponent<MeshFilter>().sharedMesh = ObjMesh.Parse(objText, 0.1f, "Stanford bunny");
            go.AddComponent<MeshRenderer>();
            go.AddComponent<Rigidbody>().mass = 150f;
            return go.AddComponent<PhysicsBuoyancy>();
        }

        /// <summary>Figures 20-21: thin plates dropped flat and on edge from 3 m, to show slamming.</summary>
        public static PhysicsBuoyancy[] Plates()
        {
            var bodies = new PhysicsBuoyancy[2];
            for (int i = 0; i < 2; i++)
            {
                GameObject plate = GameObject.CreatePrimitive(PrimitiveType.Cube);
                plate.name = i == 0 ? "Plate (flat)" : "Plate (edge)";
                plate.transform.localScale = new Vector3(2f, 0.1f, 2f);
                plate.transform.position = new Vector3(4f * i, 3f, 0f);
                if (i == 1) plate.transform.rotation = Quaternion.Euler(0f, 0f, 90f);
                plate.AddComponent<Rigidbody>().mass = 100f;
                bodies[i] = plate.AddComponent<PhysicsBuoyancy>();
            }
            return bodies;
        }
    }
}
