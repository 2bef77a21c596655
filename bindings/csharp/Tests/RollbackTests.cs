// Rollback netcode's loop under the stand-in: save, step, restore, replay the same ticks,
// and every bit of every body (pose, velocities, keel's slamming history, the forces)
// comes out the same; a buffer of other bodies is refused with nothing changed; saving
// allocates nothing once warm; the hash sees a step.
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
    public class RollbackTests : SceneTest
    {
        private static void Tick(int tick)
        {
            // Unity's clock does not go back for a replayed tick: the water's does.
            KeelRuntime.ManualWaterTime = tick * Time.fixedDeltaTime;
            StandInPlayerLoop.Step(1);
        }

        private static List<PhysicsBuoyancy> DroppedCubes(int n)
        {
            var cubes = new List<PhysicsBuoyancy>();
            // Dropped from up to 1 m, so that slamming (which keeps a history) is in play.
            for (int i = 0; i < n; i++)
                cubes.Add(Box("Cube " + i, new Vector3(1f, 0.6f, 1.4f), 250f + 20f * i, new Vector3(2.5f * i, 0.3f + 0.1f * i, 0f)));
            return cubes;
        }

        private static byte[] ForceBits(IList<PhysicsBuoyancy> bodies)
        {
            var bytes = new List<byte>();
            foreach (PhysicsBuoyancy b in bodies)
            {
                KeelBodyForces f = b.LastForces;
                foreach (KeelVec3 v in new[] { f.force, f.torque, f.slamming_force })
                {
                    bytes.AddRange(BitConverter.GetBytes(v.x));
                    bytes.AddRange(BitConverter.GetBytes(v.y));
                    bytes.AddRange(BitConverter.GetBytes(v.z));
                }
            }
            return bytes.ToArray();
        }

        private delegate int Saver(ref byte[] buffer);

        /// Runs ticks [from, from + count), recording the saved state and the forces of each.
        private static List<byte[]> Record(int from, int count, Saver save, IList<PhysicsBuoyancy> bodies)
        {
            var frames = new List<byte[]>();
            for (int t = from; t < from + count; t++)
            {
                Tick(t);
                byte[] state = null;
                int size = save(ref state);
                Array.Resize(ref state, size);
                frames.Add(state);
                frames.Add(ForceBits(bodies));
            }
            return frames;
        }

        private static void AssertSameBits(List<byte[]> first, List<byte[]> replay)
        {
            Assert.AreEqual(first.Count, replay.Count);
            for (int i = 0; i < first.Count; i++)
                CollectionAssert.AreEqual(first[i], replay[i], (i % 2 == 0 ? "state" : "forces") + " of replayed tick " + i / 2);
        }

        [Test]
        public void ManagerReplaysTicksBitForBitAfterLoadState()
        {
            WaveController waves = Water(KeelWaterModel.Perlin);
            var manager = new GameObject("Manager").AddComponent<BuoyancyManager>();
            List<PhysicsBuoyancy> cubes = DroppedCubes(8);
            for (int t = 0; t < 20; t++) Tick(t);
            byte[] saved = new byte[16];
            int size = manager.SaveState(ref saved);
            ulong hashAtSave = manager.GetStateHash();

            List<byte[]> first = Record(20, 60, manager.SaveState, cubes);
            ulong hashAfter = manager.GetStateHash();
            Assert.AreNotEqual(hashAtSave, hashAfter, "60 ticks did not change the hash");

            manager.LoadState(saved, size);
            Assert.AreEqual(hashAtSave, manager.GetStateHash(), "the restored state hashes differently");
            List<byte[]> replay = Record(20, 60, manager.SaveState, cubes);
            AssertSameBits(first, replay);
            Assert.AreEqual(hashAfter, manager.GetStateHash());

            // The replay proves something only if the ticks moved the bodies and slammed.
            // The replay proves something only if the ticks moved the bodies and slammed.
            float moved = 0f, slam = 0f;
            foreach (PhysicsBuoyancy c in cubes) moved = Mathf.Max(moved, c.GetComponent<Rigidbody>().velocity.magnitude);
            for (int i = 1; i < first.Count; i += 2)
                for (int b = 0; b < cubes.Count; b++) slam = Mathf.Max(slam, Mathf.Abs(BitConverter.ToSingle(first[i], b * 36 + 28)));
            Console.WriteLine("rollback: {0} bytes of state for 8 bodies, speed up to {1:F3} m/s at the end, slamming up to {2:F1} N", size, moved, slam);
            Assert.That(moved, Is.GreaterThan(0.01f), "nothing moves: the replay proves nothing");
            Assert.That(slam, Is.GreaterThan(1f), "no slamming: its history is not exercised");
            Assert.AreEqual(0, Debug.StandInErrors.Count, string.Join("\n", Debug.StandInErrors.ToArray()));
            Assert.IsNotNull(waves);
        }

        [Test]
        public void LoneBodyReplaysTicksBitForBit()
        {
            Water(KeelWaterModel.Perlin);
            PhysicsBuoyancy body = DroppedCubes(1)[0];
            for (int t = 0; t < 5; t++) Tick(t);
            byte[] saved = null;
            int size = body.SaveState(ref saved);
            var bodies = new[] { body };
            List<byte[]> first = Record(5, 50, body.SaveState, bodies);
            body.LoadState(saved, size);
            List<byte[]> replay = Record(5, 50, body.SaveState, bodies);
            AssertSameBits(first, replay);
        }

        [Test]
        public void ABufferOfOtherBodiesIsRefusedWithNothingChanged()
        {
            Water(KeelWaterModel.Flat);
            var manager = new GameObject("Manager").AddComponent<BuoyancyManager>();
            List<PhysicsBuoyancy> cubes = DroppedCubes(3);
            for (int t = 0; t < 10; t++) Tick(t);
            byte[] three = null;
            int threeSize = manager.SaveState(ref three);

            // A fourth body: the three-body state no longer fits.
            cubes.Add(Box("Late", Vector3.one, 400f, new Vector3(-3f, 0f, 0f)));
            Tick(10);
            byte[] before = null;
            int beforeSize = manager.SaveState(ref before);
            Assert.Throws<ArgumentException>(() => manager.LoadState(three, threeSize));
            // A single body's state, and garbage, are refused too.
            byte[] one = null;
            int oneSize = cubes[0].SaveState(ref one);
            Assert.Throws<ArgumentException>(() => manager.LoadState(one, oneSize));
            Assert.Throws<ArgumentException>(() => manager.LoadState(new byte[64], 64));
            byte[] after = null;
            int afterSize = manager.SaveState(ref after);
            Assert.AreEqual(beforeSize, afterSize);
            CollectionAssert.AreEqual(before, after, "a refused LoadState changed something");
        }

        [Test]
        public void SavingAllocatesNothingOnceWarm()
        {
            Water(KeelWaterModel.Perlin);
            var manager = new GameObject("Manager").AddComponent<BuoyancyManager>();
            DroppedCubes(16);
            for (int t = 0; t < 5; t++) Tick(t);
            var ring = new byte[4][];
            for (int i = 0; i < ring.Length; i++) manager.SaveState(ref ring[i]);
            manager.GetStateHash();
            long before = GC.GetAllocatedBytesForCurrentThread();
            for (int i = 0; i < 40; i++)
            {
                manager.SaveState(ref ring[i % ring.Length]);
                manager.GetStateHash();
            }
            long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
            Assert.AreEqual(0L, allocated, "bytes allocated by 40 saves and hashes of 16 bodies");
        }
    }
}
