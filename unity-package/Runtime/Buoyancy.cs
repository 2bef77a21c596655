// The thesis's chapter-3 Buoyancy: no Rigidbody and no forces; the object follows the
// surface with SmoothDamp (functions 3.1-3.2) and tilts with the water's normal. The
// thesis derived that normal from two triangles of sampled heights (functions 3.3-3.5);
// the native water returns exact normals with the heights, so the tilt averages those over
// the same five points instead of differencing heights here.
// SPDX-License-Identifier: MIT OR Apache-2.0
using Keel.Native;
using UnityEngine;

namespace Keel
{
    [AddComponentMenu("Keel/Buoyancy (follow surface)")]
    public sealed class Buoyancy : MonoBehaviour
    {
        [Tooltip("The water to follow; empty: the enabled WaveController of the scene.")]
        public WaveController waveController;
        [Tooltip("smoothTime: seconds SmoothDamp takes to reach the surface when rising (thesis: 0.2).")]
        [Min(0f)] public float smoothTime = 0.2f;
        [Tooltip("smoothTimeDown: the same when the surface falls away, s; shorter so that the object never hangs in the air (thesis: 0.1).")]
        [Min(0f)] public float smoothTimeDown = 0.1f;
        [Tooltip("Tilt with the water surface (functions 3.3-3.5).")]
        public bool addTilt = true;
        [Tooltip("Distance from the centre to the four other points whose water normals are averaged, m (thesis: 0.5, a unit cube's half side; 0: the normal under the centre).")]
        [Min(0f)] public float tiltSampleDistance = 0.5f;

        private Vector3 m_Velocity;
        private readonly KeelVec3[] m_Points = new KeelVec3[5];
        private readonly float[] m_Heights = new float[5];
        private readonly KeelVec3[] m_Normals = new KeelVec3[5];

        private void Start()
        {
            if (waveController == null) waveController = WaveController.Active;
            if (waveController == null)
            {
                Debug.LogError("Keel Buoyancy on '" + name + "': no WaveController in the scene (add one, or assign it).", this);
                enabled = false;
            }
        }

        private void Update()
        {
            Vector3 pos = transform.position;
            float d = tiltSampleDistance;
            // The centre and, for the tilt, the four corners of function 3.3's triangles.
            SetPoint(0, pos.x, pos.z);
            SetPoint(1, pos.x + d, pos.z);
            SetPoint(2, pos.x, pos.z + d);
            SetPoint(3, pos.x - d, pos.z);
            SetPoint(4, pos.x, pos.z - d);
            int count = addTilt ? (d > 0f ? 5 : 1) : 1;
            waveController.SampleWater(m_Points, m_Heights, addTilt ? m_Normals : null, null, count);

            // Functions 3.1-3.2: follow the surface, faster downwards.
            var target = new Vector3(pos.x, m_Heights[0], pos.z);
            float smooth = target.y < pos.y ? smoothTimeDown : smoothTime;
            transform.position = Vector3.SmoothDamp(pos, target, ref m_Velocity, smooth);

            if (addTilt) AddTilt(count);
        }

        private void SetPoint(int i, float x, float z) { m_Points[i] = new KeelVec3 { x = x, y = 0f, z = z }; }

        /// <summary>Turns the up axis to the mean of the sampled unit normals, keeping the heading.</summary>
        private void AddTilt(int count)
        {
            Vector3 sum = Vector3.zero;
            for (int i = 0; i < count; i++) sum += m_Normals[i].ToUnity();
            if (sum.sqrMagnitude < 1e-12f) return;
            Vector3 normal = sum.normalized;
            // The thesis pointed the forward axis along the normal with LookAt; keeping the
            // heading and putting the up axis on the normal tilts any shape the same way.
            Vector3 forward = Vector3.ProjectOnPlane(transform.forward, normal);
            if (forward.sqrMagnitude < 1e-6f) forward = Vector3.ProjectOnPlane(Vector3.forward, normal);
            transform.rotation = Quaternion.LookRotation(forward, normal);
        }

        /// <summary>The unit normal Update last tilted to (up when not tilting).</summary>
        public Vector3 SurfaceNormal { get { return transform.up; } }
    }
}
