// The Unity package's benchmark under mono: whole FixedUpdate cost per step of the
// managed reference (ManagedHull, the thesis's algorithm in C#) against PhysicsBuoyancy on
// the Stanford bunny and against BuoyancyManager on 1024 cubes, each minus a control scene
// with the same objects and no buoyancy (the thesis's "control value", section 2.2), and
// the package's managed overhead per body (its FixedUpdate minus the native call alone).
// Run: cargo xtask unity --bench [--peer DIR] (with the peer, Peer.cs adds a second table)
// SPDX-License-Identifier: MIT OR Apache-2.0
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using Keel;
using Keel.Native;
using Keel.Samples;
using UnityEngine;

namespace Keel.Benchmark
{
    public static unsafe partial class Program
    {
        private enum Kind { Control, Managed, NativeAlone, NativeManager, Peer, PeerCore }

        private static string s_Bunny;

        public static int Main(string[] args)
        {
            s_Bunny = File.ReadAllText(args[0]);
            Time.fixedDeltaTime = 0.02f;
            var rows = new List<string[]>();

            double bunnyControl = Measure(Kind.Control, 1, 400);
            double bunnyManaged = Measure(Kind.Managed, 1, 400) - bunnyControl;
            KeelRuntime.ThreadCount = 1;
            double bunnyNative1 = Measure(Kind.NativeAlone, 1, 400) - bunnyControl;
            KeelRuntime.ThreadCount = 0;
            double bunnyNativeAll = Measure(Kind.NativeAlone, 1, 400) - bunnyControl;
            // (No overhead figure for one body: a frame's cold caches and scheduling outweigh the
            // few hundred nanoseconds of managed code; the 1024 bodies below measure it.)
            rows.Add(Row("bunny (3674 triangles), PhysicsBuoyancy", bunnyManaged, bunnyNative1, bunnyNativeAll, double.NaN));

            double cubesControl = Measure(Kind.Control, 1024, 60);
            double cubesManaged = Measure(Kind.Managed, 1024, 60) - cubesControl;
            KeelRuntime.ThreadCount = 1;
            double cubesManager1 = Measure(Kind.NativeManager, 1024, 60) - cubesControl;
            double cubesOverhead = ManagerOverheadPerBody(1024);
            double cubesAlone1 = Measure(Kind.NativeAlone, 1024, 60) - cubesControl;
            KeelRuntime.ThreadCount = 0;
            double cubesManagerAll = Measure(Kind.NativeManager, 1024, 60) - cubesControl;
            double cubesAloneAll = Measure(Kind.NativeAlone, 1024, 60) - cubesControl;
            rows.Add(Row("1024 cubes (12 triangles each), BuoyancyManager", cubesManaged, cubesManager1, cubesManagerAll, cubesOverhead));
            rows.Add(Row("1024 cubes, PhysicsBuoyancy stepping alone", cubesManaged, cubesAlone1, cubesAloneAll, double.NaN));

            Console.WriteLine();
            Console.WriteLine("Keel " + KeelLibrary.Version + " (release), mono " + Environment.Version + ", " + Environment.ProcessorCount +
                " cores; fixed step 0.02 s; flat water; whole FixedUpdate per step, control scene subtracted; best of 3 runs");
            Console.WriteLine();
            Console.WriteLine("| scene | managed C# (thesis algorithm) | package, 1 native thread | package, all cores | speed-up (best) | package's managed overhead per body |");
            Console.WriteLine("|---|---:|---:|---:|---:|---:|");
            foreach (string[] r in rows) Console.WriteLine("| " + string.Join(" | ", r) + " |");
            Console.WriteLine();
            double bunnyRatio = bunnyManaged / Math.Min(bunnyNative1, bunnyNativeAll);
            double cubesRatio = cubesManaged / Math.Min(cubesManager1, cubesManagerAll);
            Console.WriteLine("1024 cubes: keel_world_step alone {0} per step (1 thread), the package's managed side {1} ({2:F2} us per body)",
                Ms(s_LastNativeBatch), Ms(cubesOverhead * 1024), cubesOverhead * 1e6);
            Console.WriteLine("native path >= 20x faster per step: bunny {0} ({1:F1}x), 1024 cubes {2} ({3:F1}x)",
                bunnyRatio >= 20.0 ? "yes" : "NO", bunnyRatio, cubesRatio >= 20.0 ? "yes" : "NO", cubesRatio);
            AgainstThePeer(new PackageFigures
            {
                BunnyControl = bunnyControl, Bunny1 = bunnyNative1, BunnyAll = bunnyNativeAll,
                CubesControl = cubesControl, CubesManager1 = cubesManager1, CubesManagerAll = cubesManagerAll,
                CubesAlone1 = cubesAlone1, CubesAloneAll = cubesAloneAll,
            });
            return 0;
        }

        /// <summary>The package's figures (seconds a frame, control subtracted) the peer's table reuses.</summary>
        private sealed class PackageFigures
        {
            public double BunnyControl, Bunny1, BunnyAll, CubesControl, CubesManager1, CubesManagerAll, CubesAlone1, CubesAloneAll;
        }

        // Implemented by Peer.cs when the benchmark is built with the peer (-define:KEEL_PEER);
        // without it the compiler drops the calls.
        static partial void AgainstThePeer(PackageFigures package);
        static partial void AddPeerWater();
        static partial void AddPeer(GameObject body, bool physicsOnly);

        private static string[] Row(string scene, double managed, double native1, double nativeAll, double overheadPerBody)
        {
            return new[]
            {
                scene, Ms(managed), Ms(native1), Ms(nativeAll), (managed / Math.Min(native1, nativeAll)).ToString("F1") + "x",
                double.IsNaN(overheadPerBody) ? "" : (overheadPerBody * 1e6).ToString("F2") + " us",
            };
        }

        private static string Ms(double seconds) { return (seconds * 1e3).ToString("F3") + " ms"; }

        private static List<GameObject> Build(Kind kind, int count, bool bunny)
        {
            StandInPlayerLoop.EnterPlayMode();
            if (kind == Kind.Peer || kind == Kind.PeerCore)
            {
                AddPeerWater();
            }
            else
            {
                var water = new GameObject("Water").AddComponent<WaveController>();
                water.waterModel = KeelWaterModel.Flat;
            }
            if (kind == Kind.NativeManager) new GameObject("Manager").AddComponent<BuoyancyManager>();
            var objects = new List<GameObject>();
            int side = (int)Math.Ceiling(Math.Sqrt(count));
            for (int i = 0; i < count; i++)
            {
                GameObject go;
                if (bunny)
                {
                    go = new GameObject("Bunny");
                    go.AddComponent<MeshFilter>().sharedMesh = ObjMesh.Parse(s_Bunny, 0.1f, "bunny");
                    go.transform.position = new Vector3(0f, 0.2f, 0f);
                }
                else
                {
                    go = GameObject.CreatePrimitive(PrimitiveType.Cube);
                    go.transform.position = new Vector3(3f * (i % side), 0.3f + 0.05f * (i % 7), 3f * (i / side));
                    go.transform.rotation = Quaternion.Euler(7f * (i % 5), 11f * (i % 3), 0f);
                }
                var rb = go.AddComponent<Rigidbody>();
                rb.mass = bunny ? 150f : 483f;
                if (kind == Kind.Control) rb.useGravity = false;
                if (kind == Kind.Managed) go.AddComponent<ManagedPhysicsBuoyancy>();
                if (kind == Kind.NativeAlone || kind == Kind.NativeManager) go.AddComponent<PhysicsBuoyancy>();
                if (kind == Kind.Peer || kind == Kind.PeerCore) AddPeer(go, kind == Kind.PeerCore);
                objects.Add(go);
            }
            return objects;
        }

        /// <summary>Seconds per frame of one fixed step, after a warm-up, best of three runs.</summary>
        private static double Measure(Kind kind, int count, int frames) { return Measure(kind, count, frames, count == 1); }

        /// <summary>Measure does not print where a lone body ended (repeated measurements).</summary>
        private static bool s_Quiet = false;

        /// <summary>The lowest and highest body after the last Measure: a body that fell through the water shows here.</summary>
        private static float s_LastLowest, s_LastHighest;

        private static double Measure(Kind kind, int count, int frames, bool bunny)
        {
            List<GameObject> objects = Build(kind, count, bunny);
            StandInPlayerLoop.Step(30);
            double best = double.MaxValue;
            for (int run = 0; run < 3; run++)
            {
                var watch = Stopwatch.StartNew();
                StandInPlayerLoop.Step(frames);
                best = Math.Min(best, watch.Elapsed.TotalSeconds / frames);
            }
            if (count == 1 && kind != Kind.Control && !s_Quiet)
                Console.WriteLine("  {0}: {1} at y = {2:F3} m after the run", kind, bunny ? "bunny" : "box", objects[0].transform.position.y);
            s_LastLowest = float.MaxValue;
            s_LastHighest = float.MinValue;
            foreach (GameObject go in objects)
            {
                s_LastLowest = Math.Min(s_LastLowest, go.transform.position.y);
                s_LastHighest = Math.Max(s_LastHighest, go.transform.position.y);
            }
            StandInPlayerLoop.ExitPlayMode();
            return best;
        }

        /// <summary>
        /// The package's managed cost per body and step: BuoyancyManager.StepAll (read every
        /// Rigidbody, one keel_world_step, apply every result) minus that keel_world_step alone
        /// on the same states, alternated in one scene, best of each.
        /// </summary>
        private static double s_LastNativeBatch;

        private static double ManagerOverheadPerBody(int count)
        {
            List<GameObject> objects = Build(Kind.NativeManager, count, false);
            StandInPlayerLoop.Step(30);
            BuoyancyManager manager = BuoyancyManager.Instance;
            ulong world = KeelRuntime.GetWorld(KeelRuntime.DefaultWaterDensity);
            var handles = new ulong[count];
            var states = new KeelBodyState[count];
            var forces = new KeelBodyForces[count];
            for (int i = 0; i < count; i++)
            {
                handles[i] = objects[i].GetComponent<PhysicsBuoyancy>().BodyHandle;
                states[i] = StateOf(objects[i].GetComponent<Rigidbody>());
            }
            double whole = double.MaxValue, native = double.MaxValue;
            const int steps = 30;
            for (int round = 0; round < 7; round++)
            {
                var watch = Stopwatch.StartNew();
                for (int i = 0; i < steps; i++) manager.StepAll(0.02f);
                whole = Math.Min(whole, watch.Elapsed.TotalSeconds / steps);
                fixed (ulong* h = handles)
                fixed (KeelBodyState* s = states)
                fixed (KeelBodyForces* f = forces)
                {
                    watch = Stopwatch.StartNew();
                    for (int i = 0; i < steps; i++) KeelLibrary.Check(KeelNative.keel_world_step(world, h, s, (uint)count, 0.02f, f));
                    native = Math.Min(native, watch.Elapsed.TotalSeconds / steps);
                }
            }
            StandInPlayerLoop.ExitPlayMode();
            s_LastNativeBatch = native;
            return (whole - native) / count;
        }

        private static KeelBodyState StateOf(Rigidbody rb)
        {
            return new KeelBodyState
            {
                position = new KeelVec3 { x = rb.position.x, y = rb.position.y, z = rb.position.z },
                rotation = new KeelQuat { x = rb.rotation.x, y = rb.rotation.y, z = rb.rotation.z, w = rb.rotation.w },
                linear_velocity = new KeelVec3 { x = rb.velocity.x, y = rb.velocity.y, z = rb.velocity.z },
                angular_velocity = new KeelVec3 { x = rb.angularVelocity.x, y = rb.angularVelocity.y, z = rb.angularVelocity.z },
                center_of_mass = new KeelVec3 { x = rb.worldCenterOfMass.x, y = rb.worldCenterOfMass.y, z = rb.worldCenterOfMass.z },
            };
        }
    }
}
