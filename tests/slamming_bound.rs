//! Slamming never reverses a body's motion (`src/forces/limiter.rs`, "Never backwards"),
//! swept over entry speeds up to 50 m/s, steps from 1/240 to 1/10 s and attitudes, on
//! a small hull (the lanes) and a big one (the whole-triangle loops); and a body at rest
//! or nearly so feels no slamming (`src/forces/slamming.rs`, the fade speed).

mod common;

use common::{Mesh, simple_box, subdivided_box};
use glam::{DMat3, DQuat, DVec3, EulerRot, Vec3};
use keel::forces::{FORCE_AIR, FORCE_PRESSURE_DRAG, FORCE_SLAMMING, FORCE_VISCOUS};
use keel::{BodyDesc, BodyState, BuoyancyModel, World, WorldDesc};

const SPEEDS: [f64; 5] = [1.0, 5.0, 15.0, 30.0, 50.0];
const STEPS: [f64; 4] = [1.0 / 240.0, 1.0 / 60.0, 1.0 / 20.0, 1.0 / 10.0];
/// (roll, pitch) in degrees: flat, slightly tilted, and edge first.
const ATTITUDES: [(f64, f64); 4] = [(0.0, 0.0), (8.0, 0.0), (25.0, 10.0), (45.0, 30.0)];
const GRAVITY: f64 = 9.81;

struct Case {
    world: World,
    body: keel::BodyId,
    mass: f64,
    /// The inertia the host integrates with, body axes.
    inertia: DMat3,
}

fn case(mesh: &Mesh, everything: bool) -> Case {
    let mut world = World::new(&WorldDesc {
        thread_count: 1,
        ..WorldDesc::default()
    })
    .unwrap();
    let hull = world.create_hull(&mesh.desc()).unwrap();
    // Light, so that the water's forces are large beside its momentum.
    let mass = 300.0;
    let (moments, axes) = world.hull_inertia(hull, mass).unwrap();
    let body = world
        .create_body(&BodyDesc {
            hull,
            mass,
            inertia: moments,
            inertia_rotation: axes,
            buoyancy: if everything {
                BuoyancyModel::Pressure
            } else {
                BuoyancyModel::None
            },
            forces: if everything {
                FORCE_VISCOUS | FORCE_PRESSURE_DRAG | FORCE_SLAMMING | FORCE_AIR
            } else {
                FORCE_SLAMMING
            },
            ..BodyDesc::default()
        })
        .unwrap();
    let r = DMat3::from_quat(axes);
    Case {
        world,
        body,
        mass,
        inertia: r * DMat3::from_diagonal(moments) * r.transpose(),
    }
}

/// Drives the body into still water at `speed`, tilted, spinning a little, for the steps
/// that take it from just above the surface to a metre and a half under, and checks
/// each step's dissipative forces against the motion they act on.
fn drive_in(mesh: &Mesh, everything: bool, speed: f64, dt: f64, (roll, pitch): (f64, f64)) -> usize {
    let mut c = case(mesh, everything);
    let rotation = DQuat::from_euler(EulerRot::ZXY, roll.to_radians(), pitch.to_radians(), 0.0);
    let velocity = DVec3::new(0.3 * speed, -speed, 0.0);
    let spin = DVec3::new(0.5, 0.0, -0.8);
    let mut position = DVec3::new(0.0, 1.0, 0.0);
    let turn = DMat3::from_quat(rotation);
    let inverse_inertia = (turn * c.inertia * turn.transpose()).inverse();
    let mut checked = 0;
    while position.y > -1.5 {
        let state = BodyState {
            position,
            rotation,
            linear_velocity: velocity,
            angular_velocity: spin,
            center_of_mass: position,
        };
        let f = c.world.step_body(c.body, &state, dt).unwrap();
        let what = format!(
            "{} hull, speed {speed} m/s, dt {dt:.4} s, roll {roll} pitch {pitch}, depth {:.3} m, everything: {everything}",
            mesh.indices.len() / 3,
            -position.y
        );
        // The motion the water's dissipative forces are judged against: at the end of
        // the step under buoyancy and gravity (the water is still).
        let v_end = velocity + (f.buoyancy_force / c.mass - DVec3::Y * GRAVITY) * dt;
        let water = f.viscous_force + f.pressure_drag_force + f.slamming_force + f.damping_force;
        let after = v_end + water * (dt / c.mass);
        assert!(
            after.dot(v_end) >= -1e-9 * v_end.length_squared(),
            "{what}: the water turned {v_end} into {after}"
        );
        if !everything {
            // Slamming alone: no buoyancy torque, so the spin it acts on is the host's.
            let spin_after = spin + inverse_inertia * f.torque * dt;
            assert!(
                spin_after.dot(spin) >= -1e-9 * spin.length_squared(),
                "{what}: slamming reversed the spin {spin} into {spin_after}"
            );
            // And it does act: a face meeting the water at speed is slammed.
            if position.y < 0.0 && speed >= 5.0 && f.slamming_force.y > 0.0 {
                checked += 1;
            }
        }
        position += velocity * dt;
    }
    checked
}

fn sweep(mesh: &Mesh) {
    let mut slammed = 0;
    for everything in [false, true] {
        for speed in SPEEDS {
            for dt in STEPS {
                for attitude in ATTITUDES {
                    slammed += drive_in(mesh, everything, speed, dt, attitude);
                }
            }
        }
    }
    // The sweep must have exercised slamming, or it proves nothing.
    assert!(slammed > 50, "only {slammed} steps felt slamming");
}

#[test]
fn slamming_never_reverses_a_small_hull() {
    sweep(&simple_box(Vec3::new(1.0, 0.4, 1.5), Vec3::ZERO));
}

#[test]
fn slamming_never_reverses_a_big_hull() {
    // 6 x 12 x 12 x 2 = 1728 triangles: the whole-triangle loops, in chunks, and their cut
    // triangles.
    sweep(&subdivided_box(Vec3::new(1.0, 0.4, 1.5), Vec3::ZERO, 12));
}

#[test]
fn a_raft_at_rest_or_bobbing_gently_feels_no_slamming() {
    let mut world = World::new(&WorldDesc {
        thread_count: 1,
        ..WorldDesc::default()
    })
    .unwrap();
    let mass = 1000.0;
    let hull = world.create_box_hull(Vec3::new(2.0, 0.5, 2.0)).unwrap();
    let body = world
        .create_body(&BodyDesc {
            hull,
            mass,
            ..BodyDesc::default()
        })
        .unwrap();
    // Floating at its Archimedes draft of 0.25 m, bobbing at 3 mm/s with a period of a
    // few steps, as a resting raft does in an engine.
    let dt = 1.0 / 60.0;
    let weight = mass * GRAVITY;
    for step in 0..240 {
        let phase = step as f64 * dt * std::f64::consts::TAU;
        let state = BodyState {
            position: DVec3::new(0.0, 0.0005 * phase.sin(), 0.0),
            linear_velocity: DVec3::new(0.0, 0.003 * phase.cos(), 0.0),
            ..BodyState::default()
        };
        let f = world.step_body(body, &state, dt).unwrap();
        assert!(
            f.slamming_force.length() < 1e-5 * weight,
            "step {step}: slamming {} N on a raft at rest (drag {} N)",
            f.slamming_force,
            f.pressure_drag_force + f.viscous_force
        );
    }
}
