// The P/Invoke layer against the real library, runnable both in Unity's Test Runner and
// under mono (tests/unity.rs): the ABI check, errors as exceptions carrying
// keel_last_error_message(), and bool fields marshalled as one byte.
// SPDX-License-Identifier: MIT OR Apache-2.0
using Keel.Native;
using NUnit.Framework;

namespace Keel.Tests
{
    [TestFixture]
    public unsafe class NativeLayerTests
    {
        private ulong m_World;

        [SetUp]
        public void CreateWorld()
        {
            KeelLibrary.EnsureCompatible();
            KeelWorldDesc desc;
            KeelNative.keel_world_desc_default(&desc);
            ulong world;
            KeelLibrary.Check(KeelNative.keel_world_create(&desc, &world));
            m_World = world;
        }

        [TearDown]
        public void DestroyWorld()
        {
            KeelLibrary.Check(KeelNative.keel_world_destroy(m_World));
        }

        [Test]
        public void LibraryVersionIsCompatible()
        {
            Assert.AreEqual(KeelNative.KEEL_ABI_VERSION >> 16, KeelNative.keel_abi_version() >> 16);
            Assert.GreaterOrEqual(KeelNative.keel_abi_version() & 0xffff, KeelNative.KEEL_ABI_VERSION & 0xffff);
            StringAssert.IsMatch(@"^\d+\.\d+\.\d+", KeelLibrary.Version);
        }

        [Test]
        public void FailuresThrowWithTheLibrarysMessage()
        {
            var e = Assert.Throws<KeelException>(() => KeelLibrary.Check(KeelNative.keel_world_destroy(0xdeadUL)));
            Assert.AreEqual(KeelStatus.KEEL_ERROR_INVALID_HANDLE, e.Status);
            StringAssert.Contains("keel_world_destroy", e.Message);
        }

        [Test]
        public void BoolFieldsRoundTripAsOneByte()
        {
            ulong hull, body;
            KeelLibrary.Check(KeelNative.keel_hull_create_box(m_World, new KeelVec3 { x = 1f, y = 1f, z = 1f }, &hull));
            var desc = new KeelBodyDesc();
            KeelNative.keel_body_desc_default(ref desc);
            desc.hull = hull;
            Assert.IsTrue(desc.froude_krylov, "the water's inertia is on by default");
            desc.vertical_buoyancy_only = true;
            desc.froude_krylov = false;
            desc.forces = KeelNative.KEEL_FORCE_AIR | KeelNative.KEEL_FORCE_DAMPING;
            desc.hull_length = 2.5f;
            KeelLibrary.Check(KeelNative.keel_body_create(m_World, ref desc, &body));
            KeelBodyDesc back;
            KeelLibrary.Check(KeelNative.keel_body_get_desc(m_World, body, out back));
            Assert.IsTrue(back.vertical_buoyancy_only);
            Assert.IsFalse(back.froude_krylov);
            Assert.AreEqual(desc.forces, back.forces);
            Assert.AreEqual(2.5f, back.hull_length);
            KeelHullInfo info;
            KeelLibrary.Check(KeelNative.keel_hull_get_info(m_World, hull, out info));
            Assert.IsTrue(info.is_closed);
            Assert.IsFalse(info.winding_flipped);
            Assert.AreEqual(1f, info.volume, 1e-5f);
            KeelWorldCounts counts;
            KeelLibrary.Check(KeelNative.keel_world_get_counts(m_World, &counts));
            Assert.AreEqual(1u, counts.hull_count);
            Assert.AreEqual(1u, counts.body_count);
        }
    }
}
