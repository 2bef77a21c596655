//! Bourg's lumped ship resistance (ch. 8): one force for the whole hull, the cheap
//! alternative to the per-triangle viscous, pressure-drag and air forces for crowds of
//! ships.
//!
//! ```text
//! R     = 1/2 rho V^2 S (Cf + Cr)        against the velocity relative to the water
//! R_air = 1/2 rho_air V_air^2 A_p C_air  against the velocity relative to the air
//! ```
//!
//! `S` is the wetted area the clipping measures (Bourg estimates it as
//! `C_ws sqrt(V_disp L)`, C_ws 2.6-2.9, when nothing better is known), `Cf` the ITTC 1957
//! line, `Cr` the residual-resistance coefficient (1e-3 to 3e-3 for displacement ships),
//! and `A_p` the emerged area projected across the relative wind (Bourg: B^2 / 2).
//! `R` acts at the centre of buoyancy, `R_air` at the centroid of the emerged area.

use glam::DVec3;

/// The water resistance, split into its friction (`Cf`) and residual (`Cr`) parts.
#[inline]
pub fn water_resistance(velocity: DVec3, wetted_area: f64, density: f64, cf: f64, cr: f64) -> (DVec3, DVec3) {
    let q = -0.5 * density * wetted_area * velocity.length() * velocity;
    (cf * q, cr * q)
}

/// The air resistance on a projected area `projected_area`.
#[inline]
pub fn air_resistance(velocity: DVec3, projected_area: f64, air_density: f64, coefficient: f64) -> DVec3 {
    -0.5 * air_density * coefficient * projected_area * velocity.length() * velocity
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resistance_is_half_rho_v_squared_s_times_the_coefficients() {
        let (friction, residual) = water_resistance(DVec3::new(0.0, 0.0, 3.0), 10.0, 1000.0, 0.003, 0.002);
        assert!((friction.z + 0.5 * 1000.0 * 9.0 * 10.0 * 0.003).abs() < 1e-9);
        assert!((residual.z + 0.5 * 1000.0 * 9.0 * 10.0 * 0.002).abs() < 1e-9);
        let air = air_resistance(DVec3::new(-4.0, 0.0, 0.0), 2.0, 1.2, 1.0);
        assert!((air.x - 0.5 * 1.2 * 2.0 * 16.0).abs() < 1e-12);
    }
}
