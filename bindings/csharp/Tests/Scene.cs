// Scene building blocks and per-test setup for the package's NUnit tests: every test
// runs in a fresh play session of the stand-in player loop and ends by leaving play
// mode, after which no native world may be left (counted through the ABI).
// SPDX-License-Identifier: MIT OR Apache-2.0
using System;
using Keel;
using Keel.Native;
using NUnit.Framework;
using UnityEngine;

namespace Keel.Tests
{
    public abstract class SceneTest
    {
        protected const float G = 9.81f;
        protected const float RhoWater = 1000f;

        [SetUp]
        public void BeginPlaySession()
        {
            Time.fixedDeltaTime = 0.02f;
            Physics.gravity = new Vector3(0f, -G, 0f);
            Debug.StandInErrors.Clear();
            StandInPlayerLoop.EnterPlayMode();
            Assert.AreEqual(0u, KeelNative.keel_live_world_count(), "a world leaked in from an earlier test");
        }

        [TearDown]
        public void EndPlaySession()
        {
            StandInPlayerLoop.ExitPlayMode();
            Assert.AreEqual(0u, KeelNative.keel_live_world_count(), "native worlds left after leaving play mode");
        }

        protected static WaveController Water(KeelWaterModel model)
        {
            var go = new GameObject("Water");
            var waves = go.AddComponent<WaveController>();
            waves.waterModel = model;
            waves.Apply();
            return waves;
        }

        /// A box of full extents `size` (the built-in cube, scaled) with a Rigidbody and PhysicsBuoyancy.
        protected static PhysicsBuoyancy Box(string name, Vector3 size, float mass, Vector3 position)
        {
            GameObject go = GameObject.CreatePrimitive(PrimitiveType.Cube);
            go.name = name;
            go.transform.localScale = size;
            go.transform.position = position;
            var rb = go.AddComponent<Rigidbody>();
            rb.mass = mass;
            return go.AddComponent<PhysicsBuoyancy>();
        }

        protected static Vector3 V(KeelVec3 v) { return new Vector3(v.x, v.y, v.z); }

        protected static float TiltDegrees(Transform t) { return Vector3.Angle(t.up, Vector3.up); }

        protected static KeelWorldCounts Counts(ulong world)
        {
            KeelWorldCounts counts;
            unsafe { KeelLibrary.Check(KeelNative.keel_world_get_counts(world, &counts)); }
            return counts;
        }
    }
}
