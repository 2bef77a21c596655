//! Bourg's virtual (added) mass: water set in motion by the body makes it move as if it
//! were heavier.
//!
//! With added-mass ratio `x`, the body should move as if its mass were `m (1 + x)` under
//! the same hydrodynamic forces while gravity still pulls on `m` only. The host integrates
//! `a = (F + m g) / m`, so keel returns
//!
//! ```text
//! F' = (F - x m g) / (1 + x)       (g the gravity vector)
//! ```
//!
//! and then `(F' + m g) / m = (F + m g) / (m (1 + x))`: exact, with no estimate of the
//! acceleration. Torques are divided by `1 + x` as well (the same ratio of added inertia).

use glam::DVec3;

/// The factor `1 / (1 + x)` applied to every force and torque.
#[inline]
pub fn scale(ratio: f64) -> f64 {
    1.0 / (1.0 + ratio)
}

/// The gravity correction `-x m g / (1 + x)` (a force at the centre of mass).
#[inline]
pub fn gravity_correction(ratio: f64, mass: f64, gravity: f64) -> DVec3 {
    DVec3::new(0.0, ratio * mass * gravity / (1.0 + ratio), 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_body_accelerates_as_if_it_were_heavier() {
        let (m, g, x) = (100.0, 9.81, 0.5);
        let hydro = DVec3::new(30.0, 700.0, 0.0);
        let returned = hydro * scale(x) + gravity_correction(x, m, g);
        let weight = DVec3::new(0.0, -m * g, 0.0);
        let acceleration = (returned + weight) / m;
        let expected = (hydro + weight) / (m * (1.0 + x));
        assert!((acceleration - expected).length() < 1e-12);
    }
}
