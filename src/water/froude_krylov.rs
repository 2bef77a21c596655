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
//! **Which water.** The water whose acceleration this is must be the water whose velocity
//! drag reads (`GerstnerWater`'s velocity field): along the waves it moves as the orbit's
//! particle (`A omega` forward at the crest), and vertically it keeps to the drawn surface
//! (the kinematic condition). Its particles' acceleration along the waves is the orbit's,
//! `a_h = A omega^2 sin phi` (their horizontal paths are the orbit's); vertically they
//! follow the drawn surface, `a_y = d^2 eta / dt^2` along the path: for a wave travelling
//! at `c = omega / k`, with `u` the water's speed along it,
//!
//! ```text
//! a_y = (u - c)^2 eta_xx + eta_x a_h
//! ```
//!
//! On the sea's own trochoid (`Q = k A`) that is the orbit's `-A omega^2 cos phi`; under a
//! crest drawn sharper, the curvature `eta_xx = -k^2 A / (1 - Q)^2` at the top makes the
//! water fall away from the crest faster than the orbit does (`A omega^2 (1 - k A)^2 /
//! (1 - Q)^2`: 2.6 m/s^2 at `Q` 0.5 on a 40 m wave 0.5 m high, where the orbit's is 0.77).
//! The first version of this correction took the orbit's vertical acceleration while drag
//! read the riding velocity: a small body then followed the orbit up and down while the
//! water it sat in followed the drawn crest, and the drag between the two, on a level
//! raft pitched by the crest, pulled it back against the waves at up to 0.43 Stokes
//! drifts (docs/WAVES.md). Water cannot pull: where riding a crest takes more than free
//! fall (a point body on a very sharp crest, a cusp at `Q` 1) the downward acceleration
//! stops at `g` (the surface's water then presses nothing).
//!
//! **One wave.** Along its direction `D`, with the Eulerian phase at the point,
//! `psi = k D . x - omega t + phase`, the drawn surface's particle there has the angle
//! `theta` (`psi = theta - Q sin theta`) and the orbit's the angle `phi`
//! (`psi = phi - k A sin phi`): Kepler's equation, solved by [`kepler`]. The orbit's
//! particle accelerates along the waves at `omega^2` times its displacement, and the
//! drawn slope and curvature along `D` are `eta_x = -k A sin theta / (1 - Q cos theta)`
//! and `eta_xx = -k^2 A (cos theta - Q) / (1 - Q cos theta)^3`:
//!
//! ```text
//! a_h + g grad eta = D (A omega^2 sin phi - g k A sin theta / (1 - Q cos theta))
//! a_y              = (A omega cos phi - c)^2 eta_xx + eta_x A omega^2 sin phi
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
//! ```
//!
//! and the mean is the difference at the ends over `2 b`; over whole wavelengths it is
//! zero (a long hull feels its own pressure integral only). The vertical part is the
//! derivative of `G = (u - c)^2 eta_x` less `a_h eta_x` (since `(u - c) u_x = a_h`, the
//! orbit's particle following `u`), so its mean over the footprint is `[G] / 2 w` exactly,
//! which carries the sharp crest whatever its curvature, less the mean of `a_h eta_x`, a
//! small term (at most `A omega^2 k A / sqrt(1 - Q^2)`, a few per cent of `g`) taken with
//! `a_h` linear over the footprint, so that `int eta_x` and `int s eta_x` come from the
//! ends and the mean height, which is in closed form too:
//!
//! ```text
//! int eta d psi = A (sin theta - Q (theta / 2 + sin 2 theta / 4))
//! ```
//!
//! Exact as the footprint shrinks; over whole wavelengths it leaves out the riding
//! water's second-order mean lift (about `A omega^2 k A / 2`, 0.4 % of the buoyancy on
//! the 40 m wave; the orbit's, which the first version had).
//!
//! **Its moment.** Under a crest the water falls faster than under the body's other end,
//! and a body whose pressure is the drawn surface's hydrostatics feels none of that: its
//! crest end is pushed up as if the water there were still. The correction's vertical
//! part is spread over the footprint, so it turns the body too: per unit of submerged
//! volume, the first moment `M = (1 / 2 w) int s a_y ds` about the centre along `D`, the
//! torque `rho V_sub e^{-k d} M (D x y^)`. By parts, with `H = (u - c)^2 eta`,
//! `int s G' = w (G+ + G-) - [H] + 2 int a_h eta`, and `a_h` linear again in the small
//! terms. Without it, level rafts 1 to 4 m long on crests of steepness 0.5 to 0.8 pitched
//! into the crests' phase and still crept back at up to 0.35 Stokes drifts; with it
//! every raft and cube up to a tenth of the wavelength drifts by at most 0.17 (the step
//! applies it as a couple of two vertical forces at the centre of buoyancy).
//!
//! **Approximations, said.** The waves of a sum are taken one at a time, as if each were
//! alone (their cross terms are of second order in the slopes); the hull's footprint is
//! its bounding box in world axes, weighted uniformly (a hull whose ends are fine, as a
//! boat's, is averaged over a little more than it should, and its submerged volume spread
//! evenly over it for the moment); the acceleration decays at the sea's one rate `k` (a
//! sum's, as its velocities', though a sharp crest's curvature is made of shorter
//! harmonics that decay faster); the correction is one force at the centre of buoyancy and
//! the couple of its vertical part. Callback, heightfield and Perlin water have no
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
    /// The moment of the vertical acceleration over the footprint about its centre, per
    /// unit of submerged volume, m^2/s^2 (world axes, horizontal): a body of submerged
    /// volume `V` feels the torque `rho V e^{-k d}` times it, the water under a crest
    /// falling faster than under the body's other end.
    pub moment: DVec3,
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

    /// The moment of the vertical acceleration per unit volume at `depth` below the
    /// surface (above it, the surface's): [`FroudeKrylov::moment`] decayed as the
    /// acceleration.
    pub fn moment_at_depth(&self, depth: f64) -> DVec3 {
        let decay = (-self.decay * depth.max(0.0)).exp();
        self.moment * decay
    }

    /// Whether there is nothing to add (flat water, other models, the option off).
    pub fn is_zero(&self) -> bool {
        self.acceleration == DVec3::ZERO && self.slope == DVec3::ZERO && self.moment == DVec3::ZERO
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
        // Water cannot pull: under a crest drawn so sharp that riding it takes more than
        // free fall (a cusp, `Q` 1, or a point body at `Q` 0.8 on a steep wave), the
        // surface's water falls at `g` and presses nothing.
        out.acceleration.y = out.acceleration.y.max(-gravity);
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
            // A vertical force growing along `D` turns the body about `D x y^`.
            out.moment += DVec3::new(-d.y, 0.0, d.x) * terms.moment;
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
    /// The riding water's vertical acceleration.
    up: f64,
    /// Its first moment along the wave's direction about the interval's centre, over the
    /// interval's length (m^2/s^2).
    moment: f64,
    /// `g` times the drawn slope along the wave's direction.
    slope: f64,
    /// The drawn height above the level.
    height: f64,
}

/// The drawn slope along the wave, `-k A sin theta / (1 - Q cos theta)`, its denominator
/// kept from vanishing at a cusp (`Q` 1, where the slope is unbounded at the crest: a point
/// there takes the slope at 0.04 rad from it).
#[inline(always)]
fn drawn_slope(ka: f64, q: f64, (sin_theta, cos_theta): (f64, f64)) -> f64 {
    -ka * sin_theta / (1.0 - q * cos_theta).max(1e-3)
}

/// One wave's terms at one end of the interval, for the riding water's vertical
/// acceleration (module docs): `(G, H, eta, a_h)` with `G = (u - c)^2 eta_x` and
/// `H = (u - c)^2 eta`, from the drawn angle's and the orbit's sines and cosines.
#[inline(always)]
fn riding_terms(w: &Wave, theta: (f64, f64), (sin_phi, cos_phi): (f64, f64)) -> (f64, f64, f64, f64) {
    let relative = w.amplitude * w.omega * cos_phi - w.omega / w.k;
    let squared = relative * relative;
    let eta = w.amplitude * theta.1;
    let eta_x = drawn_slope(w.k * w.amplitude, w.steepness, theta);
    (
        squared * eta_x,
        squared * eta,
        eta,
        w.amplitude * w.omega * w.omega * sin_phi,
    )
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
        // `(u - c)^2 eta_xx + eta_x a_h`, with `eta_xx = -k^2 A (cos theta - Q) / (1 - Q
        // cos theta)^3`.
        let relative = w.amplitude * w.omega * cos_phi - w.omega / w.k;
        let f = (1.0 - q * cos_theta).max(1e-3);
        let eta_xx = -w.k * ka * (cos_theta - q) / (f * f * f);
        let up = relative * relative * eta_xx + drawn_slope(ka, q, angles[0]) * a_omega2 * sin_phi;
        return Terms {
            along: a_omega2 * sin_phi,
            up,
            moment: 0.0,
            slope: if slope.is_finite() { slope } else { 0.0 },
            height: w.amplitude * cos_theta,
        };
    }
    let at = |psi: f64, (sin_theta, cos_theta): (f64, f64), (sin_phi, cos_phi): (f64, f64)| {
        let along = a_omega2 * (-cos_phi - 0.5 * ka * sin_phi * sin_phi);
        let slope = gravity * ka * cos_theta;
        let height = w.amplitude * (sin_theta - q * (0.5 * (psi + q * sin_theta) + 0.5 * sin_theta * cos_theta));
        [along, slope, height]
    };
    let (a, b) = (at(from, angles[0], angles[2]), at(to, angles[1], angles[3]));
    let span = to - from;
    let mean = |i: usize| (b[i] - a[i]) / span;
    // The riding vertical acceleration `d G / dx - a_h eta_x` and its first moment about
    // the centre (module docs): the curvature's part, which carries the sharp crest,
    // exact from the ends; `a_h` taken linear over the interval in the rest.
    let ((g0, h0, e0, a0), (g1, h1, e1, a1)) = (
        riding_terms(w, angles[0], angles[2]),
        riding_terms(w, angles[1], angles[3]),
    );
    let length = span / w.k;
    let half = 0.5 * length;
    let (mean_a, slope_a, mean_eta) = (0.5 * (a0 + a1), (a1 - a0) / length, mean(2));
    let (rise, sum) = (e1 - e0, e1 + e0);
    let up = (g1 - g0) / length - (mean_a * rise + slope_a * (half * sum - length * mean_eta)) / length;
    let moment = (half * (g1 + g0) - (h1 - h0)
        + mean_a * (3.0 * length * mean_eta - half * sum)
        + slope_a * half * half * rise / 3.0)
        / length;
    Terms {
        along: mean(0),
        up,
        moment,
        slope: mean(1),
        height: mean(2),
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

    /// The surface particle of the sea's velocity field that is at `x` at `t`, and its
    /// acceleration by finite differences of its path: along the waves it moves as the
    /// orbit's particle over `x` (the field's horizontal velocity is the orbit's), and it
    /// stays on the drawn surface (the field's vertical velocity is the kinematic
    /// condition's), so its path is `(x_orbit(t), eta(x_orbit(t), t))`.
    fn riding_acceleration(sea: &GerstnerWater, x: f64, t: f64, k: f64, a: f64, omega: f64) -> DVec2 {
        // The orbit particle at x: its angle phi and its rest position.
        let psi = k * x - omega * t;
        let phi = kepler(psi, k * a);
        let rest = x + a * phi.sin();
        let position = |t: f64| {
            let x = rest - a * (k * rest - omega * t).sin();
            DVec2::new(x, sea.height(x, 0.0, t))
        };
        // Richardson's extrapolation of two steps: the sharp crests' fourth derivative is
        // large.
        let second = |h: f64| (position(t + h) - 2.0 * position(t) + position(t - h)) / (h * h);
        (4.0 * second(1e-3) - second(2e-3)) / 3.0
    }

    #[test]
    fn the_point_terms_are_the_riding_waters_acceleration_and_the_drawn_slope_by_finite_differences() {
        let (a, wavelength) = (0.5, 40.0);
        let (k, omega) = (TAU / wavelength, (G * TAU / wavelength).sqrt());
        for q in [0.0, 0.25, 0.5, 0.8] {
            let sea = sea(a, wavelength, DVec2::X, q, 0.0);
            for i in 0..37 {
                let (x, t) = (i as f64 * 1.13, 0.37);
                let got = surface(&sea, DVec2::new(x, 0.0), DVec2::ZERO, t);
                let acc = riding_acceleration(&sea, x, t, k, a, omega);
                let h = 1e-5;
                let slope = (sea.height(x + h, 0.0, t) - sea.height(x - h, 0.0, t)) / (2.0 * h);
                // Water cannot pull: the sea's answer stops at free fall.
                let want = DVec3::new(acc.x + G * slope, acc.y.max(-G), 0.0);
                let scale = a * omega * omega * (1.0 + 1.0 / ((1.0 - q) * (1.0 - q)));
                assert!(
                    (got - want).length() < 2e-5 * scale,
                    "Q {q} x {x}: {got} against {want}"
                );
                assert_eq!(got.z, 0.0);
            }
        }
    }

    /// The bound on what taking the orbit's horizontal acceleration linear over a
    /// footprint costs the vertical mean: `|a_h eta_x|` at most, `A omega^2 k A /
    /// sqrt(1 - Q^2)`.
    fn linear_part(a: f64, k: f64, q: f64) -> f64 {
        a * G * k * k * a / (1.0 - q * q).sqrt()
    }

    #[test]
    fn the_mean_over_a_footprint_is_the_mean_of_the_point_values() {
        let (a, wavelength) = (0.5, 40.0);
        let k = TAU / wavelength;
        for q in [0.0, 0.3, 0.8, 0.98] {
            let sea = sea(a, wavelength, DVec2::X, q, 0.7);
            for half in [0.01, 0.5, 2.0, 7.3, 45.0] {
                let (x, t) = (3.1, 1.9);
                // (Before the clamp at free fall, which applies to the mean.)
                let unclamped = |centre: f64, half: f64| {
                    let f = super::froude_krylov(&sea, DVec2::new(centre, 0.0), DVec2::new(half, 3.0), t, G);
                    f.acceleration + f.slope
                };
                let got = unclamped(x, half);
                // Midpoint rule, fine enough for the sharpest crest here.
                let n = 200_000;
                let mut want = DVec3::ZERO;
                let mut moment = 0.0;
                for j in 0..n {
                    let s = -half + (j as f64 + 0.5) * 2.0 * half / n as f64;
                    let point = unclamped(x + s, 0.0);
                    want += point;
                    moment += s * point.y;
                }
                want /= n as f64;
                moment /= n as f64;
                let scale = a * (G * k) * (1.0 + 1.0 / (1.0 - q));
                assert!(
                    (got.x - want.x).abs() < 1e-4 * scale && got.z == 0.0,
                    "Q {q} half {half}: {got} against {want}"
                );
                // The curvature's part exact, the rest within the bound of its size
                // (measured: 0.03 of it up to a half-width of 2 m, half of it over whole
                // wavelengths, where the riding water's second-order mean lift is left out).
                let vertical = 1e-4 * scale + 0.6 * linear_part(a, k, q);
                assert!(
                    (got.y - want.y).abs() < vertical,
                    "Q {q} half {half}: vertical {} against {} (within {vertical})",
                    got.y,
                    want.y
                );
                // The first moment of the vertical part about the centre, likewise.
                let f = super::froude_krylov(&sea, DVec2::new(x, 0.0), DVec2::new(half, 3.0), t, G);
                let within = half * (1e-4 * scale + 0.3 * linear_part(a, k, q));
                assert!(
                    (f.moment.z - moment).abs() < within && f.moment.x == 0.0 && f.moment.y == 0.0,
                    "Q {q} half {half}: moment {} against {moment} (within {within})",
                    f.moment
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
    fn over_whole_wavelengths_nothing_is_left_along_or_up() {
        let (a, wavelength) = (0.5, 40.0);
        let k = TAU / wavelength;
        let omega2 = G * k;
        for q in [0.0, 0.5, 0.9] {
            let sea = sea(a, wavelength, DVec2::X, q, 0.0);
            for periods in [1.0, 3.0, 10.0] {
                let half = periods * wavelength / 2.0;
                let got = surface(&sea, DVec2::new(1.7, 0.0), DVec2::new(half, 0.0), 4.2);
                assert!(got.x.abs() < 1e-9, "Q {q}: {got}");
                // The riding water's second-order mean lift (about `A omega^2 k A / 2`) is
                // left out (module docs): nothing else is left.
                let lift = a * omega2 * k * a / 2.0;
                assert!(got.y.abs() < 1e-9, "Q {q}: {} (the lift {lift} left out)", got.y);
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
    fn at_a_cusp_the_water_falls_at_most_freely_and_every_term_is_finite() {
        for q in [0.98, 1.0] {
            let sea = sea(0.5, 40.0, DVec2::X, q, 0.0);
            for half in [0.0, 1e-5, 0.01, 0.5, 3.0, 45.0] {
                for i in 0..2001 {
                    // Across the crest (at x = 0 for t = 0) and round the whole wave.
                    let x = if i < 1000 {
                        (i as f64 - 500.0) * 1e-4
                    } else {
                        (i - 1000) as f64 * 0.04
                    };
                    let f = sea.froude_krylov(DVec2::new(x, 0.0), DVec2::new(half, half), 0.0, G);
                    let terms = [f.acceleration, f.slope, f.moment];
                    assert!(
                        terms.iter().all(|v| v.is_finite()) && f.height.is_finite(),
                        "Q {q} half {half} x {x}: {f:?}"
                    );
                    assert!(f.acceleration.y >= -G, "Q {q} half {half} x {x}: {f:?}");
                }
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
        // The moment decays as the acceleration does.
        assert!(f.moment.length() > 0.01, "{f:?}");
        for depth in [0.0, 0.5, 3.0, 20.0] {
            let want = f.moment * (-k * depth).exp();
            assert!((f.moment_at_depth(depth) - want).length() < 1e-12, "depth {depth}");
        }
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
        // Each wave's moment turns about the horizontal normal to its direction.
        let moment = |sea: &GerstnerWater| sea.froude_krylov(c, half, t, G).moment;
        let m = moment(&one);
        assert!(
            m.length() > 1e-3 && (m.x * d.x + m.z * d.y).abs() < 1e-12 && m.y == 0.0,
            "{m}"
        );
        assert!((moment(&both) - m - moment(&other)).length() < 1e-12);
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
