// PhysicsBuoyancy's presentation: the underwater / above-water meshes of thesis figure
// 19 and the gizmos (submerged triangles, centre of buoyancy, force arrow, waterline).
// SPDX-License-Identifier: MIT OR Apache-2.0
using Keel.Native;
using UnityEngine;

namespace Keel
{
    public sealed unsafe partial class PhysicsBuoyancy
    {
        private KeelVec3[] m_DebugVertices = new KeelVec3[0];
        private int[] m_DebugIndices = new int[0];

        private enum Part { Submerged, Emerged, Waterline }

        /// <summary>The last step's submerged (or emerged) triangles or waterline, world, into a pooled buffer.</summary>
        private int ReadPart(Part part)
        {
            ulong body = BodyHandle;
            if (body == 0) return 0;
            for (int attempt = 0; attempt < 2; attempt++)
            {
                uint count;
                KeelStatus status;
                fixed (KeelVec3* buf = m_DebugVertices)
                {
                    uint cap = (uint)m_DebugVertices.Length;
                    status = part == Part.Submerged ? KeelNative.keel_body_get_submerged_triangles(m_World, body, buf, cap, &count)
                        : part == Part.Emerged ? KeelNative.keel_body_get_emerged_triangles(m_World, body, buf, cap, &count)
                        : KeelNative.keel_body_get_waterline(m_World, body, buf, cap, &count);
                }
                // With no buffer (capacity 0) the call only reports the count.
                if (status == KeelStatus.KEEL_OK && count <= m_DebugVertices.Length) return (int)count;
                if (status != KeelStatus.KEEL_OK && status != KeelStatus.KEEL_ERROR_BUFFER_TOO_SMALL) return 0;
                m_DebugVertices = new KeelVec3[Mathf.Max((int)count, 2 * m_DebugVertices.Length)];
            }
            return 0;
        }

        private void UpdateDebugMeshes()
        {
            if (underWaterObj != null) ShowPart(underWaterObj, Part.Submerged);
            if (aboveWaterObj != null) ShowPart(aboveWaterObj, Part.Emerged);
        }

        private void ShowPart(GameObject target, Part part)
        {
            MeshFilter filter = target.GetComponent<MeshFilter>();
            if (filter == null) return;
            if (filter.sharedMesh == null) filter.sharedMesh = new Mesh { name = part + " part" };
            int n = ReadPart(part);
            var vertices = new Vector3[n];
            if (m_DebugIndices.Length < n)
            {
                m_DebugIndices = new int[n];
                for (int i = 0; i < n; i++) m_DebugIndices[i] = i;
            }
            Transform t = target.transform;
            for (int i = 0; i < n; i++) vertices[i] = t.InverseTransformPoint(m_DebugVertices[i].ToUnity());
            var indices = new int[n];
            System.Array.Copy(m_DebugIndices, indices, n);
            Mesh mesh = filter.sharedMesh;
            mesh.Clear();
            mesh.vertices = vertices;
            mesh.triangles = indices;
            mesh.RecalculateNormals();
            mesh.RecalculateBounds();
        }

        private void OnDrawGizmosSelected()
        {
            if (BodyHandle == 0) return;
            int n = ReadPart(Part.Submerged);
            Gizmos.color = new Color(0f, 0.5f, 1f);
            for (int i = 0; i + 2 < n; i += 3)
            {
                Vector3 a = m_DebugVertices[i].ToUnity(), b = m_DebugVertices[i + 1].ToUnity(), c = m_DebugVertices[i + 2].ToUnity();
                Gizmos.DrawLine(a, b);
                Gizmos.DrawLine(b, c);
                Gizmos.DrawLine(c, a);
            }
            n = ReadPart(Part.Waterline);
            Gizmos.color = Color.white;
            for (int i = 0; i + 1 < n; i += 2) Gizmos.DrawLine(m_DebugVertices[i].ToUnity(), m_DebugVertices[i + 1].ToUnity());
            KeelBodyForces forces = CurrentForces();
            Vector3 cob = forces.center_of_buoyancy.ToUnity();
            Gizmos.color = Color.yellow;
            Gizmos.DrawSphere(cob, 0.05f);
            // The force arrow: 1 m per body weight.
            float weight = Mathf.Max(1e-3f, m_Rigidbody.mass * -Physics.gravity.y);
            Gizmos.color = Color.green;
            Gizmos.DrawRay(m_Rigidbody.worldCenterOfMass, forces.force.ToUnity() / weight);
        }
    }
}
