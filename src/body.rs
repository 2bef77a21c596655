//! Bodies: a hull, its force model, and what one step leaves behind.
//!
//! A step transforms every hull vertex once into a frame that has the world's axes and
//! the body's origin (so a body 100 km from the world origin loses no precision), measures
//! each vertex's height above the water once, clips every triangle, and sums the forces
//! of the clipped pieces. Torques are about the centre of mass the host passes in.

use std::sync::Arc;

use glam::{DQuat, DVec3};

use crate::clip::{self, Tri};
use crate::error::{Error, Result, non_negative, positive};
use crate::forces::{FORCE_ALL, FORCE_DEFAULT, buoyancy};
use crate::hull::Hull;
use crate::water::{Water, WaterSurface};
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
    /// Linear pressure drag coefficient `C_PD1`.
    pub pressure_drag_linear: f64,
    /// Quadratic pressure drag coefficient `C_PD2`.
    pub pressure_drag_quadratic: f64,
    /// Linear suction drag coefficient `C_SD1`.
    pub suction_drag_linear: f64,
    /// Quadratic suction drag coefficient `C_SD2`.
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
            pressure_drag_linear: 10.0,
            pressure_drag_quadratic: 10.0,
            suction_drag_linear: 10.0,
            suction_drag_quadratic: 10.0,
            pressure_falloff: 0.5,
            suction_falloff: 0.5,
            reference_speed: 1.0,
            slamming_power: 2.0,
            slamming_max_acceleration: 0.0,
            slamming_multiplier: 1.0,
            air_drag_coefficient: 1.28,
            linear_damping: 0.0,
            angular_damping: 0.0,
        }
    }
}

impl BodyDesc {
    /// Checks every number and bit; the hull is checked by the world.
    pub fn validate(&self) -> Result<()> {
        positive("mass", self.mass)?;
        if self.forces & !FORCE_ALL != 0 {
            return Err(Error::argument(format!(
                "forces has unknown bits {:#x}; known bits are {FORCE_ALL:#x}",
                self.forces & !FORCE_ALL
            )));
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
        ] {
            non_negative(name, value)?;
        }
        positive("reference_speed", self.reference_speed)?;
        Ok(())
    }

    /// Checks that the buoyancy model can work on `hull`.
    pub(crate) fn validate_for(&self, hull: &Hull) -> Result<()> {
        if matches!(
            self.buoyancy,
            BuoyancyModel::Volume | BuoyancyModel::AreaRatio
        ) && !hull.has_volume()
        {
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

impl BodyState {
    /// Checks every number and returns the state with a unit rotation. Rotations are
    /// renormalised (engines' quaternions drift); a zero or non-finite one is refused.
    pub fn validated(&self) -> Result<Self> {
        let vectors = [
            ("position", self.position),
            ("linear_velocity", self.linear_velocity),
            ("angular_velocity", self.angular_velocity),
            ("center_of_mass", self.center_of_mass),
        ];
        for (name, v) in vectors {
            if !v.is_finite() {
                return Err(Error::argument(format!(
                    "state.{name} must be finite, got {v}"
                )));
            }
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
}

/// The detail of a body's last step, in the frame of its origin (world axes).
#[derive(Clone, Debug, Default)]
struct LastStep {
    origin: DVec3,
    submerged: Vec<[DVec3; 3]>,
    emerged: Vec<[DVec3; 3]>,
    waterline: Vec<[DVec3; 2]>,
    forces: Vec<PointForce>,
}

/// A floating rigid body's force model and history.
#[derive(Debug)]
pub struct Body {
    desc: BodyDesc,
    hull: Arc<Hull>,
    /// Hull vertices of this step, relative to the body origin, world axes.
    vertices: Vec<DVec3>,
    /// Height of each vertex above the water.
    heights: Vec<f64>,
    last: LastStep,
    /// Marks the body as listed in the batch being validated (duplicate detection).
    pub(crate) batch_mark: u64,
}

impl Body {
    /// A body with a validated description and its hull.
    pub(crate) fn new(desc: BodyDesc, hull: Arc<Hull>) -> Self {
        let mut body = Self {
            desc,
            hull: Arc::clone(&hull),
            vertices: Vec::new(),
            heights: Vec::new(),
            last: LastStep::default(),
            batch_mark: 0,
        };
        body.set_hull(hull);
        body
    }

    /// Replaces the hull; every buffer is sized for the largest step so that stepping
    /// never allocates.
    pub(crate) fn set_hull(&mut self, hull: Arc<Hull>) {
        let (n, t) = (hull.positions.len(), hull.triangles.len());
        self.vertices = vec![DVec3::ZERO; n];
        self.heights = vec![0.0; n];
        // Each triangle clips into at most two pieces on either side and one segment.
        self.last = LastStep {
            origin: DVec3::ZERO,
            submerged: Vec::with_capacity(2 * t),
            emerged: Vec::with_capacity(2 * t),
            waterline: Vec::with_capacity(t),
            forces: Vec::with_capacity(2 * t + 1),
        };
        self.hull = hull;
    }

    pub(crate) fn set_desc(&mut self, desc: BodyDesc) {
        self.desc = desc;
    }

    /// The body's parameters.
    pub fn desc(&self) -> &BodyDesc {
        &self.desc
    }

    /// The body's hull.
    pub fn hull(&self) -> &Hull {
        &self.hull
    }

    /// Computes the forces of one step of length `dt` (> 0) from a validated state.
    pub(crate) fn step(
        &mut self,
        state: &BodyState,
        _dt: f64,
        env: &Environment<'_>,
    ) -> BodyForces {
        let origin = state.position;
        let com = state.center_of_mass - origin;
        self.sample_water(state, env);

        let last = &mut self.last;
        last.origin = origin;
        last.submerged.clear();
        last.emerged.clear();
        last.waterline.clear();
        last.forces.clear();

        let rho_g = env.water_density * env.gravity;
        let model = self.desc.buoyancy;
        let vertical_only = self.desc.vertical_buoyancy_only;
        let mut out = BodyForces::default();
        let mut volume = buoyancy::SubmergedVolume::default();
        let mut wetted_area = 0.0;
        let mut wetted_moment = DVec3::ZERO;

        for tri in &self.hull.triangles {
            let piece = Tri {
                v: tri.map(|i| self.vertices[i as usize]),
                height: tri.map(|i| self.heights[i as usize]),
            };
            let clipped = clip::clip(&piece);
            for sub in clipped.submerged() {
                last.submerged.push(sub.v);
                let area = sub.area();
                wetted_area += area;
                wetted_moment += area * sub.centroid();
                volume.add(sub);
                let (mut force, point) = match model {
                    BuoyancyModel::Pressure => buoyancy::pressure(sub, rho_g),
                    BuoyancyModel::PressureCentroid => buoyancy::pressure_at_centroid(sub, rho_g),
                    _ => continue,
                };
                if vertical_only {
                    force.x = 0.0;
                    force.z = 0.0;
                }
                out.buoyancy_force += force;
                out.torque += (point - com).cross(force);
                last.forces.push(PointForce { point, force });
            }
            last.emerged.extend(clipped.emerged().iter().map(|e| e.v));
            last.waterline.extend(clipped.waterline);
        }

        let hull_info = self.hull.info();
        let area_centroid = (wetted_area > 0.0).then(|| wetted_moment / wetted_area);
        let lumped = match model {
            BuoyancyModel::Volume => volume.centroid().map(|c| (volume.volume, c)),
            BuoyancyModel::AreaRatio => {
                area_centroid.map(|c| (hull_info.volume * wetted_area / hull_info.area, c))
            }
            _ => None,
        };
        if let Some((displaced, point)) = lumped {
            let force = DVec3::new(0.0, rho_g * displaced, 0.0);
            out.buoyancy_force += force;
            out.torque += (point - com).cross(force);
            last.forces.push(PointForce { point, force });
        }

        out.force = out.buoyancy_force;
        out.submerged_volume = volume.volume.max(0.0);
        out.center_of_buoyancy = origin
            + match model {
                BuoyancyModel::AreaRatio => area_centroid,
                _ => volume.centroid().or(area_centroid),
            }
            .unwrap_or(com);
        out.submerged_area = wetted_area;
        out.wetted_ratio = (wetted_area / hull_info.area).min(1.0);
        out.submerged_triangle_count = last.submerged.len() as u32;
        out
    }

    /// Transforms every vertex once and measures its height above the water.
    fn sample_water(&mut self, state: &BodyState, env: &Environment<'_>) {
        let origin = state.position;
        for ((local, rel), height) in self
            .hull
            .positions
            .iter()
            .zip(&mut self.vertices)
            .zip(&mut self.heights)
        {
            *rel = state.rotation * *local;
            let world = origin + *rel;
            *height = world.y - env.water.height(world.x, world.z, env.time);
        }
    }

    /// The submerged pieces of the last step, world coordinates, outward winding.
    pub fn submerged_triangles(&self) -> impl ExactSizeIterator<Item = [DVec3; 3]> + '_ {
        let o = self.last.origin;
        self.last.submerged.iter().map(move |t| t.map(|p| p + o))
    }

    /// The emerged pieces of the last step, world coordinates, outward winding.
    pub fn emerged_triangles(&self) -> impl ExactSizeIterator<Item = [DVec3; 3]> + '_ {
        let o = self.last.origin;
        self.last.emerged.iter().map(move |t| t.map(|p| p + o))
    }

    /// The waterline of the last step as segments, world coordinates.
    pub fn waterline(&self) -> impl ExactSizeIterator<Item = [DVec3; 2]> + '_ {
        let o = self.last.origin;
        self.last.waterline.iter().map(move |s| s.map(|p| p + o))
    }

    /// The forces of the last step with their points of application, world coordinates;
    /// their sum and moment reproduce the step's force and torque.
    pub fn triangle_forces(&self) -> impl ExactSizeIterator<Item = PointForce> + '_ {
        let o = self.last.origin;
        self.last.forces.iter().map(move |f| PointForce {
            point: f.point + o,
            force: f.force,
        })
    }
}

/// Checks that `dt` is a usable step length.
pub(crate) fn check_dt(dt: f64) -> Result<f64> {
    positive("dt", dt)
}
