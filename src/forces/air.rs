//! Air resistance on the emerged triangles (thesis 5.4, function 5.2).
//!
//! For an emerged triangle of area `S` whose centroid moves at `v` relative to the air
//! (the body's point velocity minus the world's wind), only faces that meet the air
//! (`cos(theta) = (v / |v|) . n > 0`) feel it:
//!
//! ```text
//! F = -1/2 rho_air C_air S |v| v cos(theta)
//! ```
//!
//! With the body at rest and the wind blowing, `v = -wind` and the windward faces are
//! pushed downwind.

use glam::DVec3;

use super::row::{dot, scale};

/// Air resistance on one emerged triangle.
#[inline]
pub fn air_force(velocity: DVec3, normal: DVec3, area: f64, air_density: f64, coefficient: f64) -> DVec3 {
    let speed = velocity.length();
    if speed == 0.0 {
        return DVec3::ZERO;
    }
    let cos = velocity.dot(normal) / speed;
    if cos <= 0.0 {
        return DVec3::ZERO;
    }
    -0.5 * air_density * coefficient * area * speed * cos * velocity
}

/// [`air_force`] as the loops compute it: `factor` is `-rho_air C_air / 2`, and
/// `|v| cos(theta) = v.n` needs no square root and no division. `on` false (the force
/// switched off, or the piece not wholly dry): zero, by a select.
#[inline(always)]
pub(crate) fn air_row(v: [f64; 3], normal: [f64; 3], area: f64, factor: f64, on: bool) -> [f64; 3] {
    let along = dot(v, normal);
    let magnitude = if on && along > 0.0 { area * factor * along } else { 0.0 };
    scale(v, magnitude)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wind_pushes_windward_faces_downwind_and_spares_the_lee() {
        let wind = DVec3::new(10.0, 0.0, 0.0);
        let relative = -wind;
        let windward = air_force(relative, -DVec3::X, 2.0, 1.2, 1.0);
        assert!((windward - DVec3::new(0.5 * 1.2 * 2.0 * 100.0, 0.0, 0.0)).length() < 1e-12);
        assert_eq!(air_force(relative, DVec3::X, 2.0, 1.2, 1.0), DVec3::ZERO);
    }
}
