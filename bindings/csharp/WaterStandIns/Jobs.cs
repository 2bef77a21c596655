// Stand-in for the few Unity.Mathematics, Unity.Collections and Unity.Jobs declarations the
// water adapters use, written from Unity's public API documentation. Jobs run at Schedule
// on the calling thread: the results are there after Complete, as in Unity.
// SPDX-License-Identifier: MIT OR Apache-2.0
using System;

namespace Unity.Mathematics
{
    public struct float3
    {
        public float x, y, z;
        public float3(float x, float y, float z) { this.x = x; this.y = y; this.z = z; }
        public static implicit operator UnityEngine.Vector3(float3 v) { return new UnityEngine.Vector3(v.x, v.y, v.z); }
        public static implicit operator float3(UnityEngine.Vector3 v) { return new float3(v.x, v.y, v.z); }
    }
}

namespace Unity.Collections
{
    public enum Allocator { Invalid = 0, None = 1, Temp = 2, TempJob = 3, Persistent = 4 }
    public enum NativeArrayOptions { UninitializedMemory = 0, ClearMemory = 1 }

    public struct NativeArray<T> : IDisposable where T : struct
    {
        private T[] m_Items;
        public NativeArray(int length, Allocator allocator, NativeArrayOptions options = NativeArrayOptions.ClearMemory)
        {
            if (allocator <= Allocator.None) throw new ArgumentException("invalid allocator");
            m_Items = new T[length];
            StandInLive++;
        }
        /// Stand-in only: arrays allocated and not disposed, to catch leaks.
        public static int StandInLive;
        public int Length { get { return m_Items == null ? 0 : m_Items.Length; } }
        public bool IsCreated { get { return m_Items != null; } }
        public T this[int index]
        {
            get { return m_Items[index]; }
            set { m_Items[index] = value; }
        }
        public void Dispose()
        {
            if (m_Items == null) throw new ObjectDisposedException("NativeArray");
            m_Items = null;
            StandInLive--;
        }
    }
}

namespace Unity.Jobs
{
    public interface IJobParallelFor { void Execute(int index); }

    public struct JobHandle
    {
        internal bool m_Scheduled;
        public void Complete() { if (!m_Scheduled) throw new InvalidOperationException("a default JobHandle"); }
    }

    public static class IJobParallelForExtensions
    {
        public static JobHandle Schedule<T>(this T jobData, int arrayLength, int innerloopBatchCount, JobHandle dependsOn = default(JobHandle))
            where T : struct, IJobParallelFor
        {
            for (int i = 0; i < arrayLength; i++) jobData.Execute(i);
            return new JobHandle { m_Scheduled = true };
        }
    }
}
