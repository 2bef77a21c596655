//! A body small against the waves feels the water's Froude-Krylov force: Euler's equation
//! `grad p = -rho (a + g y^)` integrated over its submerged volume gives `rho V (a + g y^)`,
//! `a` the acceleration of the water's particles, whatever shape the crests are drawn
//! with (issue 40; `src/water/froude_krylov.rs`). The drawn surface's hydrostatic pressure
//! alone gives `rho g V (-grad eta, 1)` instead, which on a crest drawn sharper than the
//! orbits (steepness `Q` above `k A`) pushes several times harder along the waves than the
//! water accelerates. `BodyDesc::froude_krylov` false keeps the hydrostatics alone.

use std::f64::consts::TAU;

use glam::{DQuat, DVec2, DVec3, Vec3};
use keel::{BodyDesc, BodyState, GerstnerWater, GerstnerWave, Water, WaterSurface, World, WorldDesc};

const AMPLITUDE: f64 = 0.5;
const WAVELENGTH: f64 = 40.0;
const GRAVITY: f64 = 9.81;

/// The surface particle of the sea's orbits (circles of radius `A`) that is over `x` at
/// `t`, and its acceleration `omega^2` times its displacement from its orbit's centre.
fn orbit_acceleration(x: f64, t: f64) -> DVec3 {
    let k = TAU / WAVELENGTH;
    let omega = (GRAVITY * k).sqrt();
    // x = x0 - A sin(k x0 - omega t): bisection on the monotonic map.
    let (mut lo, mut hi) = (x - 2.0 * AMPLITUDE, x + 2.0 * AMPLITUDE);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid - AMPLITUDE * (k * mid - omega * t).sin() > x {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let phi = k * (0.5 * (lo + hi)) - omega * t;
    omega * omega * AMPLITUDE * DVec3::new(phi.sin(), -phi.cos(), 0.0)
}

#[test]
fn a_small_body_feels_the_waters_acceleration_not_the_drawn_slope() {
    let size: f64 = 0.1;
    let rho = WorldDesc::default().water_density;
    for steepness in [0.0, 0.25, 0.5, 0.8] {
        let mut world = World::new(&WorldDesc {
            gravity: GRAVITY,
            ..WorldDesc::default()
        })
        .unwrap();
        let wave = GerstnerWave {
            amplitude: AMPLITUDE,
            wavelength: WAVELENGTH,
            direction: DVec2::X,
            steepness,
            phase: 0.0,
        };
        world.set_water(Water::Gerstner(GerstnerWater::new(&[wave], 0.0, GRAVITY).unwrap()));
        let t = 1.3;
        world.set_time(t).unwrap();
        let hull = world.create_box_hull(Vec3::splat(size as f32)).unwrap();
        let id = world
            .create_body(&BodyDesc {
                hull,
                ..BodyDesc::default()
            })
            .unwrap();
        let thesis = world
            .create_body(&BodyDesc {
                hull,
                froude_krylov: false,
                ..BodyDesc::default()
            })
            .unwrap();
        let (mut worst, mut worst_slope, mut worst_thesis) = (0.0f64, 0.0f64, 0.0f64);
        for i in 0..64 {
            let x = i as f64 * WAVELENGTH / 64.0;
            let water = world.water().sample(x, 0.0, t);
            // Half under the drawn surface, moving with the water (no drag then).
            let position = DVec3::new(x, water.height, 0.0);
            let state = BodyState {
                position,
                rotation: DQuat::IDENTITY,
                linear_velocity: water.velocity,
                angular_velocity: DVec3::ZERO,
                center_of_mass: position,
            };
            let forces = world.step_body(id, &state, 1.0 / 120.0).unwrap();
            let volume = forces.submerged_volume;
            assert!(
                volume > 0.2 * size.powi(3),
                "Q {steepness} x {x}: {volume} m^3 under water"
            );
            let weight = rho * GRAVITY * volume;
            let want = rho * volume * (orbit_acceleration(forces.center_of_buoyancy.x, t) + DVec3::Y * GRAVITY);
            let error = (forces.buoyancy_force - want).length() / weight;
            worst = worst.max(error);
            // Hydrostatics alone: `rho g V (-d eta / dx, 1)`, with `-d eta / dx = n_x / n_y`.
            let alone = DVec3::new(water.normal.x / water.normal.y, 1.0, 0.0) * weight;
            worst_slope = worst_slope.max((alone - want).length() / weight);
            // Without the correction, the body feels exactly that.
            let drawn = world.step_body(thesis, &state, 1.0 / 120.0).unwrap();
            worst_thesis = worst_thesis.max((drawn.buoyancy_force - alone).length() / weight);
        }
        println!(
            "Q {steepness}: buoyancy within {:.3} % of rho V (a + g y), the drawn surface's \
             hydrostatics alone within {:.1} % (of the buoyancy)",
            100.0 * worst,
            100.0 * worst_slope
        );
        assert!(
            worst < 0.02,
            "Q {steepness}: off by {:.2} % of the buoyancy",
            100.0 * worst
        );
    }
}
