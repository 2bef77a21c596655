// Bodies made from the same mesh at the same scale share one native hull: a thousand
// crates of one prefab are one hull, which the engine keeps in cache while it steps them
// (separate copies made a batch of 1024 cubes over twice as slow).
// SPDX-License-Identifier: MIT OR Apache-2.0
using System.Collections.Generic;
using UnityEngine;

namespace Keel
{
    internal static class KeelHullCache
    {
        private struct Key
        {
            public ulong World;
            public Mesh Mesh;
            public Vector3 Scale;
        }

        private sealed class KeyComparer : IEqualityComparer<Key>
        {
            public bool Equals(Key a, Key b)
            {
                return a.World == b.World && ReferenceEquals(a.Mesh, b.Mesh) && a.Scale.Equals(b.Scale);
            }
            public int GetHashCode(Key k)
            {
                return k.World.GetHashCode() ^ System.Runtime.CompilerServices.RuntimeHelpers.GetHashCode(k.Mesh) ^ k.Scale.GetHashCode();
            }
        }

        private struct Entry
        {
            public ulong Hull;
            public int Users;
        }

        private static readonly Dictionary<Key, Entry> s_Entries = new Dictionary<Key, Entry>(new KeyComparer());
        private static readonly Dictionary<ulong, Key> s_Keys = new Dictionary<ulong, Key>();
        private static int s_Generation;

        private static void Sync()
        {
            // The worlds were destroyed (and their hulls with them): forget everything.
            if (s_Generation == KeelRuntime.Generation) return;
            s_Entries.Clear();
            s_Keys.Clear();
            s_Generation = KeelRuntime.Generation;
        }

        /// <summary>The shared hull for this mesh and scale in this world, or 0.</summary>
        public static ulong Acquire(ulong world, Mesh mesh, Vector3 scale)
        {
            Sync();
            var key = new Key { World = world, Mesh = mesh, Scale = scale };
            Entry e;
            if (!s_Entries.TryGetValue(key, out e)) return 0;
            e.Users++;
            s_Entries[key] = e;
            return e.Hull;
        }

        /// <summary>Registers a hull just created for this mesh and scale, with one user.</summary>
        public static void Add(ulong world, Mesh mesh, Vector3 scale, ulong hull)
        {
            Sync();
            var key = new Key { World = world, Mesh = mesh, Scale = scale };
            s_Entries[key] = new Entry { Hull = hull, Users = 1 };
            s_Keys[hull] = key;
        }

        /// <summary>Drops one user; true when the hull has none left and must be destroyed.</summary>
        public static bool Release(ulong hull)
        {
            Sync();
            Key key;
            if (!s_Keys.TryGetValue(hull, out key)) return true;
            Entry e = s_Entries[key];
            if (--e.Users > 0) { s_Entries[key] = e; return false; }
            s_Entries.Remove(key);
            s_Keys.Remove(hull);
            return true;
        }

        internal static void ResetStatics()
        {
            s_Entries.Clear();
            s_Keys.Clear();
        }
    }
}
