// The thesis's chapter-3 Buoyancy: no Rigidbody and no forces; the object follows the
// surface with SmoothDamp (functions 3.1-3.2) and tilts with the average normal of two
// triangles sampled around it (functions 3.3-3.5). That small math is presentation, not
// force physics, so it stays here; the heights come from the native water.
// SPDX-License-Identifier: MIT OR Apache-2.0
using Keel.Native;
using UnityEngine;

namespace Keel
{
    [AddComponentMenu("Keel/Buoyancy (follow surface)")]
    public sealed class Buoyancy : MonoBehaviour
    {
        [Tooltip("smoothTime: seconds SmoothDamp takes to reach the surface when rising (thesis: 0.2).")]
        [Min(0f)] public float smoothTime = 0.2f;
        [Tooltip("smoothTimeDown: the same when the surface falls away; shorter so that the object never hangs in the air (thesis: 0.1).")]
        [Min(0f)] public float smoothTimeDown = 0.1f;
        [Tooltip("Tilt with the water surface (functions 3.3-3.5).")]
        public bool addTilt = true;
        [Tooltip("Distance from the centre to the sampled triangle corners, m (thesis: 0.5, a unit cube's half side).")]
        [Min(0.01f)] public float tiltSampleDistance = 0.5f;

        private WaveController waves;
        private Vector3 m_Velocity;
        private readonly KeelVec3[] m_Points = new KeelVec3[5];
        private readonly float[] m_Heights = new float[5];

        private void Start()
        {
            GameObject go = GameObject.FindWithTag(WaveController.ControllerTag);
            if (go != null) waves = go.GetComponent<WaveController>();
            if (waves == null)
            {
                Debug.LogError("Keel Buoyancy on '" + name + "': no WaveController with the tag GameController in the scene.", this);
                enabled = false;
            }
        }

        private void Update()
        {
            Vector3 pos = transform.position;
            float d = tiltSampleDistance;
            // A, B, C of function 3.3 and b2, c2 of 3.5, in one native call.
            SetPoint(0, pos.x, pos.z);
            SetPoint(1, pos.x + d, pos.z);
            SetPoint(2, pos.x, pos.z + d);
            SetPoint(3, pos.x - d, pos.z);
            SetPoint(4, pos.x, pos.z - d);
            waves.GetWaveYPos(m_Points, m_Heights, addTilt ? 5 : 1);

            // Functions 3.1-3.2: follow the surface, faster downwards.
            var target = new Vector3(pos.x, m_Heights[0], pos.z);
            float smooth = target.y < pos.y ? smoothTimeDown : smoothTime;
            transform.position = Vector3.SmoothDamp(pos, target, ref m_Velocity, smooth);

            if (addTilt) AddTilt(target);
        }

        private void SetPoint(int i, float x, float z) { m_Points[i] = new KeelVec3 { x = x, y = 0f, z = z }; }

        private Vector3 Sampled(int i) { return new Vector3(m_Points[i].x, m_Heights[i], m_Points[i].z); }

        /// <summary>Functions 3.3-3.5: the average normal of triangles (A, B, C) and (A, b2, c2).</summary>
        private void AddTilt(Vector3 a)
        {
            Vector3 right = Sampled(1) - a, left = Sampled(2) - a;
            Vector3 right2 = Sampled(3) - a, left2 = Sampled(4) - a;
            Vector3 direction = Vector3.Cross(left, right).normalized;
            Vector3 direction2 = Vector3.Cross(left2, right2).normalized;
            Vector3 normal = (direction + direction2).normalized;
            if (normal.sqrMagnitude < 0.5f) return;
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
