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

/// Air resistance on one emerged triangle: `air_row`, the loops' own arithmetic, with the
/// factor every path computes from the density and coefficient (`air_factor`).
#[inline]
pub fn air_force(velocity: DVec3, normal: DVec3, area: f64, air_density: f64, coefficient: f64) -> DVec3 {
    DVec3::from_array(air_row(
        velocity.to_array(),
        normal.to_array(),
        area,
        air_factor(air_density, coefficient),
        true,
    ))
}

/// `-rho_air C_air / 2`, the constant factor of [`air_row`].
#[inline(always)]
pub(crate) fn air_factor(air_density: f64, coefficient: f64) -> f64 {
    -0.5 * air_density * coefficient
}

/// The air force on one emerged triangle of unit `normal` and `area` moving at `v`
/// relative to the air, `factor` being [`air_factor`]: the module's formula with
/// `|v| cos(theta) = v.n`, which needs no square root and no division. Every path calls
/// it (the whole triangles' loops, the lanes, the cut pieces through [`air_force`]).
/// `on` false (the force switched off, or the piece not wholly dry): zero, by a select.
/// (A face edge-on or turned away, `v.n <= 0`, also gets zero, as does `v = 0`.)
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
