// The benchmark's reference: Tenhunen's (2019) algorithm written in plain managed C# from
// the formulas of the design notes (Kerner's clipping, pressure buoyancy at triangle
// centroids, viscous resistance, pressure and suction drag, slamming, air resistance),
// with pooled arrays so that it allocates nothing per step: what a careful Unity developer
// writes without a native library. It is only a yardstick, not part of the package.
// SPDX-License-Identifier: MIT OR Apache-2.0
using System;
using UnityEngine;

namespace Keel.Benchmark
{
    public sealed class ManagedHull
    {
        public float RhoWater = 1000f, RhoAir = 1.225f, Nu = 1e-6f, G = 9.81f;
        public float CPD1 = 500f, CPD2 = 500f, CSD1 = 500f, CSD2 = 250f, FP = 0.5f, FS = 0.5f, VRef = 1f;
        public float SlammingPower = 2f, CAir = 1f;

        private readonly Vector3[] m_Local;
        private readonly int[] m_Tris;
        private readonly Vector3[] m_World;
        private readonly float[] m_Height;
        private readonly float[] m_Area, m_SubArea, m_PrevSubArea;
        private readonly Vector3[] m_PrevVelocity;
        private readonly float m_HullArea, m_Length;

        public ManagedHull(Vector3[] localVertices, int[] triangles)
        {
            m_Local = localVertices;
            m_Tris = triangles;
            m_World = new Vector3[localVertices.Length];
            m_Height = new float[localVertices.Length];
            int n = triangles.Length / 3;
            m_Area = new float[n];
            m_SubArea = new float[n];
            m_PrevSubArea = new float[n];
            m_PrevVelocity = new Vector3[n];
            float minZ = float.MaxValue, maxZ = float.MinValue;
            foreach (Vector3 v in localVertices) { minZ = Math.Min(minZ, v.z); maxZ = Math.Max(maxZ, v.z); }
            m_Length = Math.Max(maxZ - minZ, 1e-3f);
            for (int t = 0; t < n; t++)
            {
                Vector3 a = localVertices[triangles[3 * t]], b = localVertices[triangles[3 * t + 1]], c = localVertices[triangles[3 * t + 2]];
                m_Area[t] = 0.5f * Vector3.Cross(b - a, c - a).magnitude;
                m_HullArea += m_Area[t];
            }
        }

        // Per-step state shared by the piece handlers.
        private Vector3 m_Com, m_V, m_W, m_Force, m_Torque;
        private float m_Mass, m_Dt, m_Cf;

        /// <summary>Force and torque (about com) for one step on flat water at height 0.</summary>
        public void Step(Vector3 position, Quaternion rotation, Vector3 velocity, Vector3 angularVelocity, Vector3 com,
            float mass, float dt, out Vector3 force, out Vector3 torque)
        {
            m_Com = com; m_V = velocity; m_W = angularVelocity; m_Mass = mass; m_Dt = dt;
            m_Force = m_Torque = Vector3.zero;
            for (int i = 0; i < m_Local.Length; i++)
            {
                m_World[i] = position + rotation * m_Local[i];
                m_Height[i] = m_World[i].y; // flat water at 0
            }
            float rn = Math.Max(velocity.magnitude * m_Length / Nu, 1e3f);
            float log = (float)Math.Log10(rn) - 2f;
            m_Cf = 0.075f / (log * log);
            int n = m_Tris.Length / 3;
            for (int t = 0; t < n; t++)
            {
                m_SubArea[t] = 0f;
                Clip(t);
            }
            for (int t = 0; t < n; t++) Slamming(t);
            force = m_Force;
            torque = m_Torque;
        }

        /// <summary>Kerner's clipping of triangle t into submerged and emerged pieces.</summary>
        private void Clip(int t)
        {
            int i0 = m_Tris[3 * t], i1 = m_Tris[3 * t + 1], i2 = m_Tris[3 * t + 2];
            float d0 = m_Height[i0], d1 = m_Height[i1], d2 = m_Height[i2];
            Vector3 p0 = m_World[i0], p1 = m_World[i1], p2 = m_World[i2];
            int below = (d0 < 0f ? 1 : 0) + (d1 < 0f ? 1 : 0) + (d2 < 0f ? 1 : 0);
            if (below == 3) { Submerged(t, p0, p1, p2); return; }
            if (below == 0) { Emerged(p0, p1, p2); return; }
            // Rotate (keeping the winding) so that p0 is the odd vertex out.
            bool oneAbove = below == 2;
            if ((d1 < 0f) != (d0 < 0f) && (d1 < 0f) != (d2 < 0f)) { Rot(ref p0, ref p1, ref p2, ref d0, ref d1, ref d2); }
            else if ((d2 < 0f) != (d0 < 0f) && (d2 < 0f) != (d1 < 0f)) { Rot(ref p0, ref p1, ref p2, ref d0, ref d1, ref d2); Rot(ref p0, ref p1, ref p2, ref d0, ref d1, ref d2); }
            Vector3 i01 = p0 + (p1 - p0) * (d0 / (d0 - d1));
            Vector3 i02 = p0 + (p2 - p0) * (d0 / (d0 - d2));
            if (oneAbove)
            {
                // p0 above: (i01, p1, p2) and (i01, p2, i02) submerged, (p0, i01, i02) emerged.
                Submerged(t, i01, p1, p2);
                Submerged(t, i01, p2, i02);
                Emerged(p0, i01, i02);
            }
            else
            {
                Submerged(t, p0, i01, i02);
                Emerged(i01, p1, p2);
                Emerged(i01, p2, i02);
            }
        }

        private static void Rot(ref Vector3 a, ref Vector3 b, ref Vector3 c, ref float da, ref float db, ref float dc)
        {
            Vector3 p = a; a = b; b = c; c = p;
            float d = da; da = db; db = dc; dc = d;
        }

        private Vector3 PointVelocity(Vector3 p) { return m_V + Vector3.Cross(m_W, p - m_Com); }

        private void Add(Vector3 f, Vector3 at)
        {
            m_Force += f;
            m_Torque += Vector3.Cross(at - m_Com, f);
        }

        private void Submerged(int t, Vector3 a, Vector3 b, Vector3 c)
        {
            Vector3 cross = Vector3.Cross(b - a, c - a);
            float twice = cross.magnitude;
            if (twice < 1e-12f) return;
            float s = 0.5f * twice;
            Vector3 n = cross / twice;
            Vector3 centre = (a + b + c) / 3f;
            m_SubArea[t] += s;
            // Hydrostatic pressure at the centroid (the thesis's code).
            Add(-RhoWater * G * (-centre.y) * s * n, centre);
            Vector3 v = PointVelocity(centre);
            float speed = v.magnitude;
            if (speed < 1e-6f) return;
            // Viscous resistance, ITTC 1957.
            Vector3 vt = v - Vector3.Dot(v, n) * n;
            float vtm = vt.magnitude;
            if (vtm > 1e-9f) Add(-0.5f * RhoWater * m_Cf * s * speed * speed * (vt / vtm), centre);
            // Pressure and suction drag.
            float cos = Vector3.Dot(v / speed, n);
            float r = speed / VRef;
            if (cos > 0f) Add(-(CPD1 * r + CPD2 * r * r) * s * (float)Math.Pow(cos, FP) * n, centre);
            else Add((CSD1 * r + CSD2 * r * r) * s * (float)Math.Pow(-cos, FS) * n, centre);
        }

        private void Emerged(Vector3 a, Vector3 b, Vector3 c)
        {
            Vector3 cross = Vector3.Cross(b - a, c - a);
            float twice = cross.magnitude;
            if (twice < 1e-12f) return;
            Vector3 centre = (a + b + c) / 3f;
            Vector3 v = PointVelocity(centre);
            float speed = v.magnitude;
            if (speed < 1e-6f) return;
            float cos = Vector3.Dot(v / speed, cross / twice);
            if (cos > 0f) Add(-0.5f * RhoAir * CAir * 0.5f * twice * speed * v * cos, centre);
        }

        /// <summary>Kerner's slamming on original triangle t, from its change of swept volume.</summary>
        private void Slamming(int t)
        {
            Vector3 a = m_World[m_Tris[3 * t]], b = m_World[m_Tris[3 * t + 1]], c = m_World[m_Tris[3 * t + 2]];
            Vector3 centre = (a + b + c) / 3f;
            Vector3 v = PointVelocity(centre);
            float area = m_SubArea[t];
            Vector3 dV = area * v, dVPrev = m_PrevSubArea[t] * m_PrevVelocity[t];
            m_PrevSubArea[t] = area;
            m_PrevVelocity[t] = v;
            float speed = v.magnitude;
            if (area <= 0f || speed < 1e-6f) return;
            Vector3 cross = Vector3.Cross(b - a, c - a);
            float cos = Vector3.Dot(v / speed, cross.normalized);
            if (cos <= 0f) return;
            float gamma = (dV - dVPrev).magnitude / (m_Area[t] * m_Dt);
            float gammaMax = speed / m_Dt;
            Vector3 stop = m_Mass * v * (2f * area / m_HullArea) / m_Dt;
            float ramp = (float)Math.Pow(Mathf.Clamp01(gamma / gammaMax), SlammingPower);
            Add(-ramp * cos * stop, centre);
        }
    }

    /// <summary>The managed reference as a component, like the thesis's PhysicsBuoyancy.</summary>
    public sealed class ManagedPhysicsBuoyancy : MonoBehaviour
    {
        private ManagedHull m_Hull;
        private Rigidbody m_Body;

        private void Start()
        {
            m_Body = GetComponent<Rigidbody>();
            Mesh mesh = GetComponent<MeshFilter>().sharedMesh;
            Vector3[] v = mesh.vertices;
            Vector3 scale = transform.lossyScale;
            for (int i = 0; i < v.Length; i++) v[i] = Vector3.Scale(v[i], scale);
            m_Hull = new ManagedHull(v, mesh.triangles);
        }

        private void FixedUpdate()
        {
            Vector3 force, torque;
            m_Hull.Step(m_Body.position, m_Body.rotation, m_Body.velocity, m_Body.angularVelocity, m_Body.worldCenterOfMass,
                m_Body.mass, Time.fixedDeltaTime, out force, out torque);
            m_Body.AddForce(force);
            m_Body.AddTorque(torque);
        }
    }
}
