// Steps every registered PhysicsBuoyancy in one native batch call per FixedUpdate (per
// water density), with pooled arrays: no managed allocation per frame once warm.
// SPDX-License-Identifier: MIT OR Apache-2.0
using System.Collections.Generic;
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

        private readonly List<PhysicsBuoyancy> m_Bodies = new List<PhysicsBuoyancy>();
        private PhysicsBuoyancy[] m_Batch = new PhysicsBuoyancy[0];
        private ulong[] m_Handles = new ulong[0];
        private ulong[] m_Worlds = new ulong[0];
        private KeelBodyState[] m_States = new KeelBodyState[0];
        private KeelBodyForces[] m_Forces = new KeelBodyForces[0];
        private bool m_ErrorLogged;

        /// <summary>How many bodies the manager steps.</summary>
        public int Count { get { return m_Bodies.Count; } }

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
            for (int i = m_Bodies.Count - 1; i >= 0; i--) m_Bodies[i].m_Manager = null;
            m_Bodies.Clear();
            s_Instance = null;
        }

        internal void Register(PhysicsBuoyancy body)
        {
            if (body.m_Manager == this) return;
            body.m_Manager = this;
            m_Bodies.Add(body);
        }

        internal void Unregister(PhysicsBuoyancy body)
        {
            if (body.m_Manager != this) return;
            body.m_Manager = null;
            m_Bodies.Remove(body);
        }

        private void Grow(int n)
        {
            if (m_Handles.Length >= n) return;
            int size = Mathf.Max(n, m_Handles.Length * 2);
            m_Batch = new PhysicsBuoyancy[size];
            m_Handles = new ulong[size];
            m_Worlds = new ulong[size];
            m_States = new KeelBodyState[size];
            m_Forces = new KeelBodyForces[size];
        }

        private void FixedUpdate() { StepAll(Time.fixedDeltaTime); }

        /// <summary>Steps every registered body once; FixedUpdate calls it.</summary>
        public void StepAll(float dt)
        {
            int n = m_Bodies.Count;
            Grow(n);
            int count = 0;
            for (int i = 0; i < n; i++)
            {
                PhysicsBuoyancy body = m_Bodies[i];
                if (!body.isActiveAndEnabled) continue;
                if (!body.TryPrepare(out m_Worlds[count], out m_Handles[count], out m_States[count])) continue;
                m_Batch[count++] = body;
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
            PhysicsBuoyancy tb = m_Batch[a]; m_Batch[a] = m_Batch[b]; m_Batch[b] = tb;
            ulong th = m_Handles[a]; m_Handles[a] = m_Handles[b]; m_Handles[b] = th;
            ulong tw = m_Worlds[a]; m_Worlds[a] = m_Worlds[b]; m_Worlds[b] = tw;
            KeelBodyState ts = m_States[a]; m_States[a] = m_States[b]; m_States[b] = ts;
        }

        private void StepRange(ulong world, int start, int count, float dt)
        {
            KeelStatus status;
            fixed (ulong* handles = m_Handles)
            fixed (KeelBodyState* states = m_States)
            fixed (KeelBodyForces* forces = m_Forces)
                status = KeelNative.keel_world_step(world, handles + start, states + start, (uint)count, dt, forces + start);
            if (status != KeelStatus.KEEL_OK)
            {
                if (!m_ErrorLogged) Debug.LogError("Keel BuoyancyManager: the batch step failed: " + KeelLibrary.LastErrorMessage(), this);
                m_ErrorLogged = true;
                return;
            }
            for (int i = start; i < start + count; i++) m_Batch[i].Apply(ref m_Forces[i]);
        }
    }
}
