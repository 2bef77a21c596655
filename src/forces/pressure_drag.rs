//! Pressure and suction drag (Kerner part 2; thesis 5.4, eq. 5.11-5.12).
//!
//! With `u = |v| / v_r` and `cos(theta) = (v / |v|) . n` for a submerged triangle of area
//! `S` and outward normal `n` moving at `v` relative to the water:
//!
//! ```text
//! cos > 0 (the face leads):  F = -(C_PD1 u + C_PD2 u^2) S cos^f_P n
//! cos < 0 (the face trails): F = +(C_SD1 u + C_SD2 u^2) S |cos|^f_S n
//! ```
//!
//! It is not one physical force but a stand-in for the dynamic pressures a moving hull
//! meets; both branches oppose the motion. The coefficients are pressures (N/m^2 at the
//! reference speed).

use glam::DVec3;

use super::row::{dot, scale};

/// Coefficients of the pressure and suction drag.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DragCoefficients {
    /// `C_PD1`, N/m^2.
    pub pressure_linear: f64,
    /// `C_PD2`, N/m^2.
    pub pressure_quadratic: f64,
    /// `C_SD1`, N/m^2.
    pub suction_linear: f64,
    /// `C_SD2`, N/m^2.
    pub suction_quadratic: f64,
    /// `f_P`.
    pub pressure_falloff: f64,
    /// `f_S`.
    pub suction_falloff: f64,
    /// `v_r`, m/s.
    pub reference_speed: f64,
}

/// Whether `p` is one of the powers the vector loops take: 0, 1/2, 1 and 2, which
/// [`fast_power`] computes without `powf` (which would keep a loop from being
/// vectorised, and costs more than the rest of a force together). Bodies with other
/// powers go one triangle at a time.
#[inline(always)]
pub fn is_fast_power(p: f64) -> bool {
    p == 0.0 || p == 0.5 || p == 1.0 || p == 2.0
}

/// `x^p` for the powers of [`is_fast_power`], without branches (the row form every
/// vector loop calls: in vector code both sides of a choice run, so each is a select).
/// Any other `p` gives `x`: callers check [`is_fast_power`] first.
///
/// `x^0 = 1` also for `x = 0` (as `powf`), and `x^(1/2)` is `sqrt`, which IEEE 754
/// rounds correctly, as `powf` does not promise to.
#[inline(always)]
pub fn fast_power(x: f64, p: f64) -> f64 {
    let r = if p == 0.5 { x.sqrt() } else { x };
    let r = if p == 2.0 { x * x } else { r };
    if p == 0.0 { 1.0 } else { r }
}

/// `x^p` for `x` in [0, 1]: [`fast_power`] for the powers it takes, `powf` for others.
#[inline]
pub fn power(x: f64, p: f64) -> f64 {
    if is_fast_power(p) { fast_power(x, p) } else { x.powf(p) }
}

/// Pressure or suction drag on a triangle moving at `velocity` relative to the water:
/// `pressure_drag_row`, the loops' own arithmetic, for any falloff (`powf` for those the
/// loops do not take).
#[inline]
pub fn pressure_drag_force(velocity: DVec3, normal: DVec3, area: f64, c: &DragCoefficients) -> DVec3 {
    let (u, n) = (velocity.to_array(), normal.to_array());
    let speed = dot(u, u).sqrt();
    let along = dot(u, n);
    let x = along.abs();
    let f = if along > 0.0 {
        c.pressure_falloff
    } else {
        c.suction_falloff
    };
    let spread = if is_fast_power(f) {
        spread_power(x, speed, f, true)
    } else {
        speed.powf(1.0 - f) * x.powf(f)
    };
    DVec3::from_array(pressure_drag_row(
        c,
        1.0 / c.reference_speed,
        speed,
        along,
        spread,
        n,
        area,
        true,
    ))
}

/// `|u|^(1-f) |u.n|^f` (`x = |u.n|`, `speed = |u|`) for the falloffs of
/// [`is_fast_power`], without `powf` and, but for `f = 2`, without division: `f = 1/2`
/// is one square root, `sqrt(|u| |u.n|)`, `f = 1` is `|u.n|`, `f = 0` is `|u|`, `f = 2`
/// is `(u.n)^2 / |u|` (`divide` false: 0, for loops whose falloffs are not 2, which
/// then need no divider). Both sides of each choice run in vector code: selects.
#[inline(always)]
pub(crate) fn spread_power(x: f64, speed: f64, f: f64, divide: bool) -> f64 {
    if f == 0.5 {
        (x * speed).sqrt()
    } else if f == 1.0 {
        x
    } else if f == 0.0 {
        speed
    } else if divide {
        x * x / if speed > 0.0 { speed } else { 1.0 }
    } else {
        0.0
    }
}

/// The module's formula on `area` of a face of unit `normal` meeting the water at a
/// velocity of length `speed` and normal part `along = u.n`, written once for every path
/// (the loops through [`drag_at`](super::drag::drag_at), the one-at-a-time code through
/// [`pressure_drag_force`]): `spread` is `|u|^(1-f) |u.n|^f` ([`spread_power`]) for the
/// falloff `f` of the face's side, `inverse_reference` `1 / v_r`. With `q = |u| / v_r`,
/// `q cos^f = |u|^(1-f) |u.n|^f / v_r`: the formula multiplied out, which needs no
/// division, the cost that binds a vector loop. `on` false: zero, by a select.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn pressure_drag_row(
    c: &DragCoefficients,
    inverse_reference: f64,
    speed: f64,
    along: f64,
    spread: f64,
    normal: [f64; 3],
    area: f64,
    on: bool,
) -> [f64; 3] {
    let q = speed * inverse_reference;
    let magnitude = if along > 0.0 {
        -(c.pressure_linear + c.pressure_quadratic * q)
    } else {
        c.suction_linear + c.suction_quadratic * q
    } * inverse_reference
        * spread;
    let magnitude = if along != 0.0 { magnitude } else { 0.0 };
    let magnitude = if on { magnitude * area } else { 0.0 };
    scale(normal, magnitude)
}

#[cfg(test)]
mod tests {
    use super::*;

    const C: DragCoefficients = DragCoefficients {
        pressure_linear: 100.0,
        pressure_quadratic: 50.0,
        suction_linear: 80.0,
        suction_quadratic: 20.0,
        pressure_falloff: 0.5,
        suction_falloff: 1.0,
        reference_speed: 2.0,
    };

    #[test]
    fn leading_and_trailing_faces_both_oppose_the_motion() {
        let v = DVec3::new(0.0, 0.0, 4.0);
        let front = pressure_drag_force(v, DVec3::Z, 1.5, &C);
        let back = pressure_drag_force(v, -DVec3::Z, 1.5, &C);
        // u = 2: front (100 * 2 + 50 * 4) * 1.5 = 600, back (80 * 2 + 20 * 4) * 1.5 = 360.
        assert!((front - DVec3::new(0.0, 0.0, -600.0)).length() < 1e-12);
        assert!((back - DVec3::new(0.0, 0.0, -360.0)).length() < 1e-12);
        assert_eq!(pressure_drag_force(v, DVec3::X, 1.0, &C), DVec3::ZERO);
        assert_eq!(pressure_drag_force(DVec3::ZERO, DVec3::X, 1.0, &C), DVec3::ZERO);
    }

    #[test]
    fn the_fast_powers_agree_with_powf() {
        // 0, 1 and 2 exactly (x^0 = 1 even at 0, as powf); 1/2 within powf's own error.
        let mut x = 0.0f64;
        while x <= 1.0 {
            for p in [0.0, 1.0, 2.0, 0.5] {
                assert!(is_fast_power(p));
                assert_eq!(power(x, p), fast_power(x, p));
            }
            assert_eq!(fast_power(x, 0.0), x.powf(0.0), "{x}^0");
            assert_eq!(fast_power(x, 1.0), x.powf(1.0), "{x}^1");
            // x * x is correctly rounded; powf may be off by an ulp.
            assert!(
                (fast_power(x, 2.0) - x.powf(2.0)).abs() <= f64::EPSILON * x * x,
                "{x}^2"
            );
            assert_eq!(fast_power(x, 2.0), x * x);
            assert!(
                (fast_power(x, 0.5) - x.powf(0.5)).abs() <= f64::EPSILON * x.sqrt(),
                "{x}^0.5"
            );
            assert_eq!(fast_power(x, 0.5), x.sqrt());
            x += 1.0 / 1024.0 + 1e-7;
        }
        // Other powers go through powf, and the loops refuse them.
        for p in [0.3, 1.7, 3.0, -1.0] {
            assert!(!is_fast_power(p));
            for x in [0.0, 0.01, 0.3, 0.77, 1.0] {
                assert_eq!(power(x, p), x.powf(p), "{x}^{p}");
            }
        }
    }

    #[test]
    fn oblique_faces_fall_off_with_the_cosine_power() {
        let n = DVec3::new(0.0, 0.6, 0.8);
        let f = pressure_drag_force(DVec3::new(0.0, 0.0, 2.0), n, 1.0, &C);
        // u = 1, cos = 0.8: -(150) * 0.8^0.5 n.
        assert!((f + 150.0 * 0.8f64.sqrt() * n).length() < 1e-12);
    }
}
