//! Issue 40: waves move floating bodies the way the sea does. A box floats on one wave
//! (amplitude 0.5 m, wavelength 40 m), all default forces, at 0.4 of water's density,
//! integrated as an engine does (semi-implicit Euler, dt 1/120 s, the world's clock
//! advanced before every step); its mean velocity along the waves over whole wave
//! periods, once its start has settled, is compared with the scale of wave-induced drift,
//! the Stokes drift `omega k A^2` (0.049 m/s here):
//!
//! - a small box rides the water's orbit: it sways along the waves by the orbit's
//!   radius `A` (a body the water does not move sways by nothing);
//! - on the sea's orbits (closed: a trochoidal wave carries nothing), boxes up to a
//!   fortieth of the wavelength drift by at most 0.2 of it either way for steepness 0 to
//!   0.8: the water's velocity is the orbits', and the Froude-Krylov force takes back what
//!   a crest drawn sharper than the orbits pushes beyond the water's acceleration;
//! - bodies up to a tenth of the wavelength, corner-up cubes and level rafts, drift by at
//!   most 0.2 of it either way for steepness 0 to 0.8;
//! - on a sine wave with linear (Airy) theory's velocities, whose particles drift at the
//!   Stokes drift, a small box drifts with them, within 30 %.
//!
//! The box starts where the water moves straight up, with the water's velocity; what is
//! left of the start falls off over some 40 s, so the drift is measured over 8 periods
//! after 16 (`examples/wave_drift.rs`, the tables of docs/WAVES.md, measures over 32).

mod common;

use std::f64::consts::TAU;

use common::sim::RigidBody;
use glam::{DQuat, DVec2, DVec3};
use keel::{BodyDesc, GerstnerVelocities, GerstnerWater, GerstnerWave, Water, WaterSurface, World, WorldDesc};

const AMPLITUDE: f64 = 0.5;
const WAVELENGTH: f64 = 40.0;
const GRAVITY: f64 = 9.81;
/// Wave periods (5.06 s) before the drift is measured: what is left of the start (the
/// box meets the water's orbit with its own motion) falls off over some 40 s.
const SETTLE: usize = 16;
/// Wave periods the drift is measured over.
const MEASURE: usize = 8;

fn k() -> f64 {
    TAU / WAVELENGTH
}

fn omega() -> f64 {
    (GRAVITY * k()).sqrt()
}

/// The Stokes drift at the surface, `omega k A^2`, m/s.
fn stokes() -> f64 {
    omega() * k() * AMPLITUDE * AMPLITUDE
}

/// How a box of side `size` moved along the waves once settled: its mean velocity over
/// [`MEASURE`] periods in Stokes drifts, and half its range of positions over the last
/// period (its sway) in amplitudes.
fn drift(size: f64, steepness: f64, velocities: GerstnerVelocities) -> (f64, f64) {
    drift_of(Floater::cube(size), steepness, velocities)
}

/// What floats: a box `size` long and wide and `height` times that high, with Bourg's
/// added-mass ratio `added_mass`.
#[derive(Clone, Copy, Debug)]
struct Floater {
    size: f64,
    height: f64,
    added_mass: f64,
}

impl Floater {
    fn cube(size: f64) -> Self {
        Floater {
            size,
            height: 1.0,
            added_mass: 0.0,
        }
    }
}

/// [`drift`] for any [`Floater`].
fn drift_of(floater: Floater, steepness: f64, velocities: GerstnerVelocities) -> (f64, f64) {
    let size = floater.size;
    let dims = DVec3::new(size, size * floater.height, size);
    let mut world = World::new(&WorldDesc {
        gravity: GRAVITY,
        thread_count: 1,
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
    let sea = GerstnerWater::new(&[wave], 0.0, GRAVITY)
        .unwrap()
        .with_velocities(velocities);
    world.set_water(Water::Gerstner(sea));
    let hull = world.create_box_hull(dims.as_vec3()).unwrap();
    let mass = 0.4 * world.desc().water_density * dims.x * dims.y * dims.z;
    let id = world
        .create_body(&BodyDesc {
            hull,
            mass,
            added_mass_ratio: floater.added_mass,
            ..BodyDesc::default()
        })
        .unwrap();
    // Floating at its draught (0.4 of its side) where the water moves straight up (its
    // orbit's quarter after the crest), with the water: a box dropped at rest into water
    // moving along is pushed by it and sheds that push over some 40 s (the drift's
    // transient, not its mean).
    let x = WAVELENGTH / 4.0 - AMPLITUDE;
    let water = world.water().sample(x, 0.0, 0.0);
    let start = DVec3::new(x, water.height + 0.1 * dims.y, 0.0);
    let mut body = RigidBody::homogeneous_box(dims, mass, start, DQuat::IDENTITY);
    body.velocity = water.velocity;
    let dt = 1.0 / 120.0;
    let period = TAU / omega();
    let steps = |periods: usize| (periods as f64 * period / dt).round() as usize;
    let (settle, measure, last) = (steps(SETTLE), steps(MEASURE), steps(1));
    let mut from = 0.0;
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for i in 0..settle + measure {
        if i == settle {
            from = body.position.x;
        }
        if i + last >= settle + measure {
            (lo, hi) = (lo.min(body.position.x), hi.max(body.position.x));
        }
        // The water moves on: the world's clock is the host's to set.
        world.set_time(i as f64 * dt).unwrap();
        let forces = world.step_body(id, &body.state(), dt).unwrap();
        body.integrate(forces.force, forces.torque, GRAVITY, dt);
        assert!(body.is_finite(), "step {i}: {body:?}");
    }
    let mean = (body.position.x - from) / (measure as f64 * dt);
    (mean / stokes(), (hi - lo) / 2.0 / AMPLITUDE)
}

#[test]
fn small_bodies_ride_the_orbits_and_drift_neither_way() {
    for size in [0.25, 0.5, 1.0] {
        for steepness in [0.0, 0.25, 0.5, 0.8] {
            let (d, sway) = drift(size, steepness, GerstnerVelocities::Orbits);
            println!("{size} m box, Q {steepness}: {d:+.3} Stokes drifts, sway {sway:.2} A");
            assert!(
                d.abs() <= 0.2,
                "{size} m box, Q {steepness}: drift {d:+.3} Stokes drifts"
            );
            assert!(
                (sway - 1.0).abs() <= 0.1,
                "{size} m box, Q {steepness}: sways {sway:.2} A, not with the water"
            );
        }
    }
}

/// Cubes float corner-up (they are not stable upright at 0.4 of water's density) and turn
/// slowly about the vertical; rafts (0.3 as high as long) ride level and pitch with the
/// drawn slope, which on crests drawn sharper than the orbits made them creep back at up
/// to 0.43 Stokes drifts before the Froude-Krylov correction took the riding water's
/// acceleration and its moment (docs/WAVES.md).
#[test]
fn bodies_up_to_a_tenth_of_the_wavelength_drift_neither_way() {
    let mut floaters: Vec<Floater> = [2.0, 4.0].into_iter().map(Floater::cube).collect();
    floaters.extend([0.5, 1.0, 2.0, 4.0].map(|size| Floater {
        size,
        height: 0.3,
        added_mass: 0.0,
    }));
    for floater in floaters {
        for steepness in [0.0, 0.25, 0.5, 0.8] {
            let (d, sway) = drift_of(floater, steepness, GerstnerVelocities::Orbits);
            println!("{floater:?}, Q {steepness}: {d:+.3} Stokes drifts, sway {sway:.2} A");
            assert!(
                d.abs() <= 0.2,
                "{floater:?}, Q {steepness}: drift {d:+.3} Stokes drifts"
            );
        }
    }
}

#[test]
fn a_small_body_on_linear_waves_drifts_at_the_stokes_drift() {
    for size in [0.25, 0.5] {
        let (d, sway) = drift(size, 0.0, GerstnerVelocities::Linear);
        println!("{size} m box, linear velocities: {d:+.3} Stokes drifts, sway {sway:.2} A");
        assert!((d - 1.0).abs() <= 0.3, "{size} m box: drift {d:+.3} Stokes drifts");
    }
}

/// Added mass resists a body's acceleration relative to the water (Morison), not its
/// acceleration: with Bourg's ratio at 1, rafts (0.3 as high as long, stable upright)
/// still ride the orbits of a sine wave, of the sea's own trochoid and of sharper crests.
/// (Bourg's form
/// alone, which ignores the water's acceleration, made the 0.5 m raft on the sine sway by
/// 0.78 of the orbit and drift against the waves at 0.22 Stokes drifts here.)
#[test]
fn added_mass_rides_the_orbits_with_the_water() {
    for size in [0.5, 1.0, 2.0] {
        for steepness in [0.0, k() * AMPLITUDE, 0.5, 0.8] {
            let raft = Floater {
                size,
                height: 0.3,
                added_mass: 1.0,
            };
            let (d, sway) = drift_of(raft, steepness, GerstnerVelocities::Orbits);
            println!("{size} m raft, added mass 1, Q {steepness:.4}: {d:+.3} Stokes drifts, sway {sway:.2} A");
            assert!(
                d.abs() <= 0.2,
                "{size} m raft, Q {steepness}: drift {d:+.3} Stokes drifts"
            );
            assert!(
                (sway - 1.0).abs() <= 0.1,
                "{size} m raft, Q {steepness}: sways {sway:.2} A, not with the water"
            );
        }
    }
}
