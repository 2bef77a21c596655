//! Bodies: a hull, its force model, and what one step leaves behind.
//!
//! A step transforms every hull vertex once into a frame that has the world's axes and
//! the body's origin (so a body 100 km from the world origin loses no precision), measures
//! each vertex's height above the water once, clips every triangle, and sums the forces
//! of the clipped pieces. Torques are about the centre of mass the host passes in.

use std::sync::Arc;

use glam::{DMat3, DQuat, DVec3};

use crate::clip::{self, Tri};
use crate::error::{Error, Result, non_negative_up_to, positive};
use crate::forces::pressure_drag::{DragCoefficients, pressure_drag_force};
use crate::forces::slamming::{SlammingBlock, SlammingHistory, SlammingParams};
use crate::forces::{
    FORCE_AIR, FORCE_ALL, FORCE_DAMPING, FORCE_DEFAULT, FORCE_LUMPED_RESISTANCE, FORCE_PER_TRIANGLE_RESISTANCE,
    FORCE_PRESSURE_DRAG, FORCE_SLAMMING, FORCE_VISCOUS, added_mass, air, buoyancy, damping, limiter, lumped, slamming,
    viscous,
};
use crate::hull::Hull;
use crate::lanes::{self, Group, LANES, LaneMotion, LaneScratch, LaneVectors, PassOneConstants, Single};
use crate::sections::{self, Section};
use crate::team::{Helper, Team};
use crate::water::Water;
use crate::water::patch::WaterPatch;
use crate::whole_triangles::{
    ChunkOutput, DragConstants, DragParams, DragSums, History, HistoryChunk, HistoryChunkMut, LANES_MAX_ROWS, Mesh,
    Motion, PARALLEL_ROWS, PiecePass, Pressure, Scratch, WetRows, WetRowsMut, WetTriangles, WholeParams, WholeSums,
    chunk_ranges, drag_pass, drag_pieces, is_fast_power, narrow, needs_three_points, whole_pass,
};
use crate::world::HullId;

/// How buoyancy is computed (the C ABI's `KeelBuoyancyModel`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BuoyancyModel {
    /// Pressure on every submerged triangle, at its exact centre of pressure.
    #[default]
    Pressure,
    /// Pressure on every submerged triangle, at its centroid (Kerner; thesis 5.1).
    PressureCentroid,
    /// `rho g V` at the submerged volume's centroid (Nurnberg; thesis 5.10). Closed hulls.
    Volume,
    /// `rho g V_hull r` at the wetted area's centroid, `r` the wetted ratio (thesis 5.8).
    /// Closed hulls.
    AreaRatio,
    /// No buoyancy.
    None,
}

/// The parameters of a body (the C ABI's `KeelBodyDesc`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyDesc {
    /// The hull, from [`crate::World::create_hull`].
    pub hull: HullId,
    /// Mass, kg, > 0.
    pub mass: f64,
    /// Buoyancy model.
    pub buoyancy: BuoyancyModel,
    /// Drop the horizontal part of the hydrostatic force (the thesis does).
    pub vertical_buoyancy_only: bool,
    /// `FORCE_*` bits of the forces to compute.
    pub forces: u32,
    /// Length for the Reynolds number, m; 0 = the hull's local Z extent.
    pub hull_length: f64,
    /// Linear pressure drag coefficient `C_PD1`, N/m^2.
    pub pressure_drag_linear: f64,
    /// Quadratic pressure drag coefficient `C_PD2`, N/m^2.
    pub pressure_drag_quadratic: f64,
    /// Linear suction drag coefficient `C_SD1`, N/m^2.
    pub suction_drag_linear: f64,
    /// Quadratic suction drag coefficient `C_SD2`, N/m^2.
    pub suction_drag_quadratic: f64,
    /// Pressure falloff power `f_P`.
    pub pressure_falloff: f64,
    /// Suction falloff power `f_S`.
    pub suction_falloff: f64,
    /// Reference speed `v_r`, m/s, > 0.
    pub reference_speed: f64,
    /// Slamming power `p`.
    pub slamming_power: f64,
    /// Slamming acceleration cap `Gamma_max`, m/s^2; 0 = from speed and dt.
    pub slamming_max_acceleration: f64,
    /// Slamming force multiplier.
    pub slamming_multiplier: f64,
    /// Air drag coefficient `C_air`.
    pub air_drag_coefficient: f64,
    /// Linear damping, N per (m/s), times the wetted ratio.
    pub linear_damping: f64,
    /// Angular damping, N m per (rad/s), times the wetted ratio.
    pub angular_damping: f64,
    /// Bourg's added-mass ratio `x` (the body moves as if its mass were `m (1 + x)`).
    pub added_mass_ratio: f64,
    /// Bourg's residual-resistance coefficient `C_r` for the lumped resistance.
    pub residual_resistance: f64,
    /// Cells per side of Kerner's water patch; 0 = query the water at every vertex.
    pub water_patch_cells: u32,
    /// The host's principal moments of inertia about the centre of mass, kg m^2; all
    /// three zero (the default) = the hull's shape at uniform density and `mass`. Only
    /// the drag limiter reads the inertia: a ballasted boat (a heavy keel, an engine
    /// block) turns more slowly than its uniform twin, and the limiter must know how
    /// much angular speed a torque can take away in one step.
    pub inertia: DVec3,
    /// The principal axes of `inertia`: the rotation from them to body axes, as Unity's
    /// `Rigidbody.inertiaTensorRotation` (the body-axes tensor is
    /// `R diag(inertia) R^T`). Normalised inside; must not be zero.
    pub inertia_rotation: DQuat,
}

impl Default for BodyDesc {
    fn default() -> Self {
        Self {
            hull: HullId(0),
            mass: 1000.0,
            buoyancy: BuoyancyModel::Pressure,
            vertical_buoyancy_only: false,
            forces: FORCE_DEFAULT,
            hull_length: 0.0,
            pressure_drag_linear: DEFAULT_PRESSURE_DRAG_LINEAR,
            pressure_drag_quadratic: DEFAULT_PRESSURE_DRAG_QUADRATIC,
            suction_drag_linear: DEFAULT_SUCTION_DRAG_LINEAR,
            suction_drag_quadratic: DEFAULT_SUCTION_DRAG_QUADRATIC,
            pressure_falloff: 0.5,
            suction_falloff: 0.5,
            reference_speed: 1.0,
            slamming_power: 2.0,
            slamming_max_acceleration: 0.0,
            slamming_multiplier: DEFAULT_SLAMMING_MULTIPLIER,
            air_drag_coefficient: 1.0,
            linear_damping: 0.0,
            angular_damping: 0.0,
            added_mass_ratio: 0.0,
            residual_resistance: 0.002,
            water_patch_cells: DEFAULT_WATER_PATCH_CELLS,
            inertia: DVec3::ZERO,
            inertia_rotation: DQuat::IDENTITY,
        }
    }
}

/// Default `C_PD1`, N/m^2 at 1 m/s. The linear term is what damps the slow heave of a
/// floating body: for a hull floating at draft `T` it gives a damping ratio of about
/// `C_PD1 / (2 rho sqrt(g T))`, 0.16 for a raft at 0.25 m, 0.25 for a crate at 0.1 m and
/// 0.05 for a 30 m boat at 3 m.
pub const DEFAULT_PRESSURE_DRAG_LINEAR: f64 = 500.0;
/// Default `C_PD2`, N/m^2 at 1 m/s: `rho C_D / 2` with the drag coefficient of a flat plate
/// face-on, `C_D` about 1.
pub const DEFAULT_PRESSURE_DRAG_QUADRATIC: f64 = 500.0;
/// Default `C_SD1`: trailing faces are sucked back as hard as leading ones are pushed at
/// low speed ...
pub const DEFAULT_SUCTION_DRAG_LINEAR: f64 = 500.0;
/// ... and half as hard at speed, where the wake separates.
pub const DEFAULT_SUCTION_DRAG_QUADRATIC: f64 = 250.0;
/// Default slamming multiplier: a 500 kg cube of 1 m side (a flat 1 m bottom) meeting
/// the water keeps about half its speed, as the added-mass picture of an impact says
/// (the face shares its momentum with about `rho a^3 / 2` = 500 kg of water).
pub const DEFAULT_SLAMMING_MULTIPLIER: f64 = 3.0;

/// Default cells per side of the water patch. Costly water (a sum of Gerstner waves, a
/// host callback) is then queried (8 + 1)^2 = 81 times per step instead of once per
/// vertex; a hull with fewer vertices than that is queried per vertex anyway, and flat,
/// Perlin or heightfield water (cheaper to query than to interpolate) never goes through
/// the patch. The surface between grid points is
/// linear: for a footprint of size `D` and a shortest wavelength `L` the height error is
/// about `A (2 pi D / (8 L))^2 / 8` (A the amplitude): 0.1 % of A when `D = L / 10`, 2 %
/// when `D = L / 2`. Raise it for hulls as long as the shortest waves.
pub const DEFAULT_WATER_PATCH_CELLS: u32 = 8;

/// The largest principal moment of inertia a description may give, kg m^2: a 1e12 kg
/// body (the largest mass) 1 km across.
pub const MAX_INERTIA: f64 = 1e18;

/// The most cells per side of a water patch.
pub const MAX_WATER_PATCH_CELLS: u32 = 1024;

impl BodyDesc {
    /// Checks every number and bit; the hull is checked by the world.
    pub fn validate(&self) -> Result<()> {
        positive("mass", self.mass)?;
        if self.mass > MAX_MASS {
            return Err(Error::argument(format!(
                "mass must be at most {MAX_MASS:e} kg, got {}",
                self.mass
            )));
        }
        if self.forces & !FORCE_ALL != 0 {
            return Err(Error::argument(format!(
                "forces has unknown bits {:#x}; known bits are {FORCE_ALL:#x}",
                self.forces & !FORCE_ALL
            )));
        }
        if self.forces & FORCE_LUMPED_RESISTANCE != 0 && self.forces & FORCE_PER_TRIANGLE_RESISTANCE != 0 {
            return Err(Error::argument(
                "KEEL_FORCE_LUMPED_RESISTANCE replaces KEEL_FORCE_VISCOUS, KEEL_FORCE_PRESSURE_DRAG and \
                 KEEL_FORCE_AIR: clear those bits to use it",
            ));
        }
        for (name, value) in [
            ("hull_length", self.hull_length),
            ("pressure_drag_linear", self.pressure_drag_linear),
            ("pressure_drag_quadratic", self.pressure_drag_quadratic),
            ("suction_drag_linear", self.suction_drag_linear),
            ("suction_drag_quadratic", self.suction_drag_quadratic),
            ("pressure_falloff", self.pressure_falloff),
            ("suction_falloff", self.suction_falloff),
            ("slamming_power", self.slamming_power),
            ("slamming_max_acceleration", self.slamming_max_acceleration),
            ("slamming_multiplier", self.slamming_multiplier),
            ("air_drag_coefficient", self.air_drag_coefficient),
            ("linear_damping", self.linear_damping),
            ("angular_damping", self.angular_damping),
            ("added_mass_ratio", self.added_mass_ratio),
            ("residual_resistance", self.residual_resistance),
        ] {
            non_negative_up_to(name, value, 1e12)?;
        }
        positive("reference_speed", self.reference_speed)?;
        self.validate_inertia()?;
        if self.water_patch_cells > MAX_WATER_PATCH_CELLS {
            return Err(Error::argument(format!(
                "water_patch_cells must be at most {MAX_WATER_PATCH_CELLS}, got {}",
                self.water_patch_cells
            )));
        }
        Ok(())
    }

    /// The host's inertia: unset (all zero), or three positive finite moments about
    /// finite, non-zero principal axes.
    fn validate_inertia(&self) -> Result<()> {
        let q = self.inertia_rotation;
        if !q.is_finite() || q.length_squared() < 1e-12 {
            return Err(Error::argument(format!(
                "inertia_rotation must be a finite, non-zero quaternion, got {q:?}"
            )));
        }
        if self.inertia == DVec3::ZERO {
            return Ok(());
        }
        let i = self.inertia;
        if !(i.is_finite() && i.min_element() > 0.0 && i.max_element() <= MAX_INERTIA) {
            return Err(Error::argument(format!(
                "inertia must be all zero (the hull at uniform density) or three positive principal moments \
                 up to {MAX_INERTIA:e} kg m^2, got ({}, {}, {})",
                i.x, i.y, i.z
            )));
        }
        Ok(())
    }

    /// Checks that the buoyancy model can work on `hull`.
    pub(crate) fn validate_for(&self, hull: &Hull) -> Result<()> {
        if matches!(self.buoyancy, BuoyancyModel::Volume | BuoyancyModel::AreaRatio) && !hull.has_volume() {
            return Err(Error::argument(format!(
                "the {:?} buoyancy model needs a closed hull that encloses a volume, and this hull is {}; \
                 use Pressure, which works on open meshes",
                self.buoyancy,
                if hull.info().is_closed {
                    "a closed surface with no volume"
                } else {
                    "open"
                }
            )));
        }
        Ok(())
    }

    fn drag_coefficients(&self) -> DragCoefficients {
        DragCoefficients {
            pressure_linear: self.pressure_drag_linear,
            pressure_quadratic: self.pressure_drag_quadratic,
            suction_linear: self.suction_drag_linear,
            suction_quadratic: self.suction_drag_quadratic,
            pressure_falloff: self.pressure_falloff,
            suction_falloff: self.suction_falloff,
            reference_speed: self.reference_speed,
        }
    }
}

/// The pose and motion of a rigid body, as the host's engine has it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyState {
    /// Body origin, world.
    pub position: DVec3,
    /// Body-local to world rotation.
    pub rotation: DQuat,
    /// Velocity of the centre of mass, m/s.
    pub linear_velocity: DVec3,
    /// Angular velocity, rad/s, world axes.
    pub angular_velocity: DVec3,
    /// Centre of mass, world.
    pub center_of_mass: DVec3,
}

impl Default for BodyState {
    fn default() -> Self {
        Self {
            position: DVec3::ZERO,
            rotation: DQuat::IDENTITY,
            linear_velocity: DVec3::ZERO,
            angular_velocity: DVec3::ZERO,
            center_of_mass: DVec3::ZERO,
        }
    }
}

/// The farthest a body may be from the world origin, m (a million km).
pub const MAX_COORDINATE: f64 = 1e9;
/// The fastest a body may move or spin, m/s or rad/s.
pub const MAX_SPEED: f64 = 1e6;
/// The shortest step, s.
pub const MIN_DT: f64 = 1e-7;
/// The longest step, s.
pub const MAX_DT: f64 = 60.0;
/// The heaviest body, kg (a thousand supertankers).
pub const MAX_MASS: f64 = 1e12;

impl BodyState {
    /// Checks every number and returns the state with a unit rotation. Rotations are
    /// renormalised (engines' quaternions drift); a zero or non-finite one is refused.
    pub fn validated(&self) -> Result<Self> {
        // One comparison per number when all is well (NaN compares false, infinity is
        // beyond every limit); the messages sort out what is wrong otherwise.
        let within = |v: DVec3, limit: f64| v.abs().cmple(DVec3::splat(limit)).all();
        if !(within(self.position, MAX_COORDINATE)
            && within(self.center_of_mass, MAX_COORDINATE)
            && within(self.linear_velocity, MAX_SPEED)
            && within(self.angular_velocity, MAX_SPEED))
        {
            return Err(self.out_of_range());
        }
        let length = self.rotation.length();
        if !self.rotation.is_finite() || length < 1e-6 {
            return Err(Error::argument(format!(
                "state.rotation must be a finite non-zero quaternion, got {}",
                self.rotation
            )));
        }
        Ok(Self {
            rotation: self.rotation / length,
            ..*self
        })
    }

    /// What is wrong with a state whose vectors are not all finite and within limits.
    #[cold]
    fn out_of_range(&self) -> Error {
        let vectors = [
            ("position", self.position),
            ("linear_velocity", self.linear_velocity),
            ("angular_velocity", self.angular_velocity),
            ("center_of_mass", self.center_of_mass),
        ];
        for (name, v) in vectors {
            if !v.is_finite() {
                return Error::argument(format!("state.{name} must be finite, got {v}"));
            }
        }
        for (name, v, limit, unit) in [
            ("position", self.position, MAX_COORDINATE, "m"),
            ("center_of_mass", self.center_of_mass, MAX_COORDINATE, "m"),
            ("linear_velocity", self.linear_velocity, MAX_SPEED, "m/s"),
            ("angular_velocity", self.angular_velocity, MAX_SPEED, "rad/s"),
        ] {
            if v.abs().max_element() > limit {
                return Error::argument(format!(
                    "state.{name} {v} is beyond {limit:e} {unit}: no floating body is there"
                ));
            }
        }
        // (Not reached: a vector fails `within` only by one of the above.)
        Error::argument("state has a number out of range")
    }
}

/// Forces of one step (the C ABI's `KeelBodyForces`). World axes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BodyForces {
    /// Total of all enabled forces, gravity excluded.
    pub force: DVec3,
    /// Torque about the state's centre of mass.
    pub torque: DVec3,
    /// Hydrostatic part of `force`.
    pub buoyancy_force: DVec3,
    /// Skin-friction part of `force`.
    pub viscous_force: DVec3,
    /// Pressure and suction drag part of `force`.
    pub pressure_drag_force: DVec3,
    /// Slamming part of `force`.
    pub slamming_force: DVec3,
    /// Air resistance part of `force`.
    pub air_force: DVec3,
    /// Damping part of `force`.
    pub damping_force: DVec3,
    /// Centroid of the submerged volume, world; the centre of mass when dry.
    pub center_of_buoyancy: DVec3,
    /// Submerged volume, m^3 (closed hulls; a partial figure for open ones).
    pub submerged_volume: f64,
    /// Wetted hull area, m^2.
    pub submerged_area: f64,
    /// `submerged_area / hull area`.
    pub wetted_ratio: f64,
    /// Number of submerged pieces ([`Body::submerged_triangles`]).
    pub submerged_triangle_count: u32,
}

/// The largest force or torque a step may return, N or N m: beyond it a host's f32
/// arithmetic would be meaningless.
pub const MAX_FORCE: f64 = 1e30;

impl BodyForces {
    /// Every number finite and every force and torque within [`MAX_FORCE`].
    #[inline]
    pub fn is_sound(&self) -> bool {
        let vectors = [
            self.force,
            self.torque,
            self.buoyancy_force,
            self.viscous_force,
            self.pressure_drag_force,
            self.slamming_force,
            self.air_force,
            self.damping_force,
        ];
        // (NaN compares false and infinity is beyond the limit: one comparison each.)
        vectors.iter().all(|v| v.abs().cmple(DVec3::splat(MAX_FORCE)).all())
            && self.center_of_buoyancy.is_finite()
            && self.submerged_volume.is_finite()
            && self.submerged_area.is_finite()
            && self.wetted_ratio.is_finite()
    }
}

/// A force and the world point where it acts.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PointForce {
    /// Point of application, world.
    pub point: DVec3,
    /// Force, N.
    pub force: DVec3,
}

/// What a step needs from the world.
#[derive(Clone, Copy, Debug)]
pub struct Environment<'a> {
    /// The water surface.
    pub water: &'a Water,
    /// Water animation time, s.
    pub time: f64,
    /// Gravity, m/s^2 (> 0, along -Y).
    pub gravity: f64,
    /// Water density, kg/m^3.
    pub water_density: f64,
    /// Air density, kg/m^3.
    pub air_density: f64,
    /// Kinematic viscosity of the water, m^2/s.
    pub water_viscosity: f64,
    /// Wind velocity, m/s: air resistance is relative to it.
    pub wind: DVec3,
    /// Uniform current, m/s, added to the water's particle velocity.
    pub current: DVec3,
    /// Where the water's frame is from the world's: the water is asked at world
    /// positions plus this ([`crate::World::set_origin`]).
    pub water_offset: DVec3,
    /// Whether a big hull may share its triangles among the threads of the pool the step
    /// runs on (not when the batch has a body for every thread already).
    pub share_triangles: bool,
    /// The world's helper thread, for a big hull stepped on its own on this thread (then
    /// it takes the place of the pool).
    pub(crate) helper: Option<&'a Helper>,
    /// The host's job system, for a big hull stepped on its own (a world given one has no
    /// pool and no helper).
    pub(crate) tasks: Option<&'a dyn crate::tasks::TaskSystem>,
}

impl<'a> Environment<'a> {
    /// Who shares a big hull's step with this thread.
    fn team(&self) -> Team<'a> {
        match self.helper {
            Some(helper) => Team::Helper(helper),
            None if let Some(tasks) = self.tasks => Team::Host(tasks),
            // Only on a world's pool, never rayon's global one, which the host did not ask
            // for.
            None if self.share_triangles && rayon::current_thread_index().is_some() => Team::Pool,
            None => Team::Alone,
        }
    }
}

/// Forces of a step with the points where they act, relative to the body origin, kept
/// apart by kind so that each kind can be scaled as a whole.
#[derive(Clone, Debug, Default)]
struct PointForces {
    /// Buoyancy (and the added-mass gravity correction).
    hydrostatic: Vec<PointForce>,
    /// Viscous, pressure drag, slamming, damping and lumped water resistance.
    water: Vec<PointForce>,
    /// Air resistance.
    air: Vec<PointForce>,
}

impl PointForces {
    fn list(&mut self, kind: Kind) -> &mut Vec<PointForce> {
        match kind {
            Kind::Hydrostatic => &mut self.hydrostatic,
            Kind::Water => &mut self.water,
            Kind::Air => &mut self.air,
        }
    }
}

/// The kinds of force, each scaled as a whole at the end of a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Hydrostatic,
    Water,
    Air,
}

/// Where a step's by-products go. A step sends them nowhere; when the host asks for
/// the detail of the last step, the step is replayed into a [`Detail`]. Steps stay free of
/// the memory traffic of debug geometry nobody looks at.
trait Sink {
    /// Whether the sink wants every piece and point force, which takes every triangle
    /// through the one-at-a-time code; otherwise whole triangles go through the vectorised loops of
    /// [`crate::whole_triangles`].
    const DETAILED: bool;
    fn emerged(&mut self, _piece: &[DVec3; 3]) {}
    fn waterline(&mut self, _segment: [DVec3; 2]) {}
    fn force(&mut self, _kind: Kind, _point: DVec3, _force: DVec3) {}
    fn scale(&mut self, _kind: Kind, _factor: f64) {}
}

/// A step's by-products thrown away.
struct Discard;

impl Sink for Discard {
    const DETAILED: bool = false;
}

/// The detail of a body's last step, relative to its origin (world axes).
#[derive(Clone, Debug, Default)]
struct Detail {
    submerged: Vec<[DVec3; 3]>,
    emerged: Vec<[DVec3; 3]>,
    waterline: Vec<[DVec3; 2]>,
    forces: PointForces,
}

impl Sink for Detail {
    const DETAILED: bool = true;

    fn emerged(&mut self, piece: &[DVec3; 3]) {
        self.emerged.push(*piece);
    }

    fn waterline(&mut self, segment: [DVec3; 2]) {
        self.waterline.push(segment);
    }

    fn force(&mut self, kind: Kind, point: DVec3, force: DVec3) {
        self.forces.list(kind).push(PointForce { point, force });
    }

    fn scale(&mut self, kind: Kind, factor: f64) {
        if factor != 1.0 {
            self.forces.list(kind).iter_mut().for_each(|f| f.force *= factor);
        }
    }
}

/// The world's constants a step used, kept so that it can be replayed.
#[derive(Clone, Copy, Debug)]
struct Conditions {
    gravity: f64,
    water_density: f64,
    air_density: f64,
    water_viscosity: f64,
    wind: DVec3,
    /// Whether the water's velocity was sampled (it moves and a force needs it).
    water_moves: bool,
}

/// What the last step saw: enough to replay it exactly.
#[derive(Clone, Copy, Debug)]
struct Replay {
    /// The description the step used (the host may change it before asking for detail).
    desc: BodyDesc,
    state: BodyState,
    dt: f64,
    conditions: Conditions,
    /// Whether slamming had a previous step to compare with.
    had_history: bool,
    /// What the step derived from its sums, once it has: a replay reuses it rather than
    /// deriving it again from its own sums. Those differ from the step's in the last bits
    /// (the step adds whole triangles in vectorised loops, the replay one at a time), and
    /// some inputs amplify that: a buoyancy that cancels to rounding on a body of 1e-30 kg
    /// gives an end-of-step velocity of any size, a nearly singular inertia (a centre of
    /// mass far outside a tiny hull) a different limiter factor. Both found by the fuzzer.
    derived: Option<Derived>,
}

/// A [`Replay`] as a body keeps it: without the description, which is the body's own
/// unless the host has changed it since ([`Body::set_desc`] then keeps the old one aside).
/// 160 bytes fewer to write per step, which 10000 small bodies feel.
#[derive(Clone, Copy, Debug)]
struct KeptReplay {
    state: BodyState,
    dt: f64,
    conditions: Conditions,
    had_history: bool,
    derived: Option<Derived>,
}

impl Replay {
    fn kept(&self) -> KeptReplay {
        KeptReplay {
            state: self.state,
            dt: self.dt,
            conditions: self.conditions,
            had_history: self.had_history,
            derived: self.derived,
        }
    }
}

/// What [`after_pass_one`] and [`finish`] read of a step: a [`Replay`]'s, borrowed (the
/// lanes lend each body's own description and state rather than copying them into a
/// replay of their own).
#[derive(Clone, Copy)]
struct StepInputs<'a> {
    desc: &'a BodyDesc,
    state: &'a BodyState,
    dt: f64,
    conditions: &'a Conditions,
    derived: Option<Derived>,
}

impl<'a> StepInputs<'a> {
    /// A first run of a step of `body` from `state` (nothing derived yet).
    #[inline(always)]
    fn first(body: &'a Body, state: &'a BodyState, dt: f64, conditions: &'a Conditions) -> Self {
        Self {
            desc: &body.desc,
            state,
            dt,
            conditions,
            derived: None,
        }
    }
}

impl Replay {
    fn inputs(&self) -> StepInputs<'_> {
        StepInputs {
            desc: &self.desc,
            state: &self.state,
            dt: self.dt,
            conditions: &self.conditions,
            derived: self.derived,
        }
    }
}

impl KeptReplay {
    fn with_desc(self, desc: BodyDesc) -> Replay {
        Replay {
            desc,
            state: self.state,
            dt: self.dt,
            conditions: self.conditions,
            had_history: self.had_history,
            derived: self.derived,
        }
    }
}

/// The numbers a step derives from its sums of forces.
#[derive(Clone, Copy, Debug)]
struct Derived {
    /// Velocity and angular velocity at the end of the step under buoyancy and gravity.
    end_velocity: DVec3,
    end_angular_velocity: DVec3,
    /// The limiter's factors for the water's and the air's dissipative forces.
    water_scale: f64,
    air_scale: f64,
}

/// Per-vertex results of sampling the water.
#[derive(Clone, Debug, Default)]
struct Samples {
    /// Hull vertices relative to the body origin, world axes. (Boxed slices: sized once
    /// with the hull, and 8 bytes fewer each than a `Vec` among the fields every step
    /// reads.)
    vertices: Box<[DVec3]>,
    /// Height of each vertex above the water.
    heights: Box<[f64]>,
    /// Water particle velocity at each vertex, current included (when sampled).
    velocities: Box<[DVec3]>,
    /// Mean water velocity over the vertices under water.
    mean_velocity: DVec3,
    /// The body origin's height and the level of flat water: every vertex's height is then
    /// `(origin + y) - level`, which the loops compute instead of reading it.
    flat: Option<(f64, f64)>,
    /// Whether `vertices` holds this step's: a body of the lanes' leaves them to be
    /// turned again where they are read (the lanes, a replay), since writing them is
    /// three cache lines per box among 10000 ([`Samples::turn`]).
    turned: bool,
}

impl Samples {
    fn sized(n: usize) -> Self {
        Self {
            vertices: vec![DVec3::ZERO; n].into_boxed_slice(),
            heights: vec![0.0; n].into_boxed_slice(),
            velocities: vec![DVec3::ZERO; n].into_boxed_slice(),
            mean_velocity: DVec3::ZERO,
            flat: None,
            turned: false,
        }
    }

    /// The hull's vertices turned by `state`'s rotation into `vertices`, if they are not
    /// there yet: the same arithmetic as `Body::sample_water`, the same bits.
    fn turn(&mut self, positions: &[DVec3], state: &BodyState) {
        if !self.turned {
            let rotation = DMat3::from_quat(state.rotation);
            for (rel, local) in self.vertices.iter_mut().zip(positions) {
                *rel = rotation * *local;
            }
            self.turned = true;
        }
    }
}

/// What the cut triangles add up to (the whole triangles' pass has its own sums).
struct CutSums {
    buoyancy: Sum,
    slamming: Sum,
    air: Sum,
    volume: buoyancy::SubmergedVolume,
    wetted_area: f64,
    wetted_moment: DVec3,
    projected_area: f64,
    emerged_area: f64,
    emerged_moment: DVec3,
    /// Pieces under the water, when they were not kept in the step's output.
    pieces: usize,
}

/// Running sums of one kind of force and its moment about the centre of mass.
#[derive(Clone, Copy, Debug, Default)]
struct Sum {
    force: DVec3,
    torque: DVec3,
}

impl Sum {
    #[inline]
    fn add(&mut self, arm: DVec3, force: DVec3) {
        self.force += force;
        self.torque += arm.cross(force);
    }
}

/// What a step writes besides its forces.
#[derive(Clone, Debug, Default)]
struct Output {
    /// Submerged pieces and the triangle each comes from.
    pieces: Vec<[DVec3; 3]>,
    sources: Vec<u32>,
    /// Per usable triangle, what slamming remembers for the next step.
    history: History,
}

impl Output {
    /// For `triangles` triangles kept in `rows` rows (the loops' padding).
    fn sized(triangles: usize, rows: usize) -> Self {
        let (pieces, sources) = piece_buffers(triangles);
        Self {
            pieces,
            sources,
            history: History::sized(rows),
        }
    }
}

/// Room for the pieces of `triangles` triangles: each clips into at most two on either
/// side.
fn piece_buffers(triangles: usize) -> (Vec<[DVec3; 3]>, Vec<u32>) {
    (Vec::with_capacity(2 * triangles), Vec::with_capacity(2 * triangles))
}

/// What a body's lock adds before it in its slot (`std`'s `Mutex` keeps its lock word and
/// poison flag ahead of the value; were that to change, prefetches would only be a line
/// off).
const LOCK_BYTES: usize = 8;

/// The bytes of a body's slot a batch's checks read: its lock, then its fields up to its
/// description.
pub(crate) const CHECKED_BYTES: usize = LOCK_BYTES + std::mem::offset_of!(Body, samples);

/// The bytes of a body's slot its step in the lanes reads besides its replays and
/// buffers: its lock, then its fields up to the replays.
pub(crate) const LANES_HOT_BYTES: usize = LOCK_BYTES + std::mem::offset_of!(Body, replays);

/// Bodies of equal keys can be stepped in one group of lanes ([`Body::lane_key`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct LaneKey {
    hull: usize,
    flags: u64,
    numbers: [u64; 9],
}

/// A floating rigid body's force model and history.
#[derive(Debug)]
// `repr(C)`, in this order: what a batch's checks read first (`batch_mark` to the
// description), then everything else a small body's step in the lanes reads or writes,
// then what only big hulls and detail use. 10000 boxes outgrow the caches, and a step's
// misses are then counted in cache lines: fields a step touches together are best in
// consecutive lines, which a batch asks for ahead (`Body::prefetch_for_lanes`,
// `CHECKED_BYTES`, `LANES_HOT_BYTES`).
#[repr(C)]
pub struct Body {
    /// Marks the body as listed in the batch being validated (duplicate detection).
    pub(crate) batch_mark: u64,
    /// Whether a step of this hull has been taken.
    has_history: bool,
    /// What `has_history` was before the last step (to undo it).
    had_history: bool,
    /// Whether `patch` is used (here among the fields every step reads, where the patch
    /// is not: a box's step would miss a line to learn that it is not).
    uses_patch: bool,
    latest: usize,
    hull: Arc<Hull>,
    desc: BodyDesc,
    /// The water under the hull at the last step ...
    samples: Samples,
    /// ... and the one being sampled, swapped in only when sampling succeeds, so that a
    /// failed step changes nothing.
    next_samples: Samples,
    /// The slamming history the last step produced ...
    committed: History,
    /// ... and a spare one a step writes into, swapped in only when the step succeeds.
    /// Right after a step it holds what the step replaced, so that a batch can undo it.
    /// (Histories only: a step's pieces are lent from `pieces`. Two empty piece lists
    /// each among the fields every step reads were a cache line and a half per body.)
    spare: History,
    /// The slamming history the last step compared with.
    prior_history: History,
    /// The last step's detail, once asked for (boxed: every step clears it, and a step
    /// of a small body then writes a line it has in cache already).
    detail: Option<Box<Detail>>,
    /// Whether `replay_descs[k]` holds the description `replays[k]`'s step used (the
    /// host changed it since); otherwise that is `desc`.
    replay_desc_kept: [bool; 2],
    /// The last step's replay and the one before it, `replays[latest]` the last: a step
    /// writes over the older one, and undoing it points back at the other (rather than
    /// copying 280 bytes aside every step, which 10000 small bodies feel).
    replays: [Option<KeptReplay>; 2],
    /// The descriptions replays used, when the body's has changed since.
    replay_descs: [BodyDesc; 2],
    /// Kerner's water patch, for hulls with more vertices than it has samples.
    patch: WaterPatch,
    /// The step's triangles cut by the water ...
    cut: Vec<u32>,
    /// ... and their slamming history, kept aside while the whole triangles' pass writes
    /// every row's.
    cut_history: Vec<(u32, DVec3)>,
    /// The triangles as the drag pass needs them.
    wet: WetTriangles,
    /// What the loops leave of each chunk of rows.
    chunks: Vec<ChunkOutput>,
    /// Per usable triangle: its outward unit normal and the water velocity at it.
    normals: Vec<DVec3>,
    triangle_water_velocities: Vec<DVec3>,
    /// The pieces a step clips, lent to its output while it runs: one set, since nothing
    /// reads them after the step (its detail replays it), rather than one in each of
    /// `committed` and `spare` (for 10000 boxes, memory a step touches is time).
    pieces: (Vec<[DVec3; 3]>, Vec<u32>),
}

impl Body {
    /// A body with a validated description and its hull.
    pub(crate) fn new(desc: BodyDesc, hull: Arc<Hull>) -> Self {
        let mut body = Self {
            desc,
            hull: Arc::clone(&hull),
            samples: Samples::default(),
            next_samples: Samples::default(),
            patch: WaterPatch::default(),
            cut: Vec::new(),
            cut_history: Vec::new(),
            wet: WetTriangles::default(),
            chunks: Vec::new(),
            normals: Vec::new(),
            triangle_water_velocities: Vec::new(),
            pieces: Default::default(),
            committed: History::default(),
            spare: History::default(),
            prior_history: History::default(),
            has_history: false,
            replay_desc_kept: [false; 2],
            replays: [None; 2],
            replay_descs: [desc; 2],
            latest: 0,
            had_history: false,
            uses_patch: false,
            detail: None,
            batch_mark: 0,
        };
        body.set_hull(hull);
        body.set_desc(desc);
        body
    }

    /// Asks the processor to start loading the memory this body's next step works in. A
    /// batch asks it of the next body before it steps one: 10000 small bodies hold more
    /// than the caches do, and each body's buffers are a dozen separate allocations whose
    /// misses the processor's own prefetcher does not foresee (1000 and 10000 boxes on
    /// Perlin water: -7 % per step, on one thread and on two).
    pub(crate) fn prefetch(&self) {
        self.buffers(&mut |start, bytes| crate::prefetch::prefetch(start, bytes.min(PREFETCH_BYTES)));
    }

    /// Asks the processor to start loading what a step in the lanes
    /// ([`step_in_lanes`]) reads or writes of this body, before its `prepare`: the replay
    /// it writes, the samples of the water `prepare` writes, and the slamming histories it
    /// compares and writes. (Its fields before
    /// the replays, [`LANES_HOT_BYTES`], are asked for a group earlier, by address: reading
    /// the buffers' addresses here waits for them.)
    pub(crate) fn prefetch_for_lanes(&self) {
        fn buffer<T>(v: &[T]) {
            crate::prefetch::prefetch(v.as_ptr().cast(), std::mem::size_of_val(v).min(PREFETCH_BYTES));
        }
        let written = &self.replays[self.latest ^ 1];
        crate::prefetch::prefetch(std::ptr::from_ref(written).cast(), std::mem::size_of_val(written));
        // (Not `samples`: `prepare` writes the next set, which the lanes then read.)
        // (Nor its vertices: a body of the lanes' does not keep them.)
        let next = &self.next_samples;
        buffer(&next.heights);
        buffer(&next.velocities);
        buffer(self.committed.as_slice());
        buffer(self.spare.as_slice());
    }

    /// The start and length in bytes of every buffer a step reads or writes.
    fn buffers(&self, each: &mut impl FnMut(*const u8, usize)) {
        fn buffer<T>(each: &mut impl FnMut(*const u8, usize), v: &Vec<T>) {
            each(v.as_ptr().cast(), v.capacity() * std::mem::size_of::<T>());
        }
        fn slice<T>(each: &mut impl FnMut(*const u8, usize), v: &[T]) {
            each(v.as_ptr().cast(), std::mem::size_of_val(v));
        }
        for samples in [&self.samples, &self.next_samples] {
            slice(each, &samples.vertices);
            slice(each, &samples.heights);
            slice(each, &samples.velocities);
        }
        buffer(each, &self.cut);
        buffer(each, &self.cut_history);
        buffer(each, &self.normals);
        buffer(each, &self.triangle_water_velocities);
        buffer(each, &self.pieces.0);
        buffer(each, &self.pieces.1);
        slice(each, self.wet.area());
        buffer(each, &self.chunks);
        for chunk in self.chunks.iter().take(1) {
            buffer(each, &chunk.cut);
        }
        for history in [&self.committed, &self.spare, &self.prior_history] {
            let columns = history.as_slice();
            each(columns.as_ptr().cast(), std::mem::size_of_val(columns));
        }
    }

    /// Replaces the hull and starts a fresh history; every buffer is sized for the
    /// largest step so that stepping never allocates.
    pub(crate) fn set_hull(&mut self, hull: Arc<Hull>) {
        let (n, t, rows) = (hull.positions.len(), hull.triangles.len(), hull.columns.len());
        self.samples = Samples::sized(n);
        self.next_samples = Samples::sized(n);
        self.normals = vec![DVec3::ZERO; t];
        self.cut = Vec::with_capacity(t);
        self.cut_history = Vec::with_capacity(t);
        self.wet = WetTriangles::sized(rows);
        self.chunks = ChunkOutput::chunks(rows);
        self.triangle_water_velocities = vec![DVec3::ZERO; t];
        self.pieces = piece_buffers(t);
        self.committed = History::sized(rows);
        self.spare = History::sized(rows);
        self.prior_history = History::sized(rows);
        self.has_history = false;
        self.replays = [None; 2];
        self.replay_desc_kept = [false; 2];
        self.had_history = false;
        self.detail = None;
        self.hull = hull;
        self.size_patch();
    }

    pub(crate) fn set_desc(&mut self, desc: BodyDesc) {
        for k in 0..2 {
            if self.replays[k].is_some() && !self.replay_desc_kept[k] {
                self.replay_descs[k] = self.desc;
                self.replay_desc_kept[k] = true;
            }
        }
        self.desc = desc;
        self.size_patch();
    }

    /// The patch, only for hulls that can use it (more vertices than samples).
    fn size_patch(&mut self) {
        let cells = self.desc.water_patch_cells as usize;
        let used = cells > 0 && (cells + 1).pow(2) < self.hull.positions.len();
        self.patch = WaterPatch::sized(if used { cells } else { 0 });
        self.uses_patch = self.patch.is_used();
    }

    /// Bytes of this body's snapshot ([`crate::snapshot`]).
    pub(crate) fn snapshot_len(&self) -> usize {
        crate::snapshot::BODY_HEADER_BYTES + 12 * self.hull.columns.len()
    }

    /// Writes this body's snapshot ([`crate::snapshot`]).
    pub(crate) fn write_snapshot(&self, sink: &mut impl crate::snapshot::Sink) {
        use crate::snapshot::{FORMAT_VERSION, KIND_BODY, MAGIC};
        sink.u32(MAGIC);
        sink.u32(FORMAT_VERSION);
        sink.u32(KIND_BODY);
        sink.u32(u32::from(self.has_history));
        sink.u64(self.hull.fingerprint);
        sink.u32(self.hull.columns.len() as u32);
        sink.u32(0);
        sink.f32s(self.committed.as_slice());
    }

    /// Whether `record` can be restored into this body (a snapshot of its hull's).
    pub(crate) fn check_snapshot(&self, record: &crate::snapshot::BodyRecord<'_>) -> Result<()> {
        if record.fingerprint != self.hull.fingerprint || record.rows != self.hull.columns.len() {
            return Err(Error::argument(format!(
                "the snapshot is of another hull (fingerprint {:#018x}, {} rows) than this body's ({:#018x}, {} rows)",
                record.fingerprint,
                record.rows,
                self.hull.fingerprint,
                self.hull.columns.len()
            )));
        }
        Ok(())
    }

    /// Restores a snapshot checked by [`Body::check_snapshot`]: the next step compares
    /// with its history. The last step's detail is gone (a body restored has no last step
    /// to tell of until it steps), and no step can be undone past the restore.
    pub(crate) fn restore_snapshot(&mut self, record: &crate::snapshot::BodyRecord<'_>) {
        let columns = self.committed.as_mut_slice();
        for (x, bytes) in columns.iter_mut().zip(record.history.chunks_exact(4)) {
            *x = f32::from_le_bytes(bytes.try_into().expect("4 bytes"));
        }
        self.has_history = record.has_history;
        self.had_history = record.has_history;
        self.replays = [None; 2];
        self.replay_desc_kept = [false; 2];
        self.detail = None;
    }

    /// Whether the body has taken a step (slamming then has one to compare with).
    pub(crate) fn has_history(&self) -> bool {
        self.has_history
    }

    /// The body's parameters.
    pub fn desc(&self) -> &BodyDesc {
        &self.desc
    }

    /// The body's hull.
    pub fn hull(&self) -> &Hull {
        &self.hull
    }

    /// Inertia tensor about the centre of mass, world axes: the host's principal moments
    /// when `desc` gives them, else a body of the hull's shape at uniform density and
    /// `desc.mass`.
    #[inline(always)]
    fn inertia(&self, desc: &BodyDesc, state: &BodyState, com: DVec3) -> DMat3 {
        let rotation = DMat3::from_quat(state.rotation);
        if desc.inertia != DVec3::ZERO {
            let axes = rotation * DMat3::from_quat(desc.inertia_rotation.normalize());
            return axes * DMat3::from_diagonal(desc.inertia) * axes.transpose();
        }
        let mass = desc.mass;
        let centroid = rotation * self.hull.info.centroid;
        let d = com - centroid;
        let about_centroid = rotation * self.hull.unit_inertia * rotation.transpose();
        let shift =
            DMat3::from_diagonal(DVec3::splat(d.length_squared())) - DMat3::from_cols(d * d.x, d * d.y, d * d.z);
        (about_centroid + shift) * mass
    }

    /// Whether the step's loops can share this body's triangles among threads (a hull of
    /// more than [`PARALLEL_ROWS`] rows).
    pub(crate) fn is_divisible(&self) -> bool {
        self.hull.columns.len() > PARALLEL_ROWS
    }

    pub(crate) fn step(&mut self, state: &BodyState, dt: f64, env: &Environment<'_>) -> Result<BodyForces> {
        self.prepare(state, env)?;
        self.compute(state, dt, env)
    }

    /// Whether this step needs the water's velocity: it moves (waves, a current) and a
    /// force depends on the velocity relative to it.
    fn needs_water_velocity(&self, env: &Environment<'_>) -> bool {
        let relative = FORCE_VISCOUS | FORCE_PRESSURE_DRAG | FORCE_SLAMMING | FORCE_DAMPING | FORCE_LUMPED_RESISTANCE;
        (!env.water.is_still() || env.current != DVec3::ZERO) && self.desc.forces & relative != 0
    }

    /// First half of a step: transforms the hull and samples the water under it. The only
    /// part that can fail (the host's water may answer garbage) and the only part that
    /// calls the host's water, so a batch runs it on the caller's thread for such water.
    /// On failure the body is as it was.
    pub(crate) fn prepare(&mut self, state: &BodyState, env: &Environment<'_>) -> Result<()> {
        let _timer = sections::time(Section::Prepare);
        let velocities = self.needs_water_velocity(env);
        let mut next = std::mem::take(&mut self.next_samples);
        let sampled = sample_water_for_cpu(self, state, env, velocities, &mut next);
        if sampled.is_ok() {
            std::mem::swap(&mut self.samples, &mut next);
        }
        self.next_samples = next;
        sampled
    }

    /// Second half of a step, after a successful [`Body::prepare`] with the same state.
    /// Fails, with the body as it was before `prepare`, when the forces would not be
    /// finite (inputs at the edge of what f64 can carry).
    pub(crate) fn compute(&mut self, state: &BodyState, dt: f64, env: &Environment<'_>) -> Result<BodyForces> {
        // A small hull alone in the lanes: the same bits as in a batch's group.
        if self.can_step_in_lanes() {
            let mut forces = [Ok(BodyForces::default())];
            step_in_lanes(&mut [Some(self)], &[state], dt, env, &mut forces);
            let [forces] = forces;
            return forces;
        }
        let _timer = sections::time(Section::Compute);
        compute_for_cpu(self, state, dt, env)
    }

    #[inline(always)]
    fn compute_here(&mut self, state: &BodyState, dt: f64, env: &Environment<'_>) -> Result<BodyForces> {
        let conditions = self.conditions(env);
        let mut replay = Replay {
            desc: self.desc,
            state: *state,
            dt,
            conditions,
            had_history: self.has_history,
            derived: None,
        };
        let prior = std::mem::take(&mut self.committed);
        let (pieces, sources) = std::mem::take(&mut self.pieces);
        let mut out = Output {
            pieces,
            sources,
            history: std::mem::take(&mut self.spare),
        };
        let (forces, derived) = self.run(&replay, &prior, &mut out, &mut Discard, env.team());
        replay.derived = Some(derived);
        self.pieces = (out.pieces, out.sources);
        self.committed = prior;
        self.spare = out.history;
        self.commit(forces, replay.kept())
    }

    /// Ends a step whose forces are `forces` and whose new slamming history is in
    /// `spare`, the one it compared with in `committed`: the step is taken if its forces
    /// are sound, undone otherwise.
    fn commit(&mut self, forces: BodyForces, replay: KeptReplay) -> Result<BodyForces> {
        if !forces.is_sound() {
            self.undo_prepare();
            return Err(Error::argument(
                "the step's forces are not finite numbers: the body, its hull or the world are beyond what keel \
                 can compute with",
            ));
        }
        // The prior becomes the committed history, the output the committed set, and the
        // spare keeps what they replaced.
        std::mem::swap(&mut self.prior_history, &mut self.committed);
        std::mem::swap(&mut self.committed, &mut self.spare);
        self.had_history = self.has_history;
        self.has_history = true;
        self.latest ^= 1;
        self.replays[self.latest] = Some(replay);
        self.replay_desc_kept[self.latest] = false;
        self.detail = None;
        Ok(forces)
    }

    /// The world's constants for this body's step.
    fn conditions(&self, env: &Environment<'_>) -> Conditions {
        Conditions {
            gravity: env.gravity,
            water_density: env.water_density,
            air_density: env.air_density,
            water_viscosity: env.water_viscosity,
            wind: env.wind,
            water_moves: self.needs_water_velocity(env),
        }
    }

    /// Whether [`step_in_lanes`] can step this body: a small hull (its slamming history
    /// one chunk of rows) and the forces the lanes compute (exact pressure, no lumped
    /// resistance, the default drag falloffs, a slamming power the loops take).
    pub(crate) fn can_step_in_lanes(&self) -> bool {
        let d = &self.desc;
        self.hull.columns.len() <= LANES_MAX_ROWS
            && !self.hull.triangles.is_empty()
            && d.buoyancy == BuoyancyModel::Pressure
            && d.forces & FORCE_LUMPED_RESISTANCE == 0
            && d.pressure_falloff == 0.5
            && d.suction_falloff == 0.5
            && is_fast_power(d.slamming_power)
    }

    /// What bodies stepped in one group of lanes must share: the hull, what the lanes
    /// compute the same for all (which forces, the coefficients the loops read), and
    /// whether slamming has a last step to compare with. (Mass, inertia, damping and the
    /// rest are each body's own.)
    pub(crate) fn lane_key(&self) -> LaneKey {
        let d = &self.desc;
        let c = d.drag_coefficients();
        LaneKey {
            hull: Arc::as_ptr(&self.hull) as usize,
            flags: u64::from(d.forces) | u64::from(d.vertical_buoyancy_only) << 32 | u64::from(self.has_history) << 33,
            numbers: [
                d.slamming_power,
                d.slamming_max_acceleration,
                d.slamming_multiplier,
                d.air_drag_coefficient,
                c.pressure_linear,
                c.pressure_quadratic,
                c.suction_linear,
                c.suction_quadratic,
                c.reference_speed,
            ]
            .map(f64::to_bits),
        }
    }

    /// Undoes a successful [`Body::prepare`] whose step is not taken.
    pub(crate) fn undo_prepare(&mut self) {
        std::mem::swap(&mut self.samples, &mut self.next_samples);
    }

    /// Undoes a whole successful step (a batch that fails for another body).
    pub(crate) fn undo_step(&mut self) {
        std::mem::swap(&mut self.committed, &mut self.spare);
        std::mem::swap(&mut self.prior_history, &mut self.committed);
        self.latest ^= 1;
        self.has_history = self.had_history;
        self.detail = None;
        self.undo_prepare();
    }

    /// The last step's detail, replaying the step into buffers the first time it is asked
    /// for: same inputs, same code, same numbers.
    fn detail(&mut self) -> Option<&Detail> {
        if self.detail.is_none() {
            let replay = self.replay()?;
            let t = self.hull.triangles.len();
            let mut detail = Detail {
                submerged: Vec::new(),
                emerged: Vec::with_capacity(2 * t),
                waterline: Vec::with_capacity(t),
                forces: PointForces::default(),
            };
            let prior = std::mem::take(&mut self.prior_history);
            // Not the spare set: right after a step it holds what undoing the step needs.
            let mut scratch = Output::sized(t, self.hull.columns.len());
            self.samples.turn(&self.hull.positions, &replay.state);
            self.run(&replay, &prior, &mut scratch, &mut detail, Team::Alone);
            detail.submerged = scratch.pieces;
            self.prior_history = prior;
            self.detail = Some(Box::new(detail));
        }
        self.detail.as_deref()
    }

    /// The step itself, from the sampled water. Two passes. The first clips every
    /// triangle and sums the hydrostatic forces, slamming (which compares with the last
    /// step) and air resistance. The second computes the velocity-dependent water forces
    /// (viscous, pressure drag, damping) at the velocity the body will have at the end of
    /// the step under buoyancy and gravity alone, and the limiter keeps them from removing
    /// more than that velocity: drag is then implicit against the stiff buoyancy of a light
    /// body, which otherwise leaves the water faster than any drag evaluated at the start
    /// of the step can hold it.
    #[inline(always)]
    fn run<S: Sink + Send>(
        &mut self,
        replay: &Replay,
        prior: &History,
        out: &mut Output,
        sink: &mut S,
        team: Team<'_>,
    ) -> (BodyForces, Derived) {
        let Replay {
            desc,
            state,
            dt,
            conditions: env,
            had_history,
            ..
        } = *replay;
        let on = |bit: u32| desc.forces & bit != 0;
        let lumped = on(FORCE_LUMPED_RESISTANCE);
        let air_on = on(FORCE_AIR) && !lumped;
        let water_moves = env.water_moves;
        let water_mean = self.samples.mean_velocity;

        let origin = state.position;
        let com = state.center_of_mass - origin;
        let (v_com, omega) = (state.linear_velocity, state.angular_velocity);
        let info = self.hull.info;
        let rho = env.water_density;
        let rho_g = rho * env.gravity;
        // Inverted once: the end-of-step motion and both limiters use the inverse.
        let inverse_inertia = self.inertia(&desc, &state, com).inverse();
        let slam = SlammingParams {
            power: desc.slamming_power,
            max_acceleration: desc.slamming_max_acceleration,
            fade_speed: desc.reference_speed,
            multiplier: desc.slamming_multiplier,
            mass: desc.mass,
            hull_area: info.area,
        };
        let air_relative = v_com - env.wind;
        out.pieces.clear();
        out.sources.clear();

        // Pass 1: clipping, hydrostatics, slamming, air.
        let hull = &*self.hull;
        let samples = &self.samples;
        // Whole triangles go through the vectorised loops unless the sink wants every piece; the
        // loops write every row's slamming history, then the cut triangles' is written over it.
        let mut cut = std::mem::take(&mut self.cut);
        let mut cut_history = std::mem::take(&mut self.cut_history);
        // Powers other than 0, 1/2, 1 and 2 need powf, which the loops leave out.
        let loops = !S::DETAILED
            && [desc.pressure_falloff, desc.suction_falloff, desc.slamming_power]
                .into_iter()
                .all(is_fast_power);
        let params = WholeParams {
            rho_g,
            pressure: match desc.buoyancy {
                BuoyancyModel::Pressure => Pressure::Exact,
                BuoyancyModel::PressureCentroid => Pressure::Centroid,
                _ => Pressure::Off,
            },
            vertical_only: desc.vertical_buoyancy_only,
            slamming: (on(FORCE_SLAMMING) && had_history).then_some((slam, dt)),
            air: air_on.then_some((env.air_density, desc.air_drag_coefficient, env.wind)),
            lumped_air: lumped.then_some(air_relative),
        };
        let motion = Motion {
            com,
            velocity: v_com,
            angular_velocity: omega,
        };
        cut.clear();
        cut_history.clear();
        let shared = loops && team.is_shared() && hull.columns.len() > PARALLEL_ROWS;
        if !loops {
            cut.extend(0..hull.triangles.len() as u32);
        }
        // A big hull's cut triangles go eight at a time through the code that steps small
        // hulls in lanes (`crate::lanes`, one triangle in each lane) when it computes this
        // body's forces: one at a time, with their pieces gathered into blocks, they cost
        // six times a whole triangle (a floating bunny: 120 of 3674 triangles, a sixth of
        // its step).
        let lanes_cut = loops
            && samples.turned
            && desc.buoyancy == BuoyancyModel::Pressure
            && !lumped
            && desc.pressure_falloff == 0.5
            && desc.suction_falloff == 0.5;
        let in_lanes = |v: DVec3| v.to_array().map(|x| [x; LANES]);
        let lane_constants = PassOneConstants {
            rho_g,
            vertical_only: desc.vertical_buoyancy_only,
            slamming: (on(FORCE_SLAMMING) && had_history).then_some((SlammingParams { mass: 0.0, ..slam }, dt)),
            air: air_on.then_some((-0.5 * env.air_density * desc.air_drag_coefficient, env.wind.to_array())),
        };
        let single = Single {
            vertices: &samples.vertices,
            heights: &samples.heights,
            water: water_moves.then_some(&samples.velocities[..]),
        };
        let lane_sum = |v: &LaneVectors| DVec3::new(v[0][0], v[1][0], v[2][0]);
        // The whole triangles, in the vectorised loops, by chunks of rows: `$body` runs
        // `$whole` on each of `$chunks` (an iterator), and the loops write each chunk's
        // sums, its slamming history and what the drag pass reads of it.
        macro_rules! whole_triangles {
            (|$chunks:ident, $whole:ident| $body:expr) => {{
                let _timer = sections::time(Section::WholePass);
                let mesh = Mesh {
                    columns: &hull.columns,
                    rotation: DMat3::from_quat(state.rotation),
                    heights: &samples.heights,
                    flat: samples.flat,
                    water_velocities: water_moves.then_some(&samples.velocities[..]),
                };
                let $whole = |((range, chunk), ((mut history, mut wet), prior)): WholeChunk<'_>| {
                    let mut scratch = Scratch::take();
                    chunk.sums = whole_pass(
                        &mesh,
                        &motion,
                        &params,
                        range,
                        &prior,
                        &mut history,
                        &mut wet,
                        &mut chunk.cut,
                        &mut scratch,
                    );
                    Scratch::give_back(scratch);
                };
                let $chunks = chunk_ranges(hull.columns.len()).zip(self.chunks.iter_mut()).zip(
                    out.history
                        .chunks_mut()
                        .zip(self.wet.chunks_mut())
                        .zip(prior.chunks()),
                );
                $body
            }};
        }
        // The cut triangles, one at a time (their pieces in blocks), with what to do with
        // each one's slamming history. A macro, not a closure: the step's code is compiled
        // for the processor at hand (`compute_for_cpu`, inlined into each version), a
        // closure only once, for the baseline one (100 boxes: 8 % more instructions).
        // Beside the whole triangles' pass on two threads, it runs in a closure all the
        // same, and keeps its history aside until the pass, which writes every row's, is
        // done.
        let (normals, triangle_water_velocities) = (&mut self.normals, &mut self.triangle_water_velocities);
        macro_rules! cut_triangles {
            ($cut:expr, $record:expr) => {{
                let _timer = sections::time(Section::CutTriangles);
                if lanes_cut {
                    let motion = LaneMotion {
                        com: in_lanes(com),
                        velocity: in_lanes(v_com),
                        angular_velocity: in_lanes(omega),
                    };
                    let mass = [desc.mass; LANES];
                    let one = lanes::pass_one_listed(
                        hull,
                        &single,
                        $cut,
                        &motion,
                        &mass,
                        &lane_constants,
                        prior,
                        &mut cut_history,
                    );
                    CutSums {
                        buoyancy: Sum {
                            force: lane_sum(&one.buoyancy_force),
                            torque: lane_sum(&one.buoyancy_torque),
                        },
                        slamming: Sum {
                            force: lane_sum(&one.slamming_force),
                            torque: lane_sum(&one.slamming_torque),
                        },
                        air: Sum {
                            force: lane_sum(&one.air_force),
                            torque: lane_sum(&one.air_torque),
                        },
                        volume: buoyancy::SubmergedVolume {
                            volume: one.volume[0],
                            moment: lane_sum(&one.volume_moment),
                        },
                        wetted_area: one.area[0],
                        wetted_moment: lane_sum(&one.area_moment),
                        projected_area: 0.0,
                        emerged_area: 0.0,
                        emerged_moment: DVec3::ZERO,
                        pieces: one.pieces[0] as usize,
                    }
                } else {
                    // Its own sums, returned: sums the closure borrowed would live in memory on
                    // the one-thread path too (100 boxes: 1.6 % more instructions).
                    let mut buoyancy_sum = Sum::default();
                    let mut slamming = Sum::default();
                    let mut air = Sum::default();
                    let mut volume = buoyancy::SubmergedVolume::default();
                    let (mut wetted_area, mut wetted_moment) = (0.0, DVec3::ZERO);
                    let (mut projected_area, mut emerged_area, mut emerged_moment) = (0.0, 0.0, DVec3::ZERO);
                    // Only for enough cut triangles to fill the loop's vectors: a few pieces (a box's)
                    // cost less one at a time (100 cubes on Perlin water 6 % slower through the loop,
                    // a bunny's 120 cut triangles 5 % faster). (The buffers are given back before
                    // this thread works on any chunk of the whole triangles: a thread lends its
                    // buffers to one taker at a time.)
                    // The pieces of cut triangles then go through the same loop as whole ones, but for
                    // slamming (the triangle's as a whole, below).
                    let mut piece_pass = (loops && $cut.len() >= MIN_CUT_FOR_PIECE_PASS)
                        .then(|| (PiecePass::new(&motion, &params), Scratch::take()));
                    for &j in $cut.iter() {
                        let j = j as usize;
                        let tri = &hull.triangles[j];
                        let [a, b, c] = tri.map(|i| samples.vertices[i as usize]);
                        let heights = tri.map(|i| samples.heights[i as usize]);
                        let scaled = (b - a).cross(c - a);
                        let normal = scaled / (2.0 * hull.areas[j]);
                        normals[j] = normal;
                        let water_velocity = if water_moves {
                            (samples.velocities[tri[0] as usize]
                                + samples.velocities[tri[1] as usize]
                                + samples.velocities[tri[2] as usize])
                                / 3.0
                        } else {
                            DVec3::ZERO
                        };
                        triangle_water_velocities[j] = water_velocity;

                        let whole = Tri {
                            v: [a, b, c],
                            height: heights,
                        };
                        let under = heights.iter().filter(|&&h| h < 0.0).count();
                        // Most triangles are wholly under or above the water: no clipping needed.
                        let clipped = if under == 0 || under == 3 {
                            None
                        } else {
                            Some(clip::clip(&whole))
                        };
                        let submerged: &[Tri] = match (&clipped, under) {
                            (Some(c), _) => c.submerged(),
                            (None, 3) => std::slice::from_ref(&whole),
                            _ => &[],
                        };

                        let (mut area_j, mut moment_j) = (0.0, DVec3::ZERO);
                        for sub in submerged {
                            out.pieces.push(sub.v);
                            out.sources.push(j as u32);
                            let (sn, area) = if under == 3 {
                                (scaled, hull.areas[j])
                            } else {
                                let sn = sub.scaled_normal();
                                (sn, 0.5 * sn.dot(normal))
                            };
                            area_j += area;
                            let centroid = sub.centroid();
                            moment_j += area * centroid;
                            if let Some((pass, scratch)) = &mut piece_pass {
                                pass.add_wet(scratch, sub, normal, area, centroid);
                                continue;
                            }
                            volume.add(sub, sn);
                            let buoyant = match desc.buoyancy {
                                BuoyancyModel::Pressure => Some(buoyancy::pressure(sub, sn, rho_g)),
                                BuoyancyModel::PressureCentroid => Some(buoyancy::pressure_at_centroid(sub, sn, rho_g)),
                                _ => None,
                            };
                            if let Some((mut force, point)) = buoyant {
                                if desc.vertical_buoyancy_only {
                                    force.x = 0.0;
                                    force.z = 0.0;
                                }
                                buoyancy_sum.add(point - com, force);
                                sink.force(Kind::Hydrostatic, point, force);
                            }
                        }
                        wetted_area += area_j;
                        wetted_moment += moment_j;

                        let centre = (a + b + c) / 3.0;
                        let now = SlammingHistory {
                            area: area_j,
                            velocity: v_com + omega.cross(centre - com) - water_velocity,
                        };
                        if on(FORCE_SLAMMING) && had_history {
                            let before = prior.get(j);
                            if let Some((_, scratch)) = &mut piece_pass {
                                // A block at a time (the same numbers, added in the same order).
                                if scratch
                                    .slams
                                    .push(now, before, hull.areas[j], normal, moment_j / area_j)
                                {
                                    add_slamming(&mut scratch.slams, dt, &slam, com, &mut slamming, sink);
                                }
                            } else {
                                let force =
                                    slamming::slamming_force_from_swept(now, before, hull.areas[j], normal, dt, &slam);
                                if force != DVec3::ZERO {
                                    let point = moment_j / area_j;
                                    slamming.add(point - com, force);
                                    sink.force(Kind::Water, point, force);
                                }
                            }
                        }
                        ($record)(j, now.swept());

                        let emerged: &[Tri] = match (&clipped, under) {
                            (Some(c), _) => c.emerged(),
                            (None, 0) => std::slice::from_ref(&whole),
                            _ => &[],
                        };
                        for e in emerged {
                            sink.emerged(&e.v);
                            if !(air_on || lumped) {
                                continue;
                            }
                            let area = if under == 0 {
                                hull.areas[j]
                            } else {
                                0.5 * e.scaled_normal().dot(normal)
                            };
                            let centroid = e.centroid();
                            if let Some((pass, scratch)) = &mut piece_pass {
                                pass.add_dry(scratch, e, normal, area, centroid);
                                continue;
                            }
                            if air_on {
                                let v = v_com + omega.cross(centroid - com) - env.wind;
                                let force = air::air_force(v, normal, area, env.air_density, desc.air_drag_coefficient);
                                air.add(centroid - com, force);
                                sink.force(Kind::Air, centroid, force);
                            } else {
                                let speed = air_relative.length();
                                if speed > 0.0 {
                                    projected_area += area * (normal.dot(air_relative) / speed).max(0.0);
                                }
                                emerged_area += area;
                                emerged_moment += area * centroid;
                            }
                        }
                        if let Some(segment) = clipped.and_then(|c| c.waterline) {
                            sink.waterline(segment);
                        }
                    }
                    // (Given back on the thread that took it: a thread lends its buffers to one
                    // taker at a time.)
                    if let Some((pass, mut scratch)) = piece_pass {
                        add_slamming(&mut scratch.slams, dt, &slam, com, &mut slamming, sink);
                        let sums = pass.finish(&mut scratch);
                        Scratch::give_back(scratch);
                        buoyancy_sum.force += sums.buoyancy_force;
                        buoyancy_sum.torque += sums.buoyancy_torque;
                        volume.volume += sums.volume;
                        volume.moment += sums.volume_moment;
                        air.force += sums.air_force;
                        air.torque += sums.air_torque;
                        projected_area += sums.projected_area;
                        emerged_area += sums.emerged_area;
                        emerged_moment += sums.emerged_moment;
                    }
                    CutSums {
                        buoyancy: buoyancy_sum,
                        slamming,
                        air,
                        volume,
                        wetted_area,
                        wetted_moment,
                        projected_area,
                        emerged_area,
                        emerged_moment,
                        pieces: 0,
                    }
                }
            }};
        }
        let (sums, cut_sums) = if shared {
            // The cut triangles on this thread, whose caches hold the vertices and heights
            // it just computed, while the team starts on the whole triangles' chunks; then
            // this thread takes chunks too (with the cut triangles on the other thread,
            // they took 60 % longer).
            let cut_sums = whole_triangles!(|chunks, whole| {
                team.share(
                    || {
                        // The triangles the water cuts, from their corners' heights, as the
                        // whole triangles' pass finds them (from the same heights; for flat
                        // water computed in the loop with the same arithmetic, to the bit).
                        // (Without a second thread they are taken from the pass's chunks.)
                        for (j, tri) in hull.triangles.iter().enumerate() {
                            let under = tri.iter().filter(|&&i| samples.heights[i as usize] < 0.0).count();
                            if under != 0 && under != 3 {
                                cut.push(j as u32);
                            }
                        }
                        cut_triangles!(&cut, |j: usize, now| cut_history.push((j as u32, now)))
                    },
                    chunks,
                    whole,
                )
            });
            debug_assert!(self.chunks.iter().flat_map(|c| &c.cut).eq(cut.iter()));
            (whole_sums(&self.chunks), cut_sums)
        } else {
            let sums = if loops {
                whole_triangles!(|chunks, whole| chunks.for_each(whole));
                for chunk in &self.chunks {
                    cut.extend_from_slice(&chunk.cut);
                }
                whole_sums(&self.chunks)
            } else {
                WholeSums::default()
            };
            (sums, cut_triangles!(&cut, |j, now| out.history.set(j, now)))
        };
        let CutSums {
            buoyancy: mut buoyancy_sum,
            mut slamming,
            mut air,
            mut volume,
            mut wetted_area,
            mut wetted_moment,
            mut projected_area,
            mut emerged_area,
            mut emerged_moment,
            pieces: cut_pieces,
        } = cut_sums;
        for &(j, now) in &cut_history {
            out.history.set(j as usize, now);
        }
        let wet_count = sums.wet_count;
        buoyancy_sum.force += sums.buoyancy_force;
        buoyancy_sum.torque += sums.buoyancy_torque;
        slamming.force += sums.slamming_force;
        slamming.torque += sums.slamming_torque;
        volume.volume += sums.volume;
        volume.moment += sums.volume_moment;
        wetted_area += sums.area;
        wetted_moment += sums.area_moment;
        air.force += sums.air_force;
        air.torque += sums.air_torque;
        projected_area += sums.projected_area;
        emerged_area += sums.emerged_area;
        emerged_moment += sums.emerged_moment;
        let mut totals = PassOne {
            buoyancy: buoyancy_sum,
            slamming,
            air,
            volume,
            wetted_area,
            wetted_moment,
            projected_area,
            emerged_area,
            emerged_moment,
        };
        let middle = after_pass_one(replay.inputs(), &info, &mut totals, water_mean, &inverse_inertia, sink);
        let Middle {
            v_end, omega_end, drag, ..
        } = middle;

        // Pass 2: viscous and pressure drag on the submerged pieces at that motion.
        let (mut viscous_force, mut pressure_force, mut drag_torque) = (DVec3::ZERO, DVec3::ZERO, DVec3::ZERO);
        if let Some(drag) = drag {
            let end = Motion {
                com,
                velocity: v_end,
                angular_velocity: omega_end,
            };
            let mut add = |(fv, fd, torque): (DVec3, DVec3, DVec3)| {
                viscous_force += fv;
                pressure_force += fd;
                drag_torque += torque;
            };
            if !loops {
                for (piece, &j) in out.pieces.iter().zip(&out.sources) {
                    let j = j as usize;
                    let (normal, water) = (self.normals[j], self.triangle_water_velocities[j]);
                    add(piece_drag(*piece, normal, water, &end, &drag, sink));
                }
            } else {
                let mesh = Mesh {
                    columns: &hull.columns,
                    rotation: DMat3::from_quat(state.rotation),
                    heights: &samples.heights,
                    flat: samples.flat,
                    water_velocities: water_moves.then_some(&samples.velocities[..]),
                };
                let pass = |((range, chunk), wet): ((std::ops::Range<usize>, &mut ChunkOutput), WetRows<'_>)| {
                    chunk.drag = drag_pass(&mesh, range, &wet, &end, &drag, &mut chunk.packed);
                };
                // The pieces of cut triangles, a block at a time, their sums from zero.
                let (pieces, sources, normals, waters) = (
                    &out.pieces,
                    &out.sources,
                    &self.normals,
                    &self.triangle_water_velocities,
                );
                macro_rules! piece_drag {
                    () => {{
                        if lanes_cut {
                            let motion = LaneMotion {
                                com: in_lanes(com),
                                velocity: in_lanes(v_end),
                                angular_velocity: in_lanes(omega_end),
                            };
                            let viscous = [drag.viscous.map_or(0.0, |(rho, cf)| -0.5 * rho * cf); LANES];
                            let still = Motion {
                                com: DVec3::ZERO,
                                velocity: DVec3::ZERO,
                                angular_velocity: DVec3::ZERO,
                            };
                            let shared = DragConstants::new(&still, &drag);
                            let d = lanes::pass_two_listed(hull, &single, &cut, &motion, &viscous, &shared);
                            DragSums {
                                viscous: lane_sum(&d.viscous),
                                pressure: lane_sum(&d.pressure),
                                torque: lane_sum(&d.torque),
                            }
                        } else {
                            let mut sums = DragSums::default();
                            let mut scratch = Scratch::take();
                            for (piece, &j) in pieces.iter().zip(sources) {
                                let j = j as usize;
                                if scratch.pieces.push(*piece, normals[j], waters[j]) {
                                    sums += drag_pieces(&mut scratch, &end, &drag);
                                }
                            }
                            if !scratch.pieces.is_empty() {
                                sums += drag_pieces(&mut scratch, &end, &drag);
                            }
                            // (Given back before this thread takes a chunk: a thread lends its
                            // buffers to one taker at a time.)
                            Scratch::give_back(scratch);
                            sums
                        }
                    }};
                }
                let rows = hull.columns.len();
                let timer = sections::time(Section::DragPass);
                let chunks = chunk_ranges(rows).zip(self.chunks.iter_mut()).zip(self.wet.chunks());
                let piece_sums = if team.is_shared() && rows > PARALLEL_ROWS {
                    // This thread's share begins with the pieces, the others' with the chunks.
                    team.share(|| piece_drag!(), chunks, pass)
                } else {
                    chunks.for_each(pass);
                    piece_drag!()
                };
                timer.stop();
                let mut sums = DragSums::default();
                for chunk in &self.chunks {
                    sums += chunk.drag;
                }
                add((sums.viscous, sums.pressure, sums.torque));
                add((piece_sums.viscous, piece_sums.pressure, piece_sums.torque));
            }
        }
        let submerged_count = out.pieces.len() + cut_pieces + wet_count;
        self.cut = cut;
        self.cut_history = cut_history;
        finish(
            replay.inputs(),
            &totals,
            &middle,
            (viscous_force, pressure_force, drag_torque),
            submerged_count,
            &inverse_inertia,
            sink,
        )
    }

    /// Transforms every vertex once into `out` and measures its height above the water,
    /// and the water's velocity there when `velocities` is set (the world's current
    /// included), with the mean water velocity over the vertices under water.
    #[inline(always)]
    fn sample_water(
        &mut self,
        state: &BodyState,
        env: &Environment<'_>,
        velocities: bool,
        out: &mut Samples,
    ) -> Result<()> {
        let origin = state.position;
        // The water's queries are in its own frame (a far origin's, in f64), horizontally;
        // heights stay in the world's (the surface's moved down by the offset's height), so
        // that every path computes a vertex's height with the same arithmetic.
        let offset = env.water_offset;
        let water_origin = origin + DVec3::new(offset.x, 0.0, offset.z);
        // The matrix, not the quaternion: the loops turn the corners with the same
        // arithmetic, so that both see the same heights to the bit.
        let rotation = DMat3::from_quat(state.rotation);
        // The world positions of the vertices (the water's query points): this thread's,
        // not the body's, since nothing reads them after the step (10000 boxes: three
        // cache lines fewer to load and write back per box).
        out.turned = !self.can_step_in_lanes();
        // Flat water's level in the world's frame.
        let level = match env.water {
            Water::Flat(flat) => flat.level - offset.y,
            _ => 0.0,
        };
        out.flat = match env.water {
            Water::Flat(_) => Some((origin.y, level)),
            _ => None,
        };
        // Still flat water: the heights straight from the turned vertices, with the same
        // arithmetic as below (`point.y - level`, `point = origin + turned`), without the
        // world positions and the water's pass over them (a bunny: 5 % of its step).
        if let (Water::Flat(_), true, false) = (env.water, out.turned, velocities) {
            for ((local, rel), height) in self.hull.positions.iter().zip(&mut out.vertices).zip(&mut out.heights) {
                *rel = rotation * *local;
                *height = (origin.y + rel.y) - level;
            }
            out.mean_velocity = env.current;
            return Ok(());
        }
        let mut points = POINTS.take();
        points.resize(self.hull.positions.len(), DVec3::ZERO);
        if out.turned {
            for ((local, rel), world) in self.hull.positions.iter().zip(&mut out.vertices).zip(&mut points) {
                *rel = rotation * *local;
                *world = water_origin + *rel;
            }
        } else {
            for (local, world) in self.hull.positions.iter().zip(&mut points) {
                *world = water_origin + rotation * *local;
            }
        }
        let v = if velocities {
            Some(&mut out.velocities[..])
        } else {
            None
        };
        let sampled = if self.uses_patch && !env.water.is_cheap() {
            // A big hull stepped alone shares the patch with its team (the world's helper
            // thread or pool), as it shares its triangles.
            let team = if self.hull.columns.len() > PARALLEL_ROWS {
                env.team()
            } else {
                Team::Alone
            };
            self.patch
                .sample(env.water, env.time, &points, &mut out.heights, v, team)
        } else {
            env.water.sample_into(&points, env.time, &mut out.heights, None, v)
        };
        if let Err(e) = sampled {
            POINTS.set(points);
            return Err(e);
        }
        if offset.y != 0.0 {
            out.heights.iter_mut().for_each(|h| *h -= offset.y);
        }
        let (mut sum, mut count) = (DVec3::ZERO, 0usize);
        for (i, point) in points.iter().enumerate() {
            // `heights` held the surface; now the vertex's height above it. A surface that
            // is not a number (a model pushed past f64's range) counts as no water there,
            // so that no NaN ever reaches a force.
            let surface = out.heights[i];
            out.heights[i] = if surface.is_finite() {
                point.y - surface
            } else {
                f64::INFINITY
            };
            if velocities {
                let v = &mut out.velocities[i];
                if !v.is_finite() {
                    *v = DVec3::ZERO;
                }
                *v += env.current;
                if out.heights[i] < 0.0 {
                    sum += *v;
                    count += 1;
                }
            }
        }
        POINTS.set(points);
        out.mean_velocity = if count > 0 { sum / count as f64 } else { env.current };
        Ok(())
    }

    /// Where the last step's body origin was (world), if there was a step.
    fn origin(&self) -> DVec3 {
        self.replays[self.latest].map_or(DVec3::ZERO, |r| r.state.position)
    }

    /// The last step's replay, with the description it used.
    fn replay(&self) -> Option<Replay> {
        let k = self.latest;
        let desc = if self.replay_desc_kept[k] {
            self.replay_descs[k]
        } else {
            self.desc
        };
        Some(self.replays[k]?.with_desc(desc))
    }

    /// The submerged pieces of the last step, world coordinates, outward winding.
    pub fn submerged_triangles(&mut self) -> impl ExactSizeIterator<Item = [DVec3; 3]> + '_ {
        let o = self.origin();
        self.detail()
            .map_or(&[][..], |d| &d.submerged[..])
            .iter()
            .map(move |t| t.map(|p| p + o))
    }

    /// The emerged pieces of the last step, world coordinates, outward winding.
    pub fn emerged_triangles(&mut self) -> impl ExactSizeIterator<Item = [DVec3; 3]> + '_ {
        let o = self.origin();
        self.detail()
            .map_or(&[][..], |d| &d.emerged[..])
            .iter()
            .map(move |t| t.map(|p| p + o))
    }

    /// The waterline of the last step as segments, world coordinates. On a closed hull
    /// the segments chain into loops along the edge of the wetted surface.
    pub fn waterline(&mut self) -> impl ExactSizeIterator<Item = [DVec3; 2]> + '_ {
        let o = self.origin();
        self.detail()
            .map_or(&[][..], |d| &d.waterline[..])
            .iter()
            .map(move |s| s.map(|p| p + o))
    }

    /// The forces of the last step with their points of application, world coordinates;
    /// their sum and moment reproduce the step's force and torque, apart from the
    /// angular-damping couple.
    pub fn triangle_forces(&mut self) -> impl ExactSizeIterator<Item = PointForce> + '_ {
        let o = self.origin();
        let (h, w, a): (&[PointForce], &[PointForce], &[PointForce]) = match self.detail() {
            Some(d) => (&d.forces.hydrostatic, &d.forces.water, &d.forces.air),
            None => (&[], &[], &[]),
        };
        let all = h.iter().chain(w).chain(a);
        ExactIter {
            len: h.len() + w.len() + a.len(),
            inner: all,
        }
        .map(move |f| PointForce {
            point: f.point + o,
            force: f.force,
        })
    }
}

/// An iterator of known length (chains of slices are not `ExactSizeIterator`).
struct ExactIter<I> {
    len: usize,
    inner: I,
}

impl<I: Iterator> Iterator for ExactIter<I> {
    type Item = I::Item;

    fn next(&mut self) -> Option<I::Item> {
        let item = self.inner.next()?;
        self.len -= 1;
        Some(item)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.len, Some(self.len))
    }
}

impl<I: Iterator> ExactSizeIterator for ExactIter<I> {}

/// The slamming forces of the cut triangles gathered in `block`, added to `slamming` in
/// the order they were gathered (as one at a time); empties the block.
#[inline(always)]
fn add_slamming<S: Sink>(
    block: &mut SlammingBlock,
    dt: f64,
    params: &SlammingParams,
    com: DVec3,
    slamming: &mut Sum,
    sink: &mut S,
) {
    if block.len == 0 {
        return;
    }
    let forces = block.forces(dt, params);
    for (i, &point) in block.point.iter().enumerate().take(block.len) {
        let force = DVec3::new(forces[0][i], forces[1][i], forces[2][i]);
        if force != DVec3::ZERO {
            slamming.add(point - com, force);
            sink.force(Kind::Water, point, force);
        }
    }
    block.len = 0;
}

/// [`Body::sample_water`] compiled for the processor at hand (the vertices' transform
/// and heights in vector instructions).
#[multiversion::multiversion(targets("x86_64+avx512f+avx512vl+avx512dq+avx512bw+avx2", "x86_64+avx2"))]
fn sample_water_for_cpu<'w>(
    body: &mut Body,
    state: &BodyState,
    env: &Environment<'w>,
    velocities: bool,
    out: &mut Samples,
) -> Result<()> {
    body.sample_water(state, env, velocities, out)
}

thread_local! {
    /// A step's world positions of the vertices, taken and given back (a step that
    /// re-enters keel from a water callback finds it taken and uses a new one).
    static POINTS: std::cell::Cell<Vec<DVec3>> = const { std::cell::Cell::new(Vec::new()) };
}

/// At most this many bytes of each buffer are prefetched: a small body's buffers whole,
/// a big one's beginnings (its loops stream through the rest, which the processor
/// prefetches by itself).
const PREFETCH_BYTES: usize = 1024;

/// [`Body::compute`] compiled for the processor at hand: the step's scalar code (cut
/// triangles, sums, the limiter) then uses its instructions too.
#[multiversion::multiversion(targets("x86_64+avx512f+avx512vl+avx512dq+avx512bw+avx2", "x86_64+avx2"))]
fn compute_for_cpu<'w>(body: &mut Body, state: &BodyState, dt: f64, env: &Environment<'w>) -> Result<BodyForces> {
    body.compute_here(state, dt, env)
}

/// Steps one to eight bodies for which [`Body::can_step_in_lanes`] holds and which share
/// one [`Body::lane_key`], each after a successful [`Body::prepare`] with its state:
/// [`crate::lanes`], compiled for the processor at hand. Each body's numbers are
/// computed in its own lane, with no arithmetic across lanes: its forces are the same
/// bits whichever bodies share the group, and whether it has any company (the spare
/// lanes repeat the first body, and their results are dropped). The first
/// `bodies.len()` results are the bodies'.
#[multiversion::multiversion(targets("x86_64+avx512f+avx512vl+avx512dq+avx512bw+avx2", "x86_64+avx2"))]
pub(crate) fn step_in_lanes<'w>(
    bodies: &mut [Option<&mut Body>],
    states: &[&BodyState],
    dt: f64,
    env: &Environment<'w>,
    results: &mut [Result<BodyForces>],
) {
    step_in_lanes_here(bodies, states, dt, env, results)
}

#[inline(always)]
fn step_in_lanes_here(
    bodies: &mut [Option<&mut Body>],
    states: &[&BodyState],
    dt: f64,
    env: &Environment<'_>,
    results: &mut [Result<BodyForces>],
) {
    // The bodies up to the first missing one.
    let count = bodies
        .iter()
        .take_while(|b| b.is_some())
        .count()
        .min(states.len())
        .min(LANES);
    let bodies = &mut bodies[..count];
    let Some(Some(first)) = bodies.first() else {
        return;
    };
    let _timer = sections::time(Section::Compute);
    let hull = Arc::clone(&first.hull);
    // What the lanes share (the lane key's fields); the rest is each body's.
    let shared = first.desc;
    let conditions = first.conditions(env);
    let had_history = first.has_history;
    let on = |bit: u32| shared.forces & bit != 0;
    // Alone, a body's triangles go in the lanes instead (the same bits).
    let alone = count == 1;
    let (vertex_count, triangle_count) = if alone {
        (0, 0)
    } else {
        (hull.positions.len(), hull.triangles.len())
    };
    let mut scratch = LaneScratch::take();
    scratch.vertices.resize(vertex_count, [[0.0; LANES]; 4]);
    scratch
        .water
        .resize(if conditions.water_moves { vertex_count } else { 0 }, [[0.0; LANES]; 3]);
    scratch.prior.resize(triangle_count, [[0.0; LANES]; 3]);
    scratch.history.resize(triangle_count, [[0.0; LANES]; 3]);
    let mut motion = LaneMotion::default();
    let mut mass = [0.0; LANES];
    // Each lane's rotation by axis and component, and where its numbers are.
    let mut rotations = [[[0.0; LANES]; 3]; 3];
    let mut heights: [&[f64]; LANES] = [&[]; LANES];
    let mut water: [&[DVec3]; LANES] = [&[]; LANES];
    let mut priors: [[&[f32]; 3]; LANES] = [[&[]; 3]; LANES];
    for l in 0..LANES {
        let Some(body) = &bodies[l.min(count - 1)] else {
            continue;
        };
        let state = states[l.min(count - 1)];
        let com = state.center_of_mass - state.position;
        for axis in 0..3 {
            motion.com[axis][l] = com[axis];
            motion.velocity[axis][l] = state.linear_velocity[axis];
            motion.angular_velocity[axis][l] = state.angular_velocity[axis];
        }
        mass[l] = body.desc.mass;
        if alone {
            continue;
        }
        let samples = &body.samples;
        // Turned here rather than read: `prepare` leaves them (`Samples::turned`).
        let rotation = DMat3::from_quat(state.rotation);
        for (k, axis) in [rotation.x_axis, rotation.y_axis, rotation.z_axis].iter().enumerate() {
            for c in 0..3 {
                rotations[k][c][l] = axis[c];
            }
        }
        heights[l] = &samples.heights;
        water[l] = &samples.velocities;
        priors[l] = body.committed.first().swept;
    }
    // Vertex by vertex and row by row, each lane group built from the eight bodies'
    // numbers and stored whole: lane by lane, the compiler scattered every vertex's and
    // row's numbers into their groups. (`DMat3 * DVec3`'s arithmetic, lane by lane.)
    let [x_axis, y_axis, z_axis] = &rotations;
    for (v, (column, local)) in scratch.vertices.iter_mut().zip(&hull.positions).enumerate() {
        for c in 0..3 {
            column[c] =
                std::array::from_fn(|l| x_axis[c][l] * local.x + y_axis[c][l] * local.y + z_axis[c][l] * local.z);
        }
        column[3] = std::array::from_fn(|l| heights[l][v]);
    }
    for (v, column) in scratch.water.iter_mut().enumerate() {
        for (c, lanes) in column.iter_mut().enumerate() {
            *lanes = std::array::from_fn(|l| water[l][v][c]);
        }
    }
    for (j, before) in scratch.prior.iter_mut().enumerate() {
        for (c, lanes) in before.iter_mut().enumerate() {
            *lanes = std::array::from_fn(|l| f64::from(priors[l][c][j]));
        }
    }
    let group = Group {
        vertices: &scratch.vertices,
        water: conditions.water_moves.then_some(&scratch.water[..]),
    };
    let slam = SlammingParams {
        power: shared.slamming_power,
        max_acceleration: shared.slamming_max_acceleration,
        fade_speed: shared.reference_speed,
        multiplier: shared.slamming_multiplier,
        mass: 0.0,
        hull_area: hull.info.area,
    };
    let constants = PassOneConstants {
        rho_g: conditions.water_density * conditions.gravity,
        vertical_only: shared.vertical_buoyancy_only,
        slamming: (on(FORCE_SLAMMING) && had_history).then_some((slam, dt)),
        air: on(FORCE_AIR).then_some((
            -0.5 * conditions.air_density * shared.air_drag_coefficient,
            conditions.wind.to_array(),
        )),
    };
    let passes = sections::time(Section::LanePasses);
    let one = match &mut bodies[0] {
        Some(body) if alone => {
            let Body {
                samples,
                committed,
                spare,
                ..
            } = &mut **body;
            samples.turn(&hull.positions, states[0]);
            let single = Single {
                vertices: &samples.vertices,
                heights: &samples.heights,
                water: conditions.water_moves.then_some(&samples.velocities[..]),
            };
            lanes::pass_one_single(
                &hull,
                &single,
                &motion,
                &mass,
                &constants,
                &committed.first(),
                &mut spare.first_mut(),
            )
        }
        _ => lanes::pass_one(
            &hull,
            &group,
            &motion,
            &mass,
            &constants,
            &scratch.prior,
            &mut scratch.history,
        ),
    };

    let lane_vector = |v: &LaneVectors, l: usize| DVec3::new(v[0][l], v[1][l], v[2][l]);
    let mut totals = [PassOne::default(); LANES];
    let mut middles = [None; LANES];
    let mut inverse_inertias = [DMat3::ZERO; LANES];
    let mut end = LaneMotion {
        com: motion.com,
        velocity: motion.velocity,
        angular_velocity: motion.angular_velocity,
    };
    let mut viscous_factor = [0.0; LANES];
    for (l, (body, state)) in bodies.iter().zip(states).enumerate() {
        let Some(body) = body else {
            continue;
        };
        let com = state.center_of_mass - state.position;
        totals[l] = PassOne {
            buoyancy: Sum {
                force: lane_vector(&one.buoyancy_force, l),
                torque: lane_vector(&one.buoyancy_torque, l),
            },
            slamming: Sum {
                force: lane_vector(&one.slamming_force, l),
                torque: lane_vector(&one.slamming_torque, l),
            },
            air: Sum {
                force: lane_vector(&one.air_force, l),
                torque: lane_vector(&one.air_torque, l),
            },
            volume: buoyancy::SubmergedVolume {
                volume: one.volume[l],
                moment: lane_vector(&one.volume_moment, l),
            },
            wetted_area: one.area[l],
            wetted_moment: lane_vector(&one.area_moment, l),
            ..PassOne::default()
        };
        inverse_inertias[l] = body.inertia(&body.desc, state, com).inverse();
        // Each body's step reads its own description and state where they are (no replay
        // copied per body, nor an array of replays: the body's kept replay is built at commit).
        let middle = after_pass_one(
            StepInputs::first(body, state, dt, &conditions),
            &hull.info,
            &mut totals[l],
            body.samples.mean_velocity,
            &inverse_inertias[l],
            &mut Discard,
        );
        for axis in 0..3 {
            end.velocity[axis][l] = middle.v_end[axis];
            end.angular_velocity[axis][l] = middle.omega_end[axis];
        }
        if let Some(DragParams {
            viscous: Some((rho, cf)),
            ..
        }) = middle.drag
        {
            viscous_factor[l] = -0.5 * rho * cf;
        }
        middles[l] = Some(middle);
    }
    // (Not in a closure: closures are compiled for the baseline processor only.)
    let mut drag = None;
    if let Some(Some(params)) = middles[0].map(|m| m.drag) {
        let shared = DragConstants::new(
            &Motion {
                com: DVec3::ZERO,
                velocity: DVec3::ZERO,
                angular_velocity: DVec3::ZERO,
            },
            &params,
        );
        drag = match &bodies[0] {
            Some(body) if alone => {
                // Every lane holds a triangle of this body, at its motion.
                for l in 1..LANES {
                    for axis in 0..3 {
                        end.velocity[axis][l] = end.velocity[axis][0];
                        end.angular_velocity[axis][l] = end.angular_velocity[axis][0];
                    }
                    viscous_factor[l] = viscous_factor[0];
                }
                let single = Single {
                    vertices: &body.samples.vertices,
                    heights: &body.samples.heights,
                    water: conditions.water_moves.then_some(&body.samples.velocities[..]),
                };
                Some(lanes::pass_two_single(&hull, &single, &end, &viscous_factor, &shared))
            }
            _ => Some(lanes::pass_two(&hull, &group, &end, &viscous_factor, &shared)),
        };
    }

    passes.stop();

    // Each body's new history, row by row: a lane group's numbers narrowed at once, then
    // stored to their eight bodies (lane by lane, the compiler gathered them).
    {
        let mut written: [Option<HistoryChunkMut<'_>>; LANES] = Default::default();
        for (out, body) in written.iter_mut().zip(bodies.iter_mut()) {
            *out = body.as_mut().map(|b| b.spare.first_mut());
        }
        for (j, now) in scratch.history.iter().enumerate() {
            for (c, lanes) in now.iter().enumerate() {
                let narrowed = lanes.map(narrow);
                for (out, x) in written.iter_mut().zip(narrowed) {
                    if let Some(out) = out {
                        out.swept[c][j] = x;
                    }
                }
            }
        }
    }

    for (l, (body, state)) in bodies.iter_mut().zip(states).enumerate() {
        let (Some(body), Some(middle)) = (body, middles[l]) else {
            continue;
        };
        let drag = drag.map_or((DVec3::ZERO, DVec3::ZERO, DVec3::ZERO), |d| {
            (
                lane_vector(&d.viscous, l),
                lane_vector(&d.pressure, l),
                lane_vector(&d.torque, l),
            )
        });
        let (forces, derived) = finish(
            StepInputs::first(body, state, dt, &conditions),
            &totals[l],
            &middle,
            drag,
            one.pieces[l] as usize,
            &inverse_inertias[l],
            &mut Discard,
        );
        if let Some(result) = results.get_mut(l) {
            let replay = KeptReplay {
                state: **state,
                dt,
                conditions,
                had_history,
                derived: Some(derived),
            };
            *result = body.commit(forces, replay);
        }
    }
    LaneScratch::give_back(scratch);
}

/// What the first pass sums: the hydrostatic, slamming and air forces with their moments
/// about the centre of mass, and the wetted and emerged surfaces' integrals.
#[derive(Clone, Copy, Debug, Default)]
struct PassOne {
    buoyancy: Sum,
    slamming: Sum,
    air: Sum,
    volume: buoyancy::SubmergedVolume,
    wetted_area: f64,
    wetted_moment: DVec3,
    projected_area: f64,
    emerged_area: f64,
    emerged_moment: DVec3,
}

/// What the step derives between its two passes.
#[derive(Clone, Copy, Debug)]
struct Middle {
    /// Velocity and angular velocity at the end of the step under buoyancy and gravity.
    v_end: DVec3,
    omega_end: DVec3,
    /// The end velocity relative to the mean water under the hull.
    relative_end: DVec3,
    centre_of_buoyancy: Option<DVec3>,
    wetted_ratio: f64,
    /// The hull's length for the friction line.
    length: f64,
    /// What the second pass computes, when any of its forces is on.
    drag: Option<DragParams>,
}

/// From the first pass's sums to what the second needs: the volume models' buoyancy
/// (added to `totals`), the centre of buoyancy, and the motion at the end of the step under
/// buoyancy and gravity alone, at which the second pass computes drag.
#[inline(always)]
fn after_pass_one<S: Sink>(
    inputs: StepInputs<'_>,
    info: &crate::hull::HullInfo,
    totals: &mut PassOne,
    water_mean: DVec3,
    inverse_inertia: &DMat3,
    sink: &mut S,
) -> Middle {
    let StepInputs {
        desc,
        state,
        dt,
        conditions: env,
        derived,
    } = inputs;
    let on = |bit: u32| desc.forces & bit != 0;
    let lumped = on(FORCE_LUMPED_RESISTANCE);
    let (viscous_on, drag_on) = (on(FORCE_VISCOUS) && !lumped, on(FORCE_PRESSURE_DRAG) && !lumped);
    let com = state.center_of_mass - state.position;
    let (v_com, omega) = (state.linear_velocity, state.angular_velocity);
    let rho = env.water_density;
    let rho_g = rho * env.gravity;
    let area_centroid = (totals.wetted_area > 0.0).then(|| totals.wetted_moment / totals.wetted_area);
    let volume_buoyancy = match desc.buoyancy {
        BuoyancyModel::Volume => totals.volume.centroid().map(|c| (totals.volume.volume, c)),
        BuoyancyModel::AreaRatio => area_centroid.map(|c| (info.volume * totals.wetted_area / info.area, c)),
        _ => None,
    };
    if let Some((displaced, point)) = volume_buoyancy {
        let force = DVec3::new(0.0, rho_g * displaced, 0.0);
        totals.buoyancy.add(point - com, force);
        sink.force(Kind::Hydrostatic, point, force);
    }
    let centre_of_buoyancy = match desc.buoyancy {
        BuoyancyModel::AreaRatio => area_centroid,
        _ => totals.volume.centroid().or(area_centroid),
    };
    let wetted_ratio = (totals.wetted_area / info.area).min(1.0);

    // The motion at the end of the step under buoyancy and gravity alone.
    let gravity = DVec3::new(0.0, -env.gravity, 0.0);
    let (v_end, omega_end) = match derived {
        Some(d) => (d.end_velocity, d.end_angular_velocity),
        None => {
            let omega_end = omega + *inverse_inertia * totals.buoyancy.torque * dt;
            (
                v_com + (totals.buoyancy.force / desc.mass + gravity) * dt,
                if omega_end.is_finite() { omega_end } else { omega },
            )
        }
    };
    let relative_end = v_end - water_mean;
    let length = if desc.hull_length > 0.0 {
        desc.hull_length
    } else {
        info.bounds_max.z - info.bounds_min.z
    };

    // (No closures: they are compiled for the baseline processor only, and left out of
    // line.)
    let drag = if viscous_on || drag_on {
        let viscous = if viscous_on {
            Some((
                rho,
                viscous::friction_coefficient(relative_end.length(), length, env.water_viscosity),
            ))
        } else {
            None
        };
        let pressure = if drag_on { Some(desc.drag_coefficients()) } else { None };
        Some(DragParams { viscous, pressure })
    } else {
        None
    };
    Middle {
        v_end,
        omega_end,
        relative_end,
        centre_of_buoyancy,
        wetted_ratio,
        length,
        drag,
    }
}

/// The step's forces from both passes' sums: damping, the lumped resistance, the limiter
/// on the dissipative forces, and the added mass.
#[inline(always)]
fn finish<S: Sink>(
    inputs: StepInputs<'_>,
    totals: &PassOne,
    middle: &Middle,
    (mut viscous_force, mut pressure_force, mut drag_torque): (DVec3, DVec3, DVec3),
    submerged_count: usize,
    inverse_inertia: &DMat3,
    sink: &mut S,
) -> (BodyForces, Derived) {
    let StepInputs {
        desc,
        state,
        dt,
        conditions: env,
        derived,
    } = inputs;
    let on = |bit: u32| desc.forces & bit != 0;
    let lumped = on(FORCE_LUMPED_RESISTANCE);
    let origin = state.position;
    let com = state.center_of_mass - origin;
    let (v_com, omega) = (state.linear_velocity, state.angular_velocity);
    let rho = env.water_density;
    let air_relative = v_com - env.wind;
    let inverse_inertia = *inverse_inertia;
    let Middle {
        v_end,
        omega_end,
        relative_end,
        centre_of_buoyancy,
        wetted_ratio,
        length,
        ..
    } = *middle;
    let PassOne {
        buoyancy: buoyancy_sum,
        slamming,
        mut air,
        volume,
        wetted_area,
        projected_area,
        emerged_area,
        emerged_moment,
        ..
    } = *totals;

    let (mut damping_force, mut damping_couple) = (DVec3::ZERO, DVec3::ZERO);
    if on(FORCE_DAMPING) {
        (damping_force, damping_couple) = damping::damping(
            relative_end,
            omega_end,
            wetted_ratio,
            desc.linear_damping,
            desc.angular_damping,
        );
        sink.force(Kind::Water, com, damping_force);
    }
    if lumped {
        if let Some(point) = centre_of_buoyancy {
            let cf = viscous::friction_coefficient(relative_end.length(), length, env.water_viscosity);
            let (friction, residual) =
                lumped::water_resistance(relative_end, wetted_area, rho, cf, desc.residual_resistance);
            viscous_force += friction;
            pressure_force += residual;
            drag_torque += (point - com).cross(friction + residual);
            sink.force(Kind::Water, point, friction + residual);
        }
        if emerged_area > 0.0 {
            let point = emerged_moment / emerged_area;
            let force =
                lumped::air_resistance(air_relative, projected_area, env.air_density, desc.air_drag_coefficient);
            air.add(point - com, force);
            sink.force(Kind::Air, point, force);
        }
    }

    // Dissipative forces must not reverse the motion they oppose within the step.
    // (No closures, nor `map_or_else`: either may be left out of line, compiled for the
    // baseline processor, with the limiter in it.)
    let (water_scale, air_scale) = match derived {
        Some(d) => (d.water_scale, d.air_scale),
        None => {
            let water = limiter::Motion {
                velocity: relative_end,
                angular_velocity: omega_end,
                mass: desc.mass,
                inverse_inertia,
            };
            let air_motion = limiter::Motion {
                velocity: air_relative,
                angular_velocity: omega,
                ..water
            };
            (
                limiter::limit(
                    viscous_force + pressure_force + slamming.force + damping_force,
                    drag_torque + slamming.torque + damping_couple,
                    &water,
                    dt,
                ),
                limiter::limit(air.force, air.torque, &air_motion, dt),
            )
        }
    };

    // Bourg's virtual mass: everything divided by 1 + x, plus a gravity correction.
    let virtual_scale = added_mass::scale(desc.added_mass_ratio);
    let mut hydrostatic = buoyancy_sum;
    hydrostatic.force *= virtual_scale;
    hydrostatic.torque *= virtual_scale;
    sink.scale(Kind::Hydrostatic, virtual_scale);
    if desc.added_mass_ratio > 0.0 {
        let correction = added_mass::gravity_correction(desc.added_mass_ratio, desc.mass, env.gravity);
        hydrostatic.force += correction;
        sink.force(Kind::Hydrostatic, com, correction);
    }
    let water = water_scale * virtual_scale;
    let air_factor = air_scale * virtual_scale;
    sink.scale(Kind::Water, water);
    sink.scale(Kind::Air, air_factor);

    let mut out = BodyForces {
        buoyancy_force: hydrostatic.force,
        viscous_force: viscous_force * water,
        pressure_drag_force: pressure_force * water,
        slamming_force: slamming.force * water,
        damping_force: damping_force * water,
        air_force: air.force * air_factor,
        center_of_buoyancy: origin + centre_of_buoyancy.unwrap_or(com),
        submerged_volume: volume.volume.max(0.0),
        submerged_area: wetted_area,
        wetted_ratio,
        submerged_triangle_count: submerged_count as u32,
        ..BodyForces::default()
    };
    out.force = out.buoyancy_force
        + out.viscous_force
        + out.pressure_drag_force
        + out.slamming_force
        + out.damping_force
        + out.air_force;
    out.torque =
        hydrostatic.torque + (drag_torque + slamming.torque + damping_couple) * water + air.torque * air_factor;
    let derived = Derived {
        end_velocity: v_end,
        end_angular_velocity: omega_end,
        water_scale,
        air_scale,
    };
    (out, derived)
}

/// Viscous and pressure drag on one submerged piece of unit normal `normal` in water
/// moving at `water`, by the one-point rule or, when the rotation spreads the velocity
/// across the piece, the three-point rule
/// ([`crate::whole_triangles`]). Returns the viscous force, the pressure drag and their
/// moment about the centre of mass.
fn piece_drag<S: Sink>(
    piece: [DVec3; 3],
    normal: DVec3,
    water: DVec3,
    motion: &Motion,
    drag: &DragParams,
    sink: &mut S,
) -> (DVec3, DVec3, DVec3) {
    let (mut fv_sum, mut fd_sum, mut torque) = (DVec3::ZERO, DVec3::ZERO, DVec3::ZERO);
    for (point, share) in drag_rule(piece, normal, water, motion, false) {
        let v = motion.velocity + motion.angular_velocity.cross(point - motion.com) - water;
        let fv = drag.viscous.map_or(DVec3::ZERO, |(rho, cf)| {
            viscous::viscous_force(v, normal, share, rho, cf)
        });
        let fd = drag
            .pressure
            .as_ref()
            .map_or(DVec3::ZERO, |c| pressure_drag_force(v, normal, share, c));
        fv_sum += fv;
        fd_sum += fd;
        torque += (point - motion.com).cross(fv + fd);
        sink.force(Kind::Water, point, fv + fd);
    }
    (fv_sum, fd_sum, torque)
}

/// The points and area shares of a piece's drag: its centroid with all its area, or,
/// when the rotation spreads the velocity across the piece or `three_points` is set, its
/// edge midpoints with a third each ([`crate::whole_triangles`]).
fn drag_rule(
    [a, b, c]: [DVec3; 3],
    normal: DVec3,
    water: DVec3,
    motion: &Motion,
    three_points: bool,
) -> impl Iterator<Item = (DVec3, f64)> {
    let area = 0.5 * (b - a).cross(c - a).dot(normal);
    let centroid = (a + b + c) * (1.0 / 3.0);
    let u = motion.velocity + motion.angular_velocity.cross(centroid - motion.com) - water;
    let radius_squared = (a - centroid)
        .length_squared()
        .max((b - centroid).length_squared())
        .max((c - centroid).length_squared());
    let three = three_points
        || needs_three_points(
            motion.angular_velocity.length_squared(),
            radius_squared,
            u.length_squared(),
        );
    let points = if three {
        [
            (0.5 * (a + b), area / 3.0),
            (0.5 * (b + c), area / 3.0),
            (0.5 * (c + a), area / 3.0),
        ]
    } else {
        [(centroid, area); 3]
    };
    points.into_iter().take(if three { 3 } else { 1 })
}

/// Checks that `dt` is a usable step length.
/// A chunk of rows as the whole-triangle pass takes it: its rows, its output, its history
/// to write, its wet triangles to write, and its last history.
/// The whole triangles' sums, chunk after chunk (in order, whatever thread did which).
fn whole_sums(chunks: &[ChunkOutput]) -> WholeSums {
    let mut sums = WholeSums::default();
    for chunk in chunks {
        sums += chunk.sums;
    }
    sums
}

type WholeChunk<'a> = (
    (std::ops::Range<usize>, &'a mut ChunkOutput),
    ((HistoryChunkMut<'a>, WetRowsMut<'a>), HistoryChunk<'a>),
);

/// Cut triangles from which a step runs their pieces through the whole triangles' loop.
const MIN_CUT_FOR_PIECE_PASS: usize = 16;

pub(crate) fn check_dt(dt: f64) -> Result<f64> {
    positive("dt", dt)?;
    if !(MIN_DT..=MAX_DT).contains(&dt) {
        return Err(Error::argument(format!(
            "dt must be between {MIN_DT:e} and {MAX_DT} s, got {dt}"
        )));
    }
    Ok(dt)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hull::{HullDesc, box_mesh};
    use crate::water::FlatWater;

    fn env(water: &Water) -> Environment<'_> {
        Environment {
            water,
            time: 0.0,
            gravity: 9.81,
            water_density: 1000.0,
            air_density: 1.225,
            water_viscosity: 1e-6,
            wind: DVec3::ZERO,
            current: DVec3::ZERO,
            water_offset: DVec3::ZERO,
            share_triangles: true,
            helper: None,
            tasks: None,
        }
    }

    fn state(y: f64, vy: f64) -> BodyState {
        BodyState {
            position: DVec3::new(0.0, y, 0.0),
            linear_velocity: DVec3::new(0.3, vy, 0.0),
            angular_velocity: DVec3::new(0.1, 0.0, 0.2),
            ..BodyState::default()
        }
    }

    fn detail(body: &mut Body) -> (Vec<[DVec3; 3]>, Vec<PointForce>) {
        (body.submerged_triangles().collect(), body.triangle_forces().collect())
    }

    /// The last step again through the one-triangle-at-a-time code (what detail uses),
    /// deriving everything from its own sums.
    fn reference_forces(body: &mut Body) -> BodyForces {
        let replay = Replay {
            derived: None,
            ..body.replay().unwrap()
        };
        let prior = std::mem::take(&mut body.prior_history);
        let mut scratch = Output::sized(body.hull.triangles.len(), body.hull.columns.len());
        body.samples.turn(&body.hull.positions, &replay.state);
        let (forces, _) = body.run(&replay, &prior, &mut scratch, &mut Detail::default(), Team::Alone);
        body.prior_history = prior;
        forces
    }

    /// A small deterministic generator (the crate has no rand dependency).
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> f64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 11) as f64 / (1u64 << 53) as f64
        }

        fn range(&mut self, lo: f64, hi: f64) -> f64 {
            lo + (hi - lo) * self.next()
        }

        fn vec(&mut self, scale: f64) -> DVec3 {
            DVec3::new(
                self.range(-scale, scale),
                self.range(-scale, scale),
                self.range(-scale, scale),
            )
        }
    }

    fn hull_of(vertices: &[glam::Vec3], indices: &[u32]) -> Arc<Hull> {
        Arc::new(
            Hull::new(&HullDesc {
                vertices,
                indices,
                flip_winding: false,
            })
            .unwrap(),
        )
    }

    fn close(a: DVec3, b: DVec3, scale: f64) -> bool {
        (a - b).length() <= 1e-9 * scale
    }

    #[test]
    fn whole_triangles_in_loops_give_the_forces_of_the_one_at_a_time_code() {
        let mut rng = Rng(7);
        // A sphere (many whole triangles, every lane count), a box (the volume models),
        // and a soup of random triangles (slivers, both windings).
        let (bv, bi) = box_mesh(glam::Vec3::new(2.0, 1.0, 3.0));
        let mut sv = Vec::new();
        let (rings, segments) = (9, 14);
        for r in 0..=rings {
            let theta = std::f32::consts::PI * r as f32 / rings as f32;
            for s in 0..segments {
                let phi = std::f32::consts::TAU * s as f32 / segments as f32;
                sv.push(glam::Vec3::new(
                    theta.sin() * phi.cos(),
                    theta.cos(),
                    theta.sin() * phi.sin(),
                ));
            }
        }
        let mut si = Vec::new();
        for r in 0..rings {
            for s in 0..segments {
                let (a, b) = (r * segments + s, r * segments + (s + 1) % segments);
                let (c, d) = (a + segments, b + segments);
                si.extend([a, b, c, b, d, c].map(|i| i as u32));
            }
        }
        let soup_v: Vec<glam::Vec3> = (0..40).map(|_| rng.vec(1.5).as_vec3()).collect();
        let soup_i: Vec<u32> = (0..3 * 60).map(|_| (rng.next() * 40.0) as u32).collect();
        // A sphere of more triangles than two chunks of rows.
        let (rings, segments) = (40, 36);
        let mut fine_v = Vec::new();
        for r in 0..=rings {
            let theta = std::f32::consts::PI * r as f32 / rings as f32;
            for s in 0..segments {
                let phi = std::f32::consts::TAU * s as f32 / segments as f32;
                fine_v.push(glam::Vec3::new(
                    theta.sin() * phi.cos(),
                    theta.cos(),
                    theta.sin() * phi.sin(),
                ));
            }
        }
        let mut fine_i = Vec::new();
        for r in 0..rings {
            for s in 0..segments {
                let (a, b) = (r * segments + s, r * segments + (s + 1) % segments);
                let (c, d) = (a + segments, b + segments);
                fine_i.extend([a, b, c, b, d, c].map(|i| i as u32));
            }
        }
        let hulls = [
            hull_of(&sv, &si),
            hull_of(&bv, &bi),
            hull_of(&soup_v, &soup_i),
            hull_of(&fine_v, &fine_i),
        ];
        assert!(hulls[3].columns.len() > 2 * crate::whole_triangles::CHUNK_ROWS);
        let waters = [
            Water::Flat(FlatWater { level: 0.2 }),
            Water::Gerstner(
                crate::water::GerstnerWater::new(
                    &[crate::water::GerstnerWave {
                        amplitude: 0.3,
                        wavelength: 4.0,
                        direction: glam::DVec2::new(1.0, 0.4),
                        steepness: 0.5,
                        phase: 0.3,
                    }],
                    0.0,
                    9.81,
                )
                .unwrap(),
            ),
        ];
        let models = [
            BuoyancyModel::Pressure,
            BuoyancyModel::PressureCentroid,
            BuoyancyModel::Volume,
            BuoyancyModel::AreaRatio,
            BuoyancyModel::None,
        ];
        let mut compared = 0;
        // (Still water draws from its own generator: the other cases keep their numbers.)
        let mut still_rng = Rng(11);
        for (h, hull) in hulls.iter().enumerate() {
            // Flat water with a current, waves, and still flat water after a step in the
            // waves (buffers kept from step to step must not carry their velocities over).
            for (w, water) in [&waters[0], &waters[1], &waters[0]].into_iter().enumerate() {
                let mut env = env(water);
                env.wind = DVec3::new(4.0, 0.0, -3.0);
                if w < 2 {
                    env.current = DVec3::new(0.5, 0.0, 0.2);
                }
                let mut moving = self::env(&waters[1]);
                moving.current = DVec3::new(0.5, 0.0, 0.2);
                let rng = if w == 2 { &mut still_rng } else { &mut rng };
                for case in 0..40 {
                    let forces = match case % 4 {
                        0 => FORCE_ALL & !FORCE_LUMPED_RESISTANCE,
                        1 => FORCE_LUMPED_RESISTANCE | FORCE_SLAMMING | FORCE_DAMPING,
                        2 => (rng.next() * 32.0) as u32 & !FORCE_LUMPED_RESISTANCE,
                        _ => FORCE_DEFAULT,
                    };
                    let buoyancy = models[case % models.len()];
                    let desc = BodyDesc {
                        forces,
                        buoyancy: if h == 1 { buoyancy } else { BuoyancyModel::Pressure },
                        vertical_buoyancy_only: case % 3 == 0,
                        linear_damping: 100.0,
                        angular_damping: 50.0,
                        // The limiter at its extremes: a body of no mass, a heavy one.
                        mass: [1000.0, 1.2e-38, 1000.0, 1e12][case % 4],
                        pressure_falloff: [0.5, 1.0, 0.3, 2.0, 0.0][case % 5],
                        suction_falloff: [0.5, 2.0, 1.0, 0.0][case % 4],
                        slamming_power: [2.0, 1.0, 1.5, 0.5, 0.0][case % 5],
                        slamming_max_acceleration: [0.0, 0.0, 40.0][case % 3],
                        ..BodyDesc::default()
                    };
                    let mut body = Body::new(desc, hull.clone());
                    let mut state = BodyState {
                        position: DVec3::new(rng.range(-3.0, 3.0), rng.range(-0.8, 0.8), rng.range(-3.0, 3.0)),
                        rotation: DQuat::from_scaled_axis(rng.vec(1.5)),
                        linear_velocity: rng.vec(4.0),
                        // Slow and fast turns: the one-point and the three-point drag rule.
                        angular_velocity: rng.vec([0.05, 3.0][case % 2]),
                        ..BodyState::default()
                    };
                    state.center_of_mass = state.position + rng.vec(0.2);
                    // (Not for the limiter's extreme masses: their forces after a step
                    // in waves can overflow, an error these cases do not test.)
                    if w == 2 && desc.mass == 1000.0 {
                        body.step(&state, 0.02, &moving).unwrap();
                    }
                    for _ in 0..3 {
                        let fast = body.step(&state, 0.02, &env).unwrap();
                        let slow = reference_forces(&mut body);
                        let scale = 1.0 + fast.force.length() + fast.torque.length() + slow.force.length();
                        let pairs = [
                            (fast.force, slow.force),
                            (fast.torque, slow.torque),
                            (fast.buoyancy_force, slow.buoyancy_force),
                            (fast.viscous_force, slow.viscous_force),
                            (fast.pressure_drag_force, slow.pressure_drag_force),
                            (fast.slamming_force, slow.slamming_force),
                            (fast.air_force, slow.air_force),
                            (fast.damping_force, slow.damping_force),
                            (fast.center_of_buoyancy, slow.center_of_buoyancy),
                        ];
                        for (k, (a, b)) in pairs.into_iter().enumerate() {
                            assert!(
                                close(a, b, scale),
                                "hull {h} case {case} field {k}: {a} vs {b}\n{desc:?}"
                            );
                        }
                        assert!(
                            (fast.submerged_volume - slow.submerged_volume).abs()
                                <= 1e-9 * (1.0 + slow.submerged_volume)
                        );
                        assert!(
                            (fast.submerged_area - slow.submerged_area).abs() <= 1e-9 * (1.0 + slow.submerged_area)
                        );
                        assert_eq!(fast.submerged_triangle_count, slow.submerged_triangle_count);
                        compared += 1;
                        state.position.y -= 0.1;
                        state.linear_velocity.y -= 0.5;
                    }
                }
            }
        }
        assert_eq!(compared, 4 * 3 * 40 * 3);
    }

    /// The forces of a step as numbers, every bit.
    fn bits(f: &BodyForces) -> Vec<u64> {
        let vectors = [
            f.force,
            f.torque,
            f.buoyancy_force,
            f.viscous_force,
            f.pressure_drag_force,
            f.slamming_force,
            f.air_force,
            f.damping_force,
            f.center_of_buoyancy,
        ];
        let mut out: Vec<u64> = vectors.iter().flat_map(|v| v.to_array().map(f64::to_bits)).collect();
        out.extend([f.submerged_volume, f.submerged_area, f.wetted_ratio].map(f64::to_bits));
        out.push(u64::from(f.submerged_triangle_count));
        out
    }

    #[test]
    fn bodies_in_lanes_get_the_forces_of_the_one_at_a_time_code_whatever_their_company() {
        let mut rng = Rng(23);
        let (bv, bi) = box_mesh(glam::Vec3::new(2.0, 1.0, 3.0));
        // Random triangles: slivers, both windings, vertices shared in every way.
        let soup_v: Vec<glam::Vec3> = (0..30).map(|_| rng.vec(1.5).as_vec3()).collect();
        let soup_i: Vec<u32> = (0..3 * 50).map(|_| (rng.next() * 30.0) as u32).collect();
        let hulls = [hull_of(&bv, &bi), hull_of(&soup_v, &soup_i)];
        let waters = [
            Water::Flat(FlatWater { level: 0.2 }),
            // Moving water: the water's velocity at the vertices.
            Water::Gerstner(
                crate::water::GerstnerWater::new(
                    &[crate::water::GerstnerWave {
                        amplitude: 0.3,
                        wavelength: 4.0,
                        direction: glam::DVec2::new(1.0, 0.4),
                        steepness: 0.5,
                        phase: 0.3,
                    }],
                    0.0,
                    9.81,
                )
                .unwrap(),
            ),
        ];
        let (mut compared, mut slammed, mut aired) = (0, 0, 0);
        for (h, hull) in hulls.iter().enumerate() {
            for water in &waters {
                let mut env = env(water);
                env.wind = DVec3::new(4.0, 0.0, -3.0);
                env.current = DVec3::new(0.5, 0.0, 0.2);
                for case in 0..12 {
                    let forces = match case % 3 {
                        0 => FORCE_ALL & !FORCE_LUMPED_RESISTANCE,
                        1 => (rng.next() * 32.0) as u32 & !FORCE_LUMPED_RESISTANCE,
                        _ => FORCE_DEFAULT,
                    };
                    let shared = BodyDesc {
                        forces,
                        vertical_buoyancy_only: case % 5 == 4,
                        linear_damping: 100.0,
                        angular_damping: 50.0,
                        slamming_power: [2.0, 1.0, 0.5, 0.0][case % 4],
                        slamming_max_acceleration: [0.0, 0.0, 40.0][case % 3],
                        ..BodyDesc::default()
                    };
                    // Each body its own mass (the limiter at its extremes too).
                    let masses = [1000.0, 1.2e-38, 300.0, 1e12, 50.0, 2000.0, 1.0, 700.0];
                    let mut grouped: Vec<Body> = masses
                        .iter()
                        .map(|&mass| Body::new(BodyDesc { mass, ..shared }, hull.clone()))
                        .collect();
                    let mut alone: Vec<Body> = masses
                        .iter()
                        .map(|&mass| Body::new(BodyDesc { mass, ..shared }, hull.clone()))
                        .collect();
                    assert!(grouped.iter().all(Body::can_step_in_lanes));
                    assert!(grouped.iter().all(|b| b.lane_key() == grouped[0].lane_key()));
                    let mut states: Vec<BodyState> = (0..LANES)
                        .map(|_| {
                            let position = DVec3::new(rng.range(-3.0, 3.0), rng.range(-0.8, 0.8), rng.range(-3.0, 3.0));
                            BodyState {
                                position,
                                rotation: DQuat::from_scaled_axis(rng.vec(1.5)),
                                linear_velocity: rng.vec(4.0),
                                // Slow and fast turns: the one-point and the three-point rule.
                                angular_velocity: rng.vec([0.05, 3.0][case % 2]),
                                center_of_mass: position + rng.vec(0.2),
                            }
                        })
                        .collect();
                    for _ in 0..3 {
                        for (b, state) in grouped.iter_mut().zip(&states) {
                            b.prepare(state, &env).unwrap();
                        }
                        let state_refs: Vec<&BodyState> = states.iter().collect();
                        let mut lanes: Vec<Option<&mut Body>> = grouped.iter_mut().map(Some).collect();
                        let mut in_lanes: Vec<Result<BodyForces>> = vec![Ok(BodyForces::default()); LANES];
                        step_in_lanes(&mut lanes, &state_refs, 0.02, &env, &mut in_lanes);
                        for l in 0..LANES {
                            // Alone (one body in the lanes): the same bits as in company.
                            let single = alone[l].step(&states[l], 0.02, &env);
                            match (&in_lanes[l], &single) {
                                (Ok(a), Ok(b)) => assert_eq!(bits(a), bits(b), "hull {h} case {case} lane {l}"),
                                (Err(_), Err(_)) => continue,
                                _ => panic!("hull {h} case {case} lane {l}: {:?} vs {single:?}", in_lanes[l]),
                            }
                            let fast = in_lanes[l].clone().unwrap();
                            let slow = reference_forces(&mut grouped[l]);
                            let scale = 1.0 + fast.force.length() + fast.torque.length() + slow.force.length();
                            let pairs = [
                                (fast.force, slow.force),
                                (fast.torque, slow.torque),
                                (fast.buoyancy_force, slow.buoyancy_force),
                                (fast.viscous_force, slow.viscous_force),
                                (fast.pressure_drag_force, slow.pressure_drag_force),
                                (fast.slamming_force, slow.slamming_force),
                                (fast.air_force, slow.air_force),
                                (fast.damping_force, slow.damping_force),
                                (fast.center_of_buoyancy, slow.center_of_buoyancy),
                            ];
                            for (k, (a, b)) in pairs.into_iter().enumerate() {
                                assert!(
                                    close(a, b, scale),
                                    "hull {h} case {case} lane {l} field {k}: {a} vs {b}\n{:?}",
                                    grouped[l].desc
                                );
                            }
                            assert!(
                                (fast.submerged_volume - slow.submerged_volume).abs()
                                    <= 1e-9 * (1.0 + slow.submerged_volume)
                            );
                            assert!(
                                (fast.submerged_area - slow.submerged_area).abs() <= 1e-9 * (1.0 + slow.submerged_area)
                            );
                            assert_eq!(fast.submerged_triangle_count, slow.submerged_triangle_count);
                            compared += 1;
                            slammed += usize::from(slow.slamming_force != DVec3::ZERO);
                            aired += usize::from(slow.air_force != DVec3::ZERO);
                        }
                        for state in &mut states {
                            state.position.y -= 0.1;
                            state.linear_velocity.y -= 0.5;
                        }
                    }
                }
            }
        }
        assert!(compared > 2 * 2 * 12 * 3 * LANES / 2, "{compared} compared");
        assert!(slammed > 50 && aired > 50, "slamming {slammed}, air {aired}");
    }

    /// Drag on a triangle in a rigid motion by the three-point rule or by the one point the
    /// rule takes at `spread` (checked), against a fine quadrature, over
    /// random triangles whose rotation spreads the velocity by `spread` across them:
    /// (mean, worst) error as a fraction of the drag scale `A (C1 |u| + C2 |u|^2)`.
    fn drag_rule_error(spread: f64, three_points: bool) -> (f64, f64) {
        let mut rng = Rng(11);
        let c = BodyDesc::default().drag_coefficients();
        let drag = |u: DVec3, n: DVec3, area: f64| {
            pressure_drag_force(u, n, area, &c) + viscous::viscous_force(u, n, area, 1000.0, 0.004)
        };
        let (mut sum, mut worst) = (0.0f64, 0.0f64);
        let trials = 200;
        for _ in 0..trials {
            let [a, b, cc] = [rng.vec(1.0), rng.vec(1.0), rng.vec(1.0)];
            let s = (b - a).cross(cc - a);
            let (normal, area) = (s.normalize(), 0.5 * s.length());
            let centroid = (a + b + cc) / 3.0;
            let radius = [a, b, cc]
                .map(|p| (p - centroid).length())
                .into_iter()
                .fold(0.0, f64::max);
            let u_c = rng.vec(2.0);
            let omega = rng.vec(1.0).normalize() * spread * u_c.length() / radius;
            let motion = Motion {
                com: centroid,
                velocity: u_c,
                angular_velocity: omega,
            };
            let velocity = |p: DVec3| u_c + omega.cross(p - centroid);
            let n = 24;
            let (mut reference, mut count) = (DVec3::ZERO, 0);
            for i in 0..n {
                for j in 0..n - i {
                    let mut at = |s: f64, t: f64| {
                        let p = a + (b - a) * s + (cc - a) * t;
                        reference += drag(velocity(p), normal, area);
                        count += 1;
                    };
                    at((i as f64 + 1.0 / 3.0) / n as f64, (j as f64 + 1.0 / 3.0) / n as f64);
                    if i + j < n - 1 {
                        at((i as f64 + 2.0 / 3.0) / n as f64, (j as f64 + 2.0 / 3.0) / n as f64);
                    }
                }
            }
            let reference = reference / count as f64;
            let points: Vec<_> = drag_rule([a, b, cc], normal, DVec3::ZERO, &motion, three_points).collect();
            if !three_points && spread < crate::whole_triangles::ONE_POINT_SPREAD {
                assert_eq!(points.len(), 1, "the rule takes one point at spread {spread}");
            }
            let rule: DVec3 = if three_points || points.len() == 1 {
                points.iter().map(|&(p, share)| drag(velocity(p), normal, share)).sum()
            } else {
                drag(velocity(centroid), normal, area)
            };
            let speed = u_c.length();
            let scale = area * (c.pressure_linear * speed + c.pressure_quadratic * speed * speed);
            let error = (rule - reference).length() / scale;
            sum += error;
            worst = worst.max(error);
        }
        (sum / trials as f64, worst)
    }

    #[test]
    fn one_point_drag_is_close_where_it_is_used_and_three_points_take_over_where_it_is_not() {
        // Just under the spread where the rule switches: one point, within a few per cent
        // at worst (faces nearly tangent to the flow, where cos^(1/2) has no derivative and
        // the three-point rule errs about as much) and far better on average.
        let (mean, worst) = drag_rule_error(0.099, false);
        let (mean3, worst3) = drag_rule_error(0.099, true);
        assert!(
            mean < 0.005 && worst < 0.07,
            "one point at 0.1: mean {mean}, worst {worst}"
        );
        assert!(
            worst < 1.5 * worst3 + 0.01,
            "worst {worst} vs three-point {worst3} (mean {mean3})"
        );
        // A face spinning about its own centroid: one point misses most of the drag,
        // three points do not, and the rule takes three.
        let (mean, _) = drag_rule_error(3.0, false);
        let (mean3, _) = drag_rule_error(3.0, true);
        assert!(
            mean > 0.2 && mean3 < 0.5 * mean,
            "spin: one point {mean}, three {mean3}"
        );
        let motion = Motion {
            com: DVec3::ZERO,
            velocity: DVec3::X,
            angular_velocity: DVec3::new(0.0, 30.0, 0.0),
        };
        let piece = [DVec3::new(0.0, 0.0, 0.1), DVec3::new(0.1, 0.0, 0.0), DVec3::ZERO];
        assert_eq!(drag_rule(piece, DVec3::Y, DVec3::ZERO, &motion, false).count(), 3);
        let slow = Motion {
            angular_velocity: DVec3::new(0.0, 0.1, 0.0),
            ..motion
        };
        assert_eq!(drag_rule(piece, DVec3::Y, DVec3::ZERO, &slow, false).count(), 1);
    }

    #[test]
    fn an_undone_step_leaves_the_body_exactly_as_before_it() {
        let (v, i) = box_mesh(glam::Vec3::new(2.0, 0.5, 2.0));
        let hull = Arc::new(
            Hull::new(&HullDesc {
                vertices: &v,
                indices: &i,
                flip_winding: false,
            })
            .unwrap(),
        );
        let water = Water::Flat(FlatWater { level: 0.0 });
        let env = env(&water);
        let (mut a, mut b) = (
            Body::new(BodyDesc::default(), hull.clone()),
            Body::new(BodyDesc::default(), hull),
        );
        for body in [&mut a, &mut b] {
            body.step(&state(0.4, -2.0), 0.02, &env).unwrap();
            body.step(&state(0.1, -2.0), 0.02, &env).unwrap();
        }
        let before = detail(&mut a);
        // A step into the water, undone as a failing batch would undo it.
        a.step(&state(-0.2, -3.0), 0.02, &env).unwrap();
        assert_ne!(detail(&mut a), before);
        a.undo_step();
        assert_eq!(detail(&mut a), before);
        // And what follows is what follows for a body that never took that step.
        let next = state(0.0, -1.0);
        assert_eq!(a.step(&next, 0.02, &env).unwrap(), b.step(&next, 0.02, &env).unwrap());
        assert_eq!(detail(&mut a), detail(&mut b));
    }

    #[test]
    fn a_replay_keeps_the_description_its_step_used_across_changes_and_undoing() {
        let (v, i) = box_mesh(glam::Vec3::new(2.0, 0.5, 2.0));
        let hull = Arc::new(
            Hull::new(&HullDesc {
                vertices: &v,
                indices: &i,
                flip_winding: false,
            })
            .unwrap(),
        );
        let water = Water::Flat(FlatWater { level: 0.0 });
        let env = env(&water);
        let light = BodyDesc::default();
        let heavy = BodyDesc {
            mass: 4.0 * light.mass,
            linear_damping: 50.0,
            forces: light.forces | crate::forces::FORCE_DAMPING,
            ..light
        };
        // The last step's detail, replayed afresh: its forces add up to the step's.
        let replayed = |body: &mut Body, step: &BodyForces| {
            body.detail = None;
            let sum: DVec3 = body.triangle_forces().map(|p| p.force).sum();
            assert!(
                (sum - step.force).length() <= 1e-9 * step.force.length(),
                "{sum} vs {}",
                step.force
            );
            detail(body)
        };
        let mut body = Body::new(light, hull);
        let a = body.step(&state(0.4, -2.0), 0.02, &env).unwrap();
        let b = body.step(&state(0.3, -2.0), 0.02, &env).unwrap();
        let before_b = {
            let mut twin = Body::new(light, body.hull.clone());
            twin.step(&state(0.4, -2.0), 0.02, &env).unwrap();
            detail(&mut twin)
        };
        // Changed after two steps: each keeps the light description, the last...
        body.set_desc(heavy);
        replayed(&mut body, &b);
        // ... and the one before it, once the last is undone.
        body.undo_step();
        assert_eq!(replayed(&mut body, &a), before_b);
        // Steps as the heavy body replay as the heavy body, in both slots.
        for y in [0.2, 0.1, 0.0] {
            let step = body.step(&state(y, -2.0), 0.02, &env).unwrap();
            replayed(&mut body, &step);
        }
    }

    #[test]
    fn a_state_out_of_range_is_refused_with_the_vector_and_the_reason() {
        let good = state(0.5, -1.0);
        assert!(good.validated().is_ok());
        type Field = fn(&mut BodyState) -> &mut DVec3;
        let fields: [(&str, Field, f64); 4] = [
            ("position", |s| &mut s.position, MAX_COORDINATE),
            ("center_of_mass", |s| &mut s.center_of_mass, MAX_COORDINATE),
            ("linear_velocity", |s| &mut s.linear_velocity, MAX_SPEED),
            ("angular_velocity", |s| &mut s.angular_velocity, MAX_SPEED),
        ];
        for (name, field, limit) in fields {
            for axis in 0..3 {
                for (value, reason) in [
                    (f64::NAN, "must be finite"),
                    (f64::INFINITY, "must be finite"),
                    (-f64::INFINITY, "must be finite"),
                    (limit * 1.5, "is beyond"),
                    (-limit * 1.5, "is beyond"),
                ] {
                    let mut bad = good;
                    field(&mut bad)[axis] = value;
                    let message = bad.validated().unwrap_err().to_string();
                    assert!(
                        message.contains(&format!("state.{name}")) && message.contains(reason),
                        "{name}[{axis}] = {value}: {message}"
                    );
                }
                // At the limit itself: accepted.
                let mut edge = good;
                field(&mut edge)[axis] = -limit;
                assert!(edge.validated().is_ok(), "{name}[{axis}] at the limit");
            }
        }
        for rotation in [
            DQuat::from_xyzw(0.0, 0.0, 0.0, 0.0),
            DQuat::from_xyzw(f64::NAN, 0.0, 0.0, 1.0),
        ] {
            let bad = BodyState { rotation, ..good };
            assert!(bad.validated().unwrap_err().to_string().contains("state.rotation"));
        }
    }

    #[test]
    fn forces_that_are_not_finite_or_beyond_the_bound_are_not_sound() {
        let good = BodyForces {
            force: DVec3::new(1.0, 2.0, 3.0),
            torque: DVec3::splat(-MAX_FORCE),
            ..BodyForces::default()
        };
        assert!(good.is_sound());
        for value in [
            f64::NAN,
            f64::INFINITY,
            -f64::INFINITY,
            MAX_FORCE * 2.0,
            -MAX_FORCE * 2.0,
        ] {
            for axis in 0..3 {
                let mut bad = good;
                bad.force[axis] = value;
                assert!(!bad.is_sound(), "force[{axis}] = {value}");
                let mut bad = good;
                bad.damping_force[axis] = value;
                assert!(!bad.is_sound(), "damping_force[{axis}] = {value}");
            }
        }
        let mut bad = good;
        bad.submerged_volume = f64::NAN;
        assert!(!bad.is_sound());
    }
}
