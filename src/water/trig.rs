//! Sine and cosine of many angles at once, for the wave sums (`gerstner`).
//!
//! `f64::sin_cos` is a call into libm per angle, with branches the compiler cannot
//! vectorise; a 16-wave sea spent most of its time there. [`sin_cos`] is branch-free over
//! a slice, so the loop runs four or eight angles per instruction:
//!
//! ```text
//! q = round(x 2 / pi),  r = x - q pi / 2,  z = r^2        |r| <= pi / 4
//! sin r = r + r z S(z),  cos r = 1 - z / 2 + z^2 C(z)     S, C of degree 5
//! (sin x, cos x) = (sin r, cos r), (cos r, -sin r), (-sin r, -cos r), (-cos r, sin r)
//!                  for q mod 4 = 0, 1, 2, 3
//! ```
//!
//! `pi / 2` is split into three parts whose leading one has 33 significant bits, so
//! `q pi_1` is exact for `|q| < 2^20` (Cody and Waite's reduction). `S` and `C` are
//! Chebyshev fits on `z` in `[0, (pi / 4)^2]` of `(sin(sqrt z) / sqrt z - 1) / z` and
//! `(cos(sqrt z) - 1 + z / 2) / z^2` (`mpmath.chebyfit(f, [0, (pi/4)**2], 6)` at 50
//! digits, rounded to f64): they err by 2e-17 and 1.3e-18, a tenth of a unit in the
//! results' last place or less. Against 50-digit references on 20000 angles the results
//! are off by at most 0.73 units in the last place (sine) and 1.04 (cosine), as with the
//! Taylor series to `r^17` and `r^18` these replace, which took four more multiplications
//! and additions per angle. Together: within a few units in the last place of
//! `f64::sin_cos` for `|x| <= 1e6` (tested). Larger angles, where the reduction would lose digits, and non-finite ones
//! (which give `(0, 0)`: a wave pushed past f64's range adds nothing) are redone one at a
//! time.

/// Largest angle the fast reduction takes: `2^19 pi / 2`, well inside `|q| < 2^20`.
const LIMIT: f64 = 823_549.664_582_643_9;

/// `1.5 2^52`: adding and taking it away rounds to an integer, and the sum holds that
/// integer in its low bits (for integers below 2^51 in size).
pub(crate) const ROUNDER: f64 = 6_755_399_441_055_744.0;

/// `pi / 2` in three parts: `PIO2_1` has 33 significant bits (its low 20 bits are zero),
/// `PIO2_2` the next 33, `PIO2_3` the rest.
const PIO2_1: f64 = f64::from_bits(0x3FF9_21FB_5440_0000);
const PIO2_2: f64 = f64::from_bits(0x3DD0_B461_1A60_0000);
const PIO2_3: f64 = f64::from_bits(0x3BA3_198A_2E03_7073);

/// `S(z)`, lowest degree first (the first is `-1 / 6` to the bit).
const S: [f64; 6] = [
    -0.166_666_666_666_666_66,
    0.008_333_333_333_330_948,
    -0.000_198_412_698_367_585_74,
    2.755_731_610_255_244e-6,
    -2.505_113_184_500_362_4e-8,
    1.591_812_929_486_660_8e-10,
];

/// `C(z)`, lowest degree first (the first is `1 / 24` to the bit).
const C: [f64; 6] = [
    0.041_666_666_666_666_664,
    -0.001_388_888_888_888_739_8,
    2.480_158_729_876_569e-5,
    -2.755_731_727_172_979_3e-7,
    2.087_614_626_840_32e-9,
    -1.138_263_242_552_171_7e-11,
];

/// `sin[i], cos[i] = sin(angles[i]), cos(angles[i])` for every `i`; `(0, 0)` for a
/// non-finite angle. The outputs must be at least as long as `angles`.
#[inline(always)]
pub(crate) fn sin_cos(angles: &[f64], sin: &mut [f64], cos: &mut [f64]) {
    let n = angles.len();
    let (sin, cos) = (&mut sin[..n], &mut cos[..n]);
    // (NaN is not near.)
    let near = |x: f64| x.abs() <= LIMIT;
    let mut far = false;
    for i in 0..n {
        let x = angles[i];
        far |= !near(x);
        // Out of range lanes compute anything finite; they are redone below.
        let x = if near(x) { x } else { 0.0 };
        // Round to nearest by adding and taking away 1.5 2^52 (exact below 2^51, and a
        // vector instruction on any x86-64, unlike `round`).
        let shifted = x * std::f64::consts::FRAC_2_PI + ROUNDER;
        let q = shifted - ROUNDER;
        let r = ((x - q * PIO2_1) - q * PIO2_2) - q * PIO2_3;
        let z = r * r;
        let s = r + r * z * (S[0] + z * (S[1] + z * (S[2] + z * (S[3] + z * (S[4] + z * S[5])))));
        let c = 1.0 + z * (-0.5 + z * (C[0] + z * (C[1] + z * (C[2] + z * (C[3] + z * (C[4] + z * C[5]))))));
        // q mod 4, read from the rounding's own bits: `shifted` holds 2^51 + q in its low
        // mantissa bits, and 2^51 + q = q mod 4 (also for q < 0). One integer `and`,
        // where the saturating float-to-integer cast took a dozen vector instructions.
        let quadrant = (shifted.to_bits() & 3) as i32;
        let (swap, sin_negative, cos_negative) = (quadrant & 1 == 1, quadrant >= 2, quadrant == 1 || quadrant == 2);
        let (sr, cr) = if swap { (c, s) } else { (s, c) };
        sin[i] = if sin_negative { -sr } else { sr };
        cos[i] = if cos_negative { -cr } else { cr };
    }
    if far {
        for ((&x, s), c) in angles.iter().zip(sin.iter_mut()).zip(cos.iter_mut()) {
            if !near(x) {
                (*s, *c) = if x.is_finite() { x.sin_cos() } else { (0.0, 0.0) };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_constants_are_what_they_say() {
        // The three parts add up to pi / 2 far past f64's precision, and the first two
        // have their low 20 mantissa bits clear (33 significant bits).
        assert_eq!(PIO2_1 + PIO2_2, std::f64::consts::FRAC_PI_2);
        assert!((PIO2_1 + PIO2_2 + PIO2_3 - std::f64::consts::FRAC_PI_2).abs() <= f64::EPSILON);
        for p in [PIO2_1, PIO2_2] {
            assert_eq!(p.to_bits() & 0xF_FFFF, 0);
        }
        assert!((LIMIT - 524_288.0 * std::f64::consts::FRAC_PI_2).abs() < 1e-6);
    }

    #[test]
    fn the_polynomials_start_as_the_taylor_series() {
        assert_eq!(S[0], -1.0 / 6.0);
        assert_eq!(C[0], 1.0 / 24.0);
        // Each later coefficient near Taylor's, the last ones moved most by the fit (the
        // last sine one by 0.9 %): a typo in a leading digit fails here, one in a trailing
        // digit in `sin_cos_matches_the_standard_library`.
        let mut factorial = 6.0f64;
        for (k, (&s, &c)) in S.iter().zip(&C).enumerate().skip(1) {
            let n = 2 * k + 3;
            let sin_taylor = if k % 2 == 0 { -1.0 } else { 1.0 } / (factorial * (n - 1) as f64 * n as f64);
            let cos_taylor =
                if k % 2 == 0 { 1.0 } else { -1.0 } / (factorial * (n - 1) as f64 * n as f64 * (n + 1) as f64);
            let tolerance = 10f64.powi(k as i32 - 6);
            assert!(
                (s / sin_taylor - 1.0).abs() < tolerance,
                "S[{k}] = {s}, Taylor {sin_taylor}"
            );
            assert!(
                (c / cos_taylor - 1.0).abs() < tolerance,
                "C[{k}] = {c}, Taylor {cos_taylor}"
            );
            factorial *= (n - 1) as f64 * n as f64;
        }
    }

    #[test]
    fn sin_cos_matches_the_standard_library() {
        let mut angles = Vec::new();
        let mut x = 0.123_456_789f64;
        for i in 0..20_000 {
            x = (x * 3.7 + 0.618).fract();
            let magnitude = [1e-300, 1e-8, 0.5, 1.0, 3.0, 10.0, 1e3, 1e5, 8e5][i % 9];
            angles.push((x - 0.5) * 2.0 * magnitude);
        }
        // Quadrant edges, multiples of pi / 2 (where one result is nearly zero), far
        // angles and non-finite ones.
        for k in -40..=40 {
            angles.push(k as f64 * std::f64::consts::FRAC_PI_4);
        }
        angles.extend([0.0, -0.0, LIMIT, -LIMIT, LIMIT * 1.0001, 1e9, -3e15, 1e300]);
        angles.extend([f64::NAN, f64::INFINITY, f64::NEG_INFINITY]);
        let (mut sin, mut cos) = (vec![0.0; angles.len()], vec![0.0; angles.len()]);
        // Uneven chunks: every lane position and every remainder.
        let mut start = 0;
        for len in (1..=17).cycle() {
            if start >= angles.len() {
                break;
            }
            let end = (start + len).min(angles.len());
            sin_cos(&angles[start..end], &mut sin[start..end], &mut cos[start..end]);
            start = end;
        }
        for (i, &x) in angles.iter().enumerate() {
            let (s, c) = if x.is_finite() { x.sin_cos() } else { (0.0, 0.0) };
            // A few ulps of 1, plus the reduction's error, which grows with |x|.
            let size = if x.is_finite() { x.abs() } else { 0.0 };
            let tolerance = 4.0 * f64::EPSILON * (1.0 + size * 1e-5);
            assert!(
                (sin[i] - s).abs() <= tolerance && (cos[i] - c).abs() <= tolerance,
                "{x}: ({}, {}) vs ({s}, {c})",
                sin[i],
                cos[i]
            );
        }
    }
}
