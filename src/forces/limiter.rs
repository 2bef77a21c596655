//! Keeps dissipative forces from reversing the motion they oppose within one step.
//!
//! Drag, slamming and damping oppose the body's motion relative to the water. Applied
//! explicitly by the host for a step `dt`, a strong one (a light body, a long step, a
//! fast entry) would overshoot: the velocity would change sign and grow, which is the
//! jitter and the launching of light bodies that buoyancy systems are known for.
//!
//! With `u = (v, omega)` the body's motion, `M = diag(m, I)` its mass and inertia and
//! `W = (F, tau)` the dissipative forces, the host's step changes the motion by
//! `D = M^-1 W dt`. Kinetic energy along `u + s D` is lowest at
//! `s* = -D.M.u / D.M.D`; past it the forces would put energy back in. Keel measures
//!
//! ```text
//! lambda = 1 / s* = dt (F.F / m + tau.I^-1.tau) / -(F.v + tau.omega)
//! ```
//!
//! (for linear drag `F = -c v`, `lambda = c dt / m`, the fraction of the motion removed in
//! one step) and scales the forces by `s = g(lambda) / lambda`:
//!
//! ```text
//! g(lambda) = lambda                   for lambda <= 1/2  (forces untouched)
//! g(lambda) = 1 - 1 / (4 lambda)       beyond             (smooth, always < 1)
//! ```
//!
//! Weak forces are exactly what their formulas say; strong ones bring the body close to
//! rest along their direction but never past it, also when they act off-centre and spin
//! the body (a plate meeting the water edge first). `I` is the inertia of a body of the
//! hull's shape and the given mass.

use glam::{DMat3, DVec3};

/// What the limiter needs to know about the body.
#[derive(Clone, Copy, Debug)]
pub struct Motion {
    /// Velocity of the centre of mass relative to the medium, m/s.
    pub velocity: DVec3,
    /// Angular velocity, rad/s.
    pub angular_velocity: DVec3,
    /// Mass, kg.
    pub mass: f64,
    /// Inverse of the inertia tensor about the centre of mass, world axes, 1/(kg m^2)
    /// (the step inverts it once for its end-of-step motion and both limiters).
    pub inverse_inertia: DMat3,
}

/// The factor in (0, 1] that keeps dissipative `force` and `torque` from reversing the
/// motion within `dt`.
#[inline(always)]
pub fn implicit_scale(force: DVec3, torque: DVec3, motion: &Motion, dt: f64) -> f64 {
    let removed = -(force.dot(motion.velocity) + torque.dot(motion.angular_velocity));
    if removed <= 0.0 {
        // The forces drive rather than oppose the motion (water pulling a body along).
        return 1.0;
    }
    let inverse = motion.inverse_inertia;
    let spin = if inverse.is_finite() {
        torque.dot(inverse * torque)
    } else {
        0.0
    };
    let lambda = dt * (force.length_squared() / motion.mass + spin.max(0.0)) / removed;
    if lambda <= 0.5 {
        1.0
    } else if lambda.is_finite() {
        (1.0 - 0.25 / lambda) / lambda
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn motion(v: DVec3, w: DVec3) -> Motion {
        Motion {
            velocity: v,
            angular_velocity: w,
            mass: 2.0,
            inverse_inertia: DMat3::from_diagonal(DVec3::splat(0.5)).inverse(),
        }
    }

    #[test]
    fn strong_drag_stops_the_motion_without_reversing_it() {
        // F = -c v with c = 100: lambda = c dt / m = 100 * 0.1 / 2 = 5, g = 1 - 1/20.
        let v = DVec3::new(3.0, 0.0, 0.0);
        let s = implicit_scale(-100.0 * v, DVec3::ZERO, &motion(v, DVec3::ZERO), 0.1);
        assert!((s * 5.0 - 0.95).abs() < 1e-15);
        let after = v + s * (-100.0 * v) * 0.1 / 2.0;
        assert!((after - 0.05 * v).length() < 1e-12);
        // Continuous where the limiter starts: lambda = 1/2 removes half the motion.
        let s = implicit_scale(-10.0 * v, DVec3::ZERO, &motion(v, DVec3::ZERO), 0.1);
        assert_eq!(s, 1.0);
        let s = implicit_scale(-10.000001 * v, DVec3::ZERO, &motion(v, DVec3::ZERO), 0.1);
        assert!((s - 1.0).abs() < 1e-6);
    }

    #[test]
    fn an_off_centre_stop_is_limited_by_the_spin_it_causes_too() {
        // A force stopping the body, applied off-centre, also spins it: the limiter must
        // take more off than for the same force through the centre of mass.
        let v = DVec3::new(0.0, -3.0, 0.0);
        let force = DVec3::new(0.0, 30.0, 0.0);
        let centred = implicit_scale(force, DVec3::ZERO, &motion(v, DVec3::ZERO), 0.1);
        let torque = DVec3::new(0.5, 0.0, 0.0).cross(force);
        let off = implicit_scale(force, torque, &motion(v, DVec3::ZERO), 0.1);
        assert!(off < centred, "{off} vs {centred}");
        // Kinetic energy after the step never exceeds the minimum along the forces' line.
        let m = motion(v, DVec3::ZERO);
        let energy = |s: f64| {
            let dv = v + force * (s * 0.1 / m.mass);
            let dw = m.inverse_inertia * torque * (s * 0.1);
            0.5 * m.mass * dv.length_squared() + 0.5 * dw.dot(m.inverse_inertia.inverse() * dw)
        };
        assert!(energy(off) <= energy(0.0));
    }

    #[test]
    fn weak_or_driving_forces_are_left_alone() {
        let v = DVec3::new(0.0, 1.0, 0.0);
        assert_eq!(
            implicit_scale(DVec3::new(0.0, 5.0, 0.0), DVec3::ZERO, &motion(v, DVec3::ZERO), 0.1),
            1.0
        );
        assert_eq!(
            implicit_scale(DVec3::X, DVec3::ZERO, &motion(DVec3::ZERO, DVec3::ZERO), 0.1),
            1.0
        );
    }

    #[test]
    fn strong_drag_torque_is_limited_too() {
        let w = DVec3::new(0.0, 0.0, 2.0);
        // tau = -k w with k = 50: lambda = k dt / I = 50 * 0.1 / 0.5 = 10.
        let s = implicit_scale(DVec3::ZERO, -50.0 * w, &motion(DVec3::ZERO, w), 0.1);
        assert!((s * 10.0 - (1.0 - 0.025)).abs() < 1e-15);
    }
}
