// The package's native worlds and their lifecycle. Unity never unloads a native plugin,
// so worlds outlive play sessions and domain reloads: every world is destroyed when the
// player quits or play mode ends (Application.quitting), before an assembly reload, and,
// with domain reload disabled, when the next play session starts (SubsystemRegistration).
// Components hold handles with the world generation they were made in, and rebuild them
// when the generation moved on, so nothing ever uses a handle of a destroyed world.
// SPDX-License-Identifier: MIT OR Apache-2.0
using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using AOT;
using Keel.Native;
using UnityEngine;

namespace Keel
{
    /// <summary>Owner of the native worlds the package's components share.</summary>
    public static unsafe class KeelRuntime
    {
        private struct WorldEntry
        {
            public float WaterDensity;
            public ulong Handle;
        }

        // Usually one world; one per distinct water density set on a PhysicsBuoyancy.
        private static readonly List<WorldEntry> s_Worlds = new List<WorldEntry>();
        private static int s_Generation = 1;
        private static bool s_Hooked;
        private static float s_LastTime = float.NaN;
        private static WaveController s_Waves;
        private static IKeelWaterSource s_Source;
        private static GCHandle s_SourceHandle;
        // One static delegate for the process: it is what native code points to, and it
        // never refers to an instance, only to the GCHandle passed as user_data.
        private static readonly KeelWaterQuery s_Trampoline = WaterTrampoline;

        /// <summary>Fresh water, kg/m^3: the density of the world water queries use.</summary>
        public const float DefaultWaterDensity = 1000f;

        /// <summary>
        /// Worker threads of worlds created from now on (KeelWorldDesc.thread_count): 0 = one per
        /// core (default), 1 = none besides the calling thread. Unity's own job workers share
        /// the cores: where they are busy, 1 avoids waiting for a descheduled helper. A setting,
        /// not session state: play sessions keep it.
        /// </summary>
#if UNITY_WEBGL && !UNITY_EDITOR
        // WebGL builds have no threads unless built with them: keel steps on the caller.
        public static uint ThreadCount = 1;
#else
        public static uint ThreadCount = 0;
#endif

        /// <summary>
        /// The water's clock, s: NaN (default) follows Time.timeSinceLevelLoad; a number holds
        /// the water at that time. Rollback netcode sets it to the tick's time before each
        /// (re)simulated step, since Unity's clock does not go back when a tick is replayed.
        /// </summary>
        public static float ManualWaterTime = float.NaN;

        /// <summary>Changes every time the package's worlds are destroyed.</summary>
        public static int Generation { get { return s_Generation; } }

        /// <summary>How many native worlds the package holds now.</summary>
        public static int WorldCount { get { return s_Worlds.Count; } }

        /// <summary>The world for bodies in water of this density (kg/m^3), created on demand.</summary>
        public static ulong GetWorld(float waterDensity)
        {
            for (int i = 0; i < s_Worlds.Count; i++)
                if (s_Worlds[i].WaterDensity == waterDensity) return s_Worlds[i].Handle;
            KeelLibrary.EnsureCompatible();
            Hook();
            KeelWorldDesc desc;
            KeelNative.keel_world_desc_default(&desc);
            desc.water_density = waterDensity;
            desc.thread_count = ThreadCount;
            desc.gravity = -Physics.gravity.y > 0f ? -Physics.gravity.y : desc.gravity;
            ulong world;
            KeelLibrary.Check(KeelNative.keel_world_create(&desc, &world));
            s_Worlds.Add(new WorldEntry { WaterDensity = waterDensity, Handle = world });
            ApplyWater(world);
            s_LastTime = float.NaN;
            return world;
        }

        /// <summary>
        /// Sets every world's water time to Time.timeSinceLevelLoad (the thesis's clock) if it
        /// moved; called before each native step and water query.
        /// </summary>
        public static void SyncTime()
        {
            float t = float.IsNaN(ManualWaterTime) ? Time.timeSinceLevelLoad : ManualWaterTime;
            if (t == s_LastTime) return;
            s_LastTime = t;
            for (int i = 0; i < s_Worlds.Count; i++) KeelLibrary.Check(KeelNative.keel_world_set_time(s_Worlds[i].Handle, t));
        }

        /// <summary>The WaveController whose water the worlds use (null: flat water at 0).</summary>
        internal static void SetWaveController(WaveController waves)
        {
            s_Waves = waves;
            ApplyWaterEverywhere();
        }

        internal static WaveController Waves { get { return s_Waves; } }

        /// <summary>
        /// Makes <paramref name="source"/> the water of every world (null gives the water back to
        /// the WaveController). The source is reached from native code through a GCHandle, so the
        /// registration never points into an unloaded domain: it is dropped with the worlds.
        /// </summary>
        public static void SetWaterSource(IKeelWaterSource source)
        {
            if (s_SourceHandle.IsAllocated) s_SourceHandle.Free();
            s_Source = source;
            if (source != null) s_SourceHandle = GCHandle.Alloc(source);
            ApplyWaterEverywhere();
        }

        /// <summary>The registered water source, or null (the WaveController's water).</summary>
        public static IKeelWaterSource WaterSource { get { return s_Source; } }

        private static void ApplyWaterEverywhere()
        {
            for (int i = 0; i < s_Worlds.Count; i++) ApplyWater(s_Worlds[i].Handle);
            s_LastTime = float.NaN;
        }

        private static void ApplyWater(ulong world)
        {
            if (s_Source != null)
                KeelLibrary.Check(KeelNative.keel_water_set_callback(world, s_Trampoline, GCHandle.ToIntPtr(s_SourceHandle)));
            else if (s_Waves != null)
                s_Waves.ApplyTo(world);
            else
                KeelLibrary.Check(KeelNative.keel_water_set_flat(world, 0f));
        }

        // Pooled buffers of the trampoline; it runs on one thread at a time (keel's contract).
        private static Vector3[] s_Points = new Vector3[0], s_Normals = new Vector3[0], s_Velocities = new Vector3[0];
        private static float[] s_Heights = new float[0];
        private static bool s_SourceFailed;

        [MonoPInvokeCallback(typeof(KeelWaterQuery))]
        private static void WaterTrampoline(IntPtr userData, KeelVec3* points, uint count, float* outHeights, KeelVec3* outNormals, KeelVec3* outVelocities)
        {
            int n = (int)count;
            try
            {
                var source = GCHandle.FromIntPtr(userData).Target as IKeelWaterSource;
                if (source == null) throw new InvalidOperationException("the water source is gone");
                if (s_Points.Length < n)
                {
                    int size = Math.Max(n, s_Points.Length * 2);
                    s_Points = new Vector3[size];
                    s_Normals = new Vector3[size];
                    s_Velocities = new Vector3[size];
                    s_Heights = new float[size];
                }
                for (int i = 0; i < n; i++) s_Points[i] = points[i].ToUnity();
                source.SampleWater(s_Points, n, s_Heights, outNormals != null ? s_Normals : null, outVelocities != null ? s_Velocities : null);
                for (int i = 0; i < n; i++) outHeights[i] = s_Heights[i];
                if (outNormals != null) for (int i = 0; i < n; i++) outNormals[i] = s_Normals[i].ToKeel();
                if (outVelocities != null) for (int i = 0; i < n; i++) outVelocities[i] = s_Velocities[i].ToKeel();
            }
            catch (Exception e)
            {
                // An exception must not unwind through native frames: answer NaN, which fails
                // the step cleanly (nothing written), and say it once.
                for (int i = 0; i < n; i++) outHeights[i] = float.NaN;
                if (!s_SourceFailed) Debug.LogError("Keel: the IKeelWaterSource threw; bodies get no force until it works: " + e);
                s_SourceFailed = true;
            }
        }

        /// <summary>Destroys the package's worlds (with their hulls and bodies).</summary>
        public static void Shutdown()
        {
            for (int i = 0; i < s_Worlds.Count; i++) KeelNative.keel_world_destroy(s_Worlds[i].Handle);
            s_Worlds.Clear();
            if (s_SourceHandle.IsAllocated) s_SourceHandle.Free();
            s_Source = null;
            s_SourceFailed = false;
            s_LastTime = float.NaN;
            s_Generation++;
        }

        /// <summary>
        /// Shutdown, plus every other world of the process: after a domain reload nothing
        /// managed can reach the old domain's worlds any more, so they are orphans.
        /// </summary>
        public static void ShutdownProcess()
        {
            Shutdown();
            try
            {
                KeelNative.keel_destroy_all_worlds();
            }
            catch (DllNotFoundException)
            {
                // No library, no worlds.
            }
        }

        private static void Hook()
        {
            if (s_Hooked) return;
            s_Hooked = true;
            // Unsubscribe first: with domain reload disabled the events keep old subscribers.
            Application.quitting -= Shutdown;
            Application.quitting += Shutdown;
#if UNITY_EDITOR
            UnityEditor.AssemblyReloadEvents.beforeAssemblyReload -= ShutdownProcess;
            UnityEditor.AssemblyReloadEvents.beforeAssemblyReload += ShutdownProcess;
#endif
        }

        [RuntimeInitializeOnLoadMethod(RuntimeInitializeLoadType.SubsystemRegistration)]
        private static void ResetStatics()
        {
            // A play session starts: no world of the package may exist. With domain reload
            // disabled the previous session's statics are still here; with it enabled a
            // previous domain's worlds may be orphans if its reload hook never ran.
            ShutdownProcess();
            s_Waves = null;
            s_Hooked = false;
            ManualWaterTime = float.NaN;
            Application.quitting -= Shutdown;
#if UNITY_EDITOR
            UnityEditor.AssemblyReloadEvents.beforeAssemblyReload -= ShutdownProcess;
#endif
            BuoyancyManager.ResetStatics();
            KeelHullCache.ResetStatics();
        }
    }
}
