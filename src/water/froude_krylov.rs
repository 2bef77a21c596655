//! The water's inertia on a body small against the waves: the Froude-Krylov force.
//!
//! **What the pressure misses.** The step integrates the hydrostatic pressure
//! `p = rho g (eta - y)` of the drawn surface over the hull. On a body small against the
//! waves that is `rho g V (-grad eta, 1)`: it pushes down the drawn slope. The sea's own
//! pressure obeys Euler's equation, `grad p = -rho (a + g y^)` with `a` the water
//! particles' acceleration, and gives the same small body `rho V (a + g y^)`: the
//! Froude-Krylov force of Morison's equation. The two agree to first order in `k A` on
//! the sea's own surface, but a Gerstner crest drawn sharper than the orbits (`Q > k A`)
//! is up to `1 / (1 - Q)` steeper than the water's acceleration can hold: hydrostatics
//! alone pushes a body down its faces harder than the water moves, and a small box on a
//! `Q 0.8` wave drifts along the waves at a third to half the Stokes drift where the
//! water carries nothing (issue 40, docs/WAVES.md). Keel adds the difference,
//!
//! ```text
//! dF = rho V_sub (a_h + g grad eta, a_y)       (horizontal, vertical)
//! ```
//!
//! at the centre of buoyancy, so that a small body feels Froude-Krylov's force exactly and
//! rides the water's closed orbits.
//!
//! **Below the surface.** The particles' orbits shrink as `e^{-k d}` at depth `d` (the
//! velocities' decay, `GerstnerWater::velocity_decay`), and so does their acceleration;
//! the drawn slope's push, `rho g grad eta` at every depth under the drawn surface's
//! hydrostatics, does not. Linear theory's pressure, `rho g (level - y) + rho g (eta -
//! level) e^{-k d}`, gives a body `rho V_sub (a e^{-k d} + g y^)`, so the correction is
//!
//! ```text
//! dF = rho V_sub (a_h e^{-k d} + g grad eta, a_y e^{-k d})
//! ```
//!
//! with `d` the centre of buoyancy's depth below the drawn surface's mean height over the
//! footprint ([`FroudeKrylov::at_depth`]; the volume's mean of `e^{-k d}` is that of its
//! centre to second order: a box of draft `T`, `(1 - e^{-k T}) / (k T)` against
//! `e^{-k T / 2}`, 0.885 and 0.882 at `k T = 0.25`). A body held 10 m under a 40 m wave
//! then feels a fifth of the surface's acceleration, not all of it pushing it about.
//!
//! **One wave.** Along its direction `D`, with the Eulerian phase at the point,
//! `psi = k D . x - omega t + phase`, the drawn surface's particle there has the angle
//! `theta` (`psi = theta - Q sin theta`) and the orbit's the angle `phi`
//! (`psi = phi - k A sin phi`): Kepler's equation, solved by [`kepler`]. The orbit's
//! particle accelerates at `omega^2` times its displacement, and the drawn slope along `D`
//! is `-k A sin theta / (1 - Q cos theta)`:
//!
//! ```text
//! a_h + g grad eta = D (A omega^2 sin phi - g k A sin theta / (1 - Q cos theta))
//! a_y              = -A omega^2 cos phi
//! ```
//!
//! **Averaged over the hull.** A hull as long as the waves already averages the drawn
//! slope in its own pressure integral, and the point value at its centre would be wrong
//! for it. So each wave's terms are averaged over the hull's extent along the wave,
//! `psi_c +- b` (`b = k w`, `w` the half-width of the hull's footprint along `D`), in
//! closed form: with `d psi = (1 - k A cos phi) d phi = (1 - Q cos theta) d theta`,
//!
//! ```text
//! int (a_h + g grad eta) . D d psi = A omega^2 (-cos phi - k A sin^2 phi / 2) + g k A cos theta
//! int a_y d psi                    = -A omega^2 (sin phi - k A (phi / 2 + sin 2 phi / 4))
//! ```
//!
//! and the mean is the difference at the ends over `2 b`. Over whole wavelengths the
//! horizontal mean is zero (a long hull feels its own pressure integral only) and the
//! vertical one `A omega^2 k A / 2`, the orbits' second-order mean lift (a few tenths of a
//! percent of buoyancy on a sane sea).
//!
//! **Approximations, said.** The waves of a sum are taken one at a time, as if each were
//! alone (their cross terms are of second order in the slopes); the hull's footprint is
//! its bounding box in world axes, weighted uniformly (a hull whose ends are fine, as a
//! boat's, is averaged over a little more than it should); the acceleration decays at the
//! sea's one rate `k` (a sum's, as its velocities'); the correction is one force at the
//! centre of buoyancy, with no moment of its own about it. Callback, heightfield and Perlin water have no
//! acceleration to compare with and get nothing; nor do the linear theory's velocities
//! ([`super::GerstnerVelocities::Linear`]), whose sine surface is that theory's own.

use std::f64::consts::TAU;

use glam::{DVec2, DVec3};
use multiversion::multiversion;

use super::gerstner::{GerstnerVelocities, GerstnerWater, Wave};

/// Below this half-width of the averaging interval, radians of phase, the terms are taken
/// at the centre (the mean of a smooth function over `+- b` differs from its value by
/// `b^2 f'' / 6`; the closed form's difference of two nearly equal numbers would lose
/// more).
const POINT: f64 = 1e-4;

/// Waves whose Kepler solutions are found together: four per wave (the drawn and the
/// orbit's angle at both ends of the interval) in one vector pass.
const CHUNK: usize = 16;
const SOLVES: usize = 4 * CHUNK;

/// The Froude-Krylov correction over a body's footprint ([`GerstnerWater::froude_krylov`]):
/// the water's acceleration at the surface and the drawn slope's push, kept apart because
/// the acceleration decays with depth and the slope's push does not (module docs), and the
/// drawn surface's mean height over the footprint, from which the depth is measured.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FroudeKrylov {
    /// The water particles' acceleration at the surface, `(a_h, a_y)`, averaged over the
    /// footprint, m/s^2.
    pub acceleration: DVec3,
    /// `g grad eta` (horizontal) averaged over the footprint, m/s^2.
    pub slope: DVec3,
    /// The drawn surface's mean height over the footprint, m (the water's frame).
    pub height: f64,
    /// The rate `k` at which the acceleration decays with depth, `e^{-k d}`, 1/m (the
    /// sea's [`GerstnerWater::velocity_decay`], the same as its velocities').
    pub decay: f64,
}

impl FroudeKrylov {
    /// The correction's acceleration for a submerged volume whose centre lies `depth`
    /// below the surface: `a e^{-k depth} + g grad eta` (the force is `rho V_sub` times
    /// it). Above the surface (`depth < 0`) the surface's.
    pub fn at_depth(&self, depth: f64) -> DVec3 {
        self.acceleration_at_depth(depth) + self.slope
    }

    /// The water particles' acceleration `a e^{-k depth}` at `depth` below the surface
    /// (above it, the surface's).
    pub fn acceleration_at_depth(&self, depth: f64) -> DVec3 {
        let decay = (-self.decay * depth.max(0.0)).exp();
        self.acceleration * decay
    }

    /// Whether there is nothing to add (flat water, other models, the option off).
    pub fn is_zero(&self) -> bool {
        self.acceleration == DVec3::ZERO && self.slope == DVec3::ZERO
    }
}

impl GerstnerWater {
    /// The Froude-Krylov correction (module docs) averaged over a footprint centred at
    /// `centre` (horizontal, in the water's frame) with half-widths `half` along x and z,
    /// at time `t`, for gravity `gravity`. Zero terms for the linear theory's velocities
    /// and on flat water.
    pub fn froude_krylov(&self, centre: DVec2, half: DVec2, t: f64, gravity: f64) -> FroudeKrylov {
        if self.velocities() != GerstnerVelocities::Orbits {
            return FroudeKrylov::default();
        }
        let mut out = froude_krylov(self, centre, half, t, gravity);
        out.height += self.level();
        out.decay = self.velocity_decay();
        out
    }
}

/// [`GerstnerWater::froude_krylov`], compiled for the processor at hand too (the sines and
/// cosines are vector code). The height is relative to the sea's level.
#[multiversion(targets("x86_64+avx512f+avx512vl+avx512dq+avx512bw+avx2", "x86_64+avx2"))]
fn froude_krylov(sea: &GerstnerWater, centre: DVec2, half: DVec2, t: f64, gravity: f64) -> FroudeKrylov {
    let mut out = FroudeKrylov::default();
    let (mut m, mut e) = ([0.0; SOLVES], [0.0; SOLVES]);
    let mut solved = Solved {
        angle: [0.0; SOLVES],
        sin: [0.0; SOLVES],
        cos: [0.0; SOLVES],
    };
    let mut ends = [(0.0, 0.0); CHUNK];
    for waves in sea.waves().chunks(CHUNK) {
        let n = waves.len();
        for (j, w) in waves.iter().enumerate() {
            let (psi, b) = interval(w, centre, half, t);
            ends[j] = (psi - b, psi + b);
            for (k, end) in [psi - b, psi + b].into_iter().enumerate() {
                // Only the phase within a period matters to the angles' sines and cosines;
                // the antiderivative's one unbounded term takes the end itself.
                let reduced = end - round(end / TAU) * TAU;
                (m[4 * j + k], e[4 * j + k]) = (reduced, w.steepness);
                (m[4 * j + 2 + k], e[4 * j + 2 + k]) = (reduced, w.k * w.amplitude);
            }
        }
        kepler(&m[..4 * n], &e[..4 * n], &mut solved);
        for (j, w) in waves.iter().enumerate() {
            let at = |i: usize| (solved.sin[4 * j + i], solved.cos[4 * j + i]);
            let terms = wave_terms(w, ends[j], [at(0), at(1), at(2), at(3)], gravity);
            let d = w.gradient / w.k;
            out.acceleration += DVec3::new(terms.along * d.x, terms.up, terms.along * d.y);
            out.slope += DVec3::new(terms.slope * d.x, 0.0, terms.slope * d.y);
            out.height += terms.height;
        }
    }
    out
}

/// `x` rounded to the nearest integer, for `|x| < 2^51`: adding and taking away
/// `1.5 2^52` (a vector instruction on any x86-64, where `round` is a call).
#[inline(always)]
fn round(x: f64) -> f64 {
    const MAGIC: f64 = 6_755_399_441_055_744.0;
    (x + MAGIC) - MAGIC
}

/// The phase `psi` at `centre` for wave `w` at time `t`, reduced to a period, and the
/// half-width `b` of the footprint along it in phase (0 when it is narrower than
/// [`POINT`]); `(0, 0)` for a wave pushed past f64's range (absurd coordinates or times),
/// whose terms then are those of phase 0.
#[inline(always)]
fn interval(w: &Wave, centre: DVec2, half: DVec2, t: f64) -> (f64, f64) {
    let psi = w.angle(centre.x, centre.y, w.phase - w.omega * t);
    let d = w.gradient / w.k;
    let b = w.k * ((half.x * d.x) * (half.x * d.x) + (half.y * d.y) * (half.y * d.y)).sqrt();
    if psi.is_nan() || psi.abs() >= 1e15 {
        return (0.0, 0.0);
    }
    let psi = psi - round(psi / TAU) * TAU;
    (psi, if b >= POINT && b.is_finite() { b } else { 0.0 })
}

/// One wave's terms, averaged over an interval of phase.
struct Terms {
    /// The orbit's acceleration along the wave's direction.
    along: f64,
    /// The orbit's vertical acceleration.
    up: f64,
    /// `g` times the drawn slope along the wave's direction.
    slope: f64,
    /// The drawn height above the level.
    height: f64,
}

/// One wave's terms averaged over the phases `ends` (module docs), from the sines and
/// cosines of the drawn and the orbit's angles at both ends (`[theta-, theta+, phi-,
/// phi+]`): the antiderivatives' difference over the interval, or the terms themselves
/// where it is a point.
#[inline(always)]
fn wave_terms(w: &Wave, (from, to): (f64, f64), angles: [(f64, f64); 4], gravity: f64) -> Terms {
    let (ka, a_omega2, q) = (w.k * w.amplitude, w.amplitude * w.omega * w.omega, w.steepness);
    if from == to {
        let ((sin_theta, cos_theta), (sin_phi, cos_phi)) = (angles[0], angles[2]);
        let slope = -gravity * ka * sin_theta / (1.0 - q * cos_theta);
        return Terms {
            along: a_omega2 * sin_phi,
            up: -a_omega2 * cos_phi,
            slope: if slope.is_finite() { slope } else { 0.0 },
            height: w.amplitude * cos_theta,
        };
    }
    let at = |psi: f64, (sin_theta, cos_theta): (f64, f64), (sin_phi, cos_phi): (f64, f64)| {
        let along = a_omega2 * (-cos_phi - 0.5 * ka * sin_phi * sin_phi);
        let slope = gravity * ka * cos_theta;
        // `phi = psi + k A sin phi` unwrapped: its `phi / 2` term taken as `psi / 2` plus
        // the bounded rest, so that the difference of the ends is exact for any width
        // (and `theta`'s likewise).
        let up = -a_omega2 * (sin_phi - ka * (0.5 * (psi + ka * sin_phi) + 0.5 * sin_phi * cos_phi));
        let height = w.amplitude * (sin_theta - q * (0.5 * (psi + q * sin_theta) + 0.5 * sin_theta * cos_theta));
        [along, up, slope, height]
    };
    let (a, b) = (at(from, angles[0], angles[2]), at(to, angles[1], angles[3]));
    let span = to - from;
    let mean = |i: usize| (b[i] - a[i]) / span;
    Terms {
        along: mean(0),
        up: mean(1),
        slope: mean(2),
        height: mean(3),
    }
}

/// Kepler's equation solved: the angles and their sines and cosines.
struct Solved {
    angle: [f64; SOLVES],
    sin: [f64; SOLVES],
    cos: [f64; SOLVES],
}

/// Iterations of [`kepler`] at most: Halley's method converges to rounding in 2 to 4 for
/// `|e|` up to 0.9; at `|e| = 1` near `m = 0` (a cusp) it slows to halving, and the
/// answer there is kept to about `1e-4` rad.
const KEPLER_ITERATIONS: usize = 24;

/// The angles `E` with `E - e sin E = m` (Kepler's equation) for every `m` (reduced to a
/// period) and `e`, together, with their sines and cosines: Halley's method (the
/// equation's second derivative is `e sin E`, at hand) from one Newton step off `m`, each
/// step kept inside the bracket `[m - |e|, m + |e|]` where the root is (the left side rises
/// monotonically for `|e| <= 1`), the sines and cosines of all the angles taken in one
/// vector pass ([`super::trig::sin_cos`]). It stops when no angle moved by more than
/// `1e-4`: Halley's error after a step is of the order of the step cubed, so the angles
/// are then within about 1e-12, and their sines and cosines are the last pass's carried
/// over the last step to second order (off by the step cubed over 6). A negative amplitude
/// makes `e = k A` negative; past `|e| = 1` the orbits fold over (an amplitude beyond a
/// sixth of the wavelength) and `e` is taken at the fold, `+-1`, so that the answer stays
/// one and finite.
#[inline(always)]
fn kepler(m: &[f64], e: &[f64], out: &mut Solved) {
    let n = m.len();
    let Solved { angle, sin, cos } = out;
    let (angle, sin, cos) = (&mut angle[..n], &mut sin[..n], &mut cos[..n]);
    super::trig::sin_cos(m, sin, cos);
    for i in 0..n {
        let e = e[i].clamp(-1.0, 1.0);
        // One Halley step from `m` (right to third order in `e`), kept in the bracket
        // (where `1 - e cos m` vanishes it is pushed to the bracket's edge).
        let (f, f1) = (e * sin[i], 1.0 - e * cos[i]);
        let start = m[i] + f * f1 / (f1 * f1 + 0.5 * f * f).max(1e-6);
        angle[i] = start.max(m[i] - e.abs()).min(m[i] + e.abs());
    }
    for _ in 0..KEPLER_ITERATIONS {
        super::trig::sin_cos(angle, sin, cos);
        let mut moved = 0.0f64;
        for i in 0..n {
            let (x, e) = (angle[i], e[i].clamp(-1.0, 1.0));
            let f = x - e * sin[i] - m[i];
            let (f1, f2) = (1.0 - e * cos[i], e * sin[i]);
            let denominator = f1 * f1 - 0.5 * f * f2;
            let step = if denominator > 0.0 { f * f1 / denominator } else { 0.0 };
            let next = (x - step).max(m[i] - e.abs()).min(m[i] + e.abs());
            let moved_here = next - x;
            moved = moved.max(moved_here.abs());
            angle[i] = next;
            // The sine and cosine carried over the step, to second order.
            let half_square = 0.5 * moved_here * moved_here;
            (sin[i], cos[i]) = (
                sin[i] + cos[i] * moved_here - sin[i] * half_square,
                cos[i] - sin[i] * moved_here - cos[i] * half_square,
            );
        }
        if moved <= 1e-4 {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::f64::consts::PI;

    use super::*;
    use crate::water::{GerstnerWave, WaterSurface};

    /// One angle of [`super::kepler`].
    fn kepler(m: f64, e: f64) -> f64 {
        let mut out = Solved {
            angle: [0.0; SOLVES],
            sin: [0.0; SOLVES],
            cos: [0.0; SOLVES],
        };
        super::kepler(&[m], &[e], &mut out);
        out.angle[0]
    }

    const G: f64 = 9.81;

    /// The correction at the surface (depth 0): what these tests compare.
    fn surface(sea: &GerstnerWater, centre: DVec2, half: DVec2, t: f64) -> DVec3 {
        sea.froude_krylov(centre, half, t, G).at_depth(0.0)
    }

    fn sea(amplitude: f64, wavelength: f64, direction: DVec2, steepness: f64, phase: f64) -> GerstnerWater {
        let wave = GerstnerWave {
            amplitude,
            wavelength,
            direction,
            steepness,
            phase,
        };
        GerstnerWater::new(&[wave], 0.0, G).unwrap()
    }

    #[test]
    fn kepler_solves_its_equation_for_every_eccentricity() {
        for e in [-1.0, -0.3, 0.0, 1e-3, 0.0785, 0.3, 0.5, 0.8, 0.95, 0.999, 1.0] {
            for i in -200..=200 {
                let m = i as f64 * 0.0371;
                let x = kepler(m, e);
                let residual = x - e * x.sin() - m;
                assert!(residual.abs() < 1e-12, "e {e} m {m}: x {x}, residual {residual}");
            }
        }
    }

    /// The orbit particle at `x` (it is there at `t`): its acceleration by finite
    /// differences of its velocity along its own path, which the sea's velocity field
    /// gives at the surface (the riding field's horizontal part is the orbit's).
    fn orbit_acceleration(x: f64, t: f64, k: f64, a: f64, omega: f64) -> DVec2 {
        // The orbit particle at x: its angle phi and its rest position.
        let psi = k * x - omega * t;
        let phi = kepler(psi, k * a);
        let rest = x + a * phi.sin();
        let position = |t: f64| {
            let phi = k * rest - omega * t;
            DVec2::new(rest - a * phi.sin(), a * phi.cos())
        };
        let h = 1e-3;
        (position(t + h) - 2.0 * position(t) + position(t - h)) / (h * h)
    }

    #[test]
    fn the_point_terms_are_the_orbits_acceleration_and_the_drawn_slope_by_finite_differences() {
        let (a, wavelength) = (0.5, 40.0);
        let (k, omega) = (TAU / wavelength, (G * TAU / wavelength).sqrt());
        for q in [0.0, 0.25, 0.5, 0.8] {
            let sea = sea(a, wavelength, DVec2::X, q, 0.0);
            for i in 0..37 {
                let (x, t) = (i as f64 * 1.13, 0.37);
                let got = surface(&sea, DVec2::new(x, 0.0), DVec2::ZERO, t);
                let acc = orbit_acceleration(x, t, k, a, omega);
                let h = 1e-5;
                let slope = (sea.height(x + h, 0.0, t) - sea.height(x - h, 0.0, t)) / (2.0 * h);
                let want = DVec3::new(acc.x + G * slope, acc.y, 0.0);
                let scale = a * omega * omega * (1.0 + 1.0 / (1.0 - q));
                assert!(
                    (got - want).length() < 2e-5 * scale,
                    "Q {q} x {x}: {got} against {want}"
                );
                assert_eq!(got.z, 0.0);
            }
        }
    }

    #[test]
    fn the_mean_over_a_footprint_is_the_mean_of_the_point_values() {
        let (a, wavelength) = (0.5, 40.0);
        let k = TAU / wavelength;
        for q in [0.0, 0.3, 0.8, 0.98] {
            let sea = sea(a, wavelength, DVec2::X, q, 0.7);
            for half in [0.01, 0.5, 2.0, 7.3, 45.0] {
                let (x, t) = (3.1, 1.9);
                let got = surface(&sea, DVec2::new(x, 0.0), DVec2::new(half, 3.0), t);
                // Midpoint rule, fine enough for the sharpest crest here.
                let n = 200_000;
                let mut want = DVec3::ZERO;
                for j in 0..n {
                    let s = x - half + (j as f64 + 0.5) * 2.0 * half / n as f64;
                    want += surface(&sea, DVec2::new(s, 0.0), DVec2::ZERO, t);
                }
                want /= n as f64;
                let scale = a * (G * k) * (1.0 + 1.0 / (1.0 - q));
                assert!(
                    (got - want).length() < 1e-4 * scale,
                    "Q {q} half {half}: {got} against {want}"
                );
                // The drawn surface's mean height over the same footprint.
                let height = sea
                    .froude_krylov(DVec2::new(x, 0.0), DVec2::new(half, 3.0), t, G)
                    .height;
                // The drawn angle by bisection (`theta - Q sin theta = psi` rises
                // monotonically), independent of the surface's own solver.
                let drawn = |psi: f64| {
                    let (mut lo, mut hi) = (psi - 1.0, psi + 1.0);
                    for _ in 0..80 {
                        let mid = 0.5 * (lo + hi);
                        if mid - q * mid.sin() > psi { hi = mid } else { lo = mid }
                    }
                    0.5 * (lo + hi)
                };
                let omega = (G * k).sqrt();
                let mut want = 0.0;
                for j in 0..n {
                    let s = x - half + (j as f64 + 0.5) * 2.0 * half / n as f64;
                    want += a * drawn(k * s - omega * t + 0.7).cos();
                }
                want /= n as f64;
                assert!(
                    (height - want).abs() < 1e-6 * a,
                    "Q {q} half {half}: height {height} against {want}"
                );
            }
        }
    }

    #[test]
    fn over_whole_wavelengths_only_the_orbits_mean_lift_is_left() {
        let (a, wavelength) = (0.5, 40.0);
        let k = TAU / wavelength;
        let omega2 = G * k;
        for q in [0.0, 0.5, 0.9] {
            let sea = sea(a, wavelength, DVec2::X, q, 0.0);
            for periods in [1.0, 3.0, 10.0] {
                let half = periods * wavelength / 2.0;
                let got = surface(&sea, DVec2::new(1.7, 0.0), DVec2::new(half, 0.0), 4.2);
                assert!(got.x.abs() < 1e-9, "Q {q}: {got}");
                let lift = a * omega2 * k * a / 2.0;
                assert!((got.y - lift).abs() < 1e-9, "Q {q}: {} against {lift}", got.y);
                // The drawn trochoid's mean height: `A cos theta` over `d psi = (1 - Q cos
                // theta) d theta`, `-Q A / 2` below the level.
                let height = sea
                    .froude_krylov(DVec2::new(1.7, 0.0), DVec2::new(half, 0.0), 4.2, G)
                    .height;
                assert!((height + q * a / 2.0).abs() < 1e-9, "Q {q}: mean height {height}");
            }
        }
    }

    #[test]
    fn the_waters_acceleration_decays_with_depth_and_the_slopes_push_does_not() {
        let sea = GerstnerWater::new(
            &[GerstnerWave {
                amplitude: 0.5,
                wavelength: 40.0,
                direction: DVec2::X,
                steepness: 0.5,
                phase: 0.0,
            }],
            2.0,
            G,
        )
        .unwrap();
        let k = TAU / 40.0;
        assert_eq!(sea.velocity_decay(), k);
        let f = sea.froude_krylov(DVec2::new(3.0, 0.0), DVec2::new(0.5, 0.5), 0.8, G);
        assert!(f.acceleration.length() > 0.1 && f.slope.length() > 0.1, "{f:?}");
        // The mean height is the sea's (level 2 m included).
        assert!((f.height - sea.height(3.0, 0.0, 0.8)).abs() < 0.01, "{}", f.height);
        for depth in [0.0, 0.5, 3.0, 20.0] {
            let want = f.acceleration * (-k * depth).exp() + f.slope;
            assert!((f.at_depth(depth) - want).length() < 1e-12, "depth {depth}");
        }
        // Above the surface (a centre of buoyancy can be, on a steep face): the surface's.
        assert_eq!(f.at_depth(-1.0), f.at_depth(0.0));
        assert!(!f.is_zero() && FroudeKrylov::default().is_zero());
    }

    #[test]
    fn each_wave_acts_along_its_direction_and_waves_add() {
        let d = DVec2::new(0.6, -0.8);
        let one = sea(0.4, 17.0, d, 0.6, 0.3);
        let other = sea(0.2, 7.0, DVec2::new(-1.0, 0.2), 0.3, 1.1);
        let waves = [
            GerstnerWave {
                amplitude: 0.4,
                wavelength: 17.0,
                direction: d,
                steepness: 0.6,
                phase: 0.3,
            },
            GerstnerWave {
                amplitude: 0.2,
                wavelength: 7.0,
                direction: DVec2::new(-1.0, 0.2),
                steepness: 0.3,
                phase: 1.1,
            },
        ];
        let both = GerstnerWater::new(&waves, 0.0, G).unwrap();
        let (c, half, t) = (DVec2::new(2.0, -1.0), DVec2::new(1.5, 0.7), 3.3);
        let f = surface(&one, c, half, t);
        assert!((f.x * d.y - f.z * d.x).abs() < 1e-12, "{f}");
        let sum = f + surface(&other, c, half, t);
        assert!((surface(&both, c, half, t) - sum).length() < 1e-12);
    }

    #[test]
    fn linear_velocities_flat_seas_and_far_times_are_quiet() {
        let linear = sea(0.5, 40.0, DVec2::X, 0.0, 0.0).with_velocities(GerstnerVelocities::Linear);
        assert_eq!(surface(&linear, DVec2::ZERO, DVec2::ZERO, 1.0), DVec3::ZERO);
        let calm = GerstnerWater::new(&[], 0.0, G).unwrap();
        assert_eq!(surface(&calm, DVec2::ZERO, DVec2::ONE, 1.0), DVec3::ZERO);
        let sea = sea(0.5, 40.0, DVec2::X, 1.0, 0.0);
        for t in [0.0, 1e6, 1e12, 1e300, f64::MAX] {
            for x in [0.0, -3.0, 1e9] {
                for half in [0.0, 1.0] {
                    let f = surface(&sea, DVec2::new(x, 0.0), DVec2::splat(half), t);
                    assert!(f.is_finite(), "t {t} x {x}: {f}");
                }
            }
        }
        // Negative amplitudes, and orbits folded over (k A = 3): finite, no panic.
        for amplitude in [-0.5, -1.1, 1.1] {
            let folded = self::sea(amplitude, 2.3, DVec2::new(-0.4, -0.05), 0.08, 4.3);
            for i in 0..50 {
                for half in [0.0, 0.3] {
                    let f = surface(&folded, DVec2::new(i as f64 * 0.37, 1.0), DVec2::splat(half), 603.7);
                    assert!(f.is_finite(), "A {amplitude}: {f}");
                }
            }
        }
        // The cusp itself: the slope is infinite there, its mean over any width finite.
        let cusp = surface(&sea, DVec2::ZERO, DVec2::ZERO, 0.0);
        assert!(cusp.is_finite(), "{cusp}");
        let mean = surface(&sea, DVec2::ZERO, DVec2::splat(PI / (TAU / 40.0) * 1e-3), 0.0);
        assert!(mean.is_finite() && mean.length() < 10.0 * G, "{mean}");
    }
}
