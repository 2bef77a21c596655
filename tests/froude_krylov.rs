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

/// The surface particle of the sea's velocity field that is at `x` at `t`, and its
/// acceleration by finite differences of its path, stopped at free fall (water cannot
/// pull). Along the waves that particle moves as the orbit's particle over `x` (circles
/// of radius `A`: the field's horizontal velocity is the orbit's), and it stays on the
/// drawn surface (the field's vertical velocity is the kinematic condition's): its path is
/// `(x_orbit(t), eta(x_orbit(t), t))`, the water whose velocity drag reads.
fn riding_acceleration(water: &Water, x: f64, t: f64) -> DVec3 {
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
    let rest = 0.5 * (lo + hi);
    let position = |t: f64| {
        let x = rest - AMPLITUDE * (k * rest - omega * t).sin();
        DVec3::new(x, water.sample(x, 0.0, t).height, 0.0)
    };
    // Richardson's extrapolation of two steps (sharp crests have large fourth derivatives).
    let second = |h: f64| (position(t + h) - 2.0 * position(t) + position(t - h)) / (h * h);
    let a = (4.0 * second(1e-3) - second(2e-3)) / 3.0;
    DVec3::new(a.x, a.y.max(-GRAVITY), 0.0)
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
            // The water's acceleration decays below the surface as `e^{-k d}`.
            let centre = forces.center_of_buoyancy;
            let depth = world.water().sample(centre.x, 0.0, t).height - centre.y;
            let decay = (-TAU / WAVELENGTH * depth.max(0.0)).exp();
            let want = rho * volume * (riding_acceleration(world.water(), centre.x, t) * decay + DVec3::Y * GRAVITY);
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

/// Deep under the waves the water's orbits shrink as `e^{-k d}`, and so does what they
/// press on a body: a small box held at depth `d` feels `rho V (a e^{-k d} + g y^)`, the
/// linear theory's pressure, where the drawn surface's hydrostatics alone would push it
/// down the surface's slope as hard at 10 m as at the top.
#[test]
fn a_body_deep_under_the_waves_feels_the_waters_decayed_acceleration() {
    let size: f64 = 0.1;
    let rho = WorldDesc::default().water_density;
    let k = TAU / WAVELENGTH;
    for steepness in [0.0, 0.5, 0.8] {
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
        let t = 2.1;
        world.set_time(t).unwrap();
        let hull = world.create_box_hull(Vec3::splat(size as f32)).unwrap();
        let id = world
            .create_body(&BodyDesc {
                hull,
                ..BodyDesc::default()
            })
            .unwrap();
        let volume = size.powi(3);
        for depth in [1.0, 3.0, 10.0] {
            let mut worst = 0.0f64;
            for i in 0..16 {
                let x = i as f64 * WAVELENGTH / 16.0;
                let water = world.water().sample(x, 0.0, t);
                let position = DVec3::new(x, water.height - depth, 0.0);
                let state = BodyState {
                    position,
                    rotation: DQuat::IDENTITY,
                    linear_velocity: DVec3::ZERO,
                    angular_velocity: DVec3::ZERO,
                    center_of_mass: position,
                };
                let forces = world.step_body(id, &state, 1.0 / 120.0).unwrap();
                assert!((forces.submerged_volume - volume).abs() < 1e-6 * volume);
                let decayed = riding_acceleration(world.water(), x, t) * (-k * depth).exp();
                let want = rho * volume * (decayed + DVec3::Y * GRAVITY);
                // Against the size of the acceleration's part, which is what decays.
                let scale = rho * volume * AMPLITUDE * GRAVITY * k;
                worst = worst.max((forces.buoyancy_force - want).length() / scale);
            }
            println!(
                "Q {steepness}, {depth} m down: within {:.4} % of the surface acceleration term (undecayed: off by {:.0} %)",
                100.0 * worst,
                100.0 * (1.0 - (-k * depth).exp())
            );
            assert!(
                worst < 0.03,
                "Q {steepness} at {depth} m: off by {:.2} % of the surface's acceleration term",
                100.0 * worst
            );
        }
    }
}
