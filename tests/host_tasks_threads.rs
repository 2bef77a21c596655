//! A world given the host's job system starts no thread of its own (issue 30): the
//! process's threads are counted around it. One test alone in its binary, so that no
//! other test's threads come and go meanwhile.

mod common;
mod skip;

use std::sync::Arc;

use common::tasks::Pool;
use common::{bunny, simple_box};
use glam::DVec3;
use keel::{BodyDesc, BodyForces, BodyState, World, WorldDesc};

fn threads() -> Option<Vec<String>> {
    let tasks = std::fs::read_dir("/proc/self/task").ok()?;
    Some(
        tasks
            .flatten()
            .map(|t| {
                std::fs::read_to_string(t.path().join("comm"))
                    .unwrap_or_default()
                    .trim()
                    .to_owned()
            })
            .collect(),
    )
}

#[test]
fn a_world_on_the_hosts_tasks_starts_no_thread() {
    let Some(before) = threads() else {
        return skip::skipped("no /proc/self/task to count this process's threads in");
    };
    let pool = Arc::new(Pool::new(3));
    let with_pool = threads().unwrap();
    assert_eq!(with_pool.len(), before.len() + 2, "{with_pool:?}");
    // thread_count 2 would start a helper thread, 0 a pool: neither may start.
    for thread_count in [0, 2, 8] {
        let mut world = World::with_tasks(
            &WorldDesc {
                thread_count,
                ..WorldDesc::default()
            },
            pool.clone(),
        )
        .unwrap();
        let cube = world
            .create_hull(&simple_box(glam::Vec3::new(1.0, 0.5, 1.0), glam::Vec3::ZERO).desc())
            .unwrap();
        let rabbit = world.create_hull(&bunny(0.1).desc()).unwrap();
        // Boxes, and a bunny (a big hull, whose step alone is shared among the tasks).
        let ids: Vec<_> = (0..20)
            .map(|i| {
                let hull = if i == 0 { rabbit } else { cube };
                world
                    .create_body(&BodyDesc {
                        hull,
                        ..BodyDesc::default()
                    })
                    .unwrap()
            })
            .collect();
        let states: Vec<BodyState> = (0..ids.len())
            .map(|i| {
                let p = DVec3::new(3.0 * i as f64, -0.2, 0.0);
                BodyState {
                    position: p,
                    center_of_mass: p,
                    linear_velocity: DVec3::new(0.0, -1.0, 0.0),
                    ..BodyState::default()
                }
            })
            .collect();
        let mut out = vec![BodyForces::default(); ids.len()];
        for _ in 0..3 {
            world
                .step_bodies(&ids, &states, 1.0 / 60.0, &mut out, |s| *s, |f, o| *o = *f)
                .unwrap();
            for (id, s) in ids.iter().zip(&states) {
                world.step_body(*id, s, 1.0 / 60.0).unwrap();
            }
        }
        assert!(out.iter().any(|f| f.force.y > 0.0));
        let during = threads().unwrap();
        assert_eq!(
            during.len(),
            with_pool.len(),
            "thread_count {thread_count}: keel started a thread: {during:?}"
        );
        assert!(!during.iter().any(|n| n.starts_with("keel")), "{during:?}");
    }
    // (A world of keel's own threads does start some: the count can see them.)
    let own = World::new(&WorldDesc {
        thread_count: 3,
        ..WorldDesc::default()
    })
    .unwrap();
    assert!(threads().unwrap().len() > with_pool.len());
    drop(own);
}
