//! What a body's parameters need besides keel's own [`BodyDesc`]: the inspector's order of
//! the buoyancy models, the force switches, and the mass properties read from Godot. The
//! parameters themselves travel as a `BodyDesc` (`KeelBodyParams` and `BuoyantBody3D`
//! write their properties into one), whose defaults are the engine's.

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

/// Keel's description of a body: the host's parameters `p` (a [`BodyDesc`] whose hull,
/// mass and inertia are not read) with its hull and mass properties, checked by the
/// engine: the message says which property is wrong.
pub fn body_desc(p: &BodyDesc, hull: HullId, mass: &MassProperties) -> Result<BodyDesc, String> {
    let desc = BodyDesc {
        hull,
        mass: mass.mass,
        inertia: mass.inertia,
        inertia_rotation: mass.inertia_rotation,
        ..*p
    };
    desc.validate().map_err(|e| e.to_string())?;
    Ok(desc)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kg(mass: f64) -> MassProperties {
        MassProperties {
            mass,
            ..MassProperties::default()
        }
    }

    #[test]
    fn defaults_are_the_engines() {
        let desc = body_desc(&BodyDesc::default(), HullId(7), &kg(1000.0)).unwrap();
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
    fn the_host_gives_hull_and_mass_and_the_rest_passes_through() {
        let p = BodyDesc {
            // What the host does not own is overwritten...
            hull: HullId(99),
            mass: -5.0,
            inertia: DVec3::splat(-1.0),
            // ... and what it does passes through.
            buoyancy: BuoyancyModel::Volume,
            vertical_buoyancy_only: true,
            hull_length: 4.5,
            slamming_multiplier: 1.25,
            water_patch_cells: 12,
            ..BodyDesc::default()
        };
        let mass = MassProperties {
            mass: 80.0,
            inertia: DVec3::new(1.0, 2.0, 3.0),
            inertia_rotation: DQuat::from_rotation_x(0.2),
        };
        let d = body_desc(&p, HullId(1), &mass).unwrap();
        assert_eq!(d.hull, HullId(1));
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
    }

    #[test]
    fn the_drop_down_covers_every_model_once() {
        for i in 0..BUOYANCY_MODELS.len() as i64 {
            assert_eq!(buoyancy_index(buoyancy_model(i).unwrap()), i);
        }
        assert_eq!(buoyancy_model(-1), None);
        assert_eq!(buoyancy_model(BUOYANCY_MODELS.len() as i64), None);
    }

    #[test]
    fn bad_values_are_refused_with_their_name() {
        let bad_speed = BodyDesc {
            reference_speed: 0.0,
            ..BodyDesc::default()
        };
        assert!(
            body_desc(&bad_speed, HullId(1), &kg(1.0))
                .unwrap_err()
                .contains("reference_speed")
        );
        assert!(
            body_desc(&BodyDesc::default(), HullId(1), &kg(0.0))
                .unwrap_err()
                .contains("mass")
        );
    }
}
