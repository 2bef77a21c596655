//! The host's job system (issue 30): a world created with `World::with_tasks` steps
//! batches and a big body alone on the host's tasks, with the bits of keel's own threads.

mod common;

use std::sync::Arc;
use std::sync::atomic::Ordering;

use common::tasks::{Pool, Serial};
use common::{bunny, simple_box};
use glam::{DQuat, DVec2, DVec3};
use keel::forces::{FORCE_ALL, FORCE_DAMPING, FORCE_LUMPED_RESISTANCE, FORCE_SLAMMING};
use keel::runtime::tasks::TaskSystem;
use keel::{BodyDesc, BodyForces, BodyId, BodyState, GerstnerWater, GerstnerWave, Water, World, WorldDesc};

/// Boxes (in the lanes), boxes with the lumped resistance (out of them) and two bunnies
/// (big hulls, the whole-triangle path) on a Gerstner sea with a current and a wind.
fn scene(mut world: World) -> (World, Vec<BodyId>) {
    let waves = [
        GerstnerWave {
            amplitude: 0.5,
            wavelength: 13.0,
            direction: DVec2::new(1.0, 0.4),
            steepness: 0.5,
            phase: 0.0,
        },
        GerstnerWave {
            amplitude: 0.2,
            wavelength: 4.0,
            direction: DVec2::new(-0.3, 1.0),
            steepness: 0.3,
            phase: 1.0,
        },
    ];
    world.set_water(Water::Gerstner(GerstnerWater::new(&waves, 0.0, 9.81).unwrap()));
    world.set_time(5.0).unwrap();
    world.set_wind(DVec3::new(6.0, 0.0, 2.0)).unwrap();
    world.set_current(DVec3::new(0.3, 0.0, -0.2)).unwrap();
    let cube = world
        .create_hull(&simple_box(glam::Vec3::new(1.5, 0.8, 1.0), glam::Vec3::ZERO).desc())
        .unwrap();
    let rabbit = world.create_hull(&bunny(0.1).desc()).unwrap();
    let mut ids = Vec::new();
    for i in 0..40 {
        let lumped = i % 7 == 3;
        let forces = if lumped {
            FORCE_SLAMMING | FORCE_DAMPING | FORCE_LUMPED_RESISTANCE
        } else {
            FORCE_ALL & !FORCE_LUMPED_RESISTANCE
        };
        ids.push(
            world
                .create_body(&BodyDesc {
                    hull: cube,
                    mass: 400.0 + i as f64,
                    forces,
                    ..BodyDesc::default()
                })
                .unwrap(),
        );
    }
    for _ in 0..2 {
        ids.push(
            world
                .create_body(&BodyDesc {
                    hull: rabbit,
                    mass: 30.0,
                    forces: FORCE_ALL & !FORCE_LUMPED_RESISTANCE,
                    ..BodyDesc::default()
                })
                .unwrap(),
        );
    }
    (world, ids)
}

/// Body `i`'s state at frame `frame`: bobbing and turning.
fn state(i: usize, frame: usize) -> BodyState {
    let (x, t) = (i as f64, frame as f64 / 60.0);
    let position = DVec3::new(3.0 * x - 60.0, -0.2 + 0.3 * (2.0 * t + x).sin(), 1.5 * x);
    BodyState {
        position,
        rotation: DQuat::from_rotation_y(0.1 * x + t) * DQuat::from_rotation_x(0.2 * (3.0 * t).sin()),
        linear_velocity: DVec3::new(0.5, 0.6 * (2.0 * t + x).cos(), -0.2),
        angular_velocity: DVec3::new(0.3 * (3.0 * t).cos(), 1.0, 0.0),
        center_of_mass: position + DVec3::new(0.0, -0.05, 0.0),
    }
}

/// Frames of the whole batch, then of the first bunny alone (`step_body`) and in a batch
/// of one.
fn run(world: World) -> Vec<[u64; 31]> {
    let (mut world, ids) = scene(world);
    let mut out = vec![BodyForces::default(); ids.len()];
    let mut all = Vec::new();
    for frame in 0..4 {
        let states: Vec<BodyState> = (0..ids.len()).map(|i| state(i, frame)).collect();
        world
            .step_bodies(&ids, &states, 1.0 / 60.0, &mut out, |s| *s, |f, o| *o = *f)
            .unwrap();
        all.extend(out.iter().map(BodyForces::to_bits));
    }
    let rabbit = ids[40];
    for frame in 4..7 {
        all.push(
            world
                .step_body(rabbit, &state(40, frame), 1.0 / 60.0)
                .unwrap()
                .to_bits(),
        );
        let mut one = [BodyForces::default()];
        world
            .step_bodies(
                &[rabbit],
                &[state(40, frame)],
                1.0 / 60.0,
                &mut one,
                |s| *s,
                |f, o| *o = *f,
            )
            .unwrap();
        all.push(one[0].to_bits());
    }
    all
}

fn own_threads(threads: u32) -> World {
    World::new(&WorldDesc {
        thread_count: threads,
        ..WorldDesc::default()
    })
    .unwrap()
}

#[test]
fn the_hosts_tasks_give_the_bits_of_keels_own_threads() {
    let reference = run(own_threads(1));
    assert!(reference.iter().any(|f| f[1] != 0), "the scene must feel forces");
    for threads in [2, 3] {
        assert_eq!(reference, run(own_threads(threads)), "{threads} threads of keel's");
    }
    let serial = Arc::new(Serial::default());
    let tasks: Arc<dyn TaskSystem> = serial.clone();
    assert_eq!(
        reference,
        run(World::with_tasks(&WorldDesc::default(), tasks).unwrap()),
        "serial"
    );
    assert!(serial.tasks.load(Ordering::Relaxed) > 0, "the tasks must be used");
    for workers in [2, 3] {
        let pool = Arc::new(Pool::new(workers));
        let tasks: Arc<dyn TaskSystem> = pool.clone();
        let world = World::with_tasks(&WorldDesc::default(), tasks).unwrap();
        assert_eq!(world.thread_count(), workers as usize);
        assert_eq!(reference, run(world), "a pool of {workers}");
        assert!(
            pool.on_workers.load(Ordering::Relaxed) > 0,
            "the pool's own threads must have run some of the work"
        );
    }
}

/// A host that runs only some items (or some twice) still gets every body stepped once.
#[derive(Debug)]
struct Sloppy;

impl TaskSystem for Sloppy {
    fn worker_count(&self) -> u32 {
        2
    }

    fn run(&self, item_count: u32, _min_range: u32, task: &(dyn Fn(u32, u32, u32) + Sync)) {
        // The second half only, twice.
        task(item_count / 2, item_count, 0);
        task(item_count / 2, item_count, 1);
    }
}

#[test]
fn items_the_host_drops_or_repeats_are_run_once() {
    let reference = run(own_threads(1));
    let world = World::with_tasks(&WorldDesc::default(), Arc::new(Sloppy)).unwrap();
    assert_eq!(reference, run(world));
}

#[test]
fn a_job_system_without_workers_is_refused() {
    #[derive(Debug)]
    struct Nobody(u32);
    impl TaskSystem for Nobody {
        fn worker_count(&self) -> u32 {
            self.0
        }
        fn run(&self, _: u32, _: u32, _: &(dyn Fn(u32, u32, u32) + Sync)) {}
    }
    for workers in [0, 257] {
        let err = World::with_tasks(&WorldDesc::default(), Arc::new(Nobody(workers))).unwrap_err();
        assert_eq!(err.kind, keel::ErrorKind::InvalidArgument);
        assert!(err.message.contains("worker_count"), "{}", err.message);
    }
}
