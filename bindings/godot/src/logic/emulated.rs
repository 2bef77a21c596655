//! The whole chain a `BuoyantBody3D` runs each physics frame, against a stand-in for
//! Godot's rigid-body integrator (keel's host integrator, [`keel::host::RigidBody`]:
//! semi-implicit Euler as Godot's, plus the gyroscopic term Godot leaves out): read the
//! direct state ([`super::state`]), step the fleet in one batch ([`super::fleet`]), apply
//! the central force and the torque ([`super::apply`]), integrate. Bodies dropped on still water must settle at
//! Archimedes' draft, level, at rest: the headless Godot test's check, without Godot.

#![cfg(test)]

use glam::{DMat3, DQuat, DVec3, Vec3};
use keel::host::RigidBody;
use keel::hull::box_mesh;
use keel::{World, WorldDesc};

use super::fleet::Fleet;
use super::mesh::{BakedMesh, Surface, bake};
use super::params::MassProperties;
use super::state::{DirectState, body_state, principal_inertia};

const G: f64 = 9.81;

/// What Godot's direct state shows of `body` (its centre of mass at its origin).
fn direct(body: &RigidBody) -> DirectState {
    DirectState {
        origin: body.position,
        basis: DMat3::from_quat(body.rotation),
        linear_velocity: body.velocity,
        angular_velocity: body.angular_velocity,
        center_of_mass_offset: DVec3::ZERO,
    }
}

/// What `_integrate_forces` reads: keel's state and the mass properties, from Godot's
/// inverse mass and inverse inertia about world-turned principal axes (`body`'s inertia
/// is diagonal in its own axes).
fn read(body: &RigidBody) -> (keel::BodyState, MassProperties) {
    let state = body_state(&direct(body));
    let moments = DVec3::new(body.inertia.x_axis.x, body.inertia.y_axis.y, body.inertia.z_axis.z);
    let (inertia, inertia_rotation) =
        principal_inertia(DVec3::ONE / moments, DMat3::from_quat(body.rotation), state.rotation);
    let mass = MassProperties {
        mass: body.mass,
        inertia,
        inertia_rotation,
    };
    (state, mass)
}

fn godot_box(size: Vec3) -> BakedMesh {
    let (vertices, indices) = box_mesh(size);
    let indices: Vec<i32> = indices
        .chunks(3)
        .flat_map(|t| [t[0] as i32, t[2] as i32, t[1] as i32])
        .collect();
    bake(
        &[Surface {
            vertices: &vertices,
            indices: &indices,
        }],
        glam::DAffine3::IDENTITY,
    )
    .unwrap()
}

#[test]
fn dropped_box_and_raft_settle_at_archimedes_draft() {
    let mut world = World::new(&WorldDesc {
        gravity: G,
        ..WorldDesc::default()
    })
    .unwrap();
    // The headless test's bodies: a 1 m cube of 150 kg (it floats face up below 0.21 of
    // the water's density) and a 2 x 0.4 x 2 m raft of 640 kg, dropped from above.
    let specs = [
        (DVec3::ONE, 150.0, DVec3::new(-3.0, 1.0, 0.0)),
        (DVec3::new(2.0, 0.4, 2.0), 640.0, DVec3::new(3.0, 0.6, 0.0)),
    ];
    // A small heel, so that the righting torque has work to do.
    let mut bodies: Vec<RigidBody> = specs
        .iter()
        .map(|&(size, mass, at)| RigidBody::homogeneous_box(size, mass, at, DQuat::from_rotation_z(0.1)))
        .collect();
    let mut fleet = Fleet::<usize>::default();
    for (i, (size, _, _)) in specs.iter().enumerate() {
        fleet.set_mesh(i, Some(godot_box(size.as_vec3())));
    }
    let dt = 1.0 / 60.0;
    let mut fastest = [0.0_f64; 2];
    for frame in 0..900 {
        let reads: Vec<_> = bodies.iter().map(read).collect();
        fleet.step(&mut world, dt, |i| Some(reads[i]));
        for (i, body) in bodies.iter_mut().enumerate() {
            let a = fleet.entry(i).unwrap().outcome.expect("stepped").application;
            body.integrate(a.central_force, a.torque, G, dt);
            if frame >= 840 {
                fastest[i] = fastest[i].max(body.velocity.length() + body.angular_velocity.length());
            }
        }
    }
    for (i, (size, mass, _)) in specs.iter().enumerate() {
        let body = &bodies[i];
        let expected = mass / (1000.0 * size.x * size.z);
        let draft = size.y / 2.0 - body.position.y;
        assert!(
            (draft - expected).abs() < 0.01 * expected,
            "body {i}: draft {draft}, Archimedes {expected}"
        );
        assert!(fastest[i] < 0.01, "body {i} still moves: {}", fastest[i]);
        assert!(body.rotation.angle_between(DQuat::IDENTITY) < 0.01, "body {i} heels");
    }
}
