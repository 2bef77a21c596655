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
//!
//! **In moving water.** Added mass resists the body's acceleration *relative to the
//! water*: Morison's `(m + m_a) a = F + m_a a_w + m g`, `a_w` the water particles'
//! acceleration where the body is. Bourg's form is the still-water case `a_w = 0`; on
//! waves it makes a body lag the orbits it should ride (a 1 m raft with `x = 1` on a
//! 40 m wave swayed by 0.67 of the orbit and drifted against the waves at 0.41 Stokes
//! drifts, docs/WAVES.md). So where the water tells its acceleration (a Gerstner sea's
//! orbits: the Froude-Krylov sample, [`crate::water::FroudeKrylov`], decayed to the
//! centre of buoyancy's depth, with the parts of it the body's buoyancy takes: none with
//! the `froude_krylov` option off, the vertical one only for the volume models) keel adds
//! [`water_push`], `x m a_w / (1 + x)`, at the centre of buoyancy:
//!
//! ```text
//! F' = (F - x m g + x m a_w) / (1 + x)
//! ```
//!
//! A body that moves with the water (`a = a_w`) then feels no added mass, as in the sea;
//! in still water, and for every other water, nothing changes.
//!
//! **Out of the water** there is no water to set in motion: a body with nothing wet has
//! no added mass (the step uses `x = 0`: it falls at `g`, where Bourg's form, applied in
//! the air too, let it fall at `g / (1 + x)`). Once any of it is wet it has all of
//! `x m`: a flat bottom meets the water with most of its added mass at once.

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

/// The added mass's share of the water's acceleration `a_w`, `x m a_w / (1 + x)`.
#[inline]
pub fn water_push(ratio: f64, mass: f64, acceleration: DVec3) -> DVec3 {
    acceleration * (ratio * mass / (1.0 + ratio))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_that_moves_with_the_water_feels_no_added_mass() {
        // Buoyancy and the Froude-Krylov force carry a body of the water's density with
        // the water (F = m a_w - m g): with the push, its acceleration is a_w whatever x.
        let (m, g) = (100.0, 9.81);
        let a_w = DVec3::new(0.7, -0.4, 0.2);
        let weight = DVec3::new(0.0, -m * g, 0.0);
        let hydro = m * a_w - weight;
        for x in [0.0, 0.5, 1.0, 3.0] {
            let returned = hydro * scale(x) + gravity_correction(x, m, g) + water_push(x, m, a_w);
            let acceleration = (returned + weight) / m;
            assert!((acceleration - a_w).length() < 1e-12, "x {x}: {acceleration}");
            // Bourg's form alone lags the water by x / (1 + x) of its acceleration.
            let bourg = (hydro * scale(x) + gravity_correction(x, m, g) + weight) / m;
            let lag = (bourg - a_w).length() / a_w.length();
            assert!((lag - x / (1.0 + x)).abs() < 1e-12, "x {x}: lag {lag}");
        }
    }

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
