// PhysicsBuoyancy's refusals and debugging views: a bad mesh gets one clear console
// error and no force, never an exception per frame; the figure-19 meshes and the gizmos
// show the last step. (The P/Invoke layer's own tests are the package's Tests/Runtime.)
// SPDX-License-Identifier: MIT OR Apache-2.0
using System;
using Keel;
using Keel.Native;
using NUnit.Framework;
using UnityEngine;

namespace Keel.Tests
{
    [TestFixture]
    public unsafe class PackageApiTests : SceneTest
    {
        private void AssertOneErrorAndNoForce(PhysicsBuoyancy body, string expected)
        {
            StandInPlayerLoop.Step(50);
            Assert.IsTrue(body.HasFailed);
            Assert.AreEqual(1, Debug.StandInErrors.Count, string.Join("\n", Debug.StandInErrors.ToArray()));
            StringAssert.Contains("'" + body.name + "'", Debug.StandInErrors[0]);
            StringAssert.Contains(expected, Debug.StandInErrors[0]);
            Assert.AreEqual(0f, body.LastForces.force.y);
            Assert.AreEqual(0UL, body.BodyHandle);
        }

        [Test]
        public void UnreadableMeshGetsOneClearError()
        {
            PhysicsBuoyancy body = Box("Locked crate", Vector3.one, 300f, Vector3.zero);
            body.GetComponent<MeshFilter>().mesh.UploadMeshData(true);
            AssertOneErrorAndNoForce(body, "not readable");
        }

        [Test]
        public void MeshWithoutTrianglesGetsOneClearError()
        {
            PhysicsBuoyancy body = Box("Empty", Vector3.one, 300f, Vector3.zero);
            body.GetComponent<MeshFilter>().sharedMesh = new Mesh { name = "nothing" };
            AssertOneErrorAndNoForce(body, "no triangles");
        }

        [Test]
        public void ZeroScaleGetsOneClearError()
        {
            PhysicsBuoyancy body = Box("Flat", new Vector3(1f, 0f, 1f), 300f, Vector3.zero);
            AssertOneErrorAndNoForce(body, "scaled to zero");
        }

        private static KeelBodyDesc NativeDesc(PhysicsBuoyancy body)
        {
            KeelBodyDesc desc;
            KeelLibrary.Check(KeelNative.keel_body_get_desc(KeelRuntime.GetWorld(RhoWater), body.BodyHandle, out desc));
            return desc;
        }

        private static void ChangeMassAndInertia(Rigidbody rb, float mass)
        {
            rb.mass = mass;
            rb.inertiaTensor = new Vector3(300f, 500f, 250f);
            rb.inertiaTensorRotation = Quaternion.Euler(0f, 30f, 0f);
        }

        private static void AssertMassAndInertia(PhysicsBuoyancy body, float mass)
        {
            KeelBodyDesc desc = NativeDesc(body);
            Assert.AreEqual(mass, desc.mass);
            Assert.AreEqual(300f, desc.inertia.x);
            Assert.AreEqual(500f, desc.inertia.y);
            Assert.AreEqual(250f, desc.inertia.z);
            Assert.That(Mathf.Abs(desc.inertia_rotation.y), Is.EqualTo(Mathf.Sin(15f * Mathf.Deg2Rad)).Within(1e-4f));
        }

        // The Rigidbody's mass and inertia are read every FixedUpdate, as the issue asks:
        // a change reaches the native description at the next step, with and without a
        // manager, and ApplySettings() sends them too.
        [Test]
        public void RigidbodyMassAndInertiaReachTheNativeBody() { MassAndInertiaReachTheNativeBody(false); }

        [Test]
        public void RigidbodyMassAndInertiaReachTheBatchedBody() { MassAndInertiaReachTheNativeBody(true); }

        private static void MassAndInertiaReachTheNativeBody(bool withManager)
        {
            if (withManager) new GameObject("Manager").AddComponent<BuoyancyManager>();
            PhysicsBuoyancy raft = Box("Raft", new Vector3(2f, 0.5f, 2f), 1000f, Vector3.zero);
            StandInPlayerLoop.Step(2);
            Assert.AreEqual(1000f, NativeDesc(raft).mass);
            var rb = raft.GetComponent<Rigidbody>();
            ChangeMassAndInertia(rb, 800f);
            StandInPlayerLoop.Step(1);
            AssertMassAndInertia(raft, 800f);

            rb.ResetInertiaTensor();
            StandInPlayerLoop.Step(1);
            ChangeMassAndInertia(rb, 700f);
            raft.ApplySettings();
            StandInPlayerLoop.Step(1);
            AssertMassAndInertia(raft, 700f);
        }

        // A centre of mass moved by a script is where the torque is taken once it is re-read:
        // a kinematic raft half in still water with buoyancy alone feels a force through the
        // centre of buoyancy, so the torque about the centre of mass is (cob - com) x F.
        [Test]
        public void MovedCenterOfMassReachesTheStep() { CenterOfMassReachesTheStep(false); }

        [Test]
        public void MovedCenterOfMassReachesTheBatchedStep() { CenterOfMassReachesTheStep(true); }

        private static void CenterOfMassReachesTheStep(bool withManager)
        {
            if (withManager) new GameObject("Manager").AddComponent<BuoyancyManager>();
            PhysicsBuoyancy raft = Box("Raft", new Vector3(2f, 0.5f, 2f), 1000f, Vector3.zero);
            raft.transform.rotation = Quaternion.Euler(0f, 40f, 0f);
            raft.viscousResistance = raft.pressureDrag = raft.slammingForce = raft.airResistance = false;
            var rb = raft.GetComponent<Rigidbody>();
            rb.isKinematic = true;
            StandInPlayerLoop.Step(2);
            rb.centerOfMass = new Vector3(0.5f, 0.2f, 0f);
            StandInPlayerLoop.Step(1);
            KeelBodyForces f = raft.LastForces;
            Vector3 force = V(f.force);
            Vector3 expected = Vector3.Cross(V(f.center_of_buoyancy) - rb.worldCenterOfMass, force);
            Assert.That(force.y, Is.EqualTo(RhoWater * G * 1f).Within(0.01f * RhoWater * G), "Archimedes: 1 m^3 under water");
            Assert.That(expected.magnitude, Is.GreaterThan(0.4f * force.y), "the offset centre of mass makes no arm: the test proves nothing");
            Assert.That((V(f.torque) - expected).magnitude, Is.LessThan(1e-3f * expected.magnitude), "torque " + V(f.torque) + ", expected " + expected);
        }

        [Test]
        public void DebugMeshesShowTheUnderwaterAndAboveWaterParts()
        {
            PhysicsBuoyancy raft = Box("Raft", new Vector3(2f, 0.5f, 2f), 1000f, new Vector3(0f, 0.1f, 0.2f));
            raft.transform.rotation = Quaternion.Euler(10f, 0f, 5f);
            raft.GetComponent<Rigidbody>().isKinematic = true;
            var under = new GameObject("Under", typeof(MeshFilter));
            var above = new GameObject("Above", typeof(MeshFilter));
            raft.underWaterObj = under;
            raft.aboveWaterObj = above;
            StandInPlayerLoop.Step(2);
            Vector3[] wet = under.GetComponent<MeshFilter>().sharedMesh.vertices;
            Vector3[] dry = above.GetComponent<MeshFilter>().sharedMesh.vertices;
            Assert.That(wet.Length, Is.GreaterThan(0));
            Assert.That(dry.Length, Is.GreaterThan(0));
            foreach (Vector3 v in wet) Assert.That(v.y, Is.LessThanOrEqualTo(1e-4f));
            foreach (Vector3 v in dry) Assert.That(v.y, Is.GreaterThanOrEqualTo(-1e-4f));

            Gizmos.StandInDrawCount = 0;
            StandInPlayerLoop.DrawGizmos();
            // Three edges per submerged triangle, the waterline, the centre and the arrow.
            Assert.That(Gizmos.StandInDrawCount, Is.GreaterThanOrEqualTo(wet.Length + 2));
        }
    }
}
