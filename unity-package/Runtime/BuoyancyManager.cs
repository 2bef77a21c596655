// Steps every registered PhysicsBuoyancy in one native batch call per FixedUpdate (per
// water density), with pooled arrays: no managed allocation per frame once warm.
// SPDX-License-Identifier: MIT OR Apache-2.0
using Keel.Native;
using UnityEngine;

namespace Keel
{
    [DisallowMultipleComponent]
    [DefaultExecutionOrder(-50)]
    [AddComponentMenu("Keel/Buoyancy Manager")]
    public sealed unsafe class BuoyancyManager : MonoBehaviour
    {
        private static BuoyancyManager s_Instance;

        /// <summary>The active manager, or null (bodies then step alone).</summary>
        public static BuoyancyManager Instance { get { return s_Instance; } }

        // The registered bodies, dense: a body knows its slot, so leaving is a swap with the
        // last one (order does not matter: every body's step is independent).
        private PhysicsBuoyancy[] m_Bodies = new PhysicsBuoyancy[0];
        private int m_Count;
        // The step's batch, pooled; slot i of every array is m_Batch[i]'s.
        private PhysicsBuoyancy[] m_Batch = new PhysicsBuoyancy[0];
        private ulong[] m_Handles = new ulong[0];
        private ulong[] m_Worlds = new ulong[0];
        private KeelBodyState[] m_States = new KeelBodyState[0];
        // Results stay here: a batched body's LastForces reads its slot (PhysicsBuoyancy.
        // m_ResultSlot), not a copy. A body's slot, when it has one, is always its index in
        // the step being built, so that a step overwrites only the slots of its own bodies:
        // a body that gets another index or none copies its result out first (KeepResult).
        internal KeelBodyForces[] m_Results = new KeelBodyForces[0];
        private bool m_ErrorLogged;

        /// <summary>How many bodies the manager steps.</summary>
        public int Count { get { return m_Count; } }

        internal static void ResetStatics() { s_Instance = null; }

        private void OnEnable()
        {
            if (s_Instance != null && s_Instance != this)
            {
                Debug.LogError("Keel: a second BuoyancyManager ('" + name + "') is ignored; keep one per scene.", this);
                return;
            }
            s_Instance = this;
            // Disabled bodies register themselves in OnEnable.
            foreach (PhysicsBuoyancy body in FindObjectsOfType<PhysicsBuoyancy>())
                if (body.isActiveAndEnabled) Register(body);
        }

        private void OnDisable()
        {
            if (s_Instance != this) return;
            for (int i = m_Count - 1; i >= 0; i--)
            {
                PhysicsBuoyancy body = m_Bodies[i];
                body.KeepResult();
                body.m_Manager = null;
                body.m_ManagerIndex = -1;
                m_Bodies[i] = null;
            }
            m_Count = 0;
            s_Instance = null;
        }

        // A body is registered from its OnEnable to its OnDisable, so every registered body
        // is active and enabled: the step does not ask.
        internal void Register(PhysicsBuoyancy body)
        {
            if (body.m_Manager == this) return;
            if (m_Count == m_Bodies.Length)
            {
                var grown = new PhysicsBuoyancy[Mathf.Max(16, 2 * m_Count)];
                System.Array.Copy(m_Bodies, grown, m_Count);
                m_Bodies = grown;
            }
            body.m_Manager = this;
            body.m_ManagerIndex = m_Count;
            m_Bodies[m_Count++] = body;
        }

        internal void Unregister(PhysicsBuoyancy body)
        {
            if (body.m_Manager != this) return;
            body.KeepResult();
            int slot = body.m_ManagerIndex;
            PhysicsBuoyancy last = m_Bodies[--m_Count];
            m_Bodies[slot] = last;
            last.m_ManagerIndex = slot;
            m_Bodies[m_Count] = null;
            body.m_Manager = null;
            body.m_ManagerIndex = -1;
        }

        private byte[] m_HashScratch;

        /// <summary>
        /// Writes the rollback state of every registered body, in registration order (the
        /// Rigidbodies' poses and velocities and keel's state of each), into
        /// <paramref name="buffer"/>, grown only when too small: keep one buffer per saved tick
        /// and nothing is allocated per frame. Returns the bytes written. See
        /// Documentation~/Rollback.md.
        /// </summary>
        public int SaveState(ref byte[] buffer) { return KeelRollback.Save(m_Bodies, m_Count, ref buffer); }

        /// <summary>
        /// Restores what <see cref="SaveState"/> wrote into the same bodies, registered in the
        /// same order; the next steps then replay with the same bits given the same inputs and
        /// water time (<see cref="KeelRuntime.ManualWaterTime"/>). A buffer of other bodies
        /// throws ArgumentException and changes nothing.
        /// </summary>
        public void LoadState(byte[] buffer, int size) { KeelRollback.Load(m_Bodies, m_Count, buffer, size); }

        /// <summary>
        /// A 64-bit hash (FNV-1a) of the state SaveState writes. It holds no handle or instance
        /// id, so peers that registered the same bodies in the same order and stepped them the
        /// same way agree on it: compare it to detect a desync.
        /// </summary>
        public ulong GetStateHash()
        {
            int size = SaveState(ref m_HashScratch);
            return KeelRollback.Hash(m_HashScratch, size);
        }

        private void Grow(int n)
        {
            if (m_Handles.Length >= n) return;
            int size = Mathf.Max(n, m_Handles.Length * 2);
            m_Batch = new PhysicsBuoyancy[size];
            m_Handles = new ulong[size];
            m_Worlds = new ulong[size];
            m_States = new KeelBodyState[size];
            // Bodies keep their result slots across the growth.
            var results = new KeelBodyForces[size];
            System.Array.Copy(m_Results, results, m_Results.Length);
            m_Results = results;
        }

        private void FixedUpdate() { StepAll(Time.fixedDeltaTime); }

        /// <summary>Steps every registered body once; FixedUpdate calls it.</summary>
        public void StepAll(float dt)
        {
            int n = m_Count;
            Grow(n);
            int count = 0;
            int generation = KeelRuntime.Generation;
            PhysicsBuoyancy[] bodies = m_Bodies;
            PhysicsBuoyancy[] batch = m_Batch;
            fixed (ulong* handles = m_Handles)
            fixed (ulong* worlds = m_Worlds)
            fixed (KeelBodyState* states = m_States)
            {
                for (int i = 0; i < n; i++)
                {
                    PhysicsBuoyancy body = bodies[i];
                    if (!body.IsReady(generation) && !body.Prepare())
                    {
                        body.KeepResult();
                        continue;
                    }
                    if (body.m_ResultSlot != count) body.KeepResult();
                    body.WriteState(states + count);
                    handles[count] = body.m_Body;
                    worlds[count] = body.m_World;
                    batch[count++] = body;
                }
            }
            if (count == 0) return;
            KeelRuntime.SyncTime();
            // Bodies of one world are contiguous after this in-place partition, usually
            // trivially (one world).
            int start = 0;
            while (start < count)
            {
                ulong world = m_Worlds[start];
                int end = start + 1;
                for (int i = start + 1; i < count; i++)
                    if (m_Worlds[i] == world) { Swap(i, end); end++; }
                StepRange(world, start, end - start, dt);
                start = end;
            }
        }

        private void Swap(int a, int b)
        {
            if (a == b) return;
            m_Batch[a].KeepResult();
            m_Batch[b].KeepResult();
            PhysicsBuoyancy tb = m_Batch[a]; m_Batch[a] = m_Batch[b]; m_Batch[b] = tb;
            ulong th = m_Handles[a]; m_Handles[a] = m_Handles[b]; m_Handles[b] = th;
            ulong tw = m_Worlds[a]; m_Worlds[a] = m_Worlds[b]; m_Worlds[b] = tw;
            KeelBodyState ts = m_States[a]; m_States[a] = m_States[b]; m_States[b] = ts;
        }

        private void StepRange(ulong world, int start, int count, float dt)
        {
            PhysicsBuoyancy[] batch = m_Batch;
            fixed (ulong* handles = m_Handles)
            fixed (KeelBodyState* states = m_States)
            fixed (KeelBodyForces* forces = m_Results)
            {
                KeelStatus status = KeelNative.keel_world_step(world, handles + start, states + start, (uint)count, dt, forces + start);
                if (status != KeelStatus.KEEL_OK)
                {
                    if (!m_ErrorLogged) Debug.LogError("Keel BuoyancyManager: the batch step failed: " + KeelLibrary.LastErrorMessage(), this);
                    m_ErrorLogged = true;
                    return;
                }
                for (int i = start; i < start + count; i++)
                {
                    PhysicsBuoyancy body = batch[i];
                    body.m_ResultSlot = i;
                    body.Apply(forces + i);
                }
            }
        }
    }
}
