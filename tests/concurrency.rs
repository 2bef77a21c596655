//! Many threads creating, stepping and destroying bodies in one world and across worlds:
//! no deadlock, no crash, and every body's results are exactly what it gets alone.
//! `KEEL_CONCURRENCY_SECONDS` sets how long the churn runs (default 3 s; minutes by hand).

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::{boat_hull, simple_box};
use keel::ffi::*;

fn v(x: f32, y: f32, z: f32) -> KeelVec3 {
    KeelVec3 { x, y, z }
}

fn world(threads: u32) -> KeelWorld {
    unsafe {
        let mut desc = std::mem::zeroed::<KeelWorldDesc>();
        keel_world_desc_default(&mut desc);
        desc.thread_count = threads;
        let mut w = 0;
        assert_eq!(keel_world_create(&desc, &mut w), KeelStatus::KEEL_OK);
        let waves = [KeelGerstnerWave {
            amplitude: 0.5,
            wavelength: 14.0,
            direction_x: 1.0,
            direction_z: 0.3,
            steepness: 0.3,
            phase: 0.0,
        }];
        assert_eq!(keel_water_set_gerstner(w, waves.as_ptr(), 1, 0.0), KeelStatus::KEEL_OK);
        w
    }
}

fn hull(world: KeelWorld, mesh: &common::Mesh) -> KeelHull {
    let vertices: Vec<KeelVec3> = mesh.vertices.iter().map(|p| v(p.x, p.y, p.z)).collect();
    let desc = KeelHullDesc {
        vertices: vertices.as_ptr(),
        vertex_count: vertices.len() as u32,
        indices: mesh.indices.as_ptr(),
        index_count: mesh.indices.len() as u32,
        flip_winding: false,
    };
    let mut h = 0;
    assert_eq!(unsafe { keel_hull_create(world, &desc, &mut h) }, KeelStatus::KEEL_OK);
    h
}

fn body(world: KeelWorld, hull: KeelHull) -> KeelBody {
    unsafe {
        let mut desc = std::mem::zeroed::<KeelBodyDesc>();
        keel_body_desc_default(&mut desc);
        desc.hull = hull;
        desc.mass = 2000.0;
        let mut b = 0;
        assert_eq!(keel_body_create(world, &desc, &mut b), KeelStatus::KEEL_OK);
        b
    }
}

/// A body's trajectory of states, the same for every run.
fn state(seed: u32, step: u32) -> KeelBodyState {
    let t = step as f32 * 0.05 + seed as f32;
    KeelBodyState {
        position: v(seed as f32 * 20.0, -0.3 + 0.2 * t.sin(), 0.0),
        rotation: KeelQuat {
            x: 0.05 * t.cos(),
            y: 0.1,
            z: 0.03,
            w: 1.0,
        },
        linear_velocity: v(1.0, 0.5 * t.cos(), 0.2),
        angular_velocity: v(0.1 * t.sin(), 0.0, 0.05),
        center_of_mass: v(seed as f32 * 20.0, -0.5, 0.1),
    }
}

/// Steps one body along its trajectory; returns the bits of every force.
fn trajectory(world: KeelWorld, body: KeelBody, seed: u32, steps: u32) -> Vec<[u32; 6]> {
    (0..steps)
        .map(|i| {
            let mut f = KeelBodyForces::default();
            assert_eq!(
                unsafe { keel_body_step(world, body, &state(seed, i), 1.0 / 60.0, &mut f) },
                KeelStatus::KEEL_OK
            );
            [f.force.x, f.force.y, f.force.z, f.torque.x, f.torque.y, f.torque.z].map(f32::to_bits)
        })
        .collect()
}

#[test]
fn bodies_stepped_amid_churn_on_many_threads_get_exactly_their_lone_results() {
    let seconds: f64 = std::env::var("KEEL_CONCURRENCY_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3.0);
    let steps = 40;
    let boat = boat_hull(6.0, 2.0, 0.8, 0.6, 12, 8);
    let crate_mesh = simple_box(glam::Vec3::ONE, glam::Vec3::ZERO);

    // Alone: each trajectory in a world of its own.
    let expected: Vec<Vec<[u32; 6]>> = (0..4)
        .map(|seed| {
            let w = world(1);
            let b = body(w, hull(w, &boat));
            let r = trajectory(w, b, seed, steps);
            assert_eq!(keel_world_destroy(w), KeelStatus::KEEL_OK);
            r
        })
        .collect();

    let shared = world(2);
    let shared_hull = hull(shared, &boat);
    let stop = Arc::new(AtomicBool::new(false));
    let deadline = Instant::now() + Duration::from_secs_f64(seconds);
    let mut workers = Vec::new();
    for seed in 0..4u32 {
        let expected = expected[seed as usize].clone();
        let boat = boat.clone();
        workers.push(std::thread::spawn(move || {
            let mut rounds = 0;
            while Instant::now() < deadline || rounds == 0 {
                // In the shared world, and in a world of this thread's own.
                let b = body(shared, shared_hull);
                assert_eq!(
                    trajectory(shared, b, seed, steps),
                    expected,
                    "thread {seed}, shared world"
                );
                assert_eq!(keel_body_destroy(shared, b), KeelStatus::KEEL_OK);
                let own = world(1 + seed % 2);
                let b = body(own, hull(own, &boat));
                assert_eq!(trajectory(own, b, seed, steps), expected, "thread {seed}, own world");
                assert_eq!(keel_world_destroy(own), KeelStatus::KEEL_OK);
                rounds += 1;
            }
            rounds
        }));
    }
    // Churn: hulls and bodies created and destroyed, batches stepped, in the shared world.
    let churn = {
        let stop = Arc::clone(&stop);
        let crate_mesh = crate_mesh.clone();
        std::thread::spawn(move || {
            let mut n = 0u32;
            while !stop.load(Ordering::SeqCst) {
                let h = hull(shared, &crate_mesh);
                let bodies: Vec<KeelBody> = (0..8).map(|_| body(shared, h)).collect();
                let states: Vec<KeelBodyState> = (0..8).map(|i| state(10 + i, n)).collect();
                let mut out = vec![KeelBodyForces::default(); 8];
                let status = unsafe {
                    keel_world_step(
                        shared,
                        bodies.as_ptr(),
                        states.as_ptr(),
                        8,
                        1.0 / 60.0,
                        out.as_mut_ptr(),
                    )
                };
                assert_eq!(status, KeelStatus::KEEL_OK);
                for b in bodies {
                    assert_eq!(keel_body_destroy(shared, b), KeelStatus::KEEL_OK);
                }
                assert_eq!(keel_hull_destroy(shared, h), KeelStatus::KEEL_OK);
                n += 1;
            }
            n
        })
    };
    // A watchdog: a deadlock fails the test instead of hanging CI.
    let watchdog_deadline = Instant::now() + Duration::from_secs_f64(10.0 * seconds + 60.0);
    let mut rounds = 0;
    for w in workers {
        while !w.is_finished() {
            assert!(Instant::now() < watchdog_deadline, "deadlock: a worker did not finish");
            std::thread::sleep(Duration::from_millis(20));
        }
        rounds += w.join().expect("a worker panicked");
    }
    stop.store(true, Ordering::SeqCst);
    let churned = churn.join().expect("the churn thread panicked");
    eprintln!("{rounds} rounds of 2 x {steps} steps on 4 threads, {churned} churn rounds, {seconds} s");
    assert_eq!(keel_world_destroy(shared), KeelStatus::KEEL_OK);
}
