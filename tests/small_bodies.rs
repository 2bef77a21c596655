//! Issue 35 from the outside: hulls of one geometry shared behind the C ABI's distinct
//! handles, and water that is flat stepped as flat water (a big hull, whose flat-water
//! path integrates its wet blocks' moments, gets flat water's bits, not the sampled
//! path's).

mod common;

use common::{Mesh, simple_box, uv_sphere};
use glam::{DQuat, DVec3, Vec3};
use keel::ffi::*;
use keel::{BodyDesc, BodyState, FlatWater, GerstnerWater, HeightfieldWater, PerlinWater, Water, World, WorldDesc};

fn hull_desc(vertices: &[KeelVec3], indices: &[u32]) -> KeelHullDesc {
    KeelHullDesc {
        vertices: vertices.as_ptr(),
        vertex_count: vertices.len() as u32,
        indices: indices.as_ptr(),
        index_count: indices.len() as u32,
        flip_winding: false,
    }
}

/// The mesh in buffers of its own, as a host's `Mesh` object per body holds it.
fn copies(mesh: &Mesh) -> (Vec<KeelVec3>, Vec<u32>) {
    let vertices = mesh
        .vertices
        .iter()
        .map(|v| KeelVec3 { x: v.x, y: v.y, z: v.z })
        .collect();
    (vertices, mesh.indices.clone())
}

#[test]
fn hulls_made_twice_from_one_mesh_keep_their_handles_and_forces() {
    let mesh = simple_box(Vec3::new(1.0, 0.6, 1.4), Vec3::ZERO);
    unsafe {
        let mut desc = std::mem::zeroed::<KeelWorldDesc>();
        keel_world_desc_default(&mut desc);
        let mut world: KeelWorld = 0;
        assert_eq!(keel_world_create(&desc, &mut world), KeelStatus::KEEL_OK);
        let (mut hulls, mut bodies) = ([0 as KeelHull; 2], [0 as KeelBody; 2]);
        for k in 0..2 {
            let (vertices, indices) = copies(&mesh);
            let d = hull_desc(&vertices, &indices);
            assert_eq!(keel_hull_create(world, &d, &mut hulls[k]), KeelStatus::KEEL_OK);
            let mut body = std::mem::zeroed::<KeelBodyDesc>();
            keel_body_desc_default(&mut body);
            (body.hull, body.mass) = (hulls[k], 300.0);
            assert_eq!(keel_body_create(world, &body, &mut bodies[k]), KeelStatus::KEEL_OK);
        }
        assert_ne!(hulls[0], hulls[1]);
        let mut counts = KeelWorldCounts::default();
        assert_eq!(keel_world_get_counts(world, &mut counts), KeelStatus::KEEL_OK);
        assert_eq!(
            (counts.hull_count, counts.body_count),
            (2, 2),
            "each creation is a handle"
        );

        let v = |x: f32, y: f32, z: f32| KeelVec3 { x, y, z };
        let state = KeelBodyState {
            position: v(0.0, -0.1, 0.0),
            rotation: KeelQuat {
                x: 0.0,
                y: 0.0,
                z: 0.0998,
                w: 0.995,
            },
            linear_velocity: v(0.3, -0.2, 0.1),
            angular_velocity: v(0.1, 0.2, -0.1),
            center_of_mass: v(0.0, -0.1, 0.0),
        };
        let mut forces = [KeelBodyForces::default(); 2];
        let states = [state; 2];
        assert_eq!(
            keel_world_step(world, bodies.as_ptr(), states.as_ptr(), 2, 0.02, forces.as_mut_ptr()),
            KeelStatus::KEEL_OK
        );
        assert_eq!(forces[0], forces[1], "one geometry, one state: the same forces");
        assert!(forces[0].buoyancy_force.y > 0.0);

        // The first handle gone (its body first), the second keeps working, with the
        // forces a body of it got before (history aside: a first step again).
        assert_eq!(keel_body_destroy(world, bodies[0]), KeelStatus::KEEL_OK);
        assert_eq!(keel_hull_destroy(world, hulls[0]), KeelStatus::KEEL_OK);
        let mut info = KeelHullInfo::default();
        assert_eq!(
            keel_hull_get_info(world, hulls[0], &mut info),
            KeelStatus::KEEL_ERROR_INVALID_HANDLE
        );
        assert_eq!(keel_hull_get_info(world, hulls[1], &mut info), KeelStatus::KEEL_OK);
        assert_eq!(info.triangle_count, 12);
        let mut again = KeelBodyForces::default();
        assert_eq!(
            keel_body_step(world, bodies[1], &state, 0.02, &mut again),
            KeelStatus::KEEL_OK
        );
        assert!(again.buoyancy_force.y > 0.0);
        assert_eq!(again.buoyancy_force, forces[1].buoyancy_force);
        assert_eq!(keel_world_destroy(world), KeelStatus::KEEL_OK);
    }
}

/// A sphere of 1024 triangles (past the lanes: whole triangles in blocks, whose wet
/// blocks take flat water's integrated moments) on `water`, stepped three times.
fn sphere_on(water: Water) -> Vec<String> {
    let mut world = World::new(&WorldDesc {
        thread_count: 1,
        ..WorldDesc::default()
    })
    .unwrap();
    world.set_water(water);
    world.set_time(3.0).unwrap();
    let mesh = uv_sphere(0.8, 16, 32);
    let hull = world.create_hull(&mesh.desc()).unwrap();
    assert!(world.hull_info(hull).unwrap().triangle_count > 256);
    let body = world
        .create_body(&BodyDesc {
            hull,
            mass: 900.0,
            ..BodyDesc::default()
        })
        .unwrap();
    let state = BodyState {
        position: DVec3::new(2.0, 0.1, -1.0),
        rotation: DQuat::from_rotation_x(0.3),
        linear_velocity: DVec3::new(0.5, -0.4, 0.2),
        angular_velocity: DVec3::new(0.1, 0.3, 0.0),
        center_of_mass: DVec3::new(2.0, 0.1, -1.0),
    };
    (0..3)
        .map(|_| format!("{:?}", world.step_body(body, &state, 0.02).unwrap()))
        .collect()
}

#[test]
fn water_that_is_flat_gives_flat_waters_bits() {
    let level = 0.5;
    let flat = sphere_on(Water::Flat(FlatWater { level }));
    let same = [
        Water::Perlin(Box::new(PerlinWater::new(level, 0.1, 0.5, 0.0, false).unwrap())),
        Water::Gerstner(GerstnerWater::new(&[], level, 9.81).unwrap()),
        Water::Heightfield(Box::new(
            HeightfieldWater::new(&[level as f32; 9], 3, 3, 0.0, 0.0, 4.0, true).unwrap(),
        )),
    ];
    for water in same {
        let name = format!("{water:?}");
        assert!(sphere_on(water) == flat, "{name}: not flat water's forces to the bit");
    }
    // And waves are not: the comparison can fail.
    let waves = Water::Perlin(Box::new(PerlinWater::new(level, 0.1, 0.5, 0.01, false).unwrap()));
    assert!(sphere_on(waves) != flat);
}
