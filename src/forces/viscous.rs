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
    let d = log10(reynolds) - 2.0;
    0.075 / (d * d)
}

/// `log10 x` for `x >= 1` (normal, or infinite), from additions, multiplications and one
/// division only, so that every processor and every C library gives the same bits: the
/// standard library's `log10` is the platform's, whose last bit differs between C
/// libraries and, in glibc, between the variants it picks for processors with and without
/// fused multiply-adds. Within 2 units in the last place of the exact value (the tests).
///
/// ```text
/// x = 2^e m,  m in [1/sqrt 2, sqrt 2),  f = m - 1 (exact),  s = f / (2 + f)
/// ln m = 2 atanh s = 2 s + s R,  R = sum_k 2 s^2k / (2k + 1)     (|s| < 0.172)
///      = f - (f^2 / 2 - s (f^2 / 2 + R))                         (2 s = f - s f)
/// log10 x = e log10 2 + ln m log10 e
/// ```
///
/// Ten terms of the series leave under `1e-18` of `ln m`. `log10 2` is split so that
/// `e` times its leading part is exact.
fn log10(x: f64) -> f64 {
    const LOG10_2_HIGH: f64 = 0.30102999566383914;
    const LOG10_2_LOW: f64 = 1.42050232272661e-13;
    const TERMS: usize = 10;
    if !x.is_finite() {
        return x;
    }
    debug_assert!(x >= 1.0, "log10 is only for x >= 1: {x}");
    let bits = x.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i64 - 1023;
    // The mantissa in [1, 2), then halved above sqrt 2 (an exact change of exponent).
    let mut m = f64::from_bits((bits & ((1u64 << 52) - 1)) | (1023u64 << 52));
    let mut e = exponent as f64;
    if m > std::f64::consts::SQRT_2 {
        m *= 0.5;
        e += 1.0;
    }
    let f = m - 1.0;
    let s = f / (2.0 + f);
    let z = s * s;
    // R = z (c0 + c1 z + ... + c9 z^9), c_k = 2 / (2k + 3), in pairs (Estrin's scheme:
    // four levels of dependent arithmetic rather than ten, for the same terms).
    const C: [f64; TERMS] = {
        let mut c = [0.0; TERMS];
        let mut k = 0;
        while k < TERMS {
            c[k] = 2.0 / (2 * k + 3) as f64;
            k += 1;
        }
        c
    };
    let z2 = z * z;
    let z4 = z2 * z2;
    let pairs = [
        C[0] + C[1] * z,
        C[2] + C[3] * z,
        C[4] + C[5] * z,
        C[6] + C[7] * z,
        C[8] + C[9] * z,
    ];
    let low = (pairs[0] + pairs[1] * z2) + (pairs[2] + pairs[3] * z2) * z4;
    let r = z * (low + pairs[4] * (z4 * z4));
    let half_square = 0.5 * f * f;
    let ln_m = f - (half_square - s * (half_square + r));
    e * LOG10_2_HIGH + (e * LOG10_2_LOW + ln_m * std::f64::consts::LOG10_E)
}

/// Skin friction on a triangle of area `area` and unit normal `normal` whose centroid
/// moves at `velocity` relative to the water.
#[inline]
pub fn viscous_force(velocity: DVec3, normal: DVec3, area: f64, density: f64, cf: f64) -> DVec3 {
    let tangential = velocity - velocity.dot(normal) * normal;
    -0.5 * density * cf * area * velocity.length() * tangential
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

    /// Against the standard library's `log10` (glibc's here, within one unit in the last
    /// place of the exact value): at most 2 units apart over the range a Reynolds number
    /// takes, on powers of ten, and across each binade's halving point.
    #[test]
    fn log10_agrees_with_the_standard_library_to_two_units_in_the_last_place() {
        fn units_apart(a: f64, b: f64) -> u64 {
            (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs()
        }
        let mut worst = (0u64, 0.0f64);
        let mut check = |x: f64| {
            let apart = units_apart(log10(x), x.log10());
            if apart > worst.0 {
                worst = (apart, x);
            }
        };
        // Powers of ten, exact or nearly: log10 must land on the integer.
        for k in 0..300 {
            check(10f64.powi(k));
        }
        assert_eq!(log10(1e6), 6.0);
        assert_eq!(log10(1.0), 0.0);
        // Pseudo-random mantissas and exponents (a fixed linear congruential sequence).
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..200_000 {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let mantissa = 1.0 + (seed >> 11) as f64 / (1u64 << 53) as f64;
            let exponent = (seed >> 3) % 1000;
            check(mantissa * 2f64.powi(exponent as i32));
        }
        // Either side of sqrt 2, where the reduction changes exponent, and next to 1.
        for k in -2000i64..2000 {
            check(f64::from_bits((std::f64::consts::SQRT_2.to_bits() as i64 + k) as u64) * 1024.0);
            check(f64::from_bits((1.0f64.to_bits() as i64 + k.abs()) as u64));
        }
        assert!(worst.0 <= 2, "{} units apart at {}", worst.0, worst.1);
        assert_eq!(log10(f64::INFINITY), f64::INFINITY);
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
