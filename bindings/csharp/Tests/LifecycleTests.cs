// Native handles across the editor's lifecycle: component destroy/disable/enable, leaving
// play mode, domain reloads (a real AppDomain unloaded under mono), and play sessions
// with domain reload disabled. Leaks are counted through the ABI.
// SPDX-License-Identifier: MIT OR Apache-2.0
using System;
using Keel;
using Keel.Native;
using NUnit.Framework;
using UnityEngine;

namespace Keel.Tests
{
    [TestFixture]
    public unsafe class LifecycleTests : SceneTest
    {
        [Test]
        public void DestroyingDisablingAndReenablingLeakNothing()
        {
            PhysicsBuoyancy a = Box("A", Vector3.one, 300f, Vector3.zero);
            PhysicsBuoyancy b = Box("B", new Vector3(1f, 1f, 1.5f), 450f, new Vector3(3f, 0f, 0f));
            StandInPlayerLoop.Step(3);
            ulong world = KeelRuntime.GetWorld(RhoWater);
            Assert.AreEqual(2u, Counts(world).body_count);
            Assert.AreEqual(2u, Counts(world).hull_count);

            a.enabled = false;
            Assert.AreEqual(1u, Counts(world).body_count);
            Assert.AreEqual(1u, Counts(world).hull_count);
            a.enabled = true;
            StandInPlayerLoop.Step(2);
            Assert.AreEqual(2u, Counts(world).body_count);

            b.gameObject.SetActive(false);
            Assert.AreEqual(1u, Counts(world).body_count);
            b.gameObject.SetActive(true);
            StandInPlayerLoop.Step(1);
            Assert.AreEqual(2u, Counts(world).body_count);

            UnityEngine.Object.Destroy(a);
            StandInPlayerLoop.Step(1);
            Assert.AreEqual(1u, Counts(world).body_count);
            UnityEngine.Object.Destroy(b.gameObject);
            StandInPlayerLoop.Step(1);
            Assert.AreEqual(0u, Counts(world).body_count);
            Assert.AreEqual(0u, Counts(world).hull_count);
            Assert.AreEqual(1u, KeelNative.keel_live_world_count());
        }

        [Test]
        public void BodiesOfOneMeshAndScaleShareAHullUntilTheLastGoes()
        {
            var bodies = new PhysicsBuoyancy[3];
            for (int i = 0; i < 3; i++) bodies[i] = Box("Crate " + i, new Vector3(1f, 0.5f, 1f), 200f, new Vector3(2f * i, 0f, 0f));
            PhysicsBuoyancy other = Box("Big crate", new Vector3(2f, 0.5f, 1f), 400f, new Vector3(0f, 0f, 3f));
            StandInPlayerLoop.Step(3);
            ulong world = KeelRuntime.GetWorld(RhoWater);
            Assert.AreEqual(4u, Counts(world).body_count);
            Assert.AreEqual(2u, Counts(world).hull_count, "crates of one mesh and scale should share a hull");
            UnityEngine.Object.Destroy(bodies[0].gameObject);
            bodies[1].enabled = false;
            StandInPlayerLoop.Step(1);
            Assert.AreEqual(2u, Counts(world).hull_count, "a hull still in use was destroyed");
            UnityEngine.Object.Destroy(bodies[2].gameObject);
            StandInPlayerLoop.Step(1);
            Assert.AreEqual(1u, Counts(world).hull_count, "the crates' hull outlived its last user");
            bodies[1].enabled = true;
            StandInPlayerLoop.Step(1);
            Assert.AreEqual(2u, Counts(world).hull_count);
            Assert.AreEqual(2u, Counts(world).body_count);
            Assert.IsFalse(other.HasFailed);
        }

        [Test]
        public void LeavingPlayModeKillsEveryHandle()
        {
            PhysicsBuoyancy raft = Box("Raft", new Vector3(2f, 0.5f, 2f), 1000f, Vector3.zero);
            StandInPlayerLoop.Step(2);
            ulong world = KeelRuntime.GetWorld(RhoWater);
            ulong body = raft.BodyHandle;
            Assert.AreNotEqual(0UL, body);
            StandInPlayerLoop.ExitPlayMode();
            Assert.AreEqual(0u, KeelNative.keel_live_world_count());
            Assert.AreEqual(KeelStatus.KEEL_ERROR_INVALID_HANDLE, KeelNative.keel_body_destroy(world, body));
            StandInPlayerLoop.EnterPlayMode();
        }

        [Test]
        public void SecondSessionWithDomainReloadDisabledStartsClean()
        {
            PhysicsBuoyancy first = Box("Raft", new Vector3(2f, 0.5f, 2f), 1000f, new Vector3(0f, 0.3f, 0f));
            StandInPlayerLoop.Run(1f);
            // Play mode ends, the domain stays: statics keep their values.
            StandInPlayerLoop.ExitPlayMode();
            Assert.AreEqual(0u, KeelNative.keel_live_world_count());
            StandInPlayerLoop.EnterPlayMode();

            PhysicsBuoyancy second = Box("Raft", new Vector3(2f, 0.5f, 2f), 1000f, new Vector3(0f, 0.3f, 0f));
            StandInPlayerLoop.Run(10f);
            Assert.That(second.transform.position.y, Is.EqualTo(0f).Within(0.01f), "the second session's raft does not float");
            Assert.AreEqual(1u, KeelNative.keel_live_world_count());
            Assert.AreEqual(1u, Counts(KeelRuntime.GetWorld(RhoWater)).body_count);
            Assert.IsFalse(first.HasFailed);
        }

        [Test]
        public void SessionStartResetsStaticsEvenWhenQuittingNeverRan()
        {
            PhysicsBuoyancy raft = Box("Raft", new Vector3(2f, 0.5f, 2f), 1000f, new Vector3(0f, 0.3f, 0f));
            StandInPlayerLoop.Run(1f);
            ulong stale = raft.BodyHandle;
            // No Application.quitting (an editor crash of the play loop, a script that
            // threw): the next session's SubsystemRegistration must still clean up.
            StandInPlayerLoop.EnterPlayMode();
            Assert.AreEqual(0u, KeelNative.keel_live_world_count());
            Assert.AreEqual(0UL, raft.BodyHandle, "a handle of a destroyed world is still offered");
            StandInPlayerLoop.Run(1f);
            Assert.AreNotEqual(stale, raft.BodyHandle);
            Assert.AreEqual(1u, Counts(KeelRuntime.GetWorld(RhoWater)).body_count);
        }

        [Test]
        public void BeforeAssemblyReloadDestroysEveryWorldOfTheProcess()
        {
            Box("Raft", new Vector3(2f, 0.5f, 2f), 1000f, Vector3.zero);
            KeelRuntime.SetWaterSource(new FlatSource());
            StandInPlayerLoop.Step(5);
            ulong foreign;
            KeelWorldDesc desc;
            KeelNative.keel_world_desc_default(&desc);
            KeelLibrary.Check(KeelNative.keel_world_create(&desc, &foreign));
            Assert.AreEqual(2u, KeelNative.keel_live_world_count());
            UnityEditor.AssemblyReloadEvents.StandInRaiseBeforeAssemblyReload();
            Assert.AreEqual(0u, KeelNative.keel_live_world_count());
        }

        [Test]
        public void UnloadedDomainLeavesNoWorldAndNoCallback()
        {
            RunSessionInChildDomain(true);
            Assert.AreEqual(0u, KeelNative.keel_live_world_count(), "worlds outlived the domain reload");
        }

        [Test]
        public void OrphansOfADomainThatSkippedItsReloadHookDieAtTheNextSession()
        {
            RunSessionInChildDomain(false);
            Assert.AreEqual(1u, KeelNative.keel_live_world_count(), "the child session should have left its world");
            StandInPlayerLoop.EnterPlayMode();
            Assert.AreEqual(0u, KeelNative.keel_live_world_count());
            Box("Raft", new Vector3(2f, 0.5f, 2f), 1000f, new Vector3(0f, 0.3f, 0f));
            StandInPlayerLoop.Run(1f);
            Assert.AreEqual(1u, KeelNative.keel_live_world_count());
        }

        private static void RunSessionInChildDomain(bool raiseReload)
        {
            AppDomain domain = AppDomain.CreateDomain("Keel play session", null, AppDomain.CurrentDomain.SetupInformation);
            try
            {
                var session = (ChildSession)domain.CreateInstanceAndUnwrap(typeof(ChildSession).Assembly.FullName, typeof(ChildSession).FullName);
                float y = session.Play(raiseReload);
                Assert.That(y, Is.EqualTo(1f).Within(0.02f), "the child domain's raft did not float on its callback water");
            }
            finally
            {
                AppDomain.Unload(domain);
            }
        }
    }

    internal sealed class FlatSource : IKeelWaterSource
    {
        public float Level;
        public void SampleWater(Vector3[] points, int count, float[] heights, Vector3[] normals, Vector3[] velocities)
        {
            for (int i = 0; i < count; i++) heights[i] = Level;
            if (normals != null) for (int i = 0; i < count; i++) normals[i] = Vector3.up;
            if (velocities != null) for (int i = 0; i < count; i++) velocities[i] = Vector3.zero;
        }
    }

    /// A play session in another AppDomain, whose water is a managed callback: after the
    /// domain is unloaded, a native world still pointing at it would crash the process.
    public sealed class ChildSession : MarshalByRefObject
    {
        public float Play(bool raiseReload)
        {
            Time.fixedDeltaTime = 0.02f;
            StandInPlayerLoop.EnterPlayMode();
            KeelRuntime.SetWaterSource(new FlatSource { Level = 1f });
            GameObject go = GameObject.CreatePrimitive(PrimitiveType.Cube);
            go.transform.localScale = new Vector3(2f, 0.5f, 2f);
            go.transform.position = new Vector3(0f, 1.3f, 0f);
            go.AddComponent<Rigidbody>().mass = 1000f;
            go.AddComponent<PhysicsBuoyancy>();
            StandInPlayerLoop.Run(8f);
            if (raiseReload) UnityEditor.AssemblyReloadEvents.StandInRaiseBeforeAssemblyReload();
            return go.transform.position.y;
        }
    }
}
