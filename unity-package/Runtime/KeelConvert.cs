// Unity's and keel's vectors share axes (Y up, left-handed meshes whose clockwise
// triangles face out, which is keel's cross(b - a, c - a)), so conversions are copies.
// SPDX-License-Identifier: MIT OR Apache-2.0
using Keel.Native;
using UnityEngine;

namespace Keel
{
    internal static class KeelConvert
    {
        public static KeelVec3 ToKeel(this Vector3 v) { KeelVec3 k; k.x = v.x; k.y = v.y; k.z = v.z; return k; }
        public static Vector3 ToUnity(this KeelVec3 v) { return new Vector3(v.x, v.y, v.z); }
        public static KeelQuat ToKeel(this Quaternion q) { KeelQuat k; k.x = q.x; k.y = q.y; k.z = q.z; k.w = q.w; return k; }
        public static Quaternion ToUnity(this KeelQuat q) { return new Quaternion(q.x, q.y, q.z, q.w); }
    }
}
