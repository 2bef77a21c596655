//! Viscous (skin-friction) resistance, ITTC 1957 (Kerner part 2; thesis 5.4, eq. 5.8-5.10).
//!
//! ```text
//! Rn = |v_body| L / nu                  (Reynolds number; clamped to >= 1e3)
//! Cf = 0.075 / (log10 Rn - 2)^2         (ITTC 1957 friction line)
//! F  = -1/2 rho Cf S |v| v_t            per submerged triangle, v_t = v - (v . n) n
//! ```
//!
//! Kerner and the thesis use `|v|^2 v_t / |v_t|`, which gives a triangle met almost
//! face-on (a vanishing `v_t`) the full friction of a triangle in tangential flow, with a
//! jump in direction as `v_t` passes through zero. `|v| v_t` is the same for tangential
//! flow (the case the ITTC line is measured for) and goes smoothly to zero face-on.

use glam::DVec3;

/// Below this Reynolds number the ITTC line is meaningless (it diverges at 100).
pub const MIN_REYNOLDS: f64 = 1e3;

/// The ITTC 1957 friction coefficient for a body moving at `speed` relative to the
/// water, with wetted length `length` in water of kinematic viscosity `viscosity`.
pub fn friction_coefficient(speed: f64, length: f64, viscosity: f64) -> f64 {
    let reynolds = (speed * length / viscosity).max(MIN_REYNOLDS);
    let d = reynolds.log10() - 2.0;
    0.075 / (d * d)
}

/// Skin friction on a triangle of area `area` and unit normal `normal` whose centroid
/// moves at `velocity` relative to the water.
#[inline]
pub fn viscous_force(velocity: DVec3, normal: DVec3, area: f64, density: f64, cf: f64) -> DVec3 {
    // The loops' row function, the same arithmetic.
    let force = super::drag::viscous_row(velocity.to_array(), normal.to_array(), area, -0.5 * density * cf, true);
    DVec3::from_array(force)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ittc_line_matches_tabulated_values() {
        // Rn = 1e6: Cf = 0.075 / 16 = 0.0046875; Rn = 1e9: 0.075 / 49.
        assert!((friction_coefficient(1.0, 1.0, 1e-6) - 0.0046875).abs() < 1e-12);
        assert!((friction_coefficient(10.0, 100.0, 1e-6) - 0.075 / 49.0).abs() < 1e-12);
        // At rest the clamp keeps it finite: Rn = 1e3 gives 0.075.
        assert_eq!(friction_coefficient(0.0, 1.0, 1e-6), 0.075);
    }

    #[test]
    fn friction_is_tangential_and_opposes_the_flow() {
        let n = DVec3::Y;
        let v = DVec3::new(3.0, -1.0, 0.0);
        let f = viscous_force(v, n, 2.0, 1000.0, 0.004);
        assert_eq!(f.y, 0.0);
        assert!(f.x < 0.0);
        assert!((f.x + 0.5 * 1000.0 * 0.004 * 2.0 * v.length() * 3.0).abs() < 1e-12);
        assert_eq!(
            viscous_force(DVec3::new(0.0, 2.0, 0.0), n, 1.0, 1000.0, 0.004),
            DVec3::ZERO
        );
    }
}
