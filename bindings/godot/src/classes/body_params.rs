//! `KeelBodyParams`: how the water and the air act on a hull, one resource shared by as
//! many `BuoyantBody3D` as use it (the way a `PhysicsMaterial` is shared).

use godot::prelude::*;
use keel::BodyDesc;

use crate::logic::params::{BUOYANCY_MODELS, ForceSwitches, buoyancy_index, buoyancy_model};

/// How the water and the air act on a floating body: the buoyancy model, which forces are
/// on, and their coefficients. One resource can serve many `BuoyantBody3D` (save it as a
/// `.tres` and give it to every crate of a kind); editing it changes them all at their
/// next physics frame. A body without one uses the defaults, which are Keel's own. What
/// depends on the hull itself (its mesh, `hull_length`, `water_patch_cells`) stays on the
/// body, as a RigidBody3D's mass stays on the body while its friction is a
/// PhysicsMaterial's.
#[derive(GodotClass)]
#[class(tool, base=Resource)]
pub struct KeelBodyParams {
    base: Base<Resource>,
    /// How buoyancy is computed: pressure on every submerged triangle at its exact centre
    /// of pressure (BUOYANCY_PRESSURE, the default), at its centroid (Kerner,
    /// BUOYANCY_PRESSURE_CENTROID), the submerged volume at its centroid (closed hulls,
    /// BUOYANCY_VOLUME), the wetted area's share of the hull's volume (BUOYANCY_AREA_RATIO),
    /// or none (BUOYANCY_NONE). Other values are refused with an error.
    #[export_group(name = "Buoyancy")]
    #[export(enum = (Pressure = 0, PressureCentroid = 1, Volume = 2, AreaRatio = 3, None = 4))]
    #[var(set = set_buoyancy_model)]
    buoyancy_model: i64,
    /// Keep only the vertical part of the hydrostatic force (as the thesis does).
    #[export]
    vertical_buoyancy_only: bool,
    /// On Gerstner water, add the water's inertia the drawn surface's pressure misses (the
    /// Froude-Krylov force): small bodies ride the waves' orbits instead of sliding down
    /// sharpened crests. Off: the drawn surface's hydrostatics alone, as the thesis.
    #[export]
    froude_krylov: bool,

    /// Skin friction along the hull.
    #[export_group(name = "Forces")]
    #[export]
    viscous_force: bool,
    /// Pressure and suction drag on faces moving through the water.
    #[export]
    pressure_drag_force: bool,
    /// Slamming when the hull hits the water.
    #[export]
    slamming_force: bool,
    /// Air resistance on what is above the water.
    #[export]
    air_force: bool,
    /// Linear and angular damping, scaled by the wetted share of the hull.
    #[export]
    damping_force: bool,
    /// Bourg's lumped hull resistance instead of per-triangle drag.
    #[export]
    lumped_resistance_force: bool,

    /// Linear pressure drag coefficient C_PD1, N/m^2.
    #[export_group(name = "Pressure Drag")]
    #[export(range = (0.0, 10000.0, 1.0, or_greater))]
    pressure_drag_linear: f64,
    /// Quadratic pressure drag coefficient C_PD2, N/m^2.
    #[export(range = (0.0, 10000.0, 1.0, or_greater))]
    pressure_drag_quadratic: f64,
    /// Linear suction drag coefficient C_SD1, N/m^2.
    #[export(range = (0.0, 10000.0, 1.0, or_greater))]
    suction_drag_linear: f64,
    /// Quadratic suction drag coefficient C_SD2, N/m^2.
    #[export(range = (0.0, 10000.0, 1.0, or_greater))]
    suction_drag_quadratic: f64,
    /// Pressure falloff power f_P.
    #[export(range = (0.0, 4.0, 0.01, or_greater))]
    pressure_falloff: f64,
    /// Suction falloff power f_S.
    #[export(range = (0.0, 4.0, 0.01, or_greater))]
    suction_falloff: f64,
    /// Reference speed v_r of the drag, m/s.
    #[export(range = (0.01, 100.0, 0.01, or_greater, suffix = "m/s"))]
    reference_speed: f64,

    /// Slamming power p.
    #[export_group(name = "Slamming")]
    #[export(range = (0.0, 8.0, 0.01, or_greater))]
    slamming_power: f64,
    /// Cap of the slamming acceleration, m/s^2; 0 = from speed and step.
    #[export(range = (0.0, 1000.0, 0.1, or_greater, suffix = "m/s2"))]
    slamming_max_acceleration: f64,
    /// Slamming force multiplier.
    #[export(range = (0.0, 20.0, 0.01, or_greater))]
    slamming_multiplier: f64,

    /// Air drag coefficient.
    #[export_group(name = "Air and Damping")]
    #[export(range = (0.0, 4.0, 0.01, or_greater))]
    air_drag_coefficient: f64,
    /// Linear damping, N per m/s, times the wetted share.
    #[export(range = (0.0, 10000.0, 1.0, or_greater))]
    linear_damping: f64,
    /// Angular damping, N m per rad/s, times the wetted share.
    #[export(range = (0.0, 10000.0, 1.0, or_greater))]
    angular_damping: f64,
    /// Added-mass ratio (while wet, the body moves as if its mass were m (1 + ratio),
    /// relative to the water on Gerstner seas: a body riding the waves feels none).
    #[export(range = (0.0, 4.0, 0.01, or_greater))]
    added_mass_ratio: f64,
    /// Residual-resistance coefficient C_r of the lumped resistance.
    #[export(range = (0.0, 0.1, 0.0001, or_greater))]
    residual_resistance: f64,
}

#[godot_api]
impl IResource for KeelBodyParams {
    fn init(base: Base<Resource>) -> Self {
        Self::from_desc(base, &BodyDesc::default())
    }
}

#[godot_api]
impl KeelBodyParams {
    /// `buoyancy_model`: pressure at each triangle's exact centre of pressure.
    #[constant]
    pub const BUOYANCY_PRESSURE: i64 = 0;
    /// `buoyancy_model`: pressure at each triangle's centroid (Kerner).
    #[constant]
    pub const BUOYANCY_PRESSURE_CENTROID: i64 = 1;
    /// `buoyancy_model`: the submerged volume at its centroid (closed hulls).
    #[constant]
    pub const BUOYANCY_VOLUME: i64 = 2;
    /// `buoyancy_model`: the wetted area's share of the hull's volume.
    #[constant]
    pub const BUOYANCY_AREA_RATIO: i64 = 3;
    /// `buoyancy_model`: no buoyancy.
    #[constant]
    pub const BUOYANCY_NONE: i64 = 4;

    /// Sets `buoyancy_model`; a value that is not one of the BUOYANCY_* constants is
    /// refused with an error and the model stays as it was.
    #[func]
    pub fn set_buoyancy_model(&mut self, model: i64) {
        if buoyancy_model(model).is_none() {
            godot_error!(
                "KeelBodyParams.buoyancy_model: {model} is not a model; use one of KeelBodyParams.BUOYANCY_* (0 to {}). \
                 Kept {}.",
                BUOYANCY_MODELS.len() - 1,
                self.buoyancy_model
            );
            return;
        }
        self.buoyancy_model = model;
    }
}

impl KeelBodyParams {
    fn from_desc(base: Base<Resource>, d: &BodyDesc) -> Self {
        let f = ForceSwitches::from_bits(d.forces);
        Self {
            base,
            buoyancy_model: buoyancy_index(d.buoyancy),
            vertical_buoyancy_only: d.vertical_buoyancy_only,
            froude_krylov: d.froude_krylov,
            viscous_force: f.viscous,
            pressure_drag_force: f.pressure_drag,
            slamming_force: f.slamming,
            air_force: f.air,
            damping_force: f.damping,
            lumped_resistance_force: f.lumped_resistance,
            pressure_drag_linear: d.pressure_drag_linear,
            pressure_drag_quadratic: d.pressure_drag_quadratic,
            suction_drag_linear: d.suction_drag_linear,
            suction_drag_quadratic: d.suction_drag_quadratic,
            pressure_falloff: d.pressure_falloff,
            suction_falloff: d.suction_falloff,
            reference_speed: d.reference_speed,
            slamming_power: d.slamming_power,
            slamming_max_acceleration: d.slamming_max_acceleration,
            slamming_multiplier: d.slamming_multiplier,
            air_drag_coefficient: d.air_drag_coefficient,
            linear_damping: d.linear_damping,
            angular_damping: d.angular_damping,
            added_mass_ratio: d.added_mass_ratio,
            residual_resistance: d.residual_resistance,
        }
    }

    /// These parameters written into `desc` (whose hull, mass, inertia, hull length and
    /// patch size the body gives).
    pub fn write(&self, desc: &mut BodyDesc) {
        // The setter keeps the model in range; the fallback is for a corrupt resource file.
        desc.buoyancy = buoyancy_model(self.buoyancy_model).unwrap_or_default();
        desc.vertical_buoyancy_only = self.vertical_buoyancy_only;
        desc.froude_krylov = self.froude_krylov;
        desc.forces = ForceSwitches {
            viscous: self.viscous_force,
            pressure_drag: self.pressure_drag_force,
            slamming: self.slamming_force,
            air: self.air_force,
            damping: self.damping_force,
            lumped_resistance: self.lumped_resistance_force,
        }
        .bits();
        desc.pressure_drag_linear = self.pressure_drag_linear;
        desc.pressure_drag_quadratic = self.pressure_drag_quadratic;
        desc.suction_drag_linear = self.suction_drag_linear;
        desc.suction_drag_quadratic = self.suction_drag_quadratic;
        desc.pressure_falloff = self.pressure_falloff;
        desc.suction_falloff = self.suction_falloff;
        desc.reference_speed = self.reference_speed;
        desc.slamming_power = self.slamming_power;
        desc.slamming_max_acceleration = self.slamming_max_acceleration;
        desc.slamming_multiplier = self.slamming_multiplier;
        desc.air_drag_coefficient = self.air_drag_coefficient;
        desc.linear_damping = self.linear_damping;
        desc.angular_damping = self.angular_damping;
        desc.added_mass_ratio = self.added_mass_ratio;
        desc.residual_resistance = self.residual_resistance;
    }
}
