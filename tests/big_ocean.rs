//! Big oceans (issue 30): a floating origin. A boat stepped near the host's origin after
//! the world's origin was moved 1000 km out feels what the same boat feels at the origin,
//! on a sea that repeats over that distance; without the origin, the float positions of
//! the C ABI lose the sea's phase.

mod common;

use common::boat_hull;
use common::sim::RigidBody;
use glam::{DQuat, DVec2, DVec3};
use keel::ffi::{
    KeelBody, KeelBodyDesc, KeelBodyForces, KeelBodyState, KeelGerstnerWave, KeelHull, KeelQuat, KeelStatus, KeelVec3,
    KeelWorld, KeelWorldDesc, keel_body_create, keel_body_desc_default, keel_body_step, keel_hull_create,
    keel_water_set_gerstner, keel_world_create, keel_world_desc_default, keel_world_destroy, keel_world_get_origin,
    keel_world_set_origin, keel_world_set_time, keel_world_shift_origin,
};
use keel::forces::{FORCE_ALL, FORCE_LUMPED_RESISTANCE};
use keel::{
    BodyDesc, BodyForces, BodyId, ErrorKind, FlatWater, GerstnerWater, GerstnerWave, HeightfieldWater, Water, World,
    WorldDesc,
};

/// 1000 km out, along a diagonal.
const FAR: DVec3 = DVec3::new(1.0e6, 0.0, 5.0e5);

/// Waves that repeat over `FAR`: a whole number of wavelengths along each one's direction
/// (1e6 / 12.5 and (0.6e6 + 0.4e6) / 10), with directions a float holds exactly (the C
/// ABI's waves are float).
fn waves() -> [GerstnerWave; 2] {
    [
        GerstnerWave {
            amplitude: 0.5,
            wavelength: 12.5,
            direction: DVec2::new(1.0, 0.0),
            steepness: 0.5,
            phase: 0.3,
        },
        GerstnerWave {
            amplitude: 0.2,
            wavelength: 10.0,
            direction: DVec2::new(3.0, 4.0),
            steepness: 0.4,
            phase: 1.1,
        },
    ]
}

fn boat(world: &mut World) -> BodyId {
    let hull = world
        .create_hull(&boat_hull(6.0, 2.0, 0.8, 0.6, 16, 10).desc())
        .unwrap();
    world
        .create_body(&BodyDesc {
            hull,
            mass: 2500.0,
            forces: FORCE_ALL & !FORCE_LUMPED_RESISTANCE,
            ..BodyDesc::default()
        })
        .unwrap()
}

fn close(a: DVec3, b: DVec3, scale: f64) -> bool {
    (a - b).length() <= 1e-5 * scale
}

/// Frames of a boat riding the sea, stepped and integrated, in a world whose origin is
/// `origin`: the forces of each.
fn ride(origin: Option<DVec3>, water: &Water, frames: usize) -> Vec<BodyForces> {
    let mut world = World::new(&WorldDesc {
        thread_count: 1,
        ..WorldDesc::default()
    })
    .unwrap();
    world.set_water(water.clone());
    world.set_time(4.0).unwrap();
    if let Some(origin) = origin {
        world.shift_origin(origin).unwrap();
        assert_eq!(world.origin(), origin);
    }
    let id = boat(&mut world);
    let mut host = RigidBody::homogeneous_box(
        DVec3::new(6.0, 1.4, 2.0),
        2500.0,
        DVec3::new(0.37, 0.1, -0.21),
        DQuat::from_rotation_y(0.4) * DQuat::from_rotation_x(0.1),
    );
    host.velocity = DVec3::new(1.5, -0.5, 0.2);
    let mut out = Vec::new();
    for _ in 0..frames {
        let f = world.step_body(id, &host.state(), 1.0 / 60.0).unwrap();
        host.integrate(f.force, f.torque, 9.81, 1.0 / 60.0);
        world.set_time(world.time() + 1.0 / 60.0).unwrap();
        out.push(f);
    }
    out
}

fn agree(at_home: &[BodyForces], far: &[BodyForces], what: &str) {
    let worst = at_home
        .iter()
        .zip(far)
        .map(|(a, b)| (a.force - b.force).length() / a.force.length().max(1.0))
        .fold(0.0, f64::max);
    println!("{what}: largest relative difference of the force {worst:e}");
    for (i, (a, b)) in at_home.iter().zip(far).enumerate() {
        let scale = a.force.length().max(1.0);
        let arm = a.torque.length().max(1.0);
        assert!(
            close(a.force, b.force, scale) && close(a.torque, b.torque, arm),
            "{what}, frame {i}: {a:?}\n vs {b:?}"
        );
        assert!(a.submerged_volume > 0.1, "{what}: the boat must float");
    }
}

#[test]
fn a_boat_a_thousand_kilometres_out_feels_what_it_feels_at_the_origin() {
    let sea = Water::Gerstner(GerstnerWater::new(&waves(), 0.0, 9.81).unwrap());
    let at_home = ride(None, &sea, 90);
    agree(&at_home, &ride(Some(FAR), &sea, 90), "Gerstner, origin moved 1000 km");
    // Half a wavelength off: another part of the sea, other forces (the test can fail).
    let off = ride(Some(FAR + DVec3::new(6.25, 0.0, 0.0)), &sea, 1);
    assert!(!close(at_home[0].force, off[0].force, at_home[0].force.length()));
    // Flat water 1 km up, with the origin as high: the same boat.
    let flat = |level| Water::Flat(FlatWater { level });
    agree(
        &ride(None, &flat(0.0), 30),
        &ride(Some(DVec3::new(3.0e5, 1000.0, -2.0e5)), &flat(1000.0), 30),
        "flat water, origin 1 km up",
    );
}

#[test]
fn a_heightfield_lies_in_the_waters_frame() {
    // A bumpy grid at the origin, and the same grid 1000 km out.
    let (nx, nz, cell) = (41usize, 41usize, 0.5);
    let heights: Vec<f32> = (0..nx * nz)
        .map(|k| {
            let (ix, iz) = ((k % nx) as f32, (k / nx) as f32);
            0.15 * (0.7 * ix).sin() + 0.1 * (0.45 * iz).cos()
        })
        .collect();
    let grid = |x: f64, z: f64| {
        Water::Heightfield(Box::new(
            HeightfieldWater::new(&heights, nx, nz, x - 10.0, z - 10.0, cell, false).unwrap(),
        ))
    };
    agree(
        &ride(None, &grid(0.0, 0.0), 40),
        &ride(Some(FAR), &grid(FAR.x, FAR.z), 40),
        "heightfield",
    );
}

#[test]
fn the_origin_is_refused_when_not_finite_or_too_far_and_is_part_of_a_snapshot() {
    let mut world = World::new(&WorldDesc::default()).unwrap();
    for bad in [DVec3::new(f64::NAN, 0.0, 0.0), DVec3::new(0.0, 0.0, 1e10)] {
        assert_eq!(world.set_origin(bad).unwrap_err().kind, ErrorKind::InvalidArgument);
        assert_eq!(world.shift_origin(bad).unwrap_err().kind, ErrorKind::InvalidArgument);
    }
    world.set_origin(DVec3::new(3.9e9, 0.0, 0.0)).unwrap();
    assert!(world.shift_origin(DVec3::new(2e8, 0.0, 0.0)).is_err());
    assert_eq!(world.origin(), DVec3::new(3.9e9, 0.0, 0.0));
    let mut bytes = vec![0u8; world.snapshot_size()];
    world.snapshot(&mut bytes).unwrap();
    let hash = world.state_hash();
    world.shift_origin(DVec3::new(-1.0, 0.0, 0.0)).unwrap();
    assert_ne!(world.state_hash(), hash);
    world.restore(&bytes).unwrap();
    assert_eq!(world.origin(), DVec3::new(3.9e9, 0.0, 0.0));
    assert_eq!(world.state_hash(), hash);
}

/// A host's water, which sees the points it is asked at.
#[derive(Debug, Default)]
struct Watched {
    farthest: std::sync::Mutex<f64>,
}

impl keel::WaterQuery for Watched {
    fn query(
        &self,
        points: &[DVec3],
        _time: f64,
        heights: &mut [f64],
        normals: Option<&mut [DVec3]>,
        velocities: Option<&mut [DVec3]>,
    ) {
        let mut far = self.farthest.lock().unwrap();
        for (h, p) in heights.iter_mut().zip(points) {
            *far = far.max(p.x.abs()).max(p.z.abs());
            *h = 0.05 * p.x.sin();
        }
        normals.into_iter().flatten().for_each(|n| *n = DVec3::Y);
        velocities.into_iter().flatten().for_each(|v| *v = DVec3::ZERO);
    }
}

#[test]
fn a_water_callback_is_asked_at_world_positions() {
    let watched = std::sync::Arc::new(Watched::default());
    let water = Water::Custom(watched.clone());
    let at_home = ride(None, &water, 10);
    agree(&at_home, &ride(Some(FAR), &water, 10), "callback");
    let far = *watched.farthest.lock().unwrap();
    assert!(far > 0.1 && far < 100.0, "asked as far as {far} m");
    // And keel_water_sample's Rust twin answers in the world's frame for the others.
    let mut world = World::new(&WorldDesc::default()).unwrap();
    world.set_water(Water::Gerstner(GerstnerWater::new(&waves(), 0.0, 9.81).unwrap()));
    let points = [DVec3::new(0.3, 0.0, 1.7), DVec3::new(-4.0, 0.0, 2.5)];
    let mut home = [0.0; 2];
    world.sample_water(&points, &mut home, None, None).unwrap();
    world.set_origin(FAR + DVec3::new(0.0, 2.0, 0.0)).unwrap();
    let mut far = [0.0; 2];
    world.sample_water(&points, &mut far, None, None).unwrap();
    for (h, f) in home.iter().zip(&far) {
        assert!((h - (f + 2.0)).abs() < 1e-6, "{h} vs {f} + 2");
        assert!((world.water_height(points[0].x, points[0].z) + 2.0 - home[0]).abs() < 1e-6);
    }
}

// ---------------------------------------------------------------------------------------
// Through the C ABI, where positions are float.

fn ok(status: KeelStatus) {
    assert_eq!(status, KeelStatus::KEEL_OK);
}

fn v3(v: DVec3) -> KeelVec3 {
    KeelVec3 {
        x: v.x as f32,
        y: v.y as f32,
        z: v.z as f32,
    }
}

/// A C world with the sea and the boat, its origin moved by `shift`.
unsafe fn c_world(shift: Option<DVec3>) -> (KeelWorld, KeelBody) {
    let mut desc = std::mem::MaybeUninit::<KeelWorldDesc>::uninit();
    let mut world: KeelWorld = 0;
    unsafe {
        keel_world_desc_default(desc.as_mut_ptr());
        let mut desc = desc.assume_init();
        desc.thread_count = 1;
        ok(keel_world_create(&desc, &mut world));
        let waves: Vec<KeelGerstnerWave> = waves()
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
        ok(keel_water_set_gerstner(world, waves.as_ptr(), waves.len() as u32, 0.0));
        ok(keel_world_set_time(world, 4.0));
        if let Some(s) = shift {
            // In two moves, as a game's origin moves.
            ok(keel_world_shift_origin(world, 0.5 * s.x, 0.5 * s.y, 0.5 * s.z));
            ok(keel_world_shift_origin(world, 0.5 * s.x, 0.5 * s.y, 0.5 * s.z));
            let (mut x, mut y, mut z) = (0.0, 0.0, 0.0);
            ok(keel_world_get_origin(world, &mut x, &mut y, &mut z));
            assert_eq!(DVec3::new(x, y, z), s);
        }
        let mesh = boat_hull(6.0, 2.0, 0.8, 0.6, 16, 10);
        let vertices: Vec<KeelVec3> = mesh.vertices.iter().map(|v| v3(v.as_dvec3())).collect();
        let hull_desc = keel::ffi::KeelHullDesc {
            vertices: vertices.as_ptr(),
            vertex_count: vertices.len() as u32,
            indices: mesh.indices.as_ptr(),
            index_count: mesh.indices.len() as u32,
            flip_winding: false,
        };
        let mut hull: KeelHull = 0;
        ok(keel_hull_create(world, &hull_desc, &mut hull));
        let mut body_desc = std::mem::MaybeUninit::<KeelBodyDesc>::uninit();
        keel_body_desc_default(body_desc.as_mut_ptr());
        let mut body_desc = body_desc.assume_init();
        body_desc.hull = hull;
        body_desc.mass = 2500.0;
        let mut body: KeelBody = 0;
        ok(keel_body_create(world, &body_desc, &mut body));
        (world, body)
    }
}

unsafe fn c_step(world: KeelWorld, body: KeelBody, at: DVec3) -> DVec3 {
    let rotation = DQuat::from_rotation_y(0.4);
    let state = KeelBodyState {
        position: v3(at),
        rotation: KeelQuat {
            x: rotation.x as f32,
            y: rotation.y as f32,
            z: rotation.z as f32,
            w: rotation.w as f32,
        },
        linear_velocity: v3(DVec3::new(1.0, -0.3, 0.0)),
        angular_velocity: v3(DVec3::ZERO),
        center_of_mass: v3(at),
    };
    let mut out = std::mem::MaybeUninit::<KeelBodyForces>::uninit();
    unsafe {
        ok(keel_body_step(world, body, &state, 1.0 / 60.0, out.as_mut_ptr()));
        let f = out.assume_init().force;
        DVec3::new(f.x as f64, f.y as f64, f.z as f64)
    }
}

#[test]
fn through_the_c_abi_the_origin_keeps_what_float_positions_lose() {
    let near = DVec3::new(0.37, 0.05, -0.21);
    unsafe {
        let (home, home_body) = c_world(None);
        let (moved, moved_body) = c_world(Some(FAR));
        let (naive, naive_body) = c_world(None);
        let reference = c_step(home, home_body, near);
        let shifted = c_step(moved, moved_body, near);
        // The boat's own float position 1000 km out: 6 cm steps.
        let floated = c_step(naive, naive_body, near + FAR);
        let scale = reference.length();
        assert!(scale > 1e3, "{reference}");
        assert!(close(reference, shifted, scale), "{reference} vs {shifted}");
        assert!(
            !close(reference, floated, scale),
            "float positions 1000 km out should lose the sea's phase: {reference} vs {floated}"
        );
        // Refusals.
        assert_eq!(
            keel_world_set_origin(home, f64::INFINITY, 0.0, 0.0),
            KeelStatus::KEEL_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            keel_world_get_origin(home, std::ptr::null_mut(), &mut 0.0, &mut 0.0),
            KeelStatus::KEEL_ERROR_NULL_POINTER
        );
        ok(keel_world_set_origin(home, 0.0, 0.0, 0.0));
        for w in [home, moved, naive] {
            ok(keel_world_destroy(w));
        }
    }
}
