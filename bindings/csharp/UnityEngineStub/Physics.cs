// Stand-in for UnityEngine's Rigidbody: forces and torques accumulate during
// FixedUpdate and StandInPlayerLoop integrates them semi-implicitly (velocity first,
// then pose with the new velocity), with gravity, drag as PhysX applies it, and the
// inertia tensor in its principal frame. Both the 2021-2023 names (velocity, drag) and
// Unity 6's (linearVelocity, linearDamping) are members, as in Unity 6.
// SPDX-License-Identifier: MIT OR Apache-2.0
using System;

namespace UnityEngine
{
    public enum ForceMode { Force = 0, Acceleration = 5, Impulse = 1, VelocityChange = 2 }

    public static class Physics
    {
        public static Vector3 gravity = new Vector3(0f, -9.81f, 0f);
    }

    [RequireComponent(typeof(Transform))]
    public class Rigidbody : Component
    {
        private float m_Mass = 1f;
        private Vector3 m_Velocity;
        private Vector3 m_AngularVelocity;
        private Vector3? m_CenterOfMass;
        private Vector3? m_InertiaTensor;
        private Quaternion m_InertiaTensorRotation = Quaternion.identity;
        private Vector3 m_Force;
        private Vector3 m_Torque;

        public float mass { get { return m_Mass; } set { m_Mass = Math.Max(value, 1e-7f); } }
        public Vector3 velocity { get { return m_Velocity; } set { m_Velocity = value; } }
        public Vector3 linearVelocity { get { return m_Velocity; } set { m_Velocity = value; } }
        public Vector3 angularVelocity { get { return m_AngularVelocity; } set { m_AngularVelocity = value; } }
        public float drag { get; set; }
        public float linearDamping { get { return drag; } set { drag = value; } }
        private float m_AngularDrag = 0.05f;
        public float angularDrag { get { return m_AngularDrag; } set { m_AngularDrag = value; } }
        public float angularDamping { get { return m_AngularDrag; } set { m_AngularDrag = value; } }
        private bool m_UseGravity = true;
        public bool useGravity { get { return m_UseGravity; } set { m_UseGravity = value; } }
        public bool isKinematic { get; set; }
        private float m_MaxAngularVelocity = 7f;
        public float maxAngularVelocity { get { return m_MaxAngularVelocity; } set { m_MaxAngularVelocity = value; } }

        public Vector3 position { get { return transform.position; } set { transform.position = value; } }
        public Quaternion rotation { get { return transform.rotation; } set { transform.rotation = value; } }

        // Unity derives these from the colliders; the stand-in from the mesh's bounds as
        // a solid box, which is what a BoxCollider on a box mesh gives.
        public Vector3 centerOfMass
        {
            get { return m_CenterOfMass.HasValue ? m_CenterOfMass.Value : Automatic().Center; }
            set { m_CenterOfMass = value; }
        }
        public Vector3 worldCenterOfMass { get { return transform.position + transform.rotation * centerOfMass; } }
        public Vector3 inertiaTensor
        {
            get
            {
                if (m_InertiaTensor.HasValue) return m_InertiaTensor.Value;
                Vector3 s = Automatic().Size;
                float k = m_Mass / 12f;
                return new Vector3(k * (s.y * s.y + s.z * s.z), k * (s.x * s.x + s.z * s.z), k * (s.x * s.x + s.y * s.y));
            }
            set { m_InertiaTensor = value; }
        }
        public Quaternion inertiaTensorRotation { get { return m_InertiaTensorRotation; } set { m_InertiaTensorRotation = value; } }
        public void ResetCenterOfMass() { m_CenterOfMass = null; }
        public void ResetInertiaTensor() { m_InertiaTensor = null; m_InertiaTensorRotation = Quaternion.identity; }

        // Unity keeps these as the physics engine's state, refreshed when colliders change;
        // reading them is a property access, so the stand-in caches them too, or its own
        // cost would swamp what benchmarks measure.
        private struct Derived { public Vector3 Center, Size, Scale; public Mesh Mesh; }
        private Derived m_Auto;
        private MeshFilter m_Filter;
        private bool m_FilterLooked;
        private Derived Automatic()
        {
            if (!m_FilterLooked) { m_Filter = GetComponent<MeshFilter>(); m_FilterLooked = true; }
            Mesh mesh = (object)m_Filter != null ? m_Filter.sharedMesh : null;
            Vector3 scale = transform.lossyScale;
            if ((object)mesh != (object)m_Auto.Mesh || !scale.Equals(m_Auto.Scale) || m_Auto.Size.sqrMagnitude == 0f)
            {
                Bounds b = (object)mesh != null ? mesh.bounds : new Bounds(Vector3.zero, Vector3.one);
                m_Auto = new Derived { Center = Vector3.Scale(b.center, scale), Size = Vector3.Scale(b.size, scale), Scale = scale, Mesh = mesh };
            }
            return m_Auto;
        }

        public void AddForce(Vector3 force) { AddForce(force, ForceMode.Force); }
        public void AddForce(Vector3 force, ForceMode mode)
        {
            switch (mode)
            {
                case ForceMode.Force: m_Force += force; break;
                case ForceMode.Acceleration: m_Force += force * m_Mass; break;
                case ForceMode.Impulse: m_Velocity += force / m_Mass; break;
                case ForceMode.VelocityChange: m_Velocity += force; break;
            }
        }
        public void AddForce(float x, float y, float z) { AddForce(new Vector3(x, y, z)); }
        public void AddTorque(Vector3 torque) { AddTorque(torque, ForceMode.Force); }
        public void AddTorque(Vector3 torque, ForceMode mode)
        {
            if (mode == ForceMode.Force) m_Torque += torque;
            else if (mode == ForceMode.Impulse) m_AngularVelocity += WorldInverseInertia(torque);
            else throw new NotSupportedException("stand-in: AddTorque mode " + mode);
        }
        public void AddForceAtPosition(Vector3 force, Vector3 position) { AddForceAtPosition(force, position, ForceMode.Force); }
        public void AddForceAtPosition(Vector3 force, Vector3 position, ForceMode mode)
        {
            if (mode != ForceMode.Force) throw new NotSupportedException("stand-in: AddForceAtPosition mode " + mode);
            m_Force += force;
            m_Torque += Vector3.Cross(position - worldCenterOfMass, force);
        }
        public Vector3 GetPointVelocity(Vector3 worldPoint)
        {
            return m_Velocity + Vector3.Cross(m_AngularVelocity, worldPoint - worldCenterOfMass);
        }

        /// Inverse world inertia times a world vector, through the principal frame.
        private Vector3 WorldInverseInertia(Vector3 v)
        {
            Quaternion principal = transform.rotation * m_InertiaTensorRotation;
            Vector3 local = Quaternion.Inverse(principal) * v;
            Vector3 i = inertiaTensor;
            return principal * new Vector3(local.x / i.x, local.y / i.y, local.z / i.z);
        }

        internal void Integrate(float dt)
        {
            if (isKinematic) { m_Force = m_Torque = Vector3.zero; return; }
            Vector3 com = worldCenterOfMass;
            Vector3 accel = m_Force / m_Mass + (useGravity ? Physics.gravity : Vector3.zero);
            m_Velocity = (m_Velocity + accel * dt) / (1f + drag * dt);
            m_AngularVelocity = (m_AngularVelocity + WorldInverseInertia(m_Torque) * dt) / (1f + angularDrag * dt);
            if (m_AngularVelocity.magnitude > maxAngularVelocity) m_AngularVelocity = m_AngularVelocity.normalized * maxAngularVelocity;
            m_Force = m_Torque = Vector3.zero;

            com += m_Velocity * dt;
            Vector3 w = m_AngularVelocity;
            Quaternion q = transform.rotation;
            Quaternion spin = new Quaternion(w.x, w.y, w.z, 0f) * q;
            float h = 0.5f * dt;
            transform.rotation = new Quaternion(q.x + h * spin.x, q.y + h * spin.y, q.z + h * spin.z, q.w + h * spin.w).normalized;
            transform.position = com - transform.rotation * centerOfMass;
        }
    }

    public class Collider : Component { }
    public class BoxCollider : Collider { public Vector3 size = Vector3.one; public Vector3 center; }
    public class MeshCollider : Collider { public Mesh sharedMesh; public bool convex; }
}
