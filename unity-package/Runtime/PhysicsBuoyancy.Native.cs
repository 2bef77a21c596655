// PhysicsBuoyancy's native side: the hull and body handles, the description built from
// the inspector fields, one step, and applying its result to the Rigidbody.
// SPDX-License-Identifier: MIT OR Apache-2.0
using System;
using Keel.Native;
using UnityEngine;

namespace Keel
{
    public sealed unsafe partial class PhysicsBuoyancy
    {
        private Rigidbody m_Rigidbody;
        internal BuoyancyManager m_Manager;
        internal int m_ManagerIndex = -1;
        internal ulong m_World, m_Body;
        private ulong m_Hull;
        internal int m_Generation;
        internal bool m_DescDirty = true;
        private bool m_Failed, m_StepErrorLogged;
        // LastForces: the manager's result slot m_ResultSlot when it is >= 0 (the manager keeps
        // it valid: see BuoyancyManager), else this copy (stepping alone, or after leaving a batch).
        private KeelBodyForces m_Forces;
        internal int m_ResultSlot = -1;
        private float m_DescMass;
        private Vector3 m_DescInertia;
        private Quaternion m_DescInertiaRotation;
        // Rigidbody.centerOfMass, body-local, read with the mass: the state's world centre of
        // mass is position + rotation * this, which is what Unity's worldCenterOfMass computes.
        private Vector3 m_LocalCenterOfMass;
        private KeelTriangleForce[] m_TriangleForces = new KeelTriangleForce[64];

        /// <summary>The KEEL_FORCE_* bits of the toggles.</summary>
        public uint ForceBits
        {
            get
            {
                uint bits = 0;
                if (viscousResistance) bits |= KeelNative.KEEL_FORCE_VISCOUS;
                if (pressureDrag) bits |= KeelNative.KEEL_FORCE_PRESSURE_DRAG;
                if (slammingForce) bits |= KeelNative.KEEL_FORCE_SLAMMING;
                if (airResistance) bits |= KeelNative.KEEL_FORCE_AIR;
                if (damping) bits |= KeelNative.KEEL_FORCE_DAMPING;
                return bits;
            }
        }

        /// <summary>The native description these fields and the Rigidbody make.</summary>
        public KeelBodyDesc BuildDesc()
        {
            var d = new KeelBodyDesc();
            KeelNative.keel_body_desc_default(ref d);
            d.hull = m_Hull;
            d.mass = m_Rigidbody.mass;
            d.buoyancy = (uint)buoyancyMode;
            d.vertical_buoyancy_only = verticalBuoyancyOnly;
            d.froude_krylov = froudeKrylov;
            d.forces = ForceBits;
            d.hull_length = hullLength;
            d.pressure_drag_linear = C_PD1;
            d.pressure_drag_quadratic = C_PD2;
            d.suction_drag_linear = C_SD1;
            d.suction_drag_quadratic = C_SD2;
            d.pressure_falloff = f_P;
            d.suction_falloff = f_S;
            d.reference_speed = referenceSpeed;
            d.slamming_power = slammingPower;
            d.slamming_max_acceleration = maxAcceleration;
            d.slamming_multiplier = slammingMultiplier;
            d.air_drag_coefficient = C_air;
            d.linear_damping = linearDamping;
            d.angular_damping = angularDamping;
            d.added_mass_ratio = addedMassRatio;
            d.water_patch_cells = (uint)Mathf.Max(0, waterPatchCells);
            // The Rigidbody's own inertia, so the engine's angular response (slamming's
            // stopping force, damping) matches what Unity will integrate.
            d.inertia = m_Rigidbody.inertiaTensor.ToKeel();
            d.inertia_rotation = m_Rigidbody.inertiaTensorRotation.ToKeel();
            return d;
        }

        /// <summary>Logs one clear error naming the object; the body then gets no force.</summary>
        private void Fail(string reason)
        {
            if (!m_Failed) Debug.LogError("Keel PhysicsBuoyancy on '" + name + "': " + reason + " The body gets no buoyancy.", this);
            m_Failed = true;
        }

        /// <summary>Forget a refused mesh (after fixing it) so that the next step tries again.</summary>
        public void ResetFailure() { m_Failed = false; m_StepErrorLogged = false; }

        /// <summary>
        /// True when the body can step without any check beyond this: its native body is
        /// current, no setting waits to be sent, and the Rigidbody's mass and inertia are those
        /// the engine has (read every FixedUpdate: scripts and collider changes move them).
        /// Otherwise Prepare() does the rest. Also takes this step's centre of mass.
        /// </summary>
        internal bool IsReady(int generation)
        {
            if (m_Generation != generation || m_Body == 0 || m_DescDirty) return false;
            Rigidbody rb = m_Rigidbody;
            m_LocalCenterOfMass = rb.centerOfMass;
            if (rb.mass != m_DescMass) return false;
            Vector3 i = rb.inertiaTensor;
            Vector3 d = m_DescInertia;
            if (i.x != d.x || i.y != d.y || i.z != d.z) return false;
            Quaternion r = rb.inertiaTensorRotation;
            Quaternion e = m_DescInertiaRotation;
            return r.x == e.x && r.y == e.y && r.z == e.z && r.w == e.w;
        }

        /// <summary>Creates, refreshes or re-sends the native body; false: skip this step (logged once).</summary>
        internal bool Prepare()
        {
            try
            {
                return EnsureBody();
            }
            catch (KeelException e)
            {
                LogStepError(e);
                return false;
            }
        }

        private bool EnsureBody()
        {
            if (m_Failed) return false;
            if (m_Generation != KeelRuntime.Generation) { m_World = m_Hull = m_Body = 0; }
            if (m_Body != 0)
            {
                if (m_DescDirty) SetDesc();
                else RefreshFromRigidbody();
                return true;
            }
            m_World = KeelRuntime.GetWorld(rhoWater);
            m_Generation = KeelRuntime.Generation;
            if (!CreateHull()) return false;
            KeelBodyDesc desc = BuildDesc();
            ulong body;
            KeelStatus status = KeelNative.keel_body_create(m_World, ref desc, &body);
            if (status != KeelStatus.KEEL_OK)
            {
                string message = KeelLibrary.LastErrorMessage();
                ReleaseHull();
                Fail("the native body was refused (" + message + ").");
                return false;
            }
            m_Body = body;
            Remember(desc);
            return true;
        }

        /// <summary>
        /// Mass, centre of mass and inertia can change under the component (scripts, Unity's
        /// automatic values after a collider change); the description is sent only when the
        /// mass or inertia did.
        /// </summary>
        private void RefreshFromRigidbody()
        {
            Rigidbody rb = m_Rigidbody;
            m_LocalCenterOfMass = rb.centerOfMass;
            if (rb.mass != m_DescMass || !rb.inertiaTensor.Equals(m_DescInertia)
                || !rb.inertiaTensorRotation.Equals(m_DescInertiaRotation))
                SetDesc();
        }

        private void SetDesc()
        {
            KeelBodyDesc desc = BuildDesc();
            KeelLibrary.Check(KeelNative.keel_body_set_desc(m_World, m_Body, ref desc));
            Remember(desc);
        }

        private void Remember(KeelBodyDesc desc)
        {
            m_DescMass = desc.mass;
            m_DescInertia = m_Rigidbody.inertiaTensor;
            m_DescInertiaRotation = m_Rigidbody.inertiaTensorRotation;
            m_LocalCenterOfMass = m_Rigidbody.centerOfMass;
            m_DescDirty = false;
        }

        private bool CreateHull()
        {
            MeshFilter filter = hullMesh != null ? hullMesh : GetComponent<MeshFilter>();
            Mesh mesh = filter != null ? filter.sharedMesh : null;
            if (mesh == null) { Fail("there is no MeshFilter with a mesh to use as the hull."); return false; }
            if (!mesh.isReadable) { Fail("the mesh '" + mesh.name + "' is not readable: enable Read/Write in its import settings."); return false; }
            int[] triangles = mesh.triangles;
            if (triangles.Length < 3) { Fail("the mesh '" + mesh.name + "' has no triangles."); return false; }
            Vector3 scale = filter.transform.lossyScale;
            if (Mathf.Abs(scale.x * scale.y * scale.z) < 1e-12f) { Fail("the object is scaled to zero."); return false; }

            bool shareable = filter.transform == transform;
            if (shareable)
            {
                ulong shared = KeelHullCache.Acquire(m_World, mesh, scale);
                if (shared != 0) { m_Hull = shared; return true; }
            }
            KeelVec3[] local = BodyLocalVertices(filter, mesh);
            ulong hull;
            KeelStatus status;
            fixed (KeelVec3* v = local)
            fixed (int* idx = triangles)
            {
                var desc = new KeelHullDesc
                {
                    vertices = v, vertex_count = (uint)local.Length,
                    indices = (uint*)idx, index_count = (uint)triangles.Length, flip_winding = false,
                };
                status = KeelNative.keel_hull_create(m_World, ref desc, &hull);
            }
            if (status != KeelStatus.KEEL_OK) { Fail("the mesh '" + mesh.name + "' was refused (" + KeelLibrary.LastErrorMessage() + ")."); return false; }
            m_Hull = hull;
            if (shareable) KeelHullCache.Add(m_World, mesh, scale, hull);
            return true;
        }

        /// <summary>The mesh's vertices body-local, with every scale of the hierarchy baked in.</summary>
        private KeelVec3[] BodyLocalVertices(MeshFilter filter, Mesh mesh)
        {
            Vector3[] vertices = mesh.vertices;
            var local = new KeelVec3[vertices.Length];
            Quaternion toBody = Quaternion.Inverse(transform.rotation);
            Vector3 origin = transform.position;
            Transform meshTransform = filter.transform;
            for (int i = 0; i < vertices.Length; i++) local[i] = (toBody * (meshTransform.TransformPoint(vertices[i]) - origin)).ToKeel();
            return local;
        }

        /// <summary>The Rigidbody's pose and motion as keel wants them, written in place.</summary>
        internal void WriteState(KeelBodyState* s)
        {
            Rigidbody rb = m_Rigidbody;
            Vector3 p = rb.position;
            Quaternion q = rb.rotation;
#if UNITY_6000_0_OR_NEWER
            Vector3 v = rb.linearVelocity;
#else
            Vector3 v = rb.velocity;
#endif
            Vector3 w = rb.angularVelocity;
            s->position.x = p.x; s->position.y = p.y; s->position.z = p.z;
            s->rotation.x = q.x; s->rotation.y = q.y; s->rotation.z = q.z; s->rotation.w = q.w;
            s->linear_velocity.x = v.x; s->linear_velocity.y = v.y; s->linear_velocity.z = v.z;
            s->angular_velocity.x = w.x; s->angular_velocity.y = w.y; s->angular_velocity.z = w.z;
            // Unity's worldCenterOfMass is position + rotation * centerOfMass (centerOfMass
            // follows the pose, not the scale): computed here rather than read, a native call
            // less, in scalars because chains of Vector3 operators cost ~100 ns under mono.
            // Rotating c by q: c + 2 q.w (q x c) + 2 q x (q x c).
            Vector3 c = m_LocalCenterOfMass;
            float tx = 2f * (q.y * c.z - q.z * c.y), ty = 2f * (q.z * c.x - q.x * c.z), tz = 2f * (q.x * c.y - q.y * c.x);
            s->center_of_mass.x = p.x + (c.x + q.w * tx + (q.y * tz - q.z * ty));
            s->center_of_mass.y = p.y + (c.y + q.w * ty + (q.z * tx - q.x * tz));
            s->center_of_mass.z = p.z + (c.z + q.w * tz + (q.x * ty - q.y * tx));
        }

        private void LogStepError(Exception e)
        {
            if (!m_StepErrorLogged) Debug.LogError("Keel PhysicsBuoyancy on '" + name + "': " + e.Message, this);
            m_StepErrorLogged = true;
        }

        private void StepAlone()
        {
            if (!IsReady(KeelRuntime.Generation) && !Prepare()) return;
            KeelBodyState state;
            WriteState(&state);
            KeelRuntime.SyncTime();
            KeelBodyForces forces;
            KeelStatus status = KeelNative.keel_body_step(m_World, m_Body, &state, Time.fixedDeltaTime, &forces);
            if (status != KeelStatus.KEEL_OK) { LogStepError(new KeelException(status, KeelLibrary.LastErrorMessage())); return; }
            m_Forces = forces;
            Apply(&forces);
        }

        /// <summary>The last step's forces as they are (the batch's slot or the copy).</summary>
        private KeelBodyForces CurrentForces()
        {
            return m_ResultSlot >= 0 ? m_Manager.m_Results[m_ResultSlot] : m_Forces;
        }

        /// <summary>Copies the batch's slot before the manager reuses it for another body.</summary>
        internal void KeepResult()
        {
            if (m_ResultSlot < 0) return;
            m_Forces = m_Manager.m_Results[m_ResultSlot];
            m_ResultSlot = -1;
        }

        /// <summary>Applies a step's result to the Rigidbody (a manager has set LastForces already).</summary>
        internal void Apply(KeelBodyForces* forces)
        {
            // The common case first, with nothing but the two calls.
            if (forceApplication == KeelForceApplication.ForceAndTorque && !useSimpleDrag
                && (object)underWaterObj == null && (object)aboveWaterObj == null)
            {
                Rigidbody body = m_Rigidbody;
                body.AddForce(new Vector3(forces->force.x, forces->force.y, forces->force.z));
                body.AddTorque(new Vector3(forces->torque.x, forces->torque.y, forces->torque.z));
                return;
            }
            ApplyWithOptions(forces);
        }

        private void ApplyWithOptions(KeelBodyForces* forces)
        {
            Rigidbody rb = m_Rigidbody;
            if (forceApplication == KeelForceApplication.PerTriangle) ApplyPerTriangle();
            else
            {
                rb.AddForce(forces->force.ToUnity());
                rb.AddTorque(forces->torque.ToUnity());
            }
            // The figure-19 views follow each step (no Update method: Unity calls every
            // declared Update, a cost per body even when there is nothing to show).
            if ((object)underWaterObj != null || (object)aboveWaterObj != null) UpdateDebugMeshes();
            if (useSimpleDrag)
            {
                // Thesis function A.5.
                float ratio = forces->wetted_ratio;
#if UNITY_6000_0_OR_NEWER
                rb.linearDamping = (maxDrag - minDrag) * ratio + minDrag;
                rb.angularDamping = (maxAngDrag - minAngDrag) * ratio + minAngDrag;
#else
                rb.drag = (maxDrag - minDrag) * ratio + minDrag;
                rb.angularDrag = (maxAngDrag - minAngDrag) * ratio + minAngDrag;
#endif
            }
        }

        private void ApplyPerTriangle()
        {
            uint count;
            KeelStatus status;
            fixed (KeelTriangleForce* buf = m_TriangleForces)
                status = KeelNative.keel_body_get_triangle_forces(m_World, m_Body, buf, (uint)m_TriangleForces.Length, &count);
            if (status == KeelStatus.KEEL_ERROR_BUFFER_TOO_SMALL)
            {
                m_TriangleForces = new KeelTriangleForce[Math.Max((int)count, m_TriangleForces.Length * 2)];
                fixed (KeelTriangleForce* buf = m_TriangleForces)
                    status = KeelNative.keel_body_get_triangle_forces(m_World, m_Body, buf, (uint)m_TriangleForces.Length, &count);
            }
            if (status != KeelStatus.KEEL_OK) { LogStepError(new KeelException(status, KeelLibrary.LastErrorMessage())); return; }
            for (int i = 0; i < (int)count; i++)
                m_Rigidbody.AddForceAtPosition(m_TriangleForces[i].force.ToUnity(), m_TriangleForces[i].point.ToUnity());
        }

        /// <summary>Destroys the native body and hull (they are rebuilt on the next step).</summary>
        internal void ReleaseNative()
        {
            if (m_Generation == KeelRuntime.Generation && m_World != 0)
            {
                if (m_Body != 0) KeelNative.keel_body_destroy(m_World, m_Body);
                m_Body = 0;
                ReleaseHull();
            }
            m_Body = m_Hull = m_World = 0;
        }

        private void ReleaseHull()
        {
            if (m_Hull != 0 && KeelHullCache.Release(m_Hull)) KeelNative.keel_hull_destroy(m_World, m_Hull);
            m_Hull = 0;
        }
    }
}
