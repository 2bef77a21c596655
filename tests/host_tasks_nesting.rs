//! Keel never calls the host's job system from inside one of its own tasks (issue 34): a
//! host whose workers block in `finish_task` would wait for itself. Checked with a pool
//! of one worker whose finish waits (a nested call deadlocks: the step runs on a thread
//! of its own and the test fails after a time limit), a serial executor and pools that
//! record whether each call came from inside a task, on a 9-body batch holding the
//! Stanford bunny (a big hull, whose step can be shared) and on the bunny alone.

mod common;

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::time::Duration;

use common::tasks::{Calls, RecordingPool, RecordingSerial, Waiting};
use common::{bunny, simple_box};
use glam::{DQuat, DVec2, DVec3};
use keel::forces::{FORCE_ALL, FORCE_LUMPED_RESISTANCE};
use keel::runtime::tasks::TaskSystem;
use keel::{BodyDesc, BodyForces, BodyId, BodyState, GerstnerWater, GerstnerWave, Water, World, WorldDesc};

/// How long a scene may take before the test calls it a deadlock (it takes well under a
/// second on a quiet machine; the machine may be shared with other builds).
const LIMIT: Duration = Duration::from_secs(60);

fn bits(f: &BodyForces) -> Vec<u64> {
    [f.force, f.torque, f.center_of_buoyancy]
        .iter()
        .flat_map(|v| v.to_array().map(f64::to_bits))
        .chain([f.submerged_volume.to_bits()])
        .collect()
}

/// Eight boxes and the bunny (body 8) on a Gerstner sea.
fn scene(world: &mut World) -> Vec<BodyId> {
    let wave = GerstnerWave {
        amplitude: 0.4,
        wavelength: 11.0,
        direction: DVec2::new(1.0, 0.3),
        steepness: 0.4,
        phase: 0.0,
    };
    world.set_water(Water::Gerstner(GerstnerWater::new(&[wave], 0.0, 9.81).unwrap()));
    world.set_time(3.0).unwrap();
    let cube = world
        .create_hull(&simple_box(glam::Vec3::new(1.2, 0.6, 0.9), glam::Vec3::ZERO).desc())
        .unwrap();
    let rabbit = world.create_hull(&bunny(0.1).desc()).unwrap();
    (0..9)
        .map(|i| {
            world
                .create_body(&BodyDesc {
                    hull: if i == 8 { rabbit } else { cube },
                    mass: if i == 8 { 30.0 } else { 300.0 },
                    forces: FORCE_ALL & !FORCE_LUMPED_RESISTANCE,
                    ..BodyDesc::default()
                })
                .unwrap()
        })
        .collect()
}

fn state(i: usize, frame: usize) -> BodyState {
    let t = frame as f64 / 60.0;
    let position = DVec3::new(4.0 * i as f64, -0.15 + 0.1 * (3.0 * t).sin(), 0.0);
    BodyState {
        position,
        rotation: DQuat::from_rotation_y(0.2 * i as f64 + t),
        linear_velocity: DVec3::new(0.4, -0.5, 0.1),
        angular_velocity: DVec3::new(0.2, 0.5, 0.0),
        center_of_mass: position,
    }
}

/// Three frames of the 9-body batch, then the bunny alone (`step_body`) and as a batch of
/// one, three frames each: every force's bits.
fn run(mut world: World) -> Vec<Vec<u64>> {
    let ids = scene(&mut world);
    let mut out = vec![BodyForces::default(); ids.len()];
    let mut all = Vec::new();
    for frame in 0..3 {
        let states: Vec<BodyState> = (0..ids.len()).map(|i| state(i, frame)).collect();
        world
            .step_bodies(&ids, &states, 1.0 / 60.0, &mut out, |s| *s, |f, o| *o = *f)
            .unwrap();
        all.extend(out.iter().map(bits));
    }
    let rabbit = ids[8];
    for frame in 3..6 {
        all.push(bits(&world.step_body(rabbit, &state(8, frame), 1.0 / 60.0).unwrap()));
        let mut one = [BodyForces::default()];
        world
            .step_bodies(
                &[rabbit],
                &[state(8, frame)],
                1.0 / 60.0,
                &mut one,
                |s| *s,
                |f, o| *o = *f,
            )
            .unwrap();
        all.push(bits(&one[0]));
    }
    all
}

/// [`run`] on a world of `tasks`, on a thread of its own: a deadlock fails the test after
/// [`LIMIT`] (the stuck thread is left behind; the test binary ends with the failure).
fn run_with_limit(tasks: Arc<dyn TaskSystem>, what: &str) -> Vec<Vec<u64>> {
    let (send, receive) = mpsc::channel();
    std::thread::Builder::new()
        .name(format!("scene-{what}"))
        .spawn(move || {
            let world = World::with_tasks(&WorldDesc::default(), tasks).unwrap();
            let _ = send.send(run(world));
        })
        .unwrap();
    receive.recv_timeout(LIMIT).unwrap_or_else(|e| {
        panic!("{what}: the scene did not finish within {LIMIT:?} ({e}): keel waits for a task inside a task")
    })
}

fn reference() -> Vec<Vec<u64>> {
    let world = World::new(&WorldDesc {
        thread_count: 1,
        ..WorldDesc::default()
    })
    .unwrap();
    let forces = run(world);
    assert!(forces.iter().any(|f| f[1] != 0), "the scene must feel forces");
    forces
}

fn assert_not_nested(calls: &Calls, what: &str) {
    assert!(
        calls.runs.load(Ordering::Relaxed) > 0,
        "{what}: the host's tasks were never used"
    );
    assert_eq!(
        calls.nested.load(Ordering::Relaxed),
        0,
        "{what}: enqueue_task/finish_task called from inside keel's own tasks, on {:?}",
        calls.nested_threads.lock().unwrap()
    );
}

#[test]
fn a_one_worker_pool_whose_finish_waits_never_deadlocks() {
    let reference = reference();
    for workers in [1, 2] {
        let pool = Arc::new(Waiting::new(workers));
        let forces = run_with_limit(pool.clone(), &format!("a waiting pool of {workers}"));
        assert_eq!(
            reference, forces,
            "a waiting pool of {workers}: not the bits of keel's own thread"
        );
        assert_not_nested(&pool.calls, &format!("a waiting pool of {workers}"));
        assert!(pool.ranges.load(Ordering::Relaxed) > 0);
    }
}

#[test]
fn a_serial_executor_is_never_called_from_inside_a_task() {
    let reference = reference();
    let serial = Arc::new(RecordingSerial::default());
    assert_eq!(reference, run_with_limit(serial.clone(), "serial"));
    assert_not_nested(&serial.calls, "serial");
}

#[test]
fn a_pool_is_called_from_the_stepping_thread_only() {
    let reference = reference();
    for workers in [2, 3, 4] {
        let pool = Arc::new(RecordingPool::new(workers));
        let what = format!("a pool of {workers}");
        assert_eq!(reference, run_with_limit(pool.clone(), &what), "{what}");
        assert_not_nested(&pool.calls, &what);
    }
}

/// The bunny alone shares its sections among the host's workers (one task each): the
/// pool's threads must take some of them, or the test above proves nothing about them.
#[test]
fn the_bunny_alone_is_shared_among_the_hosts_workers() {
    let pool = Arc::new(Waiting::new(3));
    let mut world = World::with_tasks(&WorldDesc::default(), pool.clone()).unwrap();
    let ids = scene(&mut world);
    world.step_body(ids[8], &state(8, 0), 1.0 / 60.0).unwrap();
    let before = pool.calls.runs.load(Ordering::Relaxed);
    world.step_body(ids[8], &state(8, 1), 1.0 / 60.0).unwrap();
    assert!(
        pool.calls.runs.load(Ordering::Relaxed) > before,
        "a big body alone must be shared with the host's workers"
    );
    assert_not_nested(&pool.calls, "the bunny alone");
}
