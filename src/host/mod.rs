//! What a host engine does with the forces keel returns: a rigid body integrated with
//! them. Keel integrates nothing itself; this is the one reference integrator of the
//! crate's tests, its examples, the `keel` command line and the Godot binding's stand-in
//! for Godot's integrator, so that they all move bodies the same way.
//!
//! Semi-implicit (symplectic) Euler about the centre of mass, with the gyroscopic term,
//! as game engines integrate rigid bodies:
//!
//! ```text
//! v     += (F / m - g Y) dt
//! I_w    = R I R^T                          (inertia in world axes)
//! w     += I_w^-1 (T - w x I_w w) dt
//! c     += v dt                             (c: the centre of mass)
//! q      = normalize(q + 1/2 (0, w) q dt)
//! x      = c - q com_local                  (x: the body origin)
//! ```

use glam::{DMat3, DQuat, DVec3};

use crate::body::BodyState;

/// A rigid body: pose, motion, and mass properties about its centre of mass.
#[derive(Clone, Copy, Debug)]
pub struct RigidBody {
    /// Mass, kg.
    pub mass: f64,
    /// Inertia about the centre of mass, body axes, kg m^2.
    pub inertia: DMat3,
    /// Centre of mass, body-local.
    pub com_local: DVec3,
    /// Body origin, world.
    pub position: DVec3,
    /// Orientation, body to world.
    pub rotation: DQuat,
    /// Velocity of the centre of mass, m/s.
    pub velocity: DVec3,
    /// Angular velocity, world axes, rad/s.
    pub angular_velocity: DVec3,
}

impl RigidBody {
    /// A homogeneous box of `size` (its centre at the body origin) at `position`, at rest.
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

    /// The centre of mass, world.
    pub fn com(&self) -> DVec3 {
        self.position + self.rotation * self.com_local
    }

    /// The state keel steps the body from.
    pub fn state(&self) -> BodyState {
        BodyState {
            position: self.position,
            rotation: self.rotation,
            linear_velocity: self.velocity,
            angular_velocity: self.angular_velocity,
            center_of_mass: self.com(),
        }
    }

    /// One step of `dt` under `force` and `torque` (about the centre of mass, as keel
    /// returns them) and gravity (`gravity` m/s^2 along -Y, which keel's force leaves
    /// out).
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

    /// Whether pose and motion are all finite numbers (a body that blew up is not).
    pub fn is_finite(&self) -> bool {
        self.position.is_finite()
            && self.rotation.is_finite()
            && self.velocity.is_finite()
            && self.angular_velocity.is_finite()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Free flight against its closed form: under gravity alone the centre of mass
    /// follows the parabola semi-implicit Euler gives (`y_n = y_0 - g dt^2 n (n+1)/2`),
    /// and a torque-free symmetric top keeps spinning about its axis at the same rate.
    #[test]
    fn free_flight_follows_the_closed_form() {
        let mut body = RigidBody::homogeneous_box(DVec3::ONE, 2.0, DVec3::new(0.0, 10.0, 0.0), DQuat::IDENTITY);
        body.angular_velocity = DVec3::new(0.0, 3.0, 0.0);
        let (g, dt, n) = (9.81, 0.01, 100);
        for _ in 0..n {
            body.integrate(DVec3::ZERO, DVec3::ZERO, g, dt);
        }
        let n = n as f64;
        let expected = 10.0 - g * dt * dt * n * (n + 1.0) / 2.0;
        assert!(
            (body.position.y - expected).abs() < 1e-9,
            "{} vs {expected}",
            body.position.y
        );
        assert!((body.angular_velocity - DVec3::new(0.0, 3.0, 0.0)).length() < 1e-12);
        // Turned by 3 rad/s for 1 s about Y (to the first order of the integrator).
        let angle = body.rotation.to_axis_angle().1;
        assert!((angle - 3.0).abs() < 0.05, "{angle}");
        // Up stays up, to the rounding acos amplifies near 1 (sqrt(2 eps) rad).
        assert!(
            body.tilt_degrees() < 1e-5 && body.is_finite(),
            "{}",
            body.tilt_degrees()
        );
    }

    /// A force through an off-centre centre of mass: the origin follows the centre of
    /// mass, and the energy a constant force puts in is its work.
    #[test]
    fn a_force_does_its_work() {
        let mut body = RigidBody::homogeneous_box(DVec3::ONE, 4.0, DVec3::ZERO, DQuat::IDENTITY);
        body.com_local = DVec3::new(0.5, 0.0, 0.0);
        let start = body.com();
        let force = DVec3::new(8.0, 0.0, 0.0);
        let (dt, n) = (0.001, 1000);
        for _ in 0..n {
            body.integrate(force, DVec3::ZERO, 0.0, dt);
        }
        let travelled = body.com() - start;
        let work = force.dot(travelled);
        assert!(
            (body.kinetic_energy() - work).abs() < 1e-2 * work,
            "{} vs {work}",
            body.kinetic_energy()
        );
        assert!((body.position - (body.com() - body.com_local)).length() < 1e-12);
        assert_eq!(body.state().center_of_mass, body.com());
    }
}
