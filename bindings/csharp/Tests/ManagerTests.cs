// BuoyancyManager: one native batch per step, identical to stepping alone, and no
// managed allocation per step once warm.
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
    public class ManagerTests : SceneTest
    {
        private static List<PhysicsBuoyancy> Cubes(int n)
        {
            var cubes = new List<PhysicsBuoyancy>();
            for (int i = 0; i < n; i++)
                cubes.Add(Box("Cube " + i, Vector3.one, 300f + 10f * i, new Vector3(2f * (i % 8), 0.5f + 0.1f * (i % 3), 2f * (i / 8))));
            return cubes;
        }

        private static List<Vector3> RunAndRecord(bool withManager)
        {
            Water(KeelWaterModel.Perlin);
            if (withManager) new GameObject("Manager").AddComponent<BuoyancyManager>();
            List<PhysicsBuoyancy> cubes = Cubes(20);
            StandInPlayerLoop.Run(2f);
            var result = new List<Vector3>();
            foreach (PhysicsBuoyancy c in cubes) result.Add(c.transform.position);
            return result;
        }

        [Test]
        public void BatchedStepsMatchSteppingAlone()
        {
            List<Vector3> alone = RunAndRecord(false);
            StandInPlayerLoop.ExitPlayMode();
            StandInPlayerLoop.EnterPlayMode();
            List<Vector3> batched = RunAndRecord(true);
            Assert.AreEqual(20, BuoyancyManager.Instance.Count);
            float moved = 0f;
            for (int i = 0; i < alone.Count; i++)
            {
                Assert.That((alone[i] - batched[i]).magnitude, Is.LessThan(1e-5f), "cube " + i);
                moved = Mathf.Max(moved, Mathf.Abs(alone[i].y - (0.5f + 0.1f * (i % 3))));
            }
            Assert.That(moved, Is.GreaterThan(0.1f), "nothing moved: the comparison proves nothing");
        }

        [Test]
        public void ManagerStepAllocatesNothingOnceWarm()
        {
            var manager = new GameObject("Manager").AddComponent<BuoyancyManager>();
            Cubes(100);
            StandInPlayerLoop.Step(10);
            long before = GC.GetAllocatedBytesForCurrentThread();
            for (int i = 0; i < 50; i++) manager.StepAll(Time.fixedDeltaTime);
            long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
            Assert.AreEqual(0L, allocated, "bytes allocated by 50 batched steps of 100 bodies");
        }

        [Test]
        public void BodiesStepAloneWhenTheManagerGoes()
        {
            var manager = new GameObject("Manager").AddComponent<BuoyancyManager>();
            PhysicsBuoyancy raft = Box("Raft", new Vector3(2f, 0.5f, 2f), 1000f, new Vector3(0f, 0.3f, 0f));
            StandInPlayerLoop.Step(5);
            Assert.AreEqual(1, manager.Count);
            UnityEngine.Object.Destroy(manager.gameObject);
            StandInPlayerLoop.Run(15f);
            Assert.IsNull(BuoyancyManager.Instance);
            Assert.That(raft.transform.position.y, Is.EqualTo(0f).Within(0.01f));
        }
    }
}
