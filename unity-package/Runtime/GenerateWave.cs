// The thesis's GenerateWave (function 2.1 MoveSea): moves a water mesh's vertices every
// frame to the native surface height, so the sea players see is the sea bodies feel.
// SPDX-License-Identifier: MIT OR Apache-2.0
using Keel.Native;
using UnityEngine;

namespace Keel
{
    [RequireComponent(typeof(MeshFilter))]
    [AddComponentMenu("Keel/Generate Wave")]
    public sealed class GenerateWave : MonoBehaviour
    {
        [Tooltip("The water to show; empty: the enabled WaveController of the scene.")]
        public WaveController waveController;

        private Mesh m_Mesh;
        private Vector3[] m_OriginalVertices;
        private Vector3[] m_NewVertices;
        private KeelVec3[] m_Points;
        private float[] m_Heights;

        private void Start()
        {
            if (waveController == null) waveController = WaveController.Active;
            if (waveController == null)
            {
                Debug.LogError("Keel GenerateWave on '" + name + "': no WaveController in the scene (add one, or assign it).", this);
                enabled = false;
                return;
            }
            // .mesh, not .sharedMesh: the thesis edits an instance, never the asset.
            m_Mesh = GetComponent<MeshFilter>().mesh;
            if (m_Mesh == null || !m_Mesh.isReadable)
            {
                Debug.LogError("Keel GenerateWave on '" + name + "': the mesh is missing or not readable (enable Read/Write).", this);
                enabled = false;
                return;
            }
            m_Mesh.MarkDynamic();
            m_OriginalVertices = m_Mesh.vertices;
            int n = m_OriginalVertices.Length;
            m_NewVertices = new Vector3[n];
            m_Points = new KeelVec3[n];
            m_Heights = new float[n];
        }

        private void Update() { MoveSea(); }

        /// <summary>Thesis function 2.1, with every height from one native call.</summary>
        public void MoveSea()
        {
            if (m_OriginalVertices == null) return;
            Transform t = transform;
            for (int i = 0; i < m_OriginalVertices.Length; i++) m_Points[i] = t.TransformPoint(m_OriginalVertices[i]).ToKeel();
            waveController.GetWaveYPos(m_Points, m_Heights, m_Points.Length);
            for (int i = 0; i < m_OriginalVertices.Length; i++)
            {
                KeelVec3 p = m_Points[i];
                m_NewVertices[i] = t.InverseTransformPoint(new Vector3(p.x, m_Heights[i], p.z));
            }
            m_Mesh.vertices = m_NewVertices;
            m_Mesh.RecalculateNormals();
            m_Mesh.RecalculateBounds();
        }
    }
}
