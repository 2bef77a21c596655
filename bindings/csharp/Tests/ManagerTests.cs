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

        // A batched body's LastForces is its slot in the manager's results: bodies leaving the
        // batch, bodies of another world (another water density) whose batch fails while the
        // other world's succeeds, and the manager going away must each leave every body with
        // its own last forces. At rest each carries its weight, different for every body, so a
        // body showing another's forces fails.
        [Test]
        public void EveryBodyKeepsItsOwnLastForces()
        {
            Water(KeelWaterModel.Flat);
            var manager = new GameObject("Manager").AddComponent<BuoyancyManager>();
            var bodies = new List<PhysicsBuoyancy>();
            for (int i = 0; i < 8; i++)
            {
                PhysicsBuoyancy b = Box("Box " + i, Vector3.one, 200f + 70f * i, new Vector3(3f * i, 0f, 0f));
                // Every other body floats in sea water: a second world, so the batch is partitioned.
                if (i % 2 == 1) b.rhoWater = 1025f;
                bodies.Add(b);
            }
            StandInPlayerLoop.Run(20f);
            AssertWeights(bodies, "settled");

            PhysicsBuoyancy first = bodies[0], second = bodies[1], broken = bodies[3];
            UnityEngine.Object.Destroy(second.gameObject);
            bodies[4].enabled = false;
            StandInPlayerLoop.Step(3);
            Assert.AreEqual(6, manager.Count);
            bodies.Remove(second);
            AssertWeights(bodies, "after two bodies left the batch");

            // A state the engine refuses fails the sea-water batch; the fresh-water one steps.
            broken.GetComponent<Rigidbody>().velocity = new Vector3(float.NaN, 0f, 0f);
            UnityEngine.Object.Destroy(first.gameObject);
            StandInPlayerLoop.Step(3);
            bodies.Remove(first);
            AssertWeights(bodies, "after a failed batch of one world");

            manager.enabled = false;
            AssertWeights(bodies, "after the manager went");
            // (The sea-water bodies fell for three steps without force: only the others rest.)
            bodies.RemoveAll(b => b.rhoWater != RhoWater);
            StandInPlayerLoop.Step(3);
            AssertWeights(bodies, "stepping alone");
        }

        private static void AssertWeights(List<PhysicsBuoyancy> bodies, string when)
        {
            foreach (PhysicsBuoyancy b in bodies)
            {
                float weight = b.GetComponent<Rigidbody>().mass * G;
                Assert.That(b.LastForces.force.y, Is.EqualTo(weight).Within(0.01f * weight), b.name + ", " + when);
            }
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
