//! `BuoyantBody3D`'s exported properties as keel's [`BodyDesc`]. The defaults are the
//! engine's own ([`BodyDesc::default`]), so the inspector shows what keel would use.

use glam::{DQuat, DVec3};
use keel::forces::{
    FORCE_AIR, FORCE_DAMPING, FORCE_LUMPED_RESISTANCE, FORCE_PRESSURE_DRAG, FORCE_SLAMMING, FORCE_VISCOUS,
};
use keel::{BodyDesc, BuoyancyModel, HullId};

/// The buoyancy models in the order of the inspector's drop-down.
pub const BUOYANCY_MODELS: [BuoyancyModel; 5] = [
    BuoyancyModel::Pressure,
    BuoyancyModel::PressureCentroid,
    BuoyancyModel::Volume,
    BuoyancyModel::AreaRatio,
    BuoyancyModel::None,
];

/// The model at the drop-down's `index`; `None` outside it.
pub fn buoyancy_model(index: i64) -> Option<BuoyancyModel> {
    usize::try_from(index)
        .ok()
        .and_then(|i| BUOYANCY_MODELS.get(i).copied())
}

/// The drop-down index of `model`.
pub fn buoyancy_index(model: BuoyancyModel) -> i64 {
    BUOYANCY_MODELS.iter().position(|m| *m == model).unwrap_or(0) as i64
}

/// Which forces are on, one switch each as the inspector shows them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ForceSwitches {
    /// Skin friction.
    pub viscous: bool,
    /// Pressure and suction drag.
    pub pressure_drag: bool,
    /// Slamming.
    pub slamming: bool,
    /// Air resistance.
    pub air: bool,
    /// Linear and angular damping.
    pub damping: bool,
    /// Bourg's lumped resistance.
    pub lumped_resistance: bool,
}

const SWITCH_BITS: [u32; 6] = [
    FORCE_VISCOUS,
    FORCE_PRESSURE_DRAG,
    FORCE_SLAMMING,
    FORCE_AIR,
    FORCE_DAMPING,
    FORCE_LUMPED_RESISTANCE,
];

impl ForceSwitches {
    fn as_array(self) -> [bool; 6] {
        [
            self.viscous,
            self.pressure_drag,
            self.slamming,
            self.air,
            self.damping,
            self.lumped_resistance,
        ]
    }

    /// Keel's `FORCE_*` bits.
    pub fn bits(self) -> u32 {
        self.as_array()
            .iter()
            .zip(SWITCH_BITS)
            .filter(|(on, _)| **on)
            .fold(0, |acc, (_, bit)| acc | bit)
    }

    /// The switches of keel's `FORCE_*` bits.
    pub fn from_bits(bits: u32) -> Self {
        let on = |bit: u32| bits & bit != 0;
        Self {
            viscous: on(FORCE_VISCOUS),
            pressure_drag: on(FORCE_PRESSURE_DRAG),
            slamming: on(FORCE_SLAMMING),
            air: on(FORCE_AIR),
            damping: on(FORCE_DAMPING),
            lumped_resistance: on(FORCE_LUMPED_RESISTANCE),
        }
    }
}

/// Everything of a [`BodyDesc`] that the body's inspector sets (the hull, the mass and
/// the inertia come from the node and its physics state).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyParams {
    /// Index into [`BUOYANCY_MODELS`].
    pub buoyancy_model: i64,
    /// `vertical_buoyancy_only`.
    pub vertical_buoyancy_only: bool,
    /// The force switches.
    pub forces: ForceSwitches,
    /// `hull_length`, m; 0 = the hull's local Z extent.
    pub hull_length: f64,
    /// `pressure_drag_linear`.
    pub pressure_drag_linear: f64,
    /// `pressure_drag_quadratic`.
    pub pressure_drag_quadratic: f64,
    /// `suction_drag_linear`.
    pub suction_drag_linear: f64,
    /// `suction_drag_quadratic`.
    pub suction_drag_quadratic: f64,
    /// `pressure_falloff`.
    pub pressure_falloff: f64,
    /// `suction_falloff`.
    pub suction_falloff: f64,
    /// `reference_speed`, m/s.
    pub reference_speed: f64,
    /// `slamming_power`.
    pub slamming_power: f64,
    /// `slamming_max_acceleration`, m/s^2.
    pub slamming_max_acceleration: f64,
    /// `slamming_multiplier`.
    pub slamming_multiplier: f64,
    /// `air_drag_coefficient`.
    pub air_drag_coefficient: f64,
    /// `linear_damping`.
    pub linear_damping: f64,
    /// `angular_damping`.
    pub angular_damping: f64,
    /// `added_mass_ratio`.
    pub added_mass_ratio: f64,
    /// `residual_resistance`.
    pub residual_resistance: f64,
    /// `water_patch_cells`.
    pub water_patch_cells: i64,
}

impl Default for BodyParams {
    fn default() -> Self {
        let d = BodyDesc::default();
        Self {
            buoyancy_model: buoyancy_index(d.buoyancy),
            vertical_buoyancy_only: d.vertical_buoyancy_only,
            forces: ForceSwitches::from_bits(d.forces),
            hull_length: d.hull_length,
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
            water_patch_cells: i64::from(d.water_patch_cells),
        }
    }
}

/// The body's mass and inertia as its physics state has them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MassProperties {
    /// kg.
    pub mass: f64,
    /// Principal moments, kg m^2; zero = the hull's at uniform density.
    pub inertia: DVec3,
    /// Principal axes in body axes.
    pub inertia_rotation: DQuat,
}

impl Default for MassProperties {
    fn default() -> Self {
        Self {
            mass: 1.0,
            inertia: DVec3::ZERO,
            inertia_rotation: DQuat::IDENTITY,
        }
    }
}

/// Keel's description of a body, checked by the engine: the message says which
/// property is wrong.
pub fn body_desc(p: &BodyParams, hull: HullId, mass: &MassProperties) -> Result<BodyDesc, String> {
    let buoyancy = buoyancy_model(p.buoyancy_model).ok_or_else(|| {
        format!(
            "buoyancy_model {} is not one of the {} models",
            p.buoyancy_model,
            BUOYANCY_MODELS.len()
        )
    })?;
    let water_patch_cells = u32::try_from(p.water_patch_cells)
        .map_err(|_| format!("water_patch_cells must be 0 or more, got {}", p.water_patch_cells))?;
    let desc = BodyDesc {
        hull,
        mass: mass.mass,
        buoyancy,
        vertical_buoyancy_only: p.vertical_buoyancy_only,
        forces: p.forces.bits(),
        hull_length: p.hull_length,
        pressure_drag_linear: p.pressure_drag_linear,
        pressure_drag_quadratic: p.pressure_drag_quadratic,
        suction_drag_linear: p.suction_drag_linear,
        suction_drag_quadratic: p.suction_drag_quadratic,
        pressure_falloff: p.pressure_falloff,
        suction_falloff: p.suction_falloff,
        reference_speed: p.reference_speed,
        slamming_power: p.slamming_power,
        slamming_max_acceleration: p.slamming_max_acceleration,
        slamming_multiplier: p.slamming_multiplier,
        air_drag_coefficient: p.air_drag_coefficient,
        linear_damping: p.linear_damping,
        angular_damping: p.angular_damping,
        added_mass_ratio: p.added_mass_ratio,
        residual_resistance: p.residual_resistance,
        water_patch_cells,
        inertia: mass.inertia,
        inertia_rotation: mass.inertia_rotation,
    };
    desc.validate().map_err(|e| e.to_string())?;
    Ok(desc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_engines() {
        let desc = body_desc(
            &BodyParams::default(),
            HullId(7),
            &MassProperties {
                mass: 1000.0,
                ..MassProperties::default()
            },
        )
        .unwrap();
        assert_eq!(
            desc,
            BodyDesc {
                hull: HullId(7),
                ..BodyDesc::default()
            }
        );
    }

    #[test]
    fn every_switch_is_its_own_bit() {
        let all = ForceSwitches::from_bits(keel::forces::FORCE_ALL);
        assert_eq!(all.bits(), keel::forces::FORCE_ALL);
        for bit in SWITCH_BITS {
            assert_eq!(ForceSwitches::from_bits(bit).bits(), bit);
            assert_eq!(
                ForceSwitches::from_bits(bit).as_array().iter().filter(|b| **b).count(),
                1
            );
        }
    }

    #[test]
    fn each_field_reaches_the_description() {
        let p = BodyParams {
            buoyancy_model: 2,
            vertical_buoyancy_only: true,
            hull_length: 4.5,
            slamming_multiplier: 1.25,
            water_patch_cells: 12,
            ..BodyParams::default()
        };
        let mass = MassProperties {
            mass: 80.0,
            inertia: DVec3::new(1.0, 2.0, 3.0),
            inertia_rotation: DQuat::from_rotation_x(0.2),
        };
        let d = body_desc(&p, HullId(1), &mass).unwrap();
        assert_eq!(d.buoyancy, BuoyancyModel::Volume);
        assert!(d.vertical_buoyancy_only);
        assert_eq!(
            (d.hull_length, d.slamming_multiplier, d.water_patch_cells),
            (4.5, 1.25, 12)
        );
        assert_eq!(
            (d.mass, d.inertia, d.inertia_rotation),
            (80.0, mass.inertia, mass.inertia_rotation)
        );
        for i in 0..BUOYANCY_MODELS.len() as i64 {
            assert_eq!(buoyancy_index(buoyancy_model(i).unwrap()), i);
        }
    }

    #[test]
    fn bad_values_are_refused_with_their_name() {
        let mass = MassProperties::default();
        let bad_model = BodyParams {
            buoyancy_model: 9,
            ..BodyParams::default()
        };
        assert!(
            body_desc(&bad_model, HullId(1), &mass)
                .unwrap_err()
                .contains("buoyancy_model")
        );
        let bad_speed = BodyParams {
            reference_speed: 0.0,
            ..BodyParams::default()
        };
        assert!(
            body_desc(&bad_speed, HullId(1), &mass)
                .unwrap_err()
                .contains("reference_speed")
        );
        let zero_mass = MassProperties {
            mass: 0.0,
            ..MassProperties::default()
        };
        assert!(
            body_desc(&BodyParams::default(), HullId(1), &zero_mass)
                .unwrap_err()
                .contains("mass")
        );
    }
}
