//! From command-line choices to a world with a body: mass, centre of mass, water, start.

use glam::{DQuat, DVec2, DVec3};
use keel::hydrostatics::{self, Equilibrium, Loading, Pose};
use keel::water::spectrum::{self, Spectrum};
use keel::{BodyDesc, GerstnerWater, GerstnerWave, PerlinWater, Water, World, WorldDesc};

use crate::error::{CliError, Result};
use crate::mesh::Mesh;
use crate::sim::{RigidBody, Scene};

/// The water surfaces `keel simulate` offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum WaterKind {
    /// A level plane at y = 0.
    Flat,
    /// The thesis's Perlin-noise waves.
    Perlin,
    /// Three Gerstner waves of `--wave-height`.
    Gerstner,
    /// A Pierson-Moskowitz sea for a wind of `--wind` m/s.
    Spectrum,
}

/// How heavy and where: `--mass` or `--density`, and `--cog`.
#[derive(Clone, Copy, Debug, Default)]
pub struct MassChoice {
    pub mass: Option<f64>,
    pub density: Option<f64>,
    pub cog: Option<DVec3>,
}

/// Parses "x,y,z".
pub fn parse_vec3(text: &str) -> std::result::Result<DVec3, String> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.len() != 3 {
        return Err(format!("expected x,y,z, got {text:?}"));
    }
    let mut v = [0.0; 3];
    for (slot, part) in v.iter_mut().zip(&parts) {
        *slot = part.parse::<f64>().map_err(|e| format!("{part:?}: {e}"))?;
        if !slot.is_finite() {
            return Err(format!("{part:?} is not finite"));
        }
    }
    Ok(DVec3::from_array(v))
}

/// The world with its hull, a body of the chosen mass and its loading on flat water.
pub struct Built {
    pub world: World,
    pub hull: keel::HullId,
    pub body: keel::BodyId,
    pub load: Loading,
}

/// Every subcommand's one gate for a hull: a mesh keel refuses is exit 5, an open or
/// flat one (no volume to float on: `hydrostatics` could not answer, `simulate` would
/// report forces of a hull that cannot hold water out) exit 8.
pub fn build(mesh: &Mesh, choice: &MassChoice, forces: u32) -> Result<Built> {
    let mut world = World::new(&WorldDesc {
        thread_count: 1,
        ..WorldDesc::default()
    })?;
    let hull = world.create_hull(&mesh.desc())?;
    let info = world.hull_info(hull)?;
    if !info.is_closed || info.volume.is_nan() || info.volume <= 0.0 {
        return Err(CliError::new(
            crate::error::Exit::OpenHull,
            "the hull is open (or flat): it has no volume to float on; close its holes",
        ));
    }
    let mass = match (choice.mass, choice.density) {
        (Some(_), Some(_)) => return Err(CliError::argument("give --mass or --density, not both")),
        (Some(m), None) => m,
        (None, Some(d)) => {
            if !(d.is_finite() && d > 0.0) {
                return Err(CliError::argument(format!("--density must be positive, got {d}")));
            }
            d * info.volume
        }
        (None, None) => return Err(CliError::argument("give the body's --mass (kg) or --density (kg/m^3)")),
    };
    if !(mass.is_finite() && mass > 0.0) {
        return Err(CliError::argument(format!("the mass must be positive, got {mass} kg")));
    }
    let desc = BodyDesc {
        hull,
        mass,
        forces,
        ..BodyDesc::default()
    };
    let body = world.create_body(&desc)?;
    let load = Loading {
        mass,
        com_local: choice.cog.unwrap_or(info.centroid),
        water_density: world.desc().water_density,
        gravity: world.desc().gravity,
        level: 0.0,
    };
    Ok(Built {
        world,
        hull,
        body,
        load,
    })
}

/// Sets the world's water; `wave_height` is the Gerstner and Perlin height, `wind` the
/// spectrum's wind speed.
pub fn set_water(world: &mut World, kind: WaterKind, wave_height: f64, wind: f64) -> Result<()> {
    let g = world.desc().gravity;
    let water = match kind {
        WaterKind::Flat => Water::Flat(keel::FlatWater { level: 0.0 }),
        WaterKind::Perlin => Water::Perlin(Box::new(PerlinWater::new(0.0, 0.1, 0.5, wave_height, false)?)),
        WaterKind::Gerstner => {
            let a = wave_height / 2.0;
            let waves = [
                (a, 24.0, DVec2::new(1.0, 0.3), 0.0),
                (a * 0.5, 11.0, DVec2::new(0.6, -0.8), 1.3),
                (a * 0.25, 5.0, DVec2::new(-0.2, 1.0), 2.1),
            ]
            .map(|(amplitude, wavelength, direction, phase)| GerstnerWave {
                amplitude,
                wavelength,
                direction,
                // 0.3 each: the sum (0.9) stays below 1, where the crests would fold.
                steepness: 0.3,
                phase,
            });
            Water::Gerstner(GerstnerWater::new(&waves, 0.0, g)?)
        }
        WaterKind::Spectrum => {
            let waves = spectrum::waves(Spectrum::PiersonMoskowitz, wind, DVec2::new(1.0, 0.2), 32, 7, g)?;
            Water::Gerstner(GerstnerWater::new(&waves, 0.0, g)?)
        }
    };
    world.set_water(water);
    Ok(())
}

/// A start rotation: heel about the body's length (Z), then trim about its beam (X).
pub fn tilt(heel_degrees: f64, trim_degrees: f64) -> DQuat {
    DQuat::from_rotation_x(trim_degrees.to_radians()) * DQuat::from_rotation_z(heel_degrees.to_radians())
}

/// The equilibrium on flat water from an upright (or `rotation`) start at the origin.
pub fn equilibrium(built: &Built, rotation: DQuat) -> Result<Equilibrium> {
    let start = Pose {
        position: DVec3::ZERO,
        rotation,
    };
    Ok(hydrostatics::find_body_equilibrium(
        &built.world,
        built.body,
        built.load.com_local,
        &start,
    )?)
}

/// The scene's rigid body at rest at `pose`, with the hull's solid inertia.
pub fn scene(name: &str, built: Built, mesh: Mesh, pose: Pose) -> Result<Scene> {
    let inertia = {
        let body = built.world.body(built.body)?;
        hydrostatics::uniform_inertia(body.hull(), built.load.mass, built.load.com_local)
    };
    let rigid = RigidBody {
        mass: built.load.mass,
        inertia,
        com_local: built.load.com_local,
        position: pose.position,
        rotation: pose.rotation,
        velocity: DVec3::ZERO,
        angular_velocity: DVec3::ZERO,
    };
    Ok(Scene {
        name: name.to_string(),
        world: built.world,
        hull: built.hull,
        body: built.body,
        rigid,
        mesh,
    })
}
