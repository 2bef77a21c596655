//! The whole chain a `BuoyantBody3D` runs each physics frame, against a small stand-in for
//! Godot's rigid-body integrator: read the direct state ([`super::state`]), step the fleet
//! in one batch ([`super::fleet`]), apply the central force and the torque
//! ([`super::apply`]), integrate. Bodies dropped on still water must settle at
//! Archimedes' draft, level, at rest: the headless Godot test's check, without Godot.

#![cfg(test)]

use glam::{DMat3, DQuat, DVec3, Vec3};
use keel::hull::box_mesh;
use keel::{World, WorldDesc};

use super::fleet::Fleet;
use super::mesh::{BakedMesh, Surface, bake};
use super::params::MassProperties;
use super::state::{DirectState, body_state, principal_inertia};

const G: f64 = 9.81;

/// A rigid body as Godot integrates it: semi-implicit Euler, gravity added by the engine.
struct Rigid {
    position: DVec3,
    rotation: DQuat,
    velocity: DVec3,
    spin: DVec3,
    mass: f64,
    /// Principal moments about the centre of mass, body axes.
    inertia: DVec3,
}

impl Rigid {
    fn direct(&self) -> DirectState {
        DirectState {
            origin: self.position,
            basis: DMat3::from_quat(self.rotation),
            linear_velocity: self.velocity,
            angular_velocity: self.spin,
            center_of_mass_offset: DVec3::ZERO,
        }
    }

    /// What `_integrate_forces` reads: keel's state and the mass properties, from
    /// Godot's inverse mass and inverse inertia about world-turned principal axes.
    fn read(&self) -> (keel::BodyState, MassProperties) {
        let state = body_state(&self.direct());
        let (inertia, inertia_rotation) = principal_inertia(
            DVec3::ONE / self.inertia,
            DMat3::from_quat(self.rotation),
            state.rotation,
        );
        let mass = MassProperties {
            mass: self.mass,
            inertia,
            inertia_rotation,
        };
        (state, mass)
    }

    fn integrate(&mut self, force: DVec3, torque: DVec3, dt: f64) {
        self.velocity += (force / self.mass - DVec3::Y * G) * dt;
        self.position += self.velocity * dt;
        let r = DMat3::from_quat(self.rotation);
        let inverse = r * DMat3::from_diagonal(DVec3::ONE / self.inertia) * r.transpose();
        self.spin += inverse * torque * dt;
        let w = self.spin;
        let dq = DQuat::from_xyzw(w.x, w.y, w.z, 0.0) * self.rotation * (0.5 * dt);
        self.rotation = (self.rotation + dq).normalize();
    }
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

fn box_inertia(mass: f64, s: DVec3) -> DVec3 {
    DVec3::new(s.y * s.y + s.z * s.z, s.x * s.x + s.z * s.z, s.x * s.x + s.y * s.y) * (mass / 12.0)
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
    let mut bodies: Vec<Rigid> = specs
        .iter()
        .map(|&(size, mass, at)| Rigid {
            position: at,
            // A small heel, so that the righting torque has work to do.
            rotation: DQuat::from_rotation_z(0.1),
            velocity: DVec3::ZERO,
            spin: DVec3::ZERO,
            mass,
            inertia: box_inertia(mass, size),
        })
        .collect();
    let mut fleet = Fleet::<usize>::default();
    for (i, (size, _, _)) in specs.iter().enumerate() {
        fleet.set_mesh(i, Some(godot_box(size.as_vec3())));
    }
    let dt = 1.0 / 60.0;
    let mut fastest = [0.0_f64; 2];
    for frame in 0..900 {
        let reads: Vec<_> = bodies.iter().map(Rigid::read).collect();
        fleet.step(&mut world, dt, |i| Some(reads[i]));
        for (i, body) in bodies.iter_mut().enumerate() {
            let a = fleet.entry(i).unwrap().outcome.expect("stepped").application;
            body.integrate(a.central_force, a.torque, dt);
            if frame >= 840 {
                fastest[i] = fastest[i].max(body.velocity.length() + body.spin.length());
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
