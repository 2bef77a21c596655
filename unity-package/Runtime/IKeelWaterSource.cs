// Water from another asset (Crest, HDRP Water, a custom FFT ocean), batched.
// SPDX-License-Identifier: MIT OR Apache-2.0
using UnityEngine;

namespace Keel
{
    /// <summary>
    /// The host's water, asked for whole batches of points at once (every hull vertex of a
    /// body, or the grid of its water patch) from inside the native step, on the thread that
    /// runs FixedUpdate, so the heights are those of the same physics step that applies the
    /// forces. Register an implementation with <see cref="KeelRuntime.SetWaterSource"/>; while
    /// one is registered it replaces the WaveController's water.
    /// </summary>
    public interface IKeelWaterSource
    {
        /// <summary>
        /// For the first <paramref name="count"/> points' (x, z), write the surface height and,
        /// when the array is not null, the unit up-facing normal and the water particle
        /// velocity. The arrays are the package's pooled buffers: do not keep them.
        /// </summary>
        void SampleWater(Vector3[] points, int count, float[] heights, Vector3[] normals, Vector3[] velocities);
    }
}
