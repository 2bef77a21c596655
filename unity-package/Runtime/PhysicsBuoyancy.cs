// The thesis's PhysicsBuoyancy (chapters 4-5): a Rigidbody with a triangle-mesh hull
// floats. Clipping, buoyancy and the resistances run in the native library; this
// component reads the Rigidbody each FixedUpdate, asks for the step's force and torque,
// and applies them.
// SPDX-License-Identifier: MIT OR Apache-2.0
using Keel.Native;
using UnityEngine;

namespace Keel
{
    /// <summary>How buoyancy is computed (KEEL_BUOYANCY_*).</summary>
    public enum KeelBuoyancyMode
    {
        /// <summary>Per submerged triangle at its exact centre of pressure (default).</summary>
        Pressure = 0,
        /// <summary>Per triangle at its centroid, as the thesis's code (chapter 5.1).</summary>
        PressureCentroid = 1,
        /// <summary>Submerged volume and its centroid (thesis 5.10); closed meshes.</summary>
        Volume = 2,
        /// <summary>Area centroid, volume from the wetted-area ratio (thesis 5.8); closed meshes.</summary>
        AreaRatio = 3,
        None = 4,
    }

    /// <summary>How the step's forces reach the Rigidbody.</summary>
    public enum KeelForceApplication
    {
        /// <summary>One AddForce and one AddTorque per body and step.</summary>
        ForceAndTorque = 0,
        /// <summary>AddForceAtPosition per triangle, as the thesis did (slower).</summary>
        PerTriangle = 1,
    }

    [RequireComponent(typeof(Rigidbody))]
    [DisallowMultipleComponent]
    [AddComponentMenu("Keel/Physics Buoyancy")]
    public sealed partial class PhysicsBuoyancy : MonoBehaviour
    {
        [Header("Water")]
        [Tooltip("rhoWater: water density, kg/m^3 (1000 fresh, 1025 sea).")]
        [Min(1f)] public float rhoWater = 1000f;
        [Tooltip("Buoyancy model: pressure at the exact centre (default), the thesis's per-triangle centroid, volume, or area ratio.")]
        public KeelBuoyancyMode buoyancyMode = KeelBuoyancyMode.Pressure;
        [Tooltip("Drop the horizontal part of buoyancy, as the thesis's code did.")]
        public bool verticalBuoyancyOnly = false;
        [Tooltip("On Gerstner water, add the water's inertia the drawn surface's pressure misses (the Froude-Krylov force): small bodies ride the waves' orbits instead of sliding down sharpened crests. Off: the drawn surface's hydrostatics alone, as the thesis.")]
        public bool froudeKrylov = true;

        [Header("Forces")]
        [Tooltip("Viscous water resistance (thesis 5.8, ITTC 1957 skin friction).")]
        public bool viscousResistance = true;
        [Tooltip("Pressure and suction drag (thesis 5.11-5.12).")]
        public bool pressureDrag = true;
        [Tooltip("Slamming force on water entry (thesis 5.13-5.19).")]
        public bool slammingForce = true;
        [Tooltip("Air resistance on emerged triangles (thesis 5.2).")]
        public bool airResistance = true;
        [Tooltip("Linear and angular damping scaled by the wetted ratio (Kerner's stabiliser).")]
        public bool damping = false;

        [Header("Pressure drag (N/m^2 at the reference speed)")]
        [Tooltip("C_PD1: linear pressure drag coefficient, N/m^2 at the reference speed.")]
        [Min(0f)] public float C_PD1 = 500f;
        [Tooltip("C_PD2: quadratic pressure drag coefficient, N/m^2 at the reference speed.")]
        [Min(0f)] public float C_PD2 = 500f;
        [Tooltip("C_SD1: linear suction drag coefficient, N/m^2 at the reference speed.")]
        [Min(0f)] public float C_SD1 = 500f;
        [Tooltip("C_SD2: quadratic suction drag coefficient, N/m^2 at the reference speed.")]
        [Min(0f)] public float C_SD2 = 250f;
        [Tooltip("f_P: pressure falloff, the power of cos(theta), dimensionless (thesis: 0.3; 0.5 default).")]
        [Range(0f, 2f)] public float f_P = 0.5f;
        [Tooltip("f_S: suction falloff, the power of |cos(theta)|, dimensionless.")]
        [Range(0f, 2f)] public float f_S = 0.5f;
        [Tooltip("v_r: reference speed of the drag coefficients, m/s.")]
        [Min(0.001f)] public float referenceSpeed = 1f;

        [Header("Slamming")]
        [Tooltip("p: slamming power, the sharpness of the impact ramp (an exponent, dimensionless).")]
        [Min(0f)] public float slammingPower = 2f;
        [Tooltip("Gamma_max: acceleration at which slamming saturates, m/s^2; 0 = from speed and dt.")]
        [Min(0f)] public float maxAcceleration = 0f;
        [Tooltip("Slamming multiplier (the thesis's cheat factor), dimensionless.")]
        [Min(0f)] public float slammingMultiplier = 3f;

        [Header("Air and damping")]
        [Tooltip("C_air: air drag coefficient, dimensionless.")]
        [Min(0f)] public float C_air = 1f;
        [Tooltip("Linear damping, N per m/s at full immersion.")]
        [Min(0f)] public float linearDamping = 0f;
        [Tooltip("Angular damping, N m per rad/s at full immersion.")]
        [Min(0f)] public float angularDamping = 0f;
        [Tooltip("Bourg's added-mass ratio: the body moves as if it weighed mass x (1 + ratio) under the water's forces while it is wet, relative to the water on Gerstner seas (dimensionless).")]
        [Min(0f)] public float addedMassRatio = 0f;
        [Tooltip("Hull length for the Reynolds number, m; 0 = the mesh's local Z extent.")]
        [Min(0f)] public float hullLength = 0f;
        [Tooltip("Water patch cells per side (costly water is sampled on this grid); 0 = every vertex.")]
        [Range(0, 64)] public int waterPatchCells = 8;

        [Header("Simple drag (thesis A.5)")]
        [Tooltip("Set the Rigidbody's drag between minDrag and maxDrag by the wetted ratio each step: the thesis's cheap alternative to the drag forces.")]
        public bool useSimpleDrag = false;
        [Tooltip("Rigidbody drag when dry, 1/s (Unity's linear damping).")]
        public float minDrag = 0.05f;
        [Tooltip("Rigidbody drag when fully wet, 1/s.")]
        public float maxDrag = 1f;
        [Tooltip("Rigidbody angular drag when dry, 1/s.")]
        public float minAngDrag = 0.05f;
        [Tooltip("Rigidbody angular drag when fully wet, 1/s.")]
        public float maxAngDrag = 1f;

        [Header("Application and debugging")]
        [Tooltip("One force and torque per body (fast), or AddForceAtPosition per triangle as the thesis did.")]
        public KeelForceApplication forceApplication = KeelForceApplication.ForceAndTorque;
        [Tooltip("Optional child with a MeshFilter that shows the underwater part (thesis figure 19).")]
        public GameObject underWaterObj;
        [Tooltip("Optional child with a MeshFilter that shows the above-water part.")]
        public GameObject aboveWaterObj;
        [Tooltip("Use this MeshFilter's mesh as the hull instead of this object's.")]
        public MeshFilter hullMesh;

        /// <summary>The last step's forces (world axes).</summary>
        public KeelBodyForces LastForces { get { return CurrentForces(); } }

        /// <summary>The native body handle, 0 when there is none.</summary>
        public ulong BodyHandle { get { return m_Generation == KeelRuntime.Generation ? m_Body : 0; } }

        /// <summary>True once the mesh was refused: the body gets no force (one error was logged).</summary>
        public bool HasFailed { get { return m_Failed; } }

        private void OnEnable()
        {
            m_Rigidbody = GetComponent<Rigidbody>();
            BuoyancyManager manager = BuoyancyManager.Instance;
            if (manager != null) manager.Register(this);
        }

        private void OnDisable()
        {
            if (m_Manager != null) m_Manager.Unregister(this);
            ReleaseNative();
        }

        private void OnDestroy()
        {
            if ((object)m_Manager != null) m_Manager.Unregister(this);
            ReleaseNative();
        }

        private void OnValidate()
        {
            // Inspector edits at runtime reach the native body at the next step.
            m_DescDirty = true;
        }

        /// <summary>
        /// Call after changing fields from a script so that they reach the engine at the next
        /// step (the Rigidbody's mass, centerOfMass and inertia are read every FixedUpdate
        /// without it). (The mesh is read once: bodies of the
        /// same mesh and scale share one native hull; to change a hull's shape, give the
        /// MeshFilter a new Mesh.)
        /// </summary>
        public void ApplySettings() { m_DescDirty = true; }

        private void FixedUpdate()
        {
            // A manager clears m_Manager when it is disabled or destroyed, so a plain reference
            // test suffices (UnityEngine.Object's == asks the engine, a cost on every body).
            if ((object)m_Manager != null) return;
            StepAlone();
        }
    }
}
