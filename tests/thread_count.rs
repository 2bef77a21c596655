//! What each `thread_count` starts, and when (issue 34): 1 the caller's thread only; 2 the
//! caller's and one helper thread, started by the first batch of two bodies or more or
//! the first big body stepped alone; 3 or more a pool of that many threads, started with
//! the world. The process's threads are read from /proc by name; one test alone in its
//! binary, so that no other test's threads come and go meanwhile.

mod common;

mod skip;
use std::time::{Duration, Instant};

use common::{bunny, simple_box};
use glam::DVec3;
use keel::{BodyDesc, BodyForces, BodyId, BodyState, World, WorldDesc};

/// The names of keel's threads in this process (`None` without /proc).
fn keels_threads() -> Option<Vec<String>> {
    let tasks = std::fs::read_dir("/proc/self/task").ok()?;
    let mut names: Vec<String> = tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("comm")).ok())
        .map(|n| n.trim().to_owned())
        .filter(|n| n.starts_with("keel"))
        .collect();
    names.sort();
    Some(names)
}

/// Waits (a thread takes its name when it first runs, which on a busy machine can be
/// late) until keel's threads are `expected`, and fails after 10 s.
fn expect_threads(expected: &[&str], when: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let names = keels_threads().unwrap();
        if names == expected {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{when}: keel's threads are {names:?}, not {expected:?}"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn skip(why: &str) {
    skip::skipped(why);
}

fn state(i: usize) -> BodyState {
    let p = DVec3::new(3.0 * i as f64, -0.2, 0.0);
    BodyState {
        position: p,
        center_of_mass: p,
        linear_velocity: DVec3::new(0.0, -1.0, 0.0),
        ..BodyState::default()
    }
}

/// A world of `thread_count` with two boxes and the bunny (a big hull).
fn world(thread_count: u32) -> (World, Vec<BodyId>) {
    let mut world = World::new(&WorldDesc {
        thread_count,
        ..WorldDesc::default()
    })
    .unwrap();
    let cube = world
        .create_hull(&simple_box(glam::Vec3::new(1.0, 0.5, 1.0), glam::Vec3::ZERO).desc())
        .unwrap();
    let rabbit = world.create_hull(&bunny(0.1).desc()).unwrap();
    let ids = [cube, cube, rabbit]
        .into_iter()
        .map(|hull| {
            world
                .create_body(&BodyDesc {
                    hull,
                    ..BodyDesc::default()
                })
                .unwrap()
        })
        .collect();
    (world, ids)
}

fn batch(world: &mut World, ids: &[BodyId]) {
    let states: Vec<BodyState> = (0..ids.len()).map(state).collect();
    let mut out = vec![BodyForces::default(); ids.len()];
    world
        .step_bodies(ids, &states, 1.0 / 60.0, &mut out, |s| *s, |f, o| *o = *f)
        .unwrap();
    assert!(out.iter().all(|f| f.force.y > 0.0), "every body must float");
}

#[test]
fn each_thread_count_starts_what_the_header_says_when_it_says() {
    if keels_threads().is_none() {
        return skip("no /proc/self/task to count this process's threads in");
    }
    expect_threads(&[], "before any world");

    // 1: the caller's thread only, whatever is stepped.
    let (mut one, ids) = world(1);
    assert_eq!(one.thread_count(), 1);
    batch(&mut one, &ids);
    one.step_body(ids[2], &state(2), 1.0 / 60.0).unwrap();
    expect_threads(&[], "thread_count 1");
    drop(one);

    // 3: a pool of three, from the start.
    let (mut three, ids) = world(3);
    assert_eq!(three.thread_count(), 3);
    let pool = ["keel-worker-0", "keel-worker-1", "keel-worker-2"];
    expect_threads(&pool, "thread_count 3, created");
    batch(&mut three, &ids);
    three.step_body(ids[2], &state(2), 1.0 / 60.0).unwrap();
    expect_threads(&pool, "thread_count 3, stepped");
    drop(three);
    expect_threads(&[], "thread_count 3, destroyed");

    // 2: no thread until it is needed, then one helper (and no pool).
    if std::thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
        return skip("this process may use one processor only: no helper thread is started there, by design");
    }
    let (mut two, ids) = world(2);
    assert_eq!(two.thread_count(), 2);
    expect_threads(&[], "thread_count 2, created");
    // A small body alone, and a batch of one small body: nothing to share.
    two.step_body(ids[0], &state(0), 1.0 / 60.0).unwrap();
    batch(&mut two, &ids[..1]);
    expect_threads(&[], "thread_count 2, a small body stepped alone");
    batch(&mut two, &ids[..2]);
    expect_threads(&["keel-helper"], "thread_count 2, a batch of two boxes");
    batch(&mut two, &ids);
    two.step_body(ids[2], &state(2), 1.0 / 60.0).unwrap();
    expect_threads(&["keel-helper"], "thread_count 2, the bunny stepped");
    drop(two);
    expect_threads(&[], "thread_count 2, destroyed");

    // ... or the first big body alone.
    let (mut two, ids) = world(2);
    two.step_body(ids[2], &state(2), 1.0 / 60.0).unwrap();
    expect_threads(&["keel-helper"], "thread_count 2, the bunny stepped alone");
}
