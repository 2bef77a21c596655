//! What a small body costs (issue 35): one 12-triangle box stepped alone, through the C
//! ABI's `keel_body_step` and the Rust API's `World::step_body`, and 1024 boxes in a
//! batch, on flat and on Perlin water, on one thread and two (Keel's own helper, and a
//! host's job system), turned every way (`batch-tumbling`: crates thrown in the water),
//! and four in a batch (one group, half the lanes computed); with `--features
//! profile-sections`, each row's time per body broken down by the step's sections
//! (`keel::runtime::profile`).
//!
//! ```sh
//! cargo bench --bench small                                   # the table
//! cargo bench --bench small --features profile-sections       # and where the time goes
//! cargo bench --bench small -- crossover                      # 1 against 2 threads, by count
//! cargo bench --bench small -- threads 40                     # 1 against 2 threads, 1024 boxes
//! cargo bench --bench small -- lone-c 200000                  # one row in a plain loop
//! ```
//!
//! The last form runs one row for a given number of steps with nothing else, for
//! callgrind (`valgrind --tool=callgrind target/release/deps/small-* lone-c 20000`):
//! instruction counts are repeatable on a shared machine, where times are not. Each
//! figure of the table is the median over chunks of about 2 ms, after a warm-up.

mod common;
// The tests' small job system (a queue the caller and its threads take ranges from).
#[allow(dead_code)]
#[path = "../tests/common/tasks.rs"]
mod tasks;

use std::f64::consts::PI;
use std::time::{Duration, Instant};

use common::{DT, Mesh, Rng, cube, perlin};
use glam::{DQuat, DVec3, EulerRot};
use keel::ffi::*;
use keel::{BodyDesc, BodyForces, BodyId, BodyState, HullId, Water, World, WorldDesc};

/// Median seconds per call of `f`, over chunks of calls of about 2 ms each, for about
/// `budget` after a warm-up; and how many calls were made in all.
fn time(budget: Duration, mut f: impl FnMut()) -> (f64, u64) {
    let start = Instant::now();
    let mut calls = 0u64;
    while calls < 3 || start.elapsed() < Duration::from_millis(50) {
        f();
        calls += 1;
    }
    let per_call = start.elapsed().as_secs_f64() / calls as f64;
    let chunk = ((2e-3 / per_call) as u64).max(1);
    let mut samples = Vec::new();
    let start = Instant::now();
    while samples.len() < 5 || start.elapsed() < budget {
        let t = Instant::now();
        for _ in 0..chunk {
            f();
        }
        samples.push(t.elapsed().as_secs_f64() / chunk as f64);
        calls += chunk;
    }
    samples.sort_by(f64::total_cmp);
    (samples[samples.len() / 2], calls)
}

/// Where the boxes are: a grid 3 m apart, each floating at half its height, slightly
/// turned and moving (as `benches/common`'s scenes), or `tumbling`: turned every way
/// (crates thrown in the water), their centres at the surface.
fn states(count: usize, water: &World, tumbling: bool) -> Vec<BodyState> {
    let side = (count as f64).sqrt().ceil() as usize;
    let mut rng = Rng::new(count as u64 + 17);
    (0..count)
        .map(|i| {
            let (x, z) = (3.0 * (i % side) as f64, 3.0 * (i / side) as f64);
            let turn = if tumbling { [PI, PI / 2.0, PI] } else { [0.5, 0.1, 0.1] };
            let rotation = DQuat::from_euler(
                EulerRot::YXZ,
                rng.range(-turn[0], turn[0]),
                rng.range(-turn[1], turn[1]),
                rng.range(-turn[2], turn[2]),
            );
            let position = DVec3::new(x, water.water_height(x, z), z);
            BodyState {
                position,
                rotation,
                linear_velocity: rng.vec3(0.2),
                angular_velocity: rng.vec3(0.1),
                center_of_mass: position,
            }
        })
        .collect()
}

/// How a row's boxes are made.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// Of one mesh, floating upright.
    Shared,
    /// Each of its own copy of the mesh (as a Unity scene whose bodies each have a `Mesh`
    /// object).
    OwnMeshes,
    /// Of one mesh, turned every way ([`states`]).
    Tumbling,
}

/// `count` boxes of 500 kg with every per-triangle force, made as `kind` says.
struct Boxes {
    world: World,
    ids: Vec<BodyId>,
    states: Vec<BodyState>,
    out: Vec<BodyForces>,
}

impl Boxes {
    fn new(mesh: &Mesh, count: usize, water: Water, threads: u32, kind: Kind) -> Self {
        let world = World::new(&WorldDesc {
            thread_count: threads,
            ..WorldDesc::default()
        })
        .expect("world");
        Self::in_world(world, mesh, count, water, kind)
    }

    /// The boxes in a world stepped by a host's job system of `workers` threads (the
    /// caller's included): the tests' queue of ranges.
    fn on_host_tasks(mesh: &Mesh, count: usize, water: Water, workers: u32) -> Self {
        let tasks: std::sync::Arc<dyn keel::runtime::tasks::TaskSystem> =
            std::sync::Arc::new(tasks::Pool::new(workers));
        let world = World::with_tasks(&WorldDesc::default(), tasks).expect("world");
        Self::in_world(world, mesh, count, water, Kind::Shared)
    }

    fn in_world(mut world: World, mesh: &Mesh, count: usize, water: Water, kind: Kind) -> Self {
        world.set_water(water);
        world.set_time(1.25).expect("time");
        let mut hull: Option<HullId> = None;
        let mut ids = Vec::with_capacity(count);
        for _ in 0..count {
            let h = match hull {
                Some(h) if kind != Kind::OwnMeshes => h,
                _ => {
                    let copy = mesh.clone();
                    *hull.insert(world.create_hull(&copy.desc()).expect("hull"))
                }
            };
            let desc = BodyDesc {
                hull: h,
                mass: 500.0,
                forces: common::ALL_FORCES,
                ..BodyDesc::default()
            };
            ids.push(world.create_body(&desc).expect("body"));
        }
        let states = states(count, &world, kind == Kind::Tumbling);
        let mut boxes = Boxes {
            world,
            out: vec![BodyForces::default(); ids.len()],
            ids,
            states,
        };
        // A first step sizes the buffers and gives slamming a history, as in a game.
        boxes.step();
        boxes
    }

    fn step(&mut self) {
        self.world
            .step_bodies(&self.ids, &self.states, DT, &mut self.out, |s| *s, |f, o| *o = *f)
            .expect("batch");
    }

    fn step_lone(&mut self) {
        self.out[0] = self.world.step_body(self.ids[0], &self.states[0], DT).expect("step");
    }
}

/// One box in a world made through the C ABI, stepped with `keel_body_step`.
struct LoneC {
    world: KeelWorld,
    body: KeelBody,
    state: KeelBodyState,
    out: KeelBodyForces,
}

impl LoneC {
    fn new(mesh: &Mesh, perlin_water: bool) -> Self {
        unsafe {
            let mut desc = std::mem::zeroed::<KeelWorldDesc>();
            keel_world_desc_default(&mut desc);
            desc.thread_count = 1;
            let mut world: KeelWorld = 0;
            assert_eq!(keel_world_create(&desc, &mut world), KeelStatus::KEEL_OK);
            if perlin_water {
                let mut water = std::mem::zeroed::<KeelPerlinWaterDesc>();
                keel_perlin_water_desc_default(&mut water);
                (water.level, water.perlin_scale, water.wave_speed, water.wave_height) = (0.0, 0.1, 0.5, 1.0);
                assert_eq!(keel_water_set_perlin(world, &water), KeelStatus::KEEL_OK);
            }
            assert_eq!(keel_world_set_time(world, 1.25), KeelStatus::KEEL_OK);
            let vertices: Vec<KeelVec3> = mesh
                .vertices
                .iter()
                .map(|v| KeelVec3 { x: v.x, y: v.y, z: v.z })
                .collect();
            let hull_desc = KeelHullDesc {
                vertices: vertices.as_ptr(),
                vertex_count: vertices.len() as u32,
                indices: mesh.indices.as_ptr(),
                index_count: mesh.indices.len() as u32,
                flip_winding: false,
            };
            let mut hull: KeelHull = 0;
            assert_eq!(keel_hull_create(world, &hull_desc, &mut hull), KeelStatus::KEEL_OK);
            let mut body_desc = std::mem::zeroed::<KeelBodyDesc>();
            keel_body_desc_default(&mut body_desc);
            (body_desc.hull, body_desc.mass, body_desc.forces) = (hull, 500.0, common::ALL_FORCES);
            let mut body: KeelBody = 0;
            assert_eq!(keel_body_create(world, &body_desc, &mut body), KeelStatus::KEEL_OK);
            // The first box of the Rust rows' grid (the same water under it).
            let mut height = 0.0f32;
            let point = KeelVec3 { x: 0.0, y: 0.0, z: 0.0 };
            assert_eq!(
                keel_water_sample(
                    world,
                    &point,
                    1,
                    &mut height,
                    std::ptr::null_mut(),
                    std::ptr::null_mut()
                ),
                KeelStatus::KEEL_OK
            );
            let v = |x: f32, y: f32, z: f32| KeelVec3 { x, y, z };
            let rotation = glam::Quat::from_euler(glam::EulerRot::YXZ, 0.3, 0.05, -0.04);
            let state = KeelBodyState {
                position: v(0.0, height, 0.0),
                rotation: KeelQuat {
                    x: rotation.x,
                    y: rotation.y,
                    z: rotation.z,
                    w: rotation.w,
                },
                linear_velocity: v(0.1, -0.05, 0.12),
                angular_velocity: v(0.04, -0.02, 0.06),
                center_of_mass: v(0.0, height, 0.0),
            };
            let mut lone = LoneC {
                world,
                body,
                state,
                out: std::mem::zeroed(),
            };
            lone.step();
            lone
        }
    }

    fn step(&mut self) {
        let status = unsafe { keel_body_step(self.world, self.body, &self.state, DT as f32, &mut self.out) };
        assert_eq!(status, KeelStatus::KEEL_OK);
    }
}

impl Drop for LoneC {
    fn drop(&mut self) {
        keel_world_destroy(self.world);
    }
}

/// A zero-height Perlin sea: flat water by another name ([`Water::as_flat`]).
fn perlin_of_no_height() -> Water {
    Water::Perlin(Box::new(
        keel::PerlinWater::new(0.0, 0.1, 0.5, 0.0, false).expect("Perlin"),
    ))
}

/// A row's call, made when the row is run (so that a row run alone for callgrind makes
/// no other row's world).
type Make<'m> = Box<dyn Fn() -> Call<'m> + 'm>;
type Call<'m> = Box<dyn FnMut() + 'm>;

/// The rows: a name, how many bodies a call steps, and what makes the call.
fn rows<'m>(mesh: &'m Mesh) -> Vec<(&'static str, usize, Make<'m>)> {
    let batch = |count: usize, water: fn() -> Water, threads: u32, kind: Kind| -> Make<'m> {
        Box::new(move || -> Call<'m> {
            let mut boxes = Boxes::new(mesh, count, water(), threads, kind);
            Box::new(move || boxes.step())
        })
    };
    let host = |count: usize, workers: u32| -> Make<'m> {
        Box::new(move || -> Call<'m> {
            let mut boxes = Boxes::on_host_tasks(mesh, count, Water::default(), workers);
            Box::new(move || boxes.step())
        })
    };
    let lone = |water: fn() -> Water| -> Make<'m> {
        Box::new(move || -> Call<'m> {
            let mut boxes = Boxes::new(mesh, 1, water(), 1, Kind::Shared);
            Box::new(move || boxes.step_lone())
        })
    };
    let lone_c = |perlin_water: bool| -> Make<'m> {
        Box::new(move || -> Call<'m> {
            let mut lone = LoneC::new(mesh, perlin_water);
            Box::new(move || lone.step())
        })
    };
    vec![
        ("lone-c", 1, lone_c(false)),
        ("lone-rust", 1, lone(Water::default)),
        ("lone-c-perlin", 1, lone_c(true)),
        ("lone-rust-perlin", 1, lone(perlin)),
        ("batch", 1024, batch(1024, Water::default, 1, Kind::Shared)),
        ("batch-2", 1024, batch(1024, Water::default, 2, Kind::Shared)),
        // The same on a host's job system of two threads (as Godot's WorkerThreadPool).
        ("batch-host-2", 1024, host(1024, 2)),
        ("batch-perlin", 1024, batch(1024, perlin, 1, Kind::Shared)),
        ("batch-perlin-2", 1024, batch(1024, perlin, 2, Kind::Shared)),
        (
            "batch-own-meshes",
            1024,
            batch(1024, Water::default, 1, Kind::OwnMeshes),
        ),
        (
            "batch-perlin-0",
            1024,
            batch(1024, perlin_of_no_height, 1, Kind::Shared),
        ),
        // Crates turned every way: the batch groups them by how the water cuts them.
        ("batch-tumbling", 1024, batch(1024, Water::default, 1, Kind::Tumbling)),
        // A few crates of one mesh: a group of four.
        ("batch-4", 4, batch(4, Water::default, 1, Kind::Shared)),
    ]
}

fn print_sections(calls: u64, bodies: usize) {
    let Some(sections) = keel::runtime::profile::report() else {
        return;
    };
    let per = (calls * bodies as u64) as f64;
    let parts: Vec<String> = sections
        .iter()
        .filter(|(_, t)| t.count > 0)
        .map(|(s, t)| format!("{} {:.0}", s.name(), t.nanoseconds as f64 / per))
        .collect();
    println!("    ns per body: {}", parts.join(", "));
}

/// 1 thread against 2 on a batch of `count` boxes, each figure the median of `time`.
fn crossover(mesh: &Mesh) {
    println!(
        "{:>6} {:>8} {:>12} {:>12} {:>7}",
        "boxes", "water", "1 thread us", "2 threads us", "2 / 1"
    );
    for count in [1, 2, 4, 8, 16, 24, 32, 48, 64, 128, 256, 1024, 4096] {
        for (name, water) in [("flat", Water::default as fn() -> Water), ("perlin", perlin)] {
            let mut one = Boxes::new(mesh, count, water(), 1, Kind::Shared);
            let mut two = Boxes::new(mesh, count, water(), 2, Kind::Shared);
            let budget = Duration::from_millis(400);
            let (a, _) = time(budget, || one.step());
            let (b, _) = time(budget, || two.step());
            println!(
                "{count:>6} {name:>8} {:>12.2} {:>12.2} {:>7.2}",
                a * 1e6,
                b * 1e6,
                a / b
            );
        }
    }
}

/// 1 thread against 2 on 1024 boxes (issue 35 item 5), flat and Perlin water, measured
/// so that the machine's load falls on both alike: the four worlds are stepped in turn,
/// one chunk of about 20 ms each, `rounds` times, and each is summed up by its tenth-fastest
/// chunk (this VM's neighbours only ever add time; `docs/PERFORMANCE.md` uses the same
/// figure for its profile loop) and its median.
fn threads(mesh: &Mesh, rounds: usize) {
    let mut worlds: Vec<(&str, u32, Boxes)> = [("flat", Water::default as fn() -> Water), ("perlin", perlin)]
        .into_iter()
        .flat_map(|(name, water)| [1, 2].map(|n| (name, n, Boxes::new(mesh, 1024, water(), n, Kind::Shared))))
        .collect();
    // Steps a chunk of about 20 ms takes on one thread (the two-thread worlds take the
    // same): long enough that each world's bodies are in the caches and the helper thread
    // awake for most of its chunk, as when one world is stepped alone.
    let start = Instant::now();
    for _ in 0..10 {
        worlds[0].2.step();
    }
    let chunk = ((20e-3 * 10.0 / start.elapsed().as_secs_f64()) as usize).max(1);
    let mut samples = vec![Vec::with_capacity(rounds); worlds.len()];
    for _ in 0..rounds {
        for ((_, _, boxes), s) in worlds.iter_mut().zip(&mut samples) {
            let t = Instant::now();
            for _ in 0..chunk {
                boxes.step();
            }
            s.push(t.elapsed().as_secs_f64() * 1e9 / (chunk * 1024) as f64);
        }
    }
    println!("{rounds} rounds of {chunk} steps each, ns a box (tenth-fastest / median)");
    let mut figures = Vec::new();
    for ((name, n, _), s) in worlds.iter().zip(&mut samples) {
        s.sort_by(f64::total_cmp);
        let (tenth, median) = (s[s.len() / 10], s[s.len() / 2]);
        println!("{name:>8} {n} thread(s) {tenth:9.1} {median:9.1}");
        figures.push((tenth, median));
    }
    for (k, name) in ["flat", "perlin"].iter().enumerate() {
        let (one, two) = (figures[2 * k], figures[2 * k + 1]);
        println!(
            "{name:>8} 2 threads / 1: {:.2}x (tenth-fastest), {:.2}x (median)",
            one.0 / two.0,
            one.1 / two.1
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let mesh = cube();
    if args.first().is_some_and(|a| a == "crossover") {
        crossover(&mesh);
        return;
    }
    if args.first().is_some_and(|a| a == "threads") {
        threads(&mesh, args.get(1).and_then(|s| s.parse().ok()).unwrap_or(40));
        return;
    }
    let rows = rows(&mesh);
    // One row in a plain loop, for callgrind.
    if let Some(name) = args.first() {
        let steps: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(10000);
        let Some((_, bodies, make)) = rows.iter().find(|(n, _, _)| n == name) else {
            let names: Vec<&str> = rows.iter().map(|(n, _, _)| *n).collect();
            eprintln!("unknown row {name}: crossover, {}", names.join(", "));
            std::process::exit(2);
        };
        let mut f = make();
        keel::runtime::profile::reset();
        let start = Instant::now();
        for _ in 0..steps {
            f();
        }
        let per_body = start.elapsed().as_secs_f64() / (steps * *bodies as u64) as f64;
        println!("{name}: {steps} steps, {:.1} ns per body", per_body * 1e9);
        print_sections(steps, *bodies);
        return;
    }
    println!(
        "{:<18} {:>7} {:>12} {:>12}",
        "row", "bodies", "us per call", "ns per body"
    );
    for (name, bodies, make) in &rows {
        let mut f = make();
        keel::runtime::profile::reset();
        let (per_call, calls) = time(Duration::from_secs(1), &mut f);
        println!(
            "{name:<18} {bodies:>7} {:>12.3} {:>12.1}",
            per_call * 1e6,
            per_call * 1e9 / *bodies as f64
        );
        print_sections(calls, *bodies);
    }
}
