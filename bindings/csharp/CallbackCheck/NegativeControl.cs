// The check's negative control: two callbacks IL2CPP cannot call. CallbackCheck must fail
// on this assembly and name both; were it to pass, it would prove nothing about the package.
// SPDX-License-Identifier: MIT OR Apache-2.0
using System;
using Keel.Native;

namespace Keel.CallbackCheckNegative
{
    public sealed unsafe class BadWater
    {
        public float Level;

        // An instance method: IL2CPP has no function pointer for it.
        private void Query(IntPtr userData, KeelVec3* points, uint count, float* heights, KeelVec3* normals, KeelVec3* velocities)
        {
            for (uint i = 0; i < count; i++) heights[i] = Level;
        }

        // Static, but without [MonoPInvokeCallback]: IL2CPP makes no reverse wrapper.
        private static void Unmarked(IntPtr userData, KeelVec3* points, uint count, float* heights, KeelVec3* normals, KeelVec3* velocities) { }

        public KeelWaterQuery Instance() { return Query; }

        public static KeelWaterQuery Static() { return Unmarked; }
    }
}
