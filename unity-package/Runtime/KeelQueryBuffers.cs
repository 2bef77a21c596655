// Arrays of an exact length, kept per length. Water packages such as Crest answer as many
// points as the array they are given holds, while Keel asks for batches of varying size
// (every body's vertex count, or its water patch's grid): a set of arrays per batch size,
// made once and reused, so that a water adapter allocates nothing once every size was seen.
// SPDX-License-Identifier: MIT OR Apache-2.0
using System.Collections.Generic;
using UnityEngine;

namespace Keel
{
    /// <summary>Points, heights, normals, velocities and flows arrays of one exact length.</summary>
    public sealed class KeelQueryBuffers
    {
        public readonly Vector3[] Points, Normals, Velocities, Flows;
        public readonly float[] Heights;

        private KeelQueryBuffers(int count)
        {
            Points = new Vector3[count];
            Normals = new Vector3[count];
            Velocities = new Vector3[count];
            Flows = new Vector3[count];
            Heights = new float[count];
        }

        /// <summary>The arrays of exactly <paramref name="count"/> elements, from <paramref name="cache"/>.</summary>
        public static KeelQueryBuffers For(Dictionary<int, KeelQueryBuffers> cache, int count)
        {
            KeelQueryBuffers buffers;
            if (!cache.TryGetValue(count, out buffers)) cache.Add(count, buffers = new KeelQueryBuffers(count));
            return buffers;
        }
    }
}
