//! A small rigid-body integrator for the tests, as a host engine would integrate the
//! forces keel returns: semi-implicit Euler, with the gyroscopic term.

use glam::{DMat3, DQuat, DVec3};
use keel::{BodyForces, BodyId, BodyState, World};

/// A rigid body: pose, motion, and mass properties about its centre of mass.
#[derive(Clone, Copy, Debug)]
pub struct RigidBody {
    pub mass: f64,
    /// Inertia about the centre of mass, body axes.
    pub inertia: DMat3,
    /// Centre of mass, body-local.
    pub com_local: DVec3,
    /// Body origin, world.
    pub position: DVec3,
    pub rotation: DQuat,
    /// Velocity of the centre of mass.
    pub velocity: DVec3,
    /// World axes.
    pub angular_velocity: DVec3,
}

impl RigidBody {
    /// A homogeneous box of `size` (its centre at the body origin) at `position`.
    pub fn homogeneous_box(size: DVec3, mass: f64, position: DVec3, rotation: DQuat) -> Self {
        let s2 = size * size;
        let inertia = DMat3::from_diagonal(DVec3::new(s2.y + s2.z, s2.x + s2.z, s2.x + s2.y) * (mass / 12.0));
        Self {
            mass,
            inertia,
            com_local: DVec3::ZERO,
            position,
            rotation,
            velocity: DVec3::ZERO,
            angular_velocity: DVec3::ZERO,
        }
    }

    pub fn com(&self) -> DVec3 {
        self.position + self.rotation * self.com_local
    }

    pub fn state(&self) -> BodyState {
        BodyState {
            position: self.position,
            rotation: self.rotation,
            linear_velocity: self.velocity,
            angular_velocity: self.angular_velocity,
            center_of_mass: self.com(),
        }
    }

    /// One step under `force` and `torque` (about the centre of mass) and gravity.
    pub fn integrate(&mut self, force: DVec3, torque: DVec3, gravity: f64, dt: f64) {
        let com = self.com();
        self.velocity += (force / self.mass + DVec3::new(0.0, -gravity, 0.0)) * dt;
        let r = DMat3::from_quat(self.rotation);
        let inertia = r * self.inertia * r.transpose();
        let w = self.angular_velocity;
        self.angular_velocity += inertia.inverse() * (torque - w.cross(inertia * w)) * dt;
        let com = com + self.velocity * dt;
        let w = self.angular_velocity;
        let spin = DQuat::from_xyzw(w.x, w.y, w.z, 0.0) * self.rotation * (0.5 * dt);
        self.rotation = (self.rotation + spin).normalize();
        self.position = com - self.rotation * self.com_local;
    }

    /// Kinetic energy, J.
    pub fn kinetic_energy(&self) -> f64 {
        let r = DMat3::from_quat(self.rotation);
        let inertia = r * self.inertia * r.transpose();
        0.5 * self.mass * self.velocity.length_squared()
            + 0.5 * self.angular_velocity.dot(inertia * self.angular_velocity)
    }

    /// Angle between the body's up axis and the world's, degrees.
    pub fn tilt_degrees(&self) -> f64 {
        (self.rotation * DVec3::Y)
            .dot(DVec3::Y)
            .clamp(-1.0, 1.0)
            .acos()
            .to_degrees()
    }

    /// Checks that nothing is NaN or infinite.
    pub fn assert_finite(&self) {
        assert!(
            self.position.is_finite()
                && self.rotation.is_finite()
                && self.velocity.is_finite()
                && self.angular_velocity.is_finite(),
            "the body blew up: {self:?}"
        );
    }
}

/// Steps `body` in `world` for `steps` steps of `dt`, calling `each` after every step.
pub fn run(
    world: &mut World,
    id: BodyId,
    body: &mut RigidBody,
    dt: f64,
    steps: usize,
    mut each: impl FnMut(usize, &RigidBody, &BodyForces),
) {
    for i in 0..steps {
        let forces = world.step_body(id, &body.state(), dt).unwrap();
        assert!(
            forces.force.is_finite() && forces.torque.is_finite(),
            "step {i}: {forces:?}"
        );
        body.integrate(forces.force, forces.torque, world.desc().gravity, dt);
        body.assert_finite();
        each(i, body, &forces);
    }
}
