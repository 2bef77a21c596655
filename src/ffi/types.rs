//! The `#[repr(C)]` types of the ABI and their conversions to the engine's types.

use glam::{DQuat, DVec3, Vec3};

use crate::body::{BodyDesc, BodyForces, BodyState, BuoyancyModel};
use crate::error::{Error, ErrorKind, Result};
use crate::hull::HullInfo;
use crate::world::{HullId, WorldDesc};

/// ABI version: major << 16 | minor. 1.1: API.md's "1.1 additions" (wind, current,
/// heightfields, callbacks, spectra, lumped resistance, added mass, the water patch, the
/// host's inertia, box hulls, hull inertia, world counts, destroying every world,
/// equilibrium). A host compiled against 1.1 must refuse a 1.0 library: its
/// KeelBodyDesc is shorter.
pub const KEEL_ABI_VERSION: u32 = (1 << 16) | 1;

/// Result of every function that can fail. `KEEL_OK` is 0. On failure
/// `keel_last_error_message` says why, and nothing is written or changed, but for
/// KEEL_ERROR_BUFFER_TOO_SMALL (which writes the size needed) and KEEL_ERROR_INTERNAL.
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(C)]
pub enum KeelStatus {
    /// Success.
    KEEL_OK = 0,
    /// A required pointer was NULL.
    KEEL_ERROR_NULL_POINTER = 1,
    /// Unknown, destroyed or wrong-world handle.
    KEEL_ERROR_INVALID_HANDLE = 2,
    /// NaN/inf, negative mass or density, dt <= 0, misaligned pointer, ...
    KEEL_ERROR_INVALID_ARGUMENT = 3,
    /// Index out of range, index_count % 3 != 0, no usable triangle.
    KEEL_ERROR_INVALID_MESH = 4,
    /// The output buffer is too small: the size needed is written to *out_count (or
    /// *out_size for a snapshot), and nothing else is written.
    KEEL_ERROR_BUFFER_TOO_SMALL = 5,
    /// A caught panic: a bug in keel. The world stays usable; the call's outputs may
    /// have been written in part.
    KEEL_ERROR_INTERNAL = 6,
}

impl From<ErrorKind> for KeelStatus {
    fn from(kind: ErrorKind) -> Self {
        match kind {
            ErrorKind::NullPointer => KeelStatus::KEEL_ERROR_NULL_POINTER,
            ErrorKind::InvalidHandle => KeelStatus::KEEL_ERROR_INVALID_HANDLE,
            ErrorKind::InvalidArgument => KeelStatus::KEEL_ERROR_INVALID_ARGUMENT,
            ErrorKind::InvalidMesh => KeelStatus::KEEL_ERROR_INVALID_MESH,
            ErrorKind::BufferTooSmall => KeelStatus::KEEL_ERROR_BUFFER_TOO_SMALL,
            ErrorKind::Internal => KeelStatus::KEEL_ERROR_INTERNAL,
        }
    }
}

/// A world: water, hulls and bodies. 0 is never a valid handle.
pub type KeelWorld = u64;
/// A hull of a world. 0 is never a valid handle.
pub type KeelHull = u64;
/// A body of a world. 0 is never a valid handle.
pub type KeelBody = u64;

/// A vector in metres (or m/s, N, ...). Y is up.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct KeelVec3 {
    /// X component.
    pub x: f32,
    /// Y component (up).
    pub y: f32,
    /// Z component.
    pub z: f32,
}

/// A unit quaternion rotating body-local vectors into world ones.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct KeelQuat {
    /// X of the vector part.
    pub x: f32,
    /// Y of the vector part.
    pub y: f32,
    /// Z of the vector part.
    pub z: f32,
    /// Scalar part.
    pub w: f32,
}

impl KeelVec3 {
    pub(crate) fn to_dvec3(self) -> DVec3 {
        DVec3::new(self.x as f64, self.y as f64, self.z as f64)
    }

    pub(crate) fn to_vec3(self) -> Vec3 {
        Vec3::new(self.x, self.y, self.z)
    }
}

impl KeelQuat {
    pub(crate) fn to_dquat(self) -> DQuat {
        DQuat::from_xyzw(self.x as f64, self.y as f64, self.z as f64, self.w as f64)
    }
}

impl From<DQuat> for KeelQuat {
    fn from(q: DQuat) -> Self {
        Self {
            x: q.x as f32,
            y: q.y as f32,
            z: q.z as f32,
            w: q.w as f32,
        }
    }
}

impl From<DVec3> for KeelVec3 {
    fn from(v: DVec3) -> Self {
        Self {
            x: v.x as f32,
            y: v.y as f32,
            z: v.z as f32,
        }
    }
}

/// What a world holds (keel_world_get_counts).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct KeelWorldCounts {
    /// Live hulls.
    pub hull_count: u32,
    /// Live bodies.
    pub body_count: u32,
}

/// Constants of a world. Fill with keel_world_desc_default, then change what you need.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub struct KeelWorldDesc {
    /// m/s^2, > 0, pointing down; default 9.81.
    pub gravity: f32,
    /// kg/m^3, > 0; default 1000 (set 1025 for sea water).
    pub water_density: f32,
    /// kg/m^3, >= 0; default 1.225.
    pub air_density: f32,
    /// Kinematic viscosity, m^2/s, > 0; default 1.0e-6.
    pub water_viscosity: f32,
    /// The threads that step, the calling thread included; default 0. 0 = one per
    /// processor, then as below. 1 = the calling thread only: keel starts no thread.
    /// 2 = the calling thread and one helper thread, started the first time a batch of
    /// two bodies or more, or a big body alone (over 1024 triangles), is stepped: by
    /// keel_world_step, keel_body_step or a keel_world_step of one; never if the process
    /// may use one processor only. It spins up to 50 us after each share of a step it
    /// takes, then sleeps. 3 or more = a pool of that many threads, started by
    /// keel_world_create, which steps while the calling thread waits. At most 256.
    /// Every thread is joined by keel_world_destroy. Ignored when enqueue_task is set.
    pub thread_count: u32,
    /// The host's job system, in place of keel's threads (Box2D v3's enqueueTask and
    /// finishTask): both NULL (the default) keeps keel's own threads; both set, keel
    /// starts no thread and runs keel_world_step's groups of bodies and a big body's
    /// sections stepped alone as tasks on the host's workers, with the same bits as its
    /// own threads give. One set without the other is refused.
    pub enqueue_task: KeelEnqueueTask,
    /// Waits for a task enqueue_task returned (see enqueue_task).
    pub finish_task: KeelFinishTask,
    /// Passed to enqueue_task and finish_task as user_context.
    pub user_task_context: *mut std::ffi::c_void,
    /// How many workers the host runs tasks on, 1 to 256 when the callbacks are set
    /// (ignored otherwise); thread_count is ignored then.
    pub worker_count: u32,
}

impl From<&KeelWorldDesc> for WorldDesc {
    fn from(d: &KeelWorldDesc) -> Self {
        Self {
            gravity: d.gravity as f64,
            water_density: d.water_density as f64,
            air_density: d.air_density as f64,
            water_viscosity: d.water_viscosity as f64,
            thread_count: d.thread_count,
        }
    }
}

impl From<&WorldDesc> for KeelWorldDesc {
    fn from(d: &WorldDesc) -> Self {
        Self {
            gravity: d.gravity as f32,
            water_density: d.water_density as f32,
            air_density: d.air_density as f32,
            water_viscosity: d.water_viscosity as f32,
            thread_count: d.thread_count,
            enqueue_task: None,
            finish_task: None,
            user_task_context: std::ptr::null_mut(),
            worker_count: 0,
        }
    }
}

/// The thesis's Perlin water (Tenhunen 2019, function 2.2 GetWaveYPos). Fill with
/// keel_perlin_water_desc_default.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct KeelPerlinWaterDesc {
    /// Mean height, m; default 0.
    pub level: f32,
    /// perlinScale; default 0.1.
    pub perlin_scale: f32,
    /// wavespeed; default 0.5.
    pub wave_speed: f32,
    /// waveHeight, m; default 1.0.
    pub wave_height: f32,
    /// The thesis's onlyX branch; default false.
    pub only_x: bool,
}

/// One wave of a Gerstner (trochoidal) sea; deep-water dispersion omega^2 = g k.
///
/// The water's particles move along the waves as on circles of radius `amplitude`, at
/// `amplitude * omega` (k = 2 pi / wavelength, omega = sqrt(g k)), and up and down with
/// the drawn surface, decaying as e^{-k d} at depth d under the surface; they come back
/// where they started: the sea carries nothing. The steepness only shapes the drawn
/// crests (a horizontal displacement of steepness / k), not how far the water moves
/// along: the surface hosts draw (keel_water_sample's heights) is what bodies float on
/// and what the water's surface does, and at crests and troughs the water moves at
/// `amplitude * omega` along the waves whatever the steepness. A body feels the water's
/// Froude-Krylov force: the drawn surface's pressure, with the water's own acceleration
/// in place of the drawn slope's push (along the waves the orbit's, vertically what
/// riding the drawn surface takes, at most free fall), averaged over the hull's length
/// along each wave, with the moment of its vertical part (the water under a crest falls
/// faster than under the hull's other end), decaying as e^{-k d} at the centre of
/// buoyancy's depth. Bodies up to a tenth of the wavelength, cubes and level rafts, ride
/// the orbits and drift by at most a fifth of the Stokes drift either way for steepness
/// 0 to 0.8 (docs/WAVES.md).
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct KeelGerstnerWave {
    /// m.
    pub amplitude: f32,
    /// m, > 0.
    pub wavelength: f32,
    /// Horizontal travel direction, normalised inside; must not be zero.
    pub direction_x: f32,
    /// Z of the travel direction (see direction_x).
    pub direction_z: f32,
    /// Q in [0, 1]: 0 = sine wave, 1 = sharpest crest, k * amplitude = the sea's own
    /// trochoid; shapes the crests, not the water's motion. Keep the sum over waves
    /// below 1.
    pub steepness: f32,
    /// Radians.
    pub phase: f32,
}

/// A triangle mesh in body-local coordinates, scale baked in. The data are copied.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub struct KeelHullDesc {
    /// The vertices, body-local, m.
    pub vertices: *const KeelVec3,
    /// Number of vertices.
    pub vertex_count: u32,
    /// 3 per triangle; the outward normal of (a, b, c) is cross(b - a, c - a).
    pub indices: *const u32,
    /// Number of indices (3 per triangle).
    pub index_count: u32,
    /// true for Godot meshes, whose triangles wind the other way.
    pub flip_winding: bool,
}

/// Facts about a hull.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct KeelHullInfo {
    /// Vertices passed in.
    pub vertex_count: u32,
    /// Usable triangles.
    pub triangle_count: u32,
    /// Zero-area triangles (zero within f32 rounding of the mesh's size), ignored.
    pub degenerate_count: u32,
    /// Every edge shared by exactly two triangles, opposite ways, judged on positions:
    /// engines split vertices at UV seams and hard edges (Unity's cube has 24), so
    /// coincident vertices count as one.
    pub is_closed: bool,
    /// A closed mesh (or a closed piece of it) found inside out and flipped.
    pub winding_flipped: bool,
    /// m^2.
    pub area: f32,
    /// m^3, closed hulls; 0 for open ones.
    pub volume: f32,
    /// Volume centroid if closed, else area centroid; body-local.
    pub centroid: KeelVec3,
    /// Lower corner of the axis-aligned bounding box, body-local.
    pub bounds_min: KeelVec3,
    /// Upper corner of the axis-aligned bounding box, body-local.
    pub bounds_max: KeelVec3,
    /// Triangles wound against their neighbours and turned to agree with them (each
    /// connected piece keeps the winding most of its triangles have).
    pub reoriented_count: u32,
}

impl From<&HullInfo> for KeelHullInfo {
    fn from(i: &HullInfo) -> Self {
        Self {
            vertex_count: i.vertex_count,
            triangle_count: i.triangle_count,
            degenerate_count: i.degenerate_count,
            is_closed: i.is_closed,
            winding_flipped: i.winding_flipped,
            area: i.area as f32,
            volume: i.volume as f32,
            centroid: i.centroid.into(),
            bounds_min: i.bounds_min.into(),
            bounds_max: i.bounds_max.into(),
            reoriented_count: i.reoriented_count,
        }
    }
}

/// How buoyancy is computed: one of the KEEL_BUOYANCY_* values. A uint32_t rather than
/// a C enum so that a value from another language can be checked instead of trusted.
pub type KeelBuoyancyModel = u32;
/// Per submerged triangle, at its exact centre of pressure.
pub const KEEL_BUOYANCY_PRESSURE: KeelBuoyancyModel = 0;
/// Per triangle at its centroid (Kerner, thesis 5.1): residual torque on coarse meshes.
pub const KEEL_BUOYANCY_PRESSURE_CENTROID: KeelBuoyancyModel = 1;
/// Submerged volume and its centroid (Nurnberg, thesis 5.10); closed hulls.
pub const KEEL_BUOYANCY_VOLUME: KeelBuoyancyModel = 2;
/// Area centroid, volume from the wetted-area ratio (thesis 5.8); closed hulls.
pub const KEEL_BUOYANCY_AREA_RATIO: KeelBuoyancyModel = 3;
/// No buoyancy.
pub const KEEL_BUOYANCY_NONE: KeelBuoyancyModel = 4;

/// KeelBodyDesc.forces bit: skin friction, ITTC 1957.
pub const KEEL_FORCE_VISCOUS: u32 = 1;
/// KeelBodyDesc.forces bit: pressure and suction drag.
pub const KEEL_FORCE_PRESSURE_DRAG: u32 = 2;
/// KeelBodyDesc.forces bit: water-entry impacts.
pub const KEEL_FORCE_SLAMMING: u32 = 4;
/// KeelBodyDesc.forces bit: air resistance on emerged triangles.
pub const KEEL_FORCE_AIR: u32 = 8;
/// KeelBodyDesc.forces bit: linear + angular damping scaled by the wetted ratio.
pub const KEEL_FORCE_DAMPING: u32 = 16;
/// KeelBodyDesc.forces bit: Bourg's whole-hull ship resistance, a cheap alternative to
/// VISCOUS | PRESSURE_DRAG | AIR (which must then be clear).
pub const KEEL_FORCE_LUMPED_RESISTANCE: u32 = 32;

/// A floating body's parameters. Fill with keel_body_desc_default, then set hull and
/// mass; the defaults settle everyday objects, from a 0.2 m crate to a 30 m boat.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct KeelBodyDesc {
    /// The hull, from keel_hull_create.
    pub hull: KeelHull,
    /// kg, > 0 and at most 1e12.
    pub mass: f32,
    /// Default KEEL_BUOYANCY_PRESSURE.
    pub buoyancy: KeelBuoyancyModel,
    /// Drop horizontal hydrostatic components (the thesis does); default false.
    pub vertical_buoyancy_only: bool,
    /// On Gerstner seas, add the water's inertia the drawn surface's hydrostatic pressure
    /// misses (the Froude-Krylov force of the water's particles: small bodies ride the
    /// waves' closed orbits instead of sliding down sharpened crests); default true.
    /// false: the drawn surface's hydrostatics alone, as Kerner and the thesis.
    pub froude_krylov: bool,
    /// KEEL_FORCE_* bits; default VISCOUS | PRESSURE_DRAG | SLAMMING | AIR; unknown bits
    /// are refused.
    pub forces: u32,
    /// m, for the Reynolds number; 0 = hull's local Z extent.
    pub hull_length: f32,
    /// C_PD1, N/m^2 at the reference speed; default 500.
    pub pressure_drag_linear: f32,
    /// C_PD2, N/m^2 at the reference speed; default 500.
    pub pressure_drag_quadratic: f32,
    /// C_SD1, N/m^2; default 500.
    pub suction_drag_linear: f32,
    /// C_SD2, N/m^2; default 250.
    pub suction_drag_quadratic: f32,
    /// f_P; default 0.5.
    pub pressure_falloff: f32,
    /// f_S; default 0.5.
    pub suction_falloff: f32,
    /// v_r, m/s, > 0; default 1.
    pub reference_speed: f32,
    /// p; default 2.
    pub slamming_power: f32,
    /// Gamma_max, m/s^2; 0 (default) = from speed and dt.
    pub slamming_max_acceleration: f32,
    /// Default 3: a 500 kg cube of 1 m side meeting the water flat keeps about half its speed.
    pub slamming_multiplier: f32,
    /// C_air; default 1.
    pub air_drag_coefficient: f32,
    /// N per (m/s), times wetted ratio; default 0 (KEEL_FORCE_DAMPING is off by default).
    pub linear_damping: f32,
    /// N m per (rad/s), times wetted ratio; default 0.
    pub angular_damping: f32,
    /// Bourg's virtual mass x: while any of it is wet the body moves as if its mass were
    /// mass * (1 + x) under the water's forces, relative to the water where a Gerstner
    /// sea gives its acceleration (a body riding the orbits feels none); out of the water
    /// it has none. Default 0.
    pub added_mass_ratio: f32,
    /// Bourg's residual-resistance coefficient C_r for KEEL_FORCE_LUMPED_RESISTANCE;
    /// default 0.002.
    pub residual_resistance: f32,
    /// Cells per side of Kerner's water patch: costly water (Gerstner sums, a callback)
    /// is sampled on a grid over the body's footprint and every vertex answered from it.
    /// 0 = query every vertex; default 8 (81 queries, or one per vertex if fewer; error
    /// about A (2 pi D / (8 L))^2 / 8 for a footprint D and a shortest wavelength L).
    pub water_patch_cells: u32,
    /// The host's principal moments of inertia about the centre of mass, kg m^2 (what
    /// the drag limiter needs to keep a torque from reversing a spin); all zero (the
    /// default) = the hull at uniform density and `mass`. Unity: Rigidbody.inertiaTensor;
    /// Godot: PhysicsDirectBodyState3D.get_principal_inertia_axes() with the inverse of
    /// inverse_inertia.
    pub inertia: KeelVec3,
    /// The principal axes of `inertia` in body axes (the body-axes tensor is
    /// R diag(inertia) R^T): Unity's Rigidbody.inertiaTensorRotation. Default identity.
    pub inertia_rotation: KeelQuat,
}

impl KeelBodyDesc {
    pub(crate) fn to_engine(self) -> Result<BodyDesc> {
        let buoyancy = match self.buoyancy {
            KEEL_BUOYANCY_PRESSURE => BuoyancyModel::Pressure,
            KEEL_BUOYANCY_PRESSURE_CENTROID => BuoyancyModel::PressureCentroid,
            KEEL_BUOYANCY_VOLUME => BuoyancyModel::Volume,
            KEEL_BUOYANCY_AREA_RATIO => BuoyancyModel::AreaRatio,
            KEEL_BUOYANCY_NONE => BuoyancyModel::None,
            other => {
                return Err(Error::argument(format!(
                    "buoyancy must be one of the KEEL_BUOYANCY_* values (0 to 4), got {other}"
                )));
            }
        };
        Ok(BodyDesc {
            hull: HullId(self.hull),
            mass: self.mass as f64,
            buoyancy,
            vertical_buoyancy_only: self.vertical_buoyancy_only,
            froude_krylov: self.froude_krylov,
            forces: self.forces,
            hull_length: self.hull_length as f64,
            pressure_drag_linear: self.pressure_drag_linear as f64,
            pressure_drag_quadratic: self.pressure_drag_quadratic as f64,
            suction_drag_linear: self.suction_drag_linear as f64,
            suction_drag_quadratic: self.suction_drag_quadratic as f64,
            pressure_falloff: self.pressure_falloff as f64,
            suction_falloff: self.suction_falloff as f64,
            reference_speed: self.reference_speed as f64,
            slamming_power: self.slamming_power as f64,
            slamming_max_acceleration: self.slamming_max_acceleration as f64,
            slamming_multiplier: self.slamming_multiplier as f64,
            air_drag_coefficient: self.air_drag_coefficient as f64,
            linear_damping: self.linear_damping as f64,
            angular_damping: self.angular_damping as f64,
            added_mass_ratio: self.added_mass_ratio as f64,
            residual_resistance: self.residual_resistance as f64,
            water_patch_cells: self.water_patch_cells,
            inertia: self.inertia.to_dvec3(),
            inertia_rotation: self.inertia_rotation.to_dquat(),
        })
    }
}

impl From<&BodyDesc> for KeelBodyDesc {
    fn from(d: &BodyDesc) -> Self {
        Self {
            hull: d.hull.0,
            mass: d.mass as f32,
            buoyancy: match d.buoyancy {
                BuoyancyModel::Pressure => KEEL_BUOYANCY_PRESSURE,
                BuoyancyModel::PressureCentroid => KEEL_BUOYANCY_PRESSURE_CENTROID,
                BuoyancyModel::Volume => KEEL_BUOYANCY_VOLUME,
                BuoyancyModel::AreaRatio => KEEL_BUOYANCY_AREA_RATIO,
                BuoyancyModel::None => KEEL_BUOYANCY_NONE,
            },
            vertical_buoyancy_only: d.vertical_buoyancy_only,
            froude_krylov: d.froude_krylov,
            forces: d.forces,
            hull_length: d.hull_length as f32,
            pressure_drag_linear: d.pressure_drag_linear as f32,
            pressure_drag_quadratic: d.pressure_drag_quadratic as f32,
            suction_drag_linear: d.suction_drag_linear as f32,
            suction_drag_quadratic: d.suction_drag_quadratic as f32,
            pressure_falloff: d.pressure_falloff as f32,
            suction_falloff: d.suction_falloff as f32,
            reference_speed: d.reference_speed as f32,
            slamming_power: d.slamming_power as f32,
            slamming_max_acceleration: d.slamming_max_acceleration as f32,
            slamming_multiplier: d.slamming_multiplier as f32,
            air_drag_coefficient: d.air_drag_coefficient as f32,
            linear_damping: d.linear_damping as f32,
            angular_damping: d.angular_damping as f32,
            added_mass_ratio: d.added_mass_ratio as f32,
            residual_resistance: d.residual_resistance as f32,
            water_patch_cells: d.water_patch_cells,
            inertia: d.inertia.into(),
            inertia_rotation: d.inertia_rotation.into(),
        }
    }
}

/// A rigid body's pose and motion, as the host's engine has it.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct KeelBodyState {
    /// Body origin, world; within 1e9 m of the origin.
    pub position: KeelVec3,
    /// Body-local to world; renormalised inside, must not be zero.
    pub rotation: KeelQuat,
    /// Of the centre of mass; components up to 1e6 m/s.
    pub linear_velocity: KeelVec3,
    /// rad/s, world axes; components up to 1e6.
    pub angular_velocity: KeelVec3,
    /// World.
    pub center_of_mass: KeelVec3,
}

impl From<&KeelBodyState> for BodyState {
    fn from(s: &KeelBodyState) -> Self {
        Self {
            position: s.position.to_dvec3(),
            rotation: s.rotation.to_dquat(),
            linear_velocity: s.linear_velocity.to_dvec3(),
            angular_velocity: s.angular_velocity.to_dvec3(),
            center_of_mass: s.center_of_mass.to_dvec3(),
        }
    }
}

/// Forces of one step, world axes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct KeelBodyForces {
    /// Total of all enabled forces (gravity excluded).
    pub force: KeelVec3,
    /// About state.center_of_mass.
    pub torque: KeelVec3,
    /// The parts of `force`, for tuning and plots; they sum to `force`. With
    /// KEEL_FORCE_LUMPED_RESISTANCE its friction part is in viscous_force, its residual
    /// part in pressure_drag_force and its air part in air_force. With added_mass_ratio
    /// x every part is divided by 1 + x and buoyancy_force also holds x m g / (1 + x)
    /// (and, on a Gerstner sea, x m a_w / (1 + x), a_w the water's acceleration).
    pub buoyancy_force: KeelVec3,
    /// Skin-friction part of force.
    pub viscous_force: KeelVec3,
    /// Pressure and suction drag part of force.
    pub pressure_drag_force: KeelVec3,
    /// Slamming part of force.
    pub slamming_force: KeelVec3,
    /// Air resistance part of force.
    pub air_force: KeelVec3,
    /// Damping part of force.
    pub damping_force: KeelVec3,
    /// Centroid of the submerged volume, world; the centre of mass when dry.
    pub center_of_buoyancy: KeelVec3,
    /// m^3 (exact for closed hulls on flat water).
    pub submerged_volume: f32,
    /// m^2, wetted hull area.
    pub submerged_area: f32,
    /// submerged_area / hull area, 0 to 1. The thesis's cheap alternative to the drag
    /// forces (its function A.5): a host can apply its own drag,
    /// lerp(drag_min, drag_max, wetted_ratio), to its rigid body instead.
    pub wetted_ratio: f32,
    /// Submerged triangles after clipping (keel_body_get_submerged_triangles).
    pub submerged_triangle_count: u32,
}

impl From<&BodyForces> for KeelBodyForces {
    fn from(f: &BodyForces) -> Self {
        Self {
            force: f.force.into(),
            torque: f.torque.into(),
            buoyancy_force: f.buoyancy_force.into(),
            viscous_force: f.viscous_force.into(),
            pressure_drag_force: f.pressure_drag_force.into(),
            slamming_force: f.slamming_force.into(),
            air_force: f.air_force.into(),
            damping_force: f.damping_force.into(),
            center_of_buoyancy: f.center_of_buoyancy.into(),
            submerged_volume: f.submerged_volume as f32,
            submerged_area: f.submerged_area as f32,
            wetted_ratio: f.wetted_ratio as f32,
            submerged_triangle_count: f.submerged_triangle_count,
        }
    }
}

/// A force and where it acts, world.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct KeelTriangleForce {
    /// Point of application, world.
    pub point: KeelVec3,
    /// Force, N.
    pub force: KeelVec3,
}

/// Which wave spectrum keel_water_set_spectrum fills the sea from: one of the
/// KEEL_SPECTRUM_* values (a uint32_t, checked, like KeelBuoyancyModel).
pub type KeelSpectrum = u32;
/// Pierson-Moskowitz: a fully developed sea.
pub const KEEL_SPECTRUM_PIERSON_MOSKOWITZ: KeelSpectrum = 0;
/// JONSWAP: a fetch-limited sea with a sharper peak.
pub const KEEL_SPECTRUM_JONSWAP: KeelSpectrum = 1;

/// One task of keel's: run items start to end - 1 (worker_index is the host's worker,
/// 0 to worker_count - 1; keel does not use it) with the task_context keel gave.
pub type KeelTaskFn =
    Option<unsafe extern "C" fn(start: u32, end: u32, worker_index: u32, task_context: *mut std::ffi::c_void)>;

/// Starts running task over item_count items on the host's workers, in ranges (start,
/// end) within 0 to item_count, best of min_range items or more (a hint: any split is
/// correct), on any threads, the calling one included, at once or in any order, and
/// returns a handle that finish_task waits on. Returning NULL says that the task has
/// already run within this call (a serial host); finish_task is then not called.
/// What keel needs: no range of the task runs after finish_task has returned (or after
/// enqueue_task has returned NULL). Nothing more: an item the host never runs is run by
/// keel on the calling thread after finish_task, and an item run twice does nothing the
/// second time (both only cost time). Keel calls enqueue_task and finish_task only from
/// the thread that called keel_world_step or keel_body_step, never from inside one of
/// its own tasks: a task never waits for another, so a host whose workers block in
/// finish_task (a pool of one worker) cannot deadlock.
pub type KeelEnqueueTask = Option<
    unsafe extern "C" fn(
        task: KeelTaskFn,
        item_count: u32,
        min_range: u32,
        task_context: *mut std::ffi::c_void,
        user_context: *mut std::ffi::c_void,
    ) -> *mut std::ffi::c_void,
>;

/// Waits until the task enqueue_task returned user_task for has run in full.
pub type KeelFinishTask =
    Option<unsafe extern "C" fn(user_task: *mut std::ffi::c_void, user_context: *mut std::ffi::c_void)>;

/// The host's water (keel_water_set_callback): for each of the `count` points' (x, z),
/// write the surface height, and the unit normal and water particle velocity when those
/// pointers are not NULL.
pub type KeelWaterQuery = Option<
    unsafe extern "C" fn(
        user_data: *mut std::ffi::c_void,
        points: *const KeelVec3,
        count: u32,
        out_heights: *mut f32,
        out_normals: *mut KeelVec3,
        out_velocities: *mut KeelVec3,
    ),
>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::forces;

    #[test]
    fn force_bits_match_the_engine() {
        assert_eq!(KEEL_FORCE_VISCOUS, forces::FORCE_VISCOUS);
        assert_eq!(KEEL_FORCE_PRESSURE_DRAG, forces::FORCE_PRESSURE_DRAG);
        assert_eq!(KEEL_FORCE_SLAMMING, forces::FORCE_SLAMMING);
        assert_eq!(KEEL_FORCE_AIR, forces::FORCE_AIR);
        assert_eq!(KEEL_FORCE_DAMPING, forces::FORCE_DAMPING);
        assert_eq!(KEEL_FORCE_LUMPED_RESISTANCE, forces::FORCE_LUMPED_RESISTANCE);
    }
}
