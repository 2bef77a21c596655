//! The bench scene of `godot-addon/tools/bench.sh` replayed outside Godot, to count what
//! Keel's step of it costs (issue 39 item 4): the hull mesh and every body's state dumped
//! from Godot (`bench.gd ... box dump`), stepped again and again from those states
//! through the addon's own path ([`Fleet::step`], as `KeelWater` calls it) or straight
//! through [`World::step_bodies`], on one thread; the same bodies can be given the states
//! of `benches/small.rs`'s `batch` row instead, to tell the scene from the path.
//!
//! ```sh
//! chroot "$CHROOT" godot --headless --path PROJECT -s res://bench.gd -- keel-one 400 600 box dump > dump.txt
//! cargo build --release -p keel-godot --example scene_cost
//! valgrind --tool=callgrind target/release/examples/scene_cost dump.txt fleet 2000
//! ```
//!
//! Variants: `fleet` (the addon's path), `batch` (`World::step_bodies`, the dumped
//! states), `upright` (the dumped bodies, each put upright at half its height with the
//! small turn and motion of `benches/small.rs`). `states` prints what the dumped bodies
//! look like (tilt, draft, submerged triangles). A variant ending in `-cold` evicts the
//! caches between two steps (16 MB written), as a game's frame does.

use glam::{DMat3, DQuat, DVec3, Vec3};
use keel::{BodyDesc, BodyForces, BodyId, BodyState, World, WorldDesc};
use keel_godot::logic::fleet::Fleet;
use keel_godot::logic::mesh::{Surface, bake};
use keel_godot::logic::params::MassProperties;
use keel_godot::logic::state::{DirectState, body_state, principal_inertia};
use std::time::Instant;

/// One body as Godot's `PhysicsDirectBodyState3D` gave it.
struct Dumped {
    basis: DMat3,
    origin: DVec3,
    linear_velocity: DVec3,
    angular_velocity: DVec3,
    center_of_mass: DVec3,
    inverse_mass: f64,
    inverse_inertia: DVec3,
    step: f64,
}

fn floats(hex: &str) -> Vec<f32> {
    let bytes: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex"))
        .collect();
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn ints(hex: &str) -> Vec<i32> {
    floats(hex).into_iter().map(|f| f.to_bits() as i32).collect()
}

fn parse(text: &str) -> (Vec<Vec3>, Vec<i32>, Vec<Dumped>) {
    let mut vertices = Vec::new();
    let mut indices = Vec::new();
    let mut bodies = Vec::new();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        match words.next() {
            Some("MESH") => {
                let v = floats(words.next().expect("vertices"));
                vertices = v.chunks_exact(3).map(|c| Vec3::new(c[0], c[1], c[2])).collect();
                indices = ints(words.next().expect("indices"));
            }
            Some("BODY") => {
                let f: Vec<f64> = floats(words.next().expect("body")).into_iter().map(f64::from).collect();
                let v = |i: usize| DVec3::new(f[i], f[i + 1], f[i + 2]);
                bodies.push(Dumped {
                    basis: DMat3::from_cols(v(0), v(3), v(6)),
                    origin: v(9),
                    linear_velocity: v(12),
                    angular_velocity: v(15),
                    center_of_mass: v(18),
                    inverse_mass: f[21],
                    inverse_inertia: v(22),
                    step: f[25],
                });
            }
            _ => {}
        }
    }
    (vertices, indices, bodies)
}

fn state(d: &Dumped) -> BodyState {
    body_state(&DirectState {
        origin: d.origin,
        basis: d.basis,
        linear_velocity: d.linear_velocity,
        angular_velocity: d.angular_velocity,
        center_of_mass_offset: d.center_of_mass,
    })
}

fn mass(d: &Dumped) -> MassProperties {
    let rotation = state(d).rotation;
    // Godot's principal axes of a box are the body's own.
    let (inertia, inertia_rotation) = principal_inertia(d.inverse_inertia, d.basis, rotation);
    MassProperties {
        mass: 1.0 / d.inverse_mass,
        inertia,
        inertia_rotation,
    }
}

/// `benches/small.rs`'s states for a grid of boxes (upright at the water, a small turn,
/// slow), but for the random numbers.
fn upright(count: usize) -> Vec<BodyState> {
    let side = (count as f64).sqrt().ceil() as usize;
    (0..count)
        .map(|i| {
            let k = i as f64;
            let position = DVec3::new(3.0 * (i % side) as f64, 0.0, 3.0 * (i / side) as f64);
            BodyState {
                position,
                rotation: DQuat::from_euler(
                    glam::EulerRot::YXZ,
                    (k * 0.37).sin() * 0.5,
                    (k * 0.71).sin() * 0.1,
                    (k * 1.13).sin() * 0.1,
                ),
                linear_velocity: DVec3::new((k * 0.3).sin(), (k * 0.5).cos(), (k * 0.7).sin()) * 0.2,
                angular_velocity: DVec3::new((k * 0.2).cos(), (k * 0.4).sin(), (k * 0.6).cos()) * 0.1,
                center_of_mass: position,
            }
        })
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args
        .first()
        .expect("usage: scene_cost DUMP [fleet|batch|upright|states] [steps]");
    let variant = args.get(1).map_or("fleet", String::as_str);
    let steps: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1000);
    let text = std::fs::read_to_string(path).expect("the dump");
    let (vertices, indices, dumped) = parse(&text);
    assert!(!dumped.is_empty(), "no BODY line in {path}");
    let mesh = bake(
        &[Surface {
            vertices: &vertices,
            indices: &indices,
        }],
        glam::DAffine3::IDENTITY,
    )
    .expect("mesh");
    let dt = dumped[0].step;
    let mut world = World::new(&WorldDesc {
        thread_count: 1,
        ..WorldDesc::default()
    })
    .expect("world");
    let mut fleet = Fleet::<usize>::default();
    for i in 0..dumped.len() {
        fleet.set_mesh(i, Some(mesh.clone()));
        fleet.set_params(i, BodyDesc::default());
    }
    // The mass properties as KeelWater keeps them: worked out again only when Godot's
    // inverse mass or inertia change, which they do not here.
    let masses: Vec<MassProperties> = dumped.iter().map(mass).collect();
    let read = |i: usize| Some((state(&dumped[i]), masses[i]));
    // The first step creates the hulls and bodies, as the scene's first frame.
    fleet.step(&mut world, dt, read);
    println!(
        "{} bodies, mesh of {} vertices and {} triangles, {} distinct hull(s), dt {dt}",
        dumped.len(),
        vertices.len(),
        indices.len() / 3,
        world.unique_hull_count()
    );
    let ids: Vec<BodyId> = fleet.entries_mut().filter_map(|e| e.member()).map(|m| m.body).collect();
    let mut out = vec![BodyForces::default(); ids.len()];
    let dumped_states: Vec<BodyState> = dumped.iter().map(state).collect();
    let upright_states = upright(ids.len());
    if variant == "states" {
        let mut counts = std::collections::BTreeMap::new();
        world
            .step_bodies(&ids, &dumped_states, dt, &mut out, |s| *s, |f, o| *o = *f)
            .expect("batch");
        for (s, f) in dumped_states.iter().zip(&out) {
            let up = s.rotation * DVec3::Y;
            let tilt = up.y.clamp(-1.0, 1.0).acos().to_degrees();
            let key = (f.submerged_triangle_count, (tilt / 5.0).round() as i64 * 5);
            *counts.entry(key).or_insert(0) += 1;
        }
        for ((triangles, tilt), n) in counts {
            println!("{n:>4} bodies: {triangles:>2} submerged pieces, tilt ~{tilt} deg");
        }
        let speed: f64 =
            dumped_states.iter().map(|s| s.linear_velocity.length()).sum::<f64>() / dumped_states.len() as f64;
        let spin: f64 =
            dumped_states.iter().map(|s| s.angular_velocity.length()).sum::<f64>() / dumped_states.len() as f64;
        println!("mean speed {speed:.2e} m/s, mean spin {spin:.2e} rad/s");
        return;
    }
    // `cold`: between two batches, 16 MB written and read, as a game's frame does between
    // two physics frames (Godot's own step, its scene, rendering), which leaves Keel's
    // bodies out of the caches; the time counted is the batches' alone.
    let mut evict = vec![0u64; if variant.ends_with("-cold") { 2 << 20 } else { 0 }];
    let variant = variant.trim_end_matches("-cold");
    let mut elapsed = std::time::Duration::ZERO;
    for step in 0..steps {
        for (k, x) in evict.iter_mut().enumerate() {
            *x = x.wrapping_add((k ^ step) as u64);
        }
        std::hint::black_box(&evict);
        let start = Instant::now();
        match variant {
            "fleet" => fleet.step(&mut world, dt, read),
            "batch" => world
                .step_bodies(&ids, &dumped_states, dt, &mut out, |s| *s, |f, o| *o = *f)
                .expect("batch"),
            "upright" => world
                .step_bodies(&ids, &upright_states, dt, &mut out, |s| *s, |f, o| *o = *f)
                .expect("batch"),
            other => panic!("unknown variant {other}: fleet, batch, upright or states"),
        }
        elapsed += start.elapsed();
    }
    let per_body = elapsed.as_secs_f64() / (steps * ids.len()) as f64;
    println!("{variant}: {steps} steps, {:.1} ns per body", per_body * 1e9);
}
