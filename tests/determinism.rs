//! The same inputs give bit-identical outputs: with one thread or several, and stepping
//! bodies in a batch or one by one.

mod common;
mod skip;

use common::{Rng, boat_hull, simple_box, uv_sphere};
use glam::{DVec2, DVec3};
use keel::{
    BodyDesc, BodyForces, BodyId, BodyState, BuoyancyModel, GerstnerWater, GerstnerWave, Water, World, WorldDesc,
};

/// A world of 60 bodies of four hulls on a Gerstner sea, and their states.
fn scene(threads: u32) -> (World, Vec<BodyId>, Vec<BodyState>) {
    scene_of(threads, 60, 4)
}

/// A world of `count` bodies of the first `kinds` hulls on a Gerstner sea.
fn scene_of(threads: u32, count: usize, kinds: usize) -> (World, Vec<BodyId>, Vec<BodyState>) {
    let mut world = World::new(&WorldDesc {
        thread_count: threads,
        ..WorldDesc::default()
    })
    .unwrap();
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
    world.set_water(Water::Gerstner(GerstnerWater::new(&waves, 0.0, 9.81).unwrap()));
    world.set_time(12.5).unwrap();
    let meshes = [
        simple_box(glam::Vec3::new(2.0, 0.5, 2.0), glam::Vec3::ZERO),
        uv_sphere(0.7, 10, 16),
        boat_hull(6.0, 2.0, 0.8, 0.6, 16, 10),
        // More triangles than a chunk (1024): the step shares them among the threads.
        uv_sphere(1.2, 40, 48),
    ];
    let hulls: Vec<_> = meshes.iter().map(|m| world.create_hull(&m.desc()).unwrap()).collect();
    let models = [
        BuoyancyModel::Pressure,
        BuoyancyModel::PressureCentroid,
        BuoyancyModel::Volume,
        BuoyancyModel::AreaRatio,
    ];
    let mut rng = Rng::new(42);
    let mut ids = Vec::new();
    let mut states = Vec::new();
    for i in 0..count {
        let desc = BodyDesc {
            hull: hulls[i % kinds],
            buoyancy: models[i % 4],
            ..BodyDesc::default()
        };
        ids.push(world.create_body(&desc).unwrap());
        let position = DVec3::new(rng.range(-40.0, 40.0), rng.range(-1.0, 0.5), rng.range(-40.0, 40.0));
        states.push(BodyState {
            position,
            rotation: rng.rotation(),
            linear_velocity: rng.vec3(2.0),
            angular_velocity: rng.vec3(1.0),
            center_of_mass: position + rng.vec3(0.2),
        });
    }
    (world, ids, states)
}

fn batch(threads: u32) -> Vec<[u64; 31]> {
    batch_of(scene(threads), 2)
}

fn batch_of((mut world, ids, states): (World, Vec<BodyId>, Vec<BodyState>), steps: usize) -> Vec<[u64; 31]> {
    let mut out = vec![BodyForces::default(); ids.len()];
    // Two steps or more, so that any history carried between steps is exercised too.
    for _ in 0..steps {
        world
            .step_bodies(&ids, &states, 1.0 / 60.0, &mut out, |s| *s, |f, o| *o = *f)
            .unwrap();
    }
    out.iter().map(BodyForces::to_bits).collect()
}

#[test]
fn batch_steps_are_bit_identical_for_any_thread_count_and_to_single_steps() {
    let one = batch(1);
    for threads in [2, 3, 8] {
        assert_eq!(one, batch(threads), "{threads} threads");
    }
    let (mut world, ids, states) = scene(1);
    let mut single = Vec::new();
    for _ in 0..2 {
        single = ids
            .iter()
            .zip(&states)
            .map(|(id, s)| world.step_body(*id, s, 1.0 / 60.0).unwrap().to_bits())
            .collect();
    }
    assert_eq!(one, single);
    assert!(one.iter().any(|f| f[1] != 0), "the scene must produce forces");
}

#[test]
fn a_batch_big_enough_to_prefetch_its_bodies_gives_each_body_its_own_forces() {
    // Past the size from which a batch prefetches the next body's buffers (256), of the
    // three small hulls; three steps, the third a batch of the last ids (its checks and
    // groups kept).
    let scene = |threads| scene_of(threads, 1500, 3);
    let one = batch_of(scene(1), 3);
    for threads in [2, 3] {
        assert_eq!(one, batch_of(scene(threads), 3), "{threads} threads");
    }
    let (mut world, ids, states) = scene(1);
    let mut single = Vec::new();
    for _ in 0..3 {
        single = ids
            .iter()
            .zip(&states)
            .map(|(id, s)| world.step_body(*id, s, 1.0 / 60.0).unwrap().to_bits())
            .collect();
    }
    assert_eq!(one, single);
    assert!(
        one.iter().filter(|f| f[1] != 0).count() > 100,
        "most bodies must feel forces"
    );
}

#[test]
fn a_big_hull_stepped_alone_shares_its_triangles_and_gets_the_same_forces() {
    let step = |threads: u32| {
        let (mut world, ids, states) = scene(threads);
        let big = world.body(ids[3]).unwrap().hull().triangles().len();
        assert!(big > 2 * 1024, "{big} triangles");
        let mut forces = Vec::new();
        for _ in 0..3 {
            forces.push(world.step_body(ids[3], &states[3], 1.0 / 60.0).unwrap().to_bits());
            let mut one = [BodyForces::default()];
            world
                .step_bodies(&ids[3..4], &states[3..4], 1.0 / 60.0, &mut one, |s| *s, |f, o| *o = *f)
                .unwrap();
            forces.push(one[0].to_bits());
        }
        if threads == 2 {
            helper_thread_ran();
        }
        forces
    };
    let alone = step(1);
    assert!(alone[0][1] != 0, "the big body must feel forces");
    // Two threads: the caller's and the world's helper thread; three: the world's pool.
    assert_eq!(alone, step(2));
    assert_eq!(alone, step(3));
}

/// That a two-thread world's big body was stepped beside a helper thread (not on the
/// pool, which the helper replaces unless it could not start): its thread exists in this
/// process. Linux only (it reads /proc), and only where the process may use two
/// processors (on one, no helper is started, by design).
fn helper_thread_ran() {
    let processors = std::thread::available_parallelism().map_or(1, |n| n.get());
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return skip::skipped("no /proc/self/task to find the helper thread in");
    };
    if processors < 2 {
        return skip::skipped("this process may use one processor only, so no helper thread is started");
    }
    drop(tasks);
    let names = || -> Vec<String> {
        std::fs::read_dir("/proc/self/task")
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|t| std::fs::read_to_string(t.path().join("comm")).ok())
            .map(|n| n.trim().to_owned())
            .collect()
    };
    // A thread takes its name when it first runs, which on a machine busy with the other
    // tests may be after the steps (a late helper's shares are taken back by the caller).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !names().iter().any(|n| n == "keel-helper") {
        assert!(
            std::time::Instant::now() < deadline,
            "no helper thread among {:?}",
            names()
        );
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

#[test]
fn a_failed_batch_changes_nothing() {
    let (mut world, ids, mut states) = scene(2);
    let mut out = vec![BodyForces::default(); ids.len()];
    world
        .step_bodies(&ids, &states, 0.02, &mut out, |s| *s, |f, o| *o = *f)
        .unwrap();
    let before: Vec<_> = out.iter().map(BodyForces::to_bits).collect();
    let detail_before: Vec<_> = ids
        .iter()
        .map(|id| world.body(*id).unwrap().submerged_triangles().count())
        .collect();
    // Move everything, but poison the last state: nothing may be stepped or written.
    for s in &mut states {
        s.position.y -= 0.3;
    }
    states.last_mut().unwrap().linear_velocity.x = f64::NAN;
    let err = world
        .step_bodies(&ids, &states, 0.02, &mut out, |s| *s, |f, o| *o = *f)
        .unwrap_err();
    assert!(err.message.contains("states[59]"), "{}", err.message);
    assert_eq!(before, out.iter().map(BodyForces::to_bits).collect::<Vec<_>>());
    let detail_after: Vec<_> = ids
        .iter()
        .map(|id| world.body(*id).unwrap().submerged_triangles().count())
        .collect();
    assert_eq!(detail_before, detail_after);
    // A duplicate is refused the same way.
    states.last_mut().unwrap().linear_velocity.x = 0.0;
    let mut twice = ids.clone();
    twice[10] = twice[3];
    let err = world
        .step_bodies(&twice, &states, 0.02, &mut out, |s| *s, |f, o| *o = *f)
        .unwrap_err();
    assert!(err.message.contains("twice"), "{}", err.message);
    assert_eq!(before, out.iter().map(BodyForces::to_bits).collect::<Vec<_>>());
}
