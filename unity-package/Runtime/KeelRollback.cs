// Rollback for netcode: a buffer holding, for each body, the Rigidbody's pose and
// velocities and keel's own state of it (the slamming history, keel_body_snapshot), so
// that restoring it and replaying the same inputs gives the same bits. Layout, native byte
// order: "KEEL" magic, format version, body count; then per body the snapshot's size, 13
// floats (position, rotation x y z w, linear and angular velocity) and the snapshot. No
// handle or instance id is written, so two peers with the same bodies in the same order
// write the same bytes, and the hash of the bytes is a desync check.
// SPDX-License-Identifier: MIT OR Apache-2.0
using System;
using Keel.Native;
using UnityEngine;

namespace Keel
{
    internal static unsafe class KeelRollback
    {
        private const uint Magic = 0x4C45454B; // "KEEL" read as little-endian bytes
        private const uint Version = 1;
        private const int HeaderBytes = 12;
        private const int BodyFixedBytes = 4 + 13 * 4;

        /// <summary>Writes the bodies' state into buffer (grown when too small); returns the bytes written.</summary>
        internal static int Save(PhysicsBuoyancy[] bodies, int count, ref byte[] buffer)
        {
            int size = HeaderBytes;
            for (int i = 0; i < count; i++) size += BodyFixedBytes + (int)bodies[i].SnapshotSize();
            if (buffer == null || buffer.Length < size) buffer = new byte[size];
            fixed (byte* start = buffer)
            {
                byte* p = start;
                *(uint*)p = Magic; *(uint*)(p + 4) = Version; *(uint*)(p + 8) = (uint)count;
                p += HeaderBytes;
                for (int i = 0; i < count; i++) p = bodies[i].WriteRollback(p, (uint)(size - (p - start)));
            }
            return size;
        }

        /// <summary>
        /// Checks the whole buffer against the bodies before changing anything, then restores
        /// every body: a buffer of other bodies throws ArgumentException and loses nothing.
        /// </summary>
        internal static void Load(PhysicsBuoyancy[] bodies, int count, byte[] buffer, int size)
        {
            if (buffer == null) throw new ArgumentNullException("buffer");
            if (size < HeaderBytes || size > buffer.Length) throw new ArgumentException("Keel: the state buffer holds " + size + " bytes, which is no saved state.");
            fixed (byte* start = buffer)
            {
                if (*(uint*)start != Magic || *(uint*)(start + 4) != Version)
                    throw new ArgumentException("Keel: the buffer is not a state written by SaveState of this package version.");
                if (*(uint*)(start + 8) != (uint)count)
                    throw new ArgumentException("Keel: the state holds " + *(uint*)(start + 8) + " bodies but there are " + count + " now; restore into the same bodies, registered in the same order.");
                byte* p = start + HeaderBytes;
                for (int i = 0; i < count; i++)
                {
                    if (p + BodyFixedBytes > start + size) throw new ArgumentException("Keel: the state buffer is cut short.");
                    uint saved = *(uint*)p, now = bodies[i].SnapshotSize();
                    if (saved != now)
                        throw new ArgumentException("Keel: body " + i + " ('" + bodies[i].name + "') has a hull of another size than the saved one (" + now + " bytes of state, saved " + saved + ").");
                    p += BodyFixedBytes + saved;
                }
                if (p != start + size) throw new ArgumentException("Keel: the state buffer is longer than the bodies' state.");
                p = start + HeaderBytes;
                for (int i = 0; i < count; i++) p = bodies[i].ReadRollback(p);
            }
        }

        /// <summary>FNV-1a, 64 bits, over the first size bytes.</summary>
        internal static ulong Hash(byte[] buffer, int size)
        {
            ulong hash = 14695981039346656037UL;
            for (int i = 0; i < size; i++) { hash ^= buffer[i]; hash *= 1099511628211UL; }
            return hash;
        }
    }

    public sealed unsafe partial class PhysicsBuoyancy
    {
        private byte[] m_RollbackScratch;
        private PhysicsBuoyancy[] m_Self;

        private PhysicsBuoyancy[] Self { get { return m_Self ?? (m_Self = new[] { this }); } }

        /// <summary>
        /// Writes this body's rollback state (Rigidbody pose and velocities, and keel's slamming
        /// history) into <paramref name="buffer"/>, which is grown only when too small: keep one
        /// buffer per saved tick and nothing is allocated per frame. Returns the bytes written.
        /// Bodies under a BuoyancyManager are saved with the manager's SaveState instead.
        /// </summary>
        public int SaveState(ref byte[] buffer) { return KeelRollback.Save(Self, 1, ref buffer); }

        /// <summary>
        /// Restores what <see cref="SaveState"/> wrote: the Rigidbody's pose and velocities and
        /// keel's state, so that the next steps replay with the same bits given the same inputs
        /// and water time (<see cref="KeelRuntime.ManualWaterTime"/>). Throws ArgumentException,
        /// with nothing changed, when the buffer is another body's.
        /// </summary>
        public void LoadState(byte[] buffer, int size) { KeelRollback.Load(Self, 1, buffer, size); }

        /// <summary>A 64-bit hash of this body's state (as SaveState writes it): compare between peers to detect a desync.</summary>
        public ulong GetStateHash()
        {
            int size = SaveState(ref m_RollbackScratch);
            return KeelRollback.Hash(m_RollbackScratch, size);
        }

        /// <summary>Bytes of keel's state of this body; creates the native body first if needed.</summary>
        internal uint SnapshotSize()
        {
            if (m_Rigidbody == null) m_Rigidbody = GetComponent<Rigidbody>();
            if (!IsReady(KeelRuntime.Generation) && !Prepare())
                throw new InvalidOperationException("Keel: '" + name + "' has no native body (its mesh was refused, see the first error), so it has no state to save.");
            uint size;
            KeelLibrary.Check(KeelNative.keel_body_snapshot(m_World, m_Body, null, 0, &size));
            return size;
        }

        internal byte* WriteRollback(byte* p, uint capacity)
        {
            Rigidbody rb = m_Rigidbody;
            float* f = (float*)(p + 4);
            Vector3 pos = rb.position;
            Quaternion q = rb.rotation;
#if UNITY_6000_0_OR_NEWER
            Vector3 v = rb.linearVelocity;
#else
            Vector3 v = rb.velocity;
#endif
            Vector3 w = rb.angularVelocity;
            f[0] = pos.x; f[1] = pos.y; f[2] = pos.z;
            f[3] = q.x; f[4] = q.y; f[5] = q.z; f[6] = q.w;
            f[7] = v.x; f[8] = v.y; f[9] = v.z;
            f[10] = w.x; f[11] = w.y; f[12] = w.z;
            uint size;
            KeelLibrary.Check(KeelNative.keel_body_snapshot(m_World, m_Body, p + BodyFixed, capacity - BodyFixed, &size));
            *(uint*)p = size;
            return p + BodyFixed + size;
        }

        internal byte* ReadRollback(byte* p)
        {
            uint size = *(uint*)p;
            float* f = (float*)(p + 4);
            KeelLibrary.Check(KeelNative.keel_body_restore(m_World, m_Body, p + BodyFixed, size));
            var pos = new Vector3(f[0], f[1], f[2]);
            var q = new Quaternion(f[3], f[4], f[5], f[6]);
            // Both the Transform and the Rigidbody: Unity moves the body on the next
            // simulation from the Rigidbody's pose, and scripts read the Transform now.
            transform.position = pos;
            transform.rotation = q;
            Rigidbody rb = m_Rigidbody;
            rb.position = pos;
            rb.rotation = q;
#if UNITY_6000_0_OR_NEWER
            rb.linearVelocity = new Vector3(f[7], f[8], f[9]);
#else
            rb.velocity = new Vector3(f[7], f[8], f[9]);
#endif
            rb.angularVelocity = new Vector3(f[10], f[11], f[12]);
            // keel_body_restore leaves no last step; neither does LastForces.
            KeepResult();
            m_Forces = default(KeelBodyForces);
            return p + BodyFixed + size;
        }

        private const int BodyFixed = 4 + 13 * 4;
    }
}
