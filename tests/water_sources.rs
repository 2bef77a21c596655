//! Water from real engines: heightfields, callbacks, Kerner's water patch, currents and
//! spectra, against the built-in models they stand in for.

mod common;

use common::sim::{RigidBody, run};
use common::{boat_hull, bunny, simple_box, world};
use glam::{DQuat, DVec2, DVec3, Vec3};
use keel::water::spectrum::{self, Spectrum};
use keel::{
    BodyDesc, BodyForces, BodyState, GerstnerWater, GerstnerWave, HeightfieldWater, Water, WaterSurface, World,
};

fn sea() -> Vec<GerstnerWave> {
    // The shortest wave is 6 m long.
    [
        (0.5, 30.0, (1.0, 0.2), 0.3),
        (0.3, 14.0, (0.6, 1.0), 0.2),
        (0.15, 6.0, (-0.4, 1.0), 0.15),
    ]
    .iter()
    .map(|&(amplitude, wavelength, (x, z), steepness)| GerstnerWave {
        amplitude,
        wavelength,
        direction: DVec2::new(x, z),
        steepness,
        phase: wavelength,
    })
    .collect()
}

/// Buoyancy-only forces on a 12 m boat hull heeled and trimmed on `water`: the drawn
/// surface's hydrostatics, which is what a grid of heights carries (a Gerstner sea's
/// Froude-Krylov correction needs the water's acceleration, and is off here).
fn boat_forces(water: Water, time: f64) -> BodyForces {
    let mut w = world();
    w.set_water(water);
    w.set_time(time).unwrap();
    let mesh = boat_hull(12.0, 4.0, 1.2, 1.0, 24, 12);
    let (_, id) = common::body(
        &mut w,
        &mesh,
        BodyDesc {
            mass: 20_000.0,
            forces: 0,
            froude_krylov: false,
            ..BodyDesc::default()
        },
    );
    let state = BodyState {
        position: DVec3::new(3.0, -0.3, -2.0),
        rotation: DQuat::from_euler(glam::EulerRot::YXZ, 0.7, 0.05, 0.1),
        center_of_mass: DVec3::new(3.0, -0.5, -2.0),
        ..BodyState::default()
    };
    w.step_body(id, &state, 1.0 / 60.0).unwrap()
}

/// The heights of `sea` at `time` on a grid of `cell` m around the boat.
fn sampled(sea: &GerstnerWater, time: f64, cell: f64) -> HeightfieldWater {
    let (origin, size) = (DVec2::new(-12.0, -16.0), 30.0);
    let n = (size / cell) as usize + 1;
    let heights: Vec<f32> = (0..n * n)
        .map(|i| sea.height(origin.x + (i % n) as f64 * cell, origin.y + (i / n) as f64 * cell, time) as f32)
        .collect();
    HeightfieldWater::new(&heights, n, n, origin.x, origin.y, cell, false).unwrap()
}

fn relative_difference(a: &BodyForces, b: &BodyForces) -> (f64, f64) {
    let scale = a.force.length();
    (
        (a.force - b.force).length() / scale,
        (a.torque - b.torque).length() / (scale * 12.0),
    )
}

#[test]
fn a_heightfield_finer_than_a_tenth_of_the_shortest_wave_reproduces_the_seas_forces() {
    let gerstner = GerstnerWater::new(&sea(), 0.0, 9.81).unwrap();
    let time = 3.7;
    let exact = boat_forces(Water::Gerstner(gerstner.clone()), time);
    for (cell, tolerance) in [(0.6, 0.02), (0.25, 0.005)] {
        let grid = boat_forces(Water::Heightfield(Box::new(sampled(&gerstner, time, cell))), time);
        let (force, torque) = relative_difference(&exact, &grid);
        eprintln!("cell {cell} m: force off by {force:.2e}, torque by {torque:.2e}");
        assert!(force < tolerance && torque < tolerance, "cell {cell}: {force} {torque}");
    }
    // A grid far too coarse does not: the test can tell.
    let coarse = boat_forces(Water::Heightfield(Box::new(sampled(&gerstner, time, 7.5))), time);
    let (force, torque) = relative_difference(&exact, &coarse);
    eprintln!("cell 7.5 m: force off by {force:.2e}, torque by {torque:.2e}");
    assert!(force.max(torque) > 0.02);
}

/// The host's water: a Gerstner sea behind the C ABI's callback.
unsafe extern "C" fn gerstner_callback(
    user_data: *mut std::ffi::c_void,
    points: *const keel::ffi::KeelVec3,
    count: u32,
    heights: *mut f32,
    normals: *mut keel::ffi::KeelVec3,
    velocities: *mut keel::ffi::KeelVec3,
) {
    let (sea, time) = unsafe { &*(user_data as *const (GerstnerWater, f64)) };
    for i in 0..count as usize {
        let p = unsafe { *points.add(i) };
        let s = sea.sample(p.x as f64, p.z as f64, *time);
        unsafe { *heights.add(i) = s.height as f32 };
        let v3 = |v: DVec3| keel::ffi::KeelVec3 {
            x: v.x as f32,
            y: v.y as f32,
            z: v.z as f32,
        };
        if !normals.is_null() {
            unsafe { *normals.add(i) = v3(s.normal) };
        }
        if !velocities.is_null() {
            // The water's velocity at the point itself: the surface's taken down by the
            // decay a Gerstner sea's orbits have (what keel's own sea does in a step).
            let below = (p.y as f64 - s.height).min(0.0);
            let velocity = s.velocity * (sea.velocity_decay() * below).exp();
            unsafe { *velocities.add(i) = v3(velocity) };
        }
    }
}

#[test]
fn a_callback_gives_the_forces_of_the_model_behind_it() {
    use keel::ffi::*;
    let time = 5.5;
    let gerstner = GerstnerWater::new(&sea(), 0.0, 9.81).unwrap();
    let host = Box::new((gerstner.clone(), time));
    let mesh = boat_hull(12.0, 4.0, 1.2, 1.0, 24, 12);
    let vertices: Vec<KeelVec3> = mesh
        .vertices
        .iter()
        .map(|v| KeelVec3 { x: v.x, y: v.y, z: v.z })
        .collect();
    let state = KeelBodyState {
        position: KeelVec3 {
            x: 1.0,
            y: -0.4,
            z: 2.0,
        },
        rotation: KeelQuat {
            x: 0.03,
            y: 0.3,
            z: 0.02,
            w: 1.0,
        },
        linear_velocity: KeelVec3 {
            x: 2.0,
            y: -0.5,
            z: 1.0,
        },
        angular_velocity: KeelVec3 {
            x: 0.1,
            y: 0.05,
            z: -0.1,
        },
        center_of_mass: KeelVec3 {
            x: 1.0,
            y: -0.6,
            z: 2.0,
        },
    };
    let forces = |callback: bool| unsafe {
        let mut desc = std::mem::zeroed::<KeelWorldDesc>();
        keel_world_desc_default(&mut desc);
        let mut world = 0;
        assert_eq!(keel_world_create(&desc, &mut world), KeelStatus::KEEL_OK);
        if callback {
            let user = &*host as *const (GerstnerWater, f64) as *mut std::ffi::c_void;
            assert_eq!(
                keel_water_set_callback(world, Some(gerstner_callback), user),
                KeelStatus::KEEL_OK
            );
        } else {
            let waves: Vec<KeelGerstnerWave> = sea()
                .iter()
                .map(|w| KeelGerstnerWave {
                    amplitude: w.amplitude as f32,
                    wavelength: w.wavelength as f32,
                    direction_x: w.direction.x as f32,
                    direction_z: w.direction.y as f32,
                    steepness: w.steepness as f32,
                    phase: w.phase as f32,
                })
                .collect();
            assert_eq!(
                keel_water_set_gerstner(world, waves.as_ptr(), waves.len() as u32, 0.0),
                KeelStatus::KEEL_OK
            );
            assert_eq!(keel_world_set_time(world, time), KeelStatus::KEEL_OK);
        }
        let hull_desc = KeelHullDesc {
            vertices: vertices.as_ptr(),
            vertex_count: vertices.len() as u32,
            indices: mesh.indices.as_ptr(),
            index_count: mesh.indices.len() as u32,
            flip_winding: false,
        };
        let mut hull = 0;
        assert_eq!(keel_hull_create(world, &hull_desc, &mut hull), KeelStatus::KEEL_OK);
        let mut body_desc = std::mem::zeroed::<KeelBodyDesc>();
        keel_body_desc_default(&mut body_desc);
        body_desc.hull = hull;
        body_desc.mass = 20_000.0;
        // Heights and velocities are all a callback answers: the built-in sea's
        // Froude-Krylov correction (its water's acceleration) is left out to compare them.
        body_desc.froude_krylov = false;
        // Every vertex asked (not a water patch's grid, whose points sit at y = 0): the
        // callback then knows each vertex's depth, and decays the velocity as keel does.
        body_desc.water_patch_cells = 0;
        let mut body = 0;
        assert_eq!(keel_body_create(world, &body_desc, &mut body), KeelStatus::KEEL_OK);
        let mut out = KeelBodyForces::default();
        let mut batch = [KeelBodyForces::default()];
        for _ in 0..3 {
            assert_eq!(
                keel_body_step(world, body, &state, 1.0 / 60.0, &mut out),
                KeelStatus::KEEL_OK
            );
            assert_eq!(
                keel_world_step(world, &body, &state, 1, 1.0 / 60.0, batch.as_mut_ptr()),
                KeelStatus::KEEL_OK
            );
        }
        assert_eq!(keel_world_destroy(world), KeelStatus::KEEL_OK);
        (out, batch[0])
    };
    let (built_in, built_in_batch) = forces(false);
    let (hosted, hosted_batch) = forces(true);
    let v = |k: KeelVec3| DVec3::new(k.x as f64, k.y as f64, k.z as f64);
    let scale = v(built_in.force).length();
    for (a, b) in [(built_in, hosted), (built_in_batch, hosted_batch)] {
        // The callback answers in f32: the forces agree to f32 rounding.
        assert!(
            (v(a.force) - v(b.force)).length() < 1e-4 * scale,
            "{:?} vs {:?}",
            a.force,
            b.force
        );
        assert!((v(a.torque) - v(b.torque)).length() < 1e-4 * scale * 12.0);
        assert!(
            (v(a.pressure_drag_force) - v(b.pressure_drag_force)).length()
                < 1e-3 * (1.0 + v(a.pressure_drag_force).length())
        );
    }
}

#[test]
fn the_water_patch_makes_a_bunny_on_a_16_wave_sea_cheap_and_changes_its_force_by_under_1_percent() {
    let waves = spectrum::waves(Spectrum::Jonswap, 9.0, DVec2::new(1.0, 0.3), 16, 11, 9.81).unwrap();
    let mesh = bunny(0.1);
    let bottom = mesh.vertices.iter().map(|v| v.y).fold(f32::INFINITY, f32::min) as f64;
    let forces = |patch: u32, t: f64| {
        let mut w = world();
        let sea = GerstnerWater::new(&waves, 0.0, 9.81).unwrap();
        // The bunny's bottom 0.4 m under the local surface.
        let y = sea.height(0.0, 0.0, t) - 0.4 - bottom;
        w.set_water(Water::Gerstner(sea));
        w.set_time(t).unwrap();
        let desc = BodyDesc {
            mass: 300.0,
            water_patch_cells: patch,
            ..BodyDesc::default()
        };
        let (_, id) = common::body(&mut w, &mesh, desc);
        let state = BodyState {
            position: DVec3::new(0.0, y, 0.0),
            rotation: DQuat::from_rotation_y(0.4),
            linear_velocity: DVec3::new(0.5, 0.0, 0.2),
            center_of_mass: DVec3::new(0.0, y + 0.4, 0.0),
            ..BodyState::default()
        };
        w.step_body(id, &state, 1.0 / 60.0).unwrap()
    };
    for t in [0.0, 2.3, 7.9] {
        let exact = forces(0, t);
        let patched = forces(keel::body::DEFAULT_WATER_PATCH_CELLS, t);
        let off = (exact.force - patched.force).length() / exact.force.length();
        eprintln!("t = {t}: force {} vs {}, off by {off:.2e}", exact.force, patched.force);
        assert!(off < 0.01, "the patch changed the force by {off}");
        assert!(exact.force.y > 100.0, "the bunny must be in the water");
    }
}

#[test]
fn a_body_in_a_current_drifts_at_the_currents_speed() {
    let mut w = world();
    w.set_current(DVec3::new(1.0, 0.0, 0.0)).unwrap();
    let size = DVec3::new(2.0, 0.5, 2.0);
    let mesh = simple_box(size.as_vec3(), Vec3::ZERO);
    let (_, id) = common::body(
        &mut w,
        &mesh,
        BodyDesc {
            mass: 1000.0,
            ..BodyDesc::default()
        },
    );
    let mut raft = RigidBody::homogeneous_box(size, 1000.0, DVec3::ZERO, DQuat::IDENTITY);
    run(&mut w, id, &mut raft, 1.0 / 60.0, 60 * 60, |_, _, _| {});
    eprintln!("after 60 s: velocity {}", raft.velocity);
    assert!((raft.velocity.x - 1.0).abs() < 0.01, "drifts at {}", raft.velocity);
    assert!(raft.velocity.z.abs() < 0.01 && raft.velocity.y.abs() < 0.01);
}

#[test]
fn bad_water_is_refused_and_the_previous_water_stays() {
    use keel::ffi::*;
    unsafe {
        let mut desc = std::mem::zeroed::<KeelWorldDesc>();
        keel_world_desc_default(&mut desc);
        let mut world = 0;
        assert_eq!(keel_world_create(&desc, &mut world), KeelStatus::KEEL_OK);
        assert_eq!(keel_water_set_flat(world, 1.25), KeelStatus::KEEL_OK);
        let probe = [KeelVec3 {
            x: 3.0,
            y: 0.0,
            z: -7.0,
        }];
        let height = || {
            let mut h = [0.0f32];
            assert_eq!(
                keel_water_sample(
                    world,
                    probe.as_ptr(),
                    1,
                    h.as_mut_ptr(),
                    std::ptr::null_mut(),
                    std::ptr::null_mut()
                ),
                KeelStatus::KEEL_OK
            );
            h[0]
        };
        let good = [0.0f32; 16];
        let mut nan = good;
        nan[5] = f32::NAN;
        let refused = [
            keel_water_set_heightfield(world, nan.as_ptr(), 4, 4, 0.0, 0.0, 1.0),
            keel_water_set_heightfield(world, good.as_ptr(), 4, 4, 0.0, 0.0, 0.0),
            keel_water_set_heightfield(world, good.as_ptr(), 4, 4, 0.0, 0.0, -2.0),
            keel_water_set_heightfield(world, good.as_ptr(), 0, 4, 0.0, 0.0, 1.0),
            keel_water_set_tiled_heightfield(world, good.as_ptr(), 1, 16, 0.0, 0.0, 1.0),
            keel_water_set_heightfield(world, good.as_ptr(), 4, 4, f32::INFINITY, 0.0, 1.0),
            keel_water_set_spectrum(world, 7, 10.0, 1.0, 0.0, 16, 1),
            keel_water_set_spectrum(world, KEEL_SPECTRUM_JONSWAP, -1.0, 1.0, 0.0, 16, 1),
            keel_world_set_current(
                world,
                KeelVec3 {
                    x: f32::NAN,
                    y: 0.0,
                    z: 0.0,
                },
            ),
        ];
        for status in refused {
            assert_eq!(status, KeelStatus::KEEL_ERROR_INVALID_ARGUMENT);
            assert_eq!(height(), 1.25, "the previous water must stay");
        }
        assert_eq!(
            keel_water_set_heightfield(world, std::ptr::null(), 4, 4, 0.0, 0.0, 1.0),
            KeelStatus::KEEL_ERROR_NULL_POINTER
        );
        assert_eq!(
            keel_water_set_callback(world, None, std::ptr::null_mut()),
            KeelStatus::KEEL_ERROR_NULL_POINTER
        );
        assert_eq!(height(), 1.25);
        // A grid that does not cover the point clamps to its nearest edge sample.
        let ramp: Vec<f32> = (0..16).map(|i| (i % 4) as f32).collect();
        assert_eq!(
            keel_water_set_heightfield(world, ramp.as_ptr(), 4, 4, -100.0, -100.0, 1.0),
            KeelStatus::KEEL_OK
        );
        assert_eq!(height(), 3.0);
        // Spectrum seas are Gerstner seas around 0.
        assert_eq!(
            keel_water_set_spectrum(world, KEEL_SPECTRUM_PIERSON_MOSKOWITZ, 10.0, 1.0, 0.0, 16, 3),
            KeelStatus::KEEL_OK
        );
        assert!(height().abs() < 3.0 && height() != 0.0);
        assert_eq!(keel_world_destroy(world), KeelStatus::KEEL_OK);
    }
}

#[test]
fn a_callback_that_answers_garbage_fails_the_step_and_changes_nothing() {
    use keel::ffi::*;
    unsafe extern "C" fn nan_water(
        _: *mut std::ffi::c_void,
        _: *const KeelVec3,
        count: u32,
        heights: *mut f32,
        _: *mut KeelVec3,
        _: *mut KeelVec3,
    ) {
        for i in 0..count as usize {
            unsafe { *heights.add(i) = if i == 3 { f32::NAN } else { 0.0 } };
        }
    }
    let mut w = World::new(&keel::WorldDesc::default()).unwrap();
    let mesh = simple_box(Vec3::ONE, Vec3::ZERO);
    let (_, id) = common::body(&mut w, &mesh, BodyDesc::default());
    let state = BodyState::default();
    let before = w.step_body(id, &state, 0.02).unwrap();
    unsafe {
        let mut desc = std::mem::zeroed::<KeelWorldDesc>();
        keel_world_desc_default(&mut desc);
        let mut world = 0;
        assert_eq!(keel_world_create(&desc, &mut world), KeelStatus::KEEL_OK);
        assert_eq!(
            keel_water_set_callback(world, Some(nan_water), std::ptr::null_mut()),
            KeelStatus::KEEL_OK
        );
        let verts: Vec<KeelVec3> = mesh
            .vertices
            .iter()
            .map(|v| KeelVec3 { x: v.x, y: v.y, z: v.z })
            .collect();
        let hd = KeelHullDesc {
            vertices: verts.as_ptr(),
            vertex_count: 8,
            indices: mesh.indices.as_ptr(),
            index_count: 36,
            flip_winding: false,
        };
        let mut hull = 0;
        assert_eq!(keel_hull_create(world, &hd, &mut hull), KeelStatus::KEEL_OK);
        let mut bd = std::mem::zeroed::<KeelBodyDesc>();
        keel_body_desc_default(&mut bd);
        bd.hull = hull;
        let mut body = 0;
        assert_eq!(keel_body_create(world, &bd, &mut body), KeelStatus::KEEL_OK);
        let ks = KeelBodyState {
            position: KeelVec3::default(),
            rotation: KeelQuat {
                x: 0.0,
                y: 0.0,
                z: 0.0,
                w: 1.0,
            },
            linear_velocity: KeelVec3::default(),
            angular_velocity: KeelVec3::default(),
            center_of_mass: KeelVec3::default(),
        };
        let sentinel = KeelBodyForces {
            submerged_triangle_count: 777,
            ..Default::default()
        };
        let mut out = sentinel;
        assert_eq!(
            keel_body_step(world, body, &ks, 0.02, &mut out),
            KeelStatus::KEEL_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(out, sentinel);
        let mut batch = [sentinel];
        assert_eq!(
            keel_world_step(world, &body, &ks, 1, 0.02, batch.as_mut_ptr()),
            KeelStatus::KEEL_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(batch[0], sentinel);
        let mut count = 0;
        assert_eq!(
            keel_body_get_submerged_triangles(world, body, std::ptr::null_mut(), 0, &mut count),
            KeelStatus::KEEL_OK
        );
        assert_eq!(count, 0, "no step happened");
        assert_eq!(keel_world_destroy(world), KeelStatus::KEEL_OK);
    }
    assert!(before.force.y > 0.0);
}

#[test]
fn a_callback_that_calls_back_into_its_own_world_gets_an_error_not_a_deadlock() {
    use keel::ffi::*;
    use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
    static WORLD: AtomicU64 = AtomicU64::new(0);
    static STATUS: AtomicU32 = AtomicU32::new(u32::MAX);
    unsafe extern "C" fn meddling(
        _: *mut std::ffi::c_void,
        _: *const KeelVec3,
        count: u32,
        heights: *mut f32,
        _: *mut KeelVec3,
        _: *mut KeelVec3,
    ) {
        let world = WORLD.load(Ordering::SeqCst);
        STATUS.store(keel_water_set_flat(world, 3.0) as u32, Ordering::SeqCst);
        assert_eq!(keel_world_destroy(world), KeelStatus::KEEL_ERROR_INVALID_ARGUMENT);
        for i in 0..count as usize {
            unsafe { *heights.add(i) = 0.0 };
        }
    }
    unsafe {
        let mut desc = std::mem::zeroed::<KeelWorldDesc>();
        keel_world_desc_default(&mut desc);
        let mut world = 0;
        assert_eq!(keel_world_create(&desc, &mut world), KeelStatus::KEEL_OK);
        WORLD.store(world, Ordering::SeqCst);
        assert_eq!(
            keel_water_set_callback(world, Some(meddling), std::ptr::null_mut()),
            KeelStatus::KEEL_OK
        );
        let p = [KeelVec3::default()];
        let mut h = [1.0f32];
        assert_eq!(
            keel_water_sample(
                world,
                p.as_ptr(),
                1,
                h.as_mut_ptr(),
                std::ptr::null_mut(),
                std::ptr::null_mut()
            ),
            KeelStatus::KEEL_OK
        );
        assert_eq!(
            STATUS.load(Ordering::SeqCst),
            KeelStatus::KEEL_ERROR_INVALID_ARGUMENT as u32
        );
        assert_eq!(h[0], 0.0);
        assert_eq!(keel_world_destroy(world), KeelStatus::KEEL_OK);
    }
}

/// Host water that is sane on one side of x = 50 and absurd (finite but enormous) on
/// the other.
#[derive(Debug)]
struct Cliff;

impl keel::WaterQuery for Cliff {
    fn query(&self, points: &[DVec3], _: f64, heights: &mut [f64], _: Option<&mut [DVec3]>, v: Option<&mut [DVec3]>) {
        for (p, h) in points.iter().zip(heights.iter_mut()) {
            *h = if p.x > 50.0 { 1e307 } else { 0.0 };
        }
        if let Some(v) = v {
            v.fill(DVec3::ZERO);
        }
    }
}

type PointForceBits = ([u64; 3], [u64; 3]);

/// Every body's submerged pieces and point forces, to the bit.
fn details(w: &World, ids: &[keel::BodyId]) -> Vec<(usize, Vec<PointForceBits>)> {
    ids.iter()
        .map(|id| {
            let mut b = w.body(*id).unwrap();
            let n = b.submerged_triangles().count();
            let forces = b.triangle_forces().map(|f| {
                (
                    f.point.to_array().map(f64::to_bits),
                    f.force.to_array().map(f64::to_bits),
                )
            });
            (n, forces.collect())
        })
        .collect()
}

fn state_at(x: f64, y: f64, vy: f64) -> BodyState {
    BodyState {
        position: DVec3::new(x, y, 0.0),
        linear_velocity: DVec3::new(0.0, vy, 0.0),
        center_of_mass: DVec3::new(x, y, 0.0),
        ..BodyState::default()
    }
}

/// Three boxes in `water`, the third described by `third`, after one good batch step.
fn three_boxes(water: Water, third: BodyDesc, first: &[BodyState; 3], dt: f64) -> (World, Vec<keel::BodyId>) {
    let mut w = World::new(&keel::WorldDesc::default()).unwrap();
    w.set_water(water);
    let hull = w.create_hull(&simple_box(Vec3::ONE, Vec3::ZERO).desc()).unwrap();
    let descs = [
        BodyDesc {
            hull,
            ..BodyDesc::default()
        },
        BodyDesc {
            hull,
            ..BodyDesc::default()
        },
        BodyDesc { hull, ..third },
    ];
    let ids: Vec<_> = descs.iter().map(|d| w.create_body(d).unwrap()).collect();
    let mut out = vec![BodyForces::default(); 3];
    w.step_bodies(&ids, first, dt, &mut out, |s| *s, |f, o| *o = *f)
        .unwrap();
    (w, ids)
}

#[test]
fn a_batch_with_one_body_that_cannot_be_stepped_fails_whole_and_changes_no_body() {
    // Host water answering heights beyond reason under the third body: refused while
    // sampling, after the first two were sampled. (A body whose forces overflow after
    // they are computed is undone the same way; the limits on every input keep that out
    // of reach of valid calls, so the undo itself is tested in src/step/tests.rs.)
    let cases = [(
        "cliff",
        Water::Custom(std::sync::Arc::new(Cliff)),
        BodyDesc::default(),
        100.0,
        1.0,
        0.02,
    )];
    for (name, water, third, x, speed, dt) in cases {
        let first = [
            state_at(0.0, 0.0, -1.0),
            state_at(10.0, 0.1, -1.0),
            state_at(40.0, 5.0, -speed),
        ];
        let (mut w, ids) = three_boxes(water.clone(), third, &first, dt);
        let before = details(&w, &ids);
        let mut out = vec![
            BodyForces {
                submerged_triangle_count: 77,
                ..BodyForces::default()
            };
            3
        ];
        let sentinel = out.clone();
        let bad = [
            state_at(0.0, -0.2, -1.0),
            state_at(10.0, 0.2, -1.0),
            state_at(x, 0.0, -speed),
        ];
        let err = w
            .step_bodies(&ids, &bad, dt, &mut out, |s| *s, |f, o| *o = *f)
            .unwrap_err();
        assert!(err.message.contains("bodies[2]"), "{name}: {}", err.message);
        assert_eq!(out, sentinel, "{name}: nothing written");
        assert_eq!(details(&w, &ids), before, "{name}: no body changed");
        // The next good step continues as if the failed batch had never been.
        let (mut fresh, fresh_ids) = three_boxes(water, third, &first, dt);
        let next = [
            state_at(0.0, -0.05, -1.0),
            state_at(10.0, 0.05, -1.0),
            state_at(40.0, 4.0, -1.0),
        ];
        let mut expected = vec![BodyForces::default(); 3];
        w.step_bodies(&ids, &next, dt, &mut out, |s| *s, |f, o| *o = *f)
            .unwrap();
        fresh
            .step_bodies(&fresh_ids, &next, dt, &mut expected, |s| *s, |f, o| *o = *f)
            .unwrap();
        assert_eq!(out, expected, "{name}");
        // A single step fails the same way.
        assert!(w.step_body(ids[2], &bad[2], dt).is_err(), "{name}");
    }
}
