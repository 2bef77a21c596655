//! Prints the bits of every force a set of scenarios gives, step after step, so that two
//! builds of the engine (before and after a change meant to move code, not numbers) can
//! be compared with `diff`: `cargo run --example force_bits > a.txt` on each. Where a change
//! may move numbers by rounding, `examples/force_bits_compare.py a.txt b.txt` tells how much.
//!
//! Scenarios: the bunny (a big open hull), a big sphere (shared among threads), a boat
//! and boxes (the lanes), on flat, Perlin and Gerstner water, with every buoyancy model,
//! each force on its own and all together, the lumped resistance, host inertia, added
//! mass, stepped alone and in a batch, on one thread and two, and the replay's detail.

#[path = "../tests/common/mod.rs"]
mod common;

use common::{Rng, boat_hull, bunny, simple_box, uv_sphere};
use glam::{DQuat, DVec2, DVec3, Vec3};
use keel::forces::{
    FORCE_AIR, FORCE_DAMPING, FORCE_DEFAULT, FORCE_LUMPED_RESISTANCE, FORCE_PER_TRIANGLE_RESISTANCE,
    FORCE_PRESSURE_DRAG, FORCE_SLAMMING, FORCE_VISCOUS,
};
use keel::{
    BodyDesc, BodyForces, BodyState, BuoyancyModel, GerstnerWater, GerstnerWave, PerlinWater, Water, World, WorldDesc,
};

fn bits(f: &BodyForces) -> String {
    f.to_bits()
        .iter()
        .map(|b| format!("{b:016x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn waters() -> Vec<(&'static str, Water)> {
    let waves = [
        GerstnerWave {
            amplitude: 0.5,
            wavelength: 15.0,
            direction: DVec2::new(1.0, 0.3),
            steepness: 0.4,
            phase: 0.0,
        },
        GerstnerWave {
            amplitude: 0.2,
            wavelength: 6.0,
            direction: DVec2::new(-0.2, 1.0),
            steepness: 0.3,
            phase: 1.0,
        },
    ];
    vec![
        ("flat", Water::Flat(keel::FlatWater { level: 0.1 })),
        (
            "perlin",
            Water::Perlin(Box::new(PerlinWater::new(0.0, 0.1, 1.0, 0.3, false).unwrap())),
        ),
        (
            "gerstner",
            Water::Gerstner(GerstnerWater::new(&waves, 0.0, 9.81).unwrap()),
        ),
    ]
}

/// Description variants: every buoyancy model, each force alone, all, lumped, inertia.
fn variants() -> Vec<(String, BodyDesc)> {
    let mut v = vec![("default".to_string(), BodyDesc::default())];
    for model in [
        BuoyancyModel::PressureCentroid,
        BuoyancyModel::Volume,
        BuoyancyModel::AreaRatio,
        BuoyancyModel::None,
    ] {
        v.push((
            format!("{model:?}"),
            BodyDesc {
                buoyancy: model,
                ..BodyDesc::default()
            },
        ));
    }
    for (name, bit) in [
        ("viscous", FORCE_VISCOUS),
        ("pressure_drag", FORCE_PRESSURE_DRAG),
        ("slamming", FORCE_SLAMMING),
        ("air", FORCE_AIR),
        ("damping", FORCE_DAMPING),
        ("lumped", FORCE_LUMPED_RESISTANCE),
        ("all", FORCE_DEFAULT | FORCE_DAMPING),
    ] {
        v.push((
            format!("only_{name}"),
            BodyDesc {
                forces: bit,
                linear_damping: 300.0,
                angular_damping: 200.0,
                ..BodyDesc::default()
            },
        ));
    }
    v.push((
        "lumped_added_mass".into(),
        BodyDesc {
            forces: (FORCE_DEFAULT & !FORCE_PER_TRIANGLE_RESISTANCE) | FORCE_LUMPED_RESISTANCE | FORCE_DAMPING,
            added_mass_ratio: 0.3,
            linear_damping: 100.0,
            ..BodyDesc::default()
        },
    ));
    v.push((
        "falloff_power".into(),
        BodyDesc {
            pressure_falloff: 0.7,
            suction_falloff: 1.0,
            slamming_power: 1.5,
            vertical_buoyancy_only: true,
            ..BodyDesc::default()
        },
    ));
    v.push((
        "host_inertia".into(),
        BodyDesc {
            inertia: DVec3::new(300.0, 500.0, 800.0),
            inertia_rotation: DQuat::from_rotation_y(0.4) * DQuat::from_rotation_x(0.2),
            ..BodyDesc::default()
        },
    ));
    v.push((
        "no_patch".into(),
        BodyDesc {
            water_patch_cells: 0,
            ..BodyDesc::default()
        },
    ));
    v
}

fn state(rng: &mut Rng, height: f64) -> BodyState {
    let position = DVec3::new(
        rng.range(-20.0, 20.0),
        height + rng.range(-0.3, 0.3),
        rng.range(-20.0, 20.0),
    );
    BodyState {
        position,
        rotation: DQuat::from_euler(
            glam::EulerRot::YXZ,
            rng.range(-3.0, 3.0),
            rng.range(-0.4, 0.4),
            rng.range(-0.4, 0.4),
        ),
        linear_velocity: rng.vec3(2.0),
        angular_velocity: rng.vec3(1.0),
        center_of_mass: position + rng.vec3(0.1),
    }
}

/// A crude integration, so that the next step starts elsewhere and slamming compares.
fn advance(s: &mut BodyState, f: &BodyForces, mass: f64, dt: f64) {
    s.linear_velocity += (f.force / mass - DVec3::Y * 9.81) * dt;
    s.linear_velocity = s.linear_velocity.clamp_length_max(30.0);
    s.position += s.linear_velocity * dt;
    s.angular_velocity = (s.angular_velocity + f.torque * (dt / (mass * 0.5))).clamp_length_max(5.0);
    s.rotation = (DQuat::from_scaled_axis(s.angular_velocity * dt) * s.rotation).normalize();
    s.center_of_mass = s.position;
}

fn main() {
    let meshes = [
        ("box", simple_box(Vec3::new(2.0, 0.5, 2.0), Vec3::ZERO), 1000.0, 0.0),
        ("boat", boat_hull(6.0, 2.0, 0.8, 0.6, 16, 10), 3000.0, 0.0),
        ("bunny", bunny(0.1), 40.0, -0.05),
        ("sphere", uv_sphere(1.2, 40, 48), 3000.0, 0.0),
    ];
    let dt = 1.0 / 60.0;
    let steps = 4;
    for threads in [1, 2] {
        for (water_name, water) in waters() {
            let mut world = World::new(&WorldDesc {
                thread_count: threads,
                ..WorldDesc::default()
            })
            .unwrap();
            world.set_water(water);
            world.set_time(3.5).unwrap();
            world.set_wind(DVec3::new(4.0, 0.0, -2.0)).unwrap();
            world.set_current(DVec3::new(0.3, 0.0, 0.1)).unwrap();
            let hulls: Vec<_> = meshes.iter().map(|m| world.create_hull(&m.1.desc()).unwrap()).collect();
            let mut rng = Rng::new(7);
            // Each variant on each hull, stepped alone.
            for (h, (mesh_name, _, mass, height)) in meshes.iter().enumerate() {
                for (variant, desc) in variants() {
                    let desc = BodyDesc {
                        hull: hulls[h],
                        mass: *mass,
                        ..desc
                    };
                    let Ok(id) = world.create_body(&desc) else {
                        println!("{threads} {water_name} {mesh_name} {variant}: refused");
                        continue;
                    };
                    let mut s = state(&mut rng, *height);
                    for step in 0..steps {
                        let f = world.step_body(id, &s, dt).unwrap();
                        println!(
                            "{threads} {water_name} {mesh_name} {variant} alone {step}: {}",
                            bits(&f)
                        );
                        advance(&mut s, &f, *mass, dt);
                    }
                    if *mesh_name != "sphere" {
                        let mut body = world.body(id).unwrap();
                        let sum = body.triangle_forces().fold(DVec3::ZERO, |acc, f| acc + f.force);
                        let pieces = body.submerged_triangles().len();
                        let waterline = body.waterline().count();
                        println!(
                            "{threads} {water_name} {mesh_name} {variant} detail: {:?} {pieces} {waterline}",
                            sum.to_array().map(f64::to_bits)
                        );
                    }
                    world.destroy_body(id).unwrap();
                }
            }
            // A batch: boxes and boats of two kinds of description (lanes), a bunny and a
            // sphere, against the same bodies stepped alone in a second world's copy.
            let kinds = [
                BodyDesc::default(),
                BodyDesc {
                    forces: FORCE_DEFAULT | FORCE_DAMPING,
                    linear_damping: 50.0,
                    ..BodyDesc::default()
                },
            ];
            let mut ids = Vec::new();
            let mut states = Vec::new();
            let mut masses = Vec::new();
            for i in 0..45 {
                let h = match i % 9 {
                    0..=5 => 0,
                    6 | 7 => 1,
                    _ if i % 2 == 0 => 2,
                    _ => 3,
                };
                let mass = meshes[h].2 * (1.0 + 0.01 * i as f64);
                let id = world
                    .create_body(&BodyDesc {
                        hull: hulls[h],
                        mass,
                        ..kinds[i % 2]
                    })
                    .unwrap();
                ids.push(id);
                states.push(state(&mut rng, meshes[h].3));
                masses.push(mass);
            }
            for step in 0..steps {
                let mut out = vec![BodyForces::default(); ids.len()];
                world
                    .step_bodies(&ids, &states, dt, &mut out, |s| *s, |f, o| *o = *f)
                    .unwrap();
                for (i, f) in out.iter().enumerate() {
                    println!("{threads} {water_name} batch body {i} step {step}: {}", bits(f));
                    advance(&mut states[i], f, masses[i], dt);
                }
            }
            // The same bodies alone, one at a time (their history carried on).
            for step in 0..2 {
                for (i, &id) in ids.iter().enumerate() {
                    let f = world.step_body(id, &states[i], dt).unwrap();
                    println!("{threads} {water_name} after batch body {i} step {step}: {}", bits(&f));
                    advance(&mut states[i], &f, masses[i], dt);
                }
            }
        }
    }
}
