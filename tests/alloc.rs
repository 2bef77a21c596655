//! No heap allocation inside a step once a body has been stepped once: a counting global
//! allocator watches keel_body_step and keel_world_step through the C ABI.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use common::{boat_hull, simple_box, uv_sphere};
use keel::ffi::*;

struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(Ordering::SeqCst) {
            ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
        }
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.load(Ordering::SeqCst) {
            ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn v(x: f32, y: f32, z: f32) -> KeelVec3 {
    KeelVec3 { x, y, z }
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
    let mut hull = 0;
    assert_eq!(
        unsafe { keel_hull_create(world, &desc, &mut hull) },
        KeelStatus::KEEL_OK
    );
    hull
}

/// Heap allocations during 200 steps (a keel_body_step of every body and a
/// keel_world_step of them all) after one warm-up step, in a world of `threads` threads.
fn allocations_in_steady_state(threads: u32) -> usize {
    let mut desc = unsafe { std::mem::zeroed::<KeelWorldDesc>() };
    unsafe { keel_world_desc_default(&mut desc) };
    desc.thread_count = threads;
    let mut world = 0;
    assert_eq!(unsafe { keel_world_create(&desc, &mut world) }, KeelStatus::KEEL_OK);
    let waves = [KeelGerstnerWave {
        amplitude: 0.4,
        wavelength: 9.0,
        direction_x: 1.0,
        direction_z: 0.2,
        steepness: 0.5,
        phase: 0.0,
    }];
    assert_eq!(
        unsafe { keel_water_set_gerstner(world, waves.as_ptr(), 1, 0.0) },
        KeelStatus::KEEL_OK
    );

    let hulls = [
        hull(world, &boat_hull(6.0, 2.0, 0.8, 0.6, 16, 10)),
        hull(world, &uv_sphere(0.6, 10, 16)),
    ];
    // And one hull big enough (3744 triangles) for a body stepped alone to share its
    // triangles, its water patch and its cut triangles with the pool's other thread.
    let big = hull(world, &uv_sphere(0.6, 40, 48));
    // And two 12-triangle boxes: small bodies in the lanes, alone (their triangles in
    // chunks kept between the passes) and as a group of two in the batch.
    let small = hull(world, &simple_box(glam::Vec3::new(1.0, 0.6, 0.8), glam::Vec3::ZERO));
    let mut bodies = Vec::new();
    let mut states = Vec::new();
    for i in 0..11 {
        let mut body_desc = unsafe { std::mem::zeroed::<KeelBodyDesc>() };
        unsafe { keel_body_desc_default(&mut body_desc) };
        body_desc.hull = match i {
            8 => big,
            9 | 10 => small,
            _ => hulls[i % 2],
        };
        body_desc.buoyancy = if i >= 9 {
            KEEL_BUOYANCY_PRESSURE
        } else {
            [KEEL_BUOYANCY_PRESSURE, KEEL_BUOYANCY_VOLUME][(i / 4).min(1)]
        };
        let mut body = 0;
        assert_eq!(
            unsafe { keel_body_create(world, &body_desc, &mut body) },
            KeelStatus::KEEL_OK
        );
        bodies.push(body);
        states.push(KeelBodyState {
            position: v(3.0 * i as f32, 0.0, 0.0),
            rotation: KeelQuat {
                x: 0.1,
                y: 0.0,
                z: 0.05,
                w: 1.0,
            },
            linear_velocity: v(1.0, -0.5, 0.0),
            angular_velocity: v(0.0, 0.2, 0.1),
            center_of_mass: v(3.0 * i as f32, -0.1, 0.0),
        });
    }
    let mut out = vec![KeelBodyForces::default(); bodies.len()];
    let step_all = |out: &mut [KeelBodyForces], depth: f32| {
        for (k, (body, state)) in bodies.iter().zip(&states).enumerate() {
            let state = KeelBodyState {
                position: v(state.position.x, depth, state.position.z),
                ..*state
            };
            assert_eq!(
                unsafe { keel_body_step(world, *body, &state, 1.0 / 60.0, &mut out[k]) },
                KeelStatus::KEEL_OK
            );
        }
        let status = unsafe {
            keel_world_step(
                world,
                bodies.as_ptr(),
                states.as_ptr(),
                bodies.len() as u32,
                1.0 / 60.0,
                out.as_mut_ptr(),
            )
        };
        assert_eq!(status, KeelStatus::KEEL_OK);
    };
    // The first step may size buffers.
    step_all(&mut out, 0.0);

    ALLOCATIONS.store(0, Ordering::SeqCst);
    COUNTING.store(true, Ordering::SeqCst);
    for i in 0..200 {
        // From flying to fully submerged: every clipping case, every buffer at its largest.
        let depth = 2.0 - 4.0 * (i as f32 / 199.0);
        keel_world_set_time(world, i as f64 * 0.1);
        step_all(&mut out, depth);
    }
    COUNTING.store(false, Ordering::SeqCst);
    let allocations = ALLOCATIONS.load(Ordering::SeqCst);
    assert!(out.iter().any(|f| f.force.y > 0.0));

    // The counter itself works: creating a hull allocates.
    ALLOCATIONS.store(0, Ordering::SeqCst);
    COUNTING.store(true, Ordering::SeqCst);
    hull(world, &uv_sphere(0.6, 4, 6));
    COUNTING.store(false, Ordering::SeqCst);
    assert!(
        ALLOCATIONS.load(Ordering::SeqCst) > 0,
        "the counting allocator must see allocations"
    );
    assert_eq!(keel_world_destroy(world), KeelStatus::KEEL_OK);
    allocations
}

/// The only test in this file, so no other test allocates while it counts.
#[test]
fn steps_do_not_allocate_once_a_body_has_been_stepped() {
    let single = allocations_in_steady_state(1);
    assert_eq!(single, 0, "{single} heap allocations in 200 steps of 11 bodies");
    // With worker threads keel still allocates nothing, but rayon's queue of jobs sent
    // into the pool takes a block of 63 slots from the heap now and then: each step sends
    // one (the batch; the big body stepped alone shares its step with the world's helper
    // thread, not the pool), 200 in all, about 3 blocks.
    let pooled = allocations_in_steady_state(2);
    assert!(
        pooled <= 200 / 32,
        "{pooled} heap allocations in 200 steps with a thread pool"
    );
}
