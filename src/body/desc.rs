//! A body's description (`BodyDesc`) and its checks, and the part of it a step reads.

use glam::{DMat3, DQuat, DVec3};

use super::state::MAX_MASS;
use crate::error::{Error, Result, non_negative_up_to, positive};
use crate::forces::pressure_drag::DragCoefficients;
use crate::forces::{FORCE_ALL, FORCE_DEFAULT, FORCE_LUMPED_RESISTANCE, FORCE_PER_TRIANGLE_RESISTANCE};
use crate::handle::HullId;
use crate::hull::Hull;

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
    /// On Gerstner seas, add the water's inertia that the drawn surface's hydrostatic
    /// pressure misses, so that the body feels the Froude-Krylov force of the water's
    /// particles (`crate::water::Water::froude_krylov`): default true; false keeps the
    /// drawn surface's hydrostatics alone (Kerner's and the thesis's model).
    pub froude_krylov: bool,
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
    /// Bourg's added-mass ratio `x` (while any of it is wet, the body moves as if its
    /// mass were `m (1 + x)`, relative to the water where a Gerstner sea gives its
    /// acceleration; out of the water it has none: `crate::forces::added_mass`).
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
            froude_krylov: true,
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
}

/// What a step reads of a [`BodyDesc`]: every number of the force model, without the
/// hull's id (the body holds its hull), the water patch's size (read when the
/// description is set) and the host's inertia (kept aside, [`HostInertia`]). A body keeps
/// it among the fields every step reads (`Body` is `repr(C)`, hot fields first): 144
/// bytes where the whole description is 216, which 10000 small bodies feel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct StepDesc {
    pub mass: f64,
    pub buoyancy: BuoyancyModel,
    pub vertical_buoyancy_only: bool,
    pub froude_krylov: bool,
    pub forces: u32,
    pub hull_length: f64,
    pub pressure_drag_linear: f64,
    pub pressure_drag_quadratic: f64,
    pub suction_drag_linear: f64,
    pub suction_drag_quadratic: f64,
    pub pressure_falloff: f64,
    pub suction_falloff: f64,
    pub reference_speed: f64,
    pub slamming_power: f64,
    pub slamming_max_acceleration: f64,
    pub slamming_multiplier: f64,
    pub air_drag_coefficient: f64,
    pub linear_damping: f64,
    pub angular_damping: f64,
    pub added_mass_ratio: f64,
    pub residual_resistance: f64,
}

impl StepDesc {
    /// Which parts of the Froude-Krylov correction (`crate::water::Water::froude_krylov`)
    /// the body's buoyancy takes: `(vertical, horizontal)`. Any buoyancy has the vertical
    /// part; only the pressure on the triangles with its horizontal part has the slope's
    /// push that the horizontal part corrects (the volume models and vertical buoyancy
    /// have none). Neither when the body asks for the drawn surface's hydrostatics alone.
    pub(crate) fn feels_froude_krylov(&self) -> (bool, bool) {
        let horizontal = matches!(self.buoyancy, BuoyancyModel::Pressure | BuoyancyModel::PressureCentroid)
            && !self.vertical_buoyancy_only;
        (
            self.froude_krylov && self.buoyancy != BuoyancyModel::None,
            self.froude_krylov && horizontal,
        )
    }

    /// The part of `desc` a step reads.
    pub(crate) fn of(desc: &BodyDesc) -> Self {
        Self {
            mass: desc.mass,
            buoyancy: desc.buoyancy,
            vertical_buoyancy_only: desc.vertical_buoyancy_only,
            froude_krylov: desc.froude_krylov,
            forces: desc.forces,
            hull_length: desc.hull_length,
            pressure_drag_linear: desc.pressure_drag_linear,
            pressure_drag_quadratic: desc.pressure_drag_quadratic,
            suction_drag_linear: desc.suction_drag_linear,
            suction_drag_quadratic: desc.suction_drag_quadratic,
            pressure_falloff: desc.pressure_falloff,
            suction_falloff: desc.suction_falloff,
            reference_speed: desc.reference_speed,
            slamming_power: desc.slamming_power,
            slamming_max_acceleration: desc.slamming_max_acceleration,
            slamming_multiplier: desc.slamming_multiplier,
            air_drag_coefficient: desc.air_drag_coefficient,
            linear_damping: desc.linear_damping,
            angular_damping: desc.angular_damping,
            added_mass_ratio: desc.added_mass_ratio,
            residual_resistance: desc.residual_resistance,
        }
    }

    /// Whether the force `bit` (a `FORCE_*`) is on.
    #[inline(always)]
    pub(crate) fn on(&self, bit: u32) -> bool {
        self.forces & bit != 0
    }

    pub(crate) fn drag_coefficients(&self) -> DragCoefficients {
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

/// The host's inertia as the limiter reads it, worked out once when the description is
/// set rather than at every step: its principal moments and the matrix of their axes in
/// body axes (the same numbers the step computed from the description's quaternion, so
/// the same bits).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct HostInertia {
    pub moments: DVec3,
    pub axes: DMat3,
}

impl HostInertia {
    /// The host's inertia of `desc`, if it gives one (all zero: the hull's, at uniform
    /// density).
    pub(crate) fn of(desc: &BodyDesc) -> Option<Self> {
        (desc.inertia != DVec3::ZERO).then(|| Self {
            moments: desc.inertia,
            axes: DMat3::from_quat(desc.inertia_rotation.normalize()),
        })
    }
}
