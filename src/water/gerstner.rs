//! Gerstner (trochoidal) waves with deep-water dispersion.
//!
//! For waves `i` with amplitude `A`, wavelength `L`, unit direction `D`, steepness `Q`
//! and phase `phi`: `k = 2 pi / L`, `omega = sqrt(g k)`, and a surface particle whose
//! rest position is `x0` (horizontal) sits at
//!
//! ```text
//! theta_i = k_i D_i . x0 - omega_i t + phi_i
//! x = x0 - sum D_i (Q_i / k_i) sin theta_i
//! y = level + sum A_i cos theta_i
//! ```
//!
//! The height under a horizontal point `x` needs the `x0` that lands there: Newton's
//! method on `x0 - sum D_i (Q_i / k_i) sin theta_i = x`, whose Jacobian
//! `I - sum Q_i cos theta_i D_i D_i^T` stays invertible while `sum Q_i < 1` (the
//! sharpest crest at `Q = 1` is a cusp).
//!
//! ## The water's velocity: orbits of radius `A`, whatever `Q`
//!
//! The steepness is GPU Gems' graphics parameter: it shapes the drawn crests, and the
//! horizontal displacement `Q / k` it gives is not how far the water moves (at `Q = 0.5`
//! on a 40 m wave 0.5 m high it is 3.2 m, and the time derivative of that surface is a
//! horizontal current of 3.95 m/s where the sea's particles move at `A omega` = 0.62 m/s).
//! The water's velocity is the sea's instead: in a trochoidal wave every particle runs
//! on a circle of radius `A e^{k y0}` (`y0` its rest depth below the mean level) at
//! `A omega e^{k y0}`, and comes back where it started (no mean drift). At the surface,
//! the particle that is at `x` has the rest position `x0'` of
//!
//! ```text
//! x = x0' - sum D_i A_i sin theta_i(x0'),     v = sum A_i omega_i (D_i cos theta_i, sin theta_i)
//! ```
//!
//! solved by the same Newton iteration (Jacobian `I - sum k_i A_i cos theta_i D_i D_i^T`).
//! For `Q = k A` the two trochoids are one, and the drawn surface is the sea's exactly.
//! For other `Q` the crests are drawn sharper (or rounder) than the orbits, and the water
//! keeps to what is drawn: its horizontal velocity `u` is the orbit's, its vertical the
//! one that keeps the water's surface on the drawn one, `v = d eta / dt + u . grad eta`
//! (the kinematic condition; `Surface::riding`). Its paths stay closed (the horizontal
//! motion is the orbit's, the vertical the drawn height where the particle is), its
//! speed is `A omega` along the waves at crests and troughs, and a sharpened crest's
//! face rises and falls through the water no faster than the water itself: a body
//! riding the drawn surface meets no vertical current of the shape's making. Below the
//! surface the velocity decays as `e^{-k d}` with the
//! depth `d` under the local surface ([`GerstnerWater::velocity_decay`], applied by the
//! step). [`GerstnerVelocities::Linear`] gives linear (Airy) theory's field instead,
//! whose particles drift along the waves at the Stokes drift `omega k A^2`.

use std::f64::consts::TAU;

use glam::{DMat2, DVec2, DVec3};
use multiversion::multiversion;

use super::{WaterSample, WaterSurface};
use crate::error::{Error, Result, non_negative, positive, positive_up_to, within};

/// One wave of a Gerstner sea.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GerstnerWave {
    /// Amplitude, m.
    pub amplitude: f64,
    /// Wavelength, m.
    pub wavelength: f64,
    /// Horizontal direction of travel (x, z); normalised on construction.
    pub direction: DVec2,
    /// Q in [0, 1]: 0 is a sine wave, 1 the sharpest crest. It shapes the drawn crests
    /// only: the water's particles move on circles of radius `amplitude` whatever it is.
    pub steepness: f64,
    /// Phase, radians.
    pub phase: f64,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Wave {
    pub(super) amplitude: f64,
    pub(super) k: f64,
    pub(super) omega: f64,
    pub(super) phase: f64,
    /// `Q`.
    pub(super) steepness: f64,
    /// What the sums multiply each sine or cosine by, worked out once (`D` the unit
    /// direction, `Q / k` the radius of the drawn horizontal displacement): `k D` (the
    /// angle's gradient), `(Q / k) D` (displacement per sine), `Q (Dx Dx, Dx Dy, Dy Dy)`
    /// (the Jacobian, symmetric, per cosine), `A k D` (slope per sine); and for the
    /// water's orbits, `A D` and `k A (Dx Dx, Dx Dy, Dy Dy)` (displacement and Jacobian),
    /// `A omega D`, `A omega` (velocity per cosine, vertical per sine).
    pub(super) gradient: DVec2,
    push: DVec2,
    bend: [f64; 3],
    rise: DVec2,
    orbit_push: DVec2,
    orbit_bend: [f64; 3],
    along: DVec2,
    vertical: f64,
    /// `(Q omega / k) D`: the drawn surface particle's horizontal velocity per cosine
    /// (the vertical is `A omega` per sine, as the orbits').
    drawn_along: DVec2,
}

impl Wave {
    fn new(amplitude: f64, wavelength: f64, direction: DVec2, steepness: f64, phase: f64, gravity: f64) -> Self {
        let k = TAU / wavelength;
        let omega = (gravity * k).sqrt();
        let d = direction.normalize();
        let reach = steepness / k;
        let slope = k * amplitude;
        Wave {
            amplitude,
            k,
            omega,
            phase,
            steepness,
            gradient: k * d,
            push: reach * d,
            bend: [steepness * d.x * d.x, steepness * d.x * d.y, steepness * d.y * d.y],
            rise: amplitude * k * d,
            orbit_push: amplitude * d,
            orbit_bend: [slope * d.x * d.x, slope * d.x * d.y, slope * d.y * d.y],
            along: amplitude * omega * d,
            vertical: amplitude * omega,
            drawn_along: reach * omega * d,
        }
    }

    /// The angle at rest position `(x, z)`, with `start = phase - omega t`.
    #[inline(always)]
    pub(super) fn angle(&self, x: f64, z: f64, start: f64) -> f64 {
        self.gradient.x * x + self.gradient.y * z + start
    }

    /// Displacement per sine and Jacobian per cosine: the drawn surface's, or the
    /// water's orbits' (`ORBIT`).
    #[inline(always)]
    fn shape<const ORBIT: bool>(&self) -> (DVec2, [f64; 3]) {
        if ORBIT {
            (self.orbit_push, self.orbit_bend)
        } else {
            (self.push, self.bend)
        }
    }
}

/// Which velocity a Gerstner sea's water has (Rust only; hosts get [`Self::Orbits`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GerstnerVelocities {
    /// The trochoidal sea's: every particle on a closed circle of radius `A` at speed
    /// `A omega` (decaying with depth), whatever the steepness. No mean drift.
    #[default]
    Orbits,
    /// Linear (Airy) theory's: `A omega e^{k (y - level)} (D cos theta, sin theta)` with
    /// the angle `theta` at the point itself. Its particles drift along the waves at the
    /// Stokes drift `omega k A^2 e^{2 k y}`; meant for sine waves (`Q = 0`), where the
    /// drawn surface is linear theory's too.
    Linear,
}

/// A sum of Gerstner waves around a mean level.
#[derive(Clone, Debug)]
pub struct GerstnerWater {
    level: f64,
    waves: Vec<Wave>,
    velocities: GerstnerVelocities,
    /// [`GerstnerWater::velocity_decay`].
    decay: f64,
}

/// Newton iterations for the rest position at most.
const MAX_ITERATIONS: usize = 64;

impl GerstnerWater {
    /// A Gerstner sea for gravity `gravity`; refuses non-finite numbers, non-positive
    /// wavelengths, zero directions and steepness outside [0, 1].
    pub fn new(waves: &[GerstnerWave], level: f64, gravity: f64) -> Result<Self> {
        within("level", level, 1e9)?;
        positive("gravity", gravity)?;
        let mut out = Vec::with_capacity(waves.len());
        for (i, w) in waves.iter().enumerate() {
            let name = |field: &str| format!("waves[{i}].{field}");
            within(&name("amplitude"), w.amplitude, 1e4)?;
            positive_up_to(&name("wavelength"), w.wavelength, 1e7)?;
            if w.wavelength < 1e-3 {
                return Err(Error::argument(format!(
                    "{} must be at least 1 mm, got {}",
                    name("wavelength"),
                    w.wavelength
                )));
            }
            non_negative(&name("steepness"), w.steepness)?;
            within(&name("phase"), w.phase, 1e6)?;
            if w.steepness > 1.0 {
                return Err(Error::argument(format!(
                    "{} must be in [0, 1], got {}",
                    name("steepness"),
                    w.steepness
                )));
            }
            if !w.direction.is_finite() || w.direction.length() == 0.0 {
                return Err(Error::argument(format!(
                    "{} must be a finite non-zero direction, got ({}, {})",
                    name("direction"),
                    w.direction.x,
                    w.direction.y
                )));
            }
            out.push(Wave::new(
                w.amplitude,
                w.wavelength,
                w.direction,
                w.steepness,
                w.phase,
                gravity,
            ));
        }
        // The velocities' mean square sum (A omega)^2 e^{-2 k d} / 2 falls at the surface
        // at the rate of the one wavenumber weighted by (A omega)^2.
        let (weighted, total) = out.iter().fold((0.0, 0.0), |(weighted, total), w| {
            let v2 = w.vertical * w.vertical;
            (weighted + w.k * v2, total + v2)
        });
        let decay = if total > 0.0 { weighted / total } else { 0.0 };
        Ok(Self {
            level,
            waves: out,
            velocities: GerstnerVelocities::Orbits,
            decay,
        })
    }

    /// This sea with the water velocity `velocities` (the orbits by default).
    pub fn with_velocities(mut self, velocities: GerstnerVelocities) -> Self {
        self.velocities = velocities;
        self
    }

    /// The water velocity this sea gives.
    pub fn velocities(&self) -> GerstnerVelocities {
        self.velocities
    }

    /// The mean level the waves move about, m.
    pub fn level(&self) -> f64 {
        self.level
    }

    /// The waves, as the sums use them.
    pub(super) fn waves(&self) -> &[Wave] {
        &self.waves
    }

    /// The wavenumber `k`, 1/m, by which the water's velocity decays below the surface,
    /// `v(d) = v(0) e^{-k d}` at depth `d` under the local surface: a single wave's own
    /// `k`, exactly; for a sum of waves the wavenumbers' mean weighted by each wave's
    /// `(A omega)^2`, so that the mean square velocity falls at the surface at its exact
    /// rate (deeper, the short waves' share is overestimated). 0 without waves.
    pub fn velocity_decay(&self) -> f64 {
        self.decay
    }

    /// The level of this sea if it is flat: no waves, or only waves of no amplitude and
    /// no steepness (a wave of no amplitude but some steepness still moves the water
    /// round its horizontal orbits, and is not flat). Every term of the surface and of
    /// the particle velocity is then zero, and the height the level.
    pub fn flat_level(&self) -> Option<f64> {
        self.waves
            .iter()
            .all(|w| {
                w.amplitude == 0.0
                    && w.push == DVec2::ZERO
                    && w.along == DVec2::ZERO
                    && w.bend == [0.0; 3]
                    && w.rise == DVec2::ZERO
                    && w.vertical == 0.0
            })
            .then_some(self.level)
    }

    /// The rest position `x0` of the surface particle that is at `x` at time `t`, and the
    /// surface there. Newton's method: every iteration evaluates the whole surface at the
    /// current guess, so the iteration that finds the guess good enough has the answer.
    fn solve<const ORBIT: bool>(&self, x: DVec2, t: f64) -> (DVec2, Surface) {
        self.solve_from::<ORBIT>(x, x, t)
    }

    /// [`Self::solve`] from the guess `x0` (the answer is the same to the tolerance).
    #[inline(always)]
    fn solve_from<const ORBIT: bool>(&self, x: DVec2, mut x0: DVec2, t: f64) -> (DVec2, Surface) {
        let tolerance = tolerance(x);
        let mut surface = Surface::default();
        let mut guard = Guard::default();
        for _ in 0..MAX_ITERATIONS {
            surface = self.surface_at::<ORBIT>(x0, t);
            let residual = x0 + surface.displacement - x;
            let norm = residual.length();
            if norm <= tolerance {
                break;
            }
            if let Some(back) = guard.back(norm) {
                x0 = back;
                continue;
            }
            let j = surface.jacobian;
            let det = j.determinant();
            // Past sum Q = 1 the surface folds over: fall back to a damped fixed point.
            let step = if det > 1e-6 {
                j.inverse() * residual
            } else {
                0.5 * residual
            };
            guard.took(x0, norm, step);
            x0 -= step;
        }
        (x0, surface)
    }

    /// Everything about the surface particle with rest position `x0`: on the drawn
    /// surface (height, displacement, Jacobian, slope), or on the water's orbits
    /// (`ORBIT`: displacement, Jacobian, velocity). The sines and cosines of a chunk of
    /// waves are taken together ([`super::trig::sin_cos`], vector code) before the sums.
    #[inline(always)]
    fn surface_at<const ORBIT: bool>(&self, x0: DVec2, t: f64) -> Surface {
        const CHUNK: usize = 16;
        let mut s = Surface {
            height: self.level,
            jacobian: DMat2::IDENTITY,
            ..Surface::default()
        };
        let (mut theta, mut sines, mut cosines) = ([0.0; CHUNK], [0.0; CHUNK], [0.0; CHUNK]);
        for waves in self.waves.chunks(CHUNK) {
            for (theta, w) in theta.iter_mut().zip(waves) {
                *theta = w.angle(x0.x, x0.y, w.phase - w.omega * t);
            }
            // A wave pushed past f64's range (absurd coordinates or times) adds nothing:
            // its sine and cosine come back 0.
            super::trig::sin_cos(&theta[..waves.len()], &mut sines, &mut cosines);
            for ((w, &sin), &cos) in waves.iter().zip(&sines).zip(&cosines) {
                let (push, bend) = w.shape::<ORBIT>();
                s.displacement -= push * sin;
                let [xx, xz, zz] = bend.map(|b| b * cos);
                s.jacobian -= DMat2::from_cols(DVec2::new(xx, xz), DVec2::new(xz, zz));
                if ORBIT {
                    s.velocity += DVec3::new(w.along.x * cos, w.vertical * sin, w.along.y * cos);
                } else {
                    s.height += w.amplitude * cos;
                    s.slope += w.rise * sin;
                    s.velocity += DVec3::new(w.drawn_along.x * cos, w.vertical * sin, w.drawn_along.y * cos);
                }
            }
        }
        s
    }

    /// The water's velocity at the surface point over `x` at time `t`, where the drawn
    /// surface is `drawn`.
    fn velocity_at(&self, x: DVec2, drawn: &Surface, t: f64) -> DVec3 {
        match self.velocities {
            GerstnerVelocities::Orbits => drawn.riding(self.solve::<true>(x, t).1.velocity),
            GerstnerVelocities::Linear => self.linear_velocity(x, drawn.height, t),
        }
    }

    /// Linear theory's velocity at `x` and the height `height` (capped at the mean
    /// level's `e^{k y}` of the highest surface a sane sea has, so that a far-off height
    /// cannot overflow it).
    fn linear_velocity(&self, x: DVec2, height: f64, t: f64) -> DVec3 {
        let above = (height - self.level).clamp(-1e3, 1e3);
        let mut v = DVec3::ZERO;
        for w in &self.waves {
            let (sin, cos) = w.angle(x.x, x.y, w.phase - w.omega * t).sin_cos();
            let scale = (w.k * above).min(50.0).exp();
            v += scale * DVec3::new(w.along.x * cos, w.vertical * sin, w.along.y * cos);
        }
        v
    }
}

/// The surface particle at a rest position.
#[derive(Clone, Copy, Debug, Default)]
struct Surface {
    height: f64,
    /// Horizontal displacement from the rest position.
    displacement: DVec2,
    /// d(position) / d(x0) in the horizontal plane.
    jacobian: DMat2,
    /// d(height) / d(x0), negated: sum of A k sin(theta) D.
    slope: DVec2,
    velocity: DVec3,
}

impl WaterSurface for GerstnerWater {
    fn height(&self, x: f64, z: f64, t: f64) -> f64 {
        self.solve::<false>(DVec2::new(x, z), t).1.height
    }

    fn height_and_velocity(&self, x: f64, z: f64, t: f64) -> (f64, DVec3) {
        let x = DVec2::new(x, z);
        let drawn = self.solve::<false>(x, t).1;
        (drawn.height, self.velocity_at(x, &drawn, t))
    }

    fn sample(&self, x: f64, z: f64, t: f64) -> WaterSample {
        let x = DVec2::new(x, z);
        let (_, s) = self.solve::<false>(x, t);
        WaterSample {
            velocity: self.velocity_at(x, &s, t),
            ..s.sample()
        }
    }
}

impl GerstnerWater {
    /// [`Water::sample_into`](super::Water::sample_into) for this sea. Points next to each
    /// other (a hull's vertices, a water patch) have nearly the same displacement, so each
    /// point's Newton iteration starts from the nearest solved point of the last group,
    /// its rest position moved by the inverse Jacobian there (`x0 + J^-1 dx`, a
    /// first-order guess) rather than from `x0 = x`: fewer surface evaluations, the same
    /// answer to the tolerance. Compiled for AVX2 and AVX-512 too (the sines and cosines
    /// are vector code).
    pub(crate) fn sample_batch(
        &self,
        points: &[DVec3],
        t: f64,
        heights: &mut [f64],
        normals: Option<&mut [DVec3]>,
        velocities: Option<&mut [DVec3]>,
    ) {
        sample_batch(self, points, t, heights, normals, velocities);
    }
}

/// How close the solved rest position must land: a micrometre, far below the millimetre
/// the heights need, and reached in 3 to 5 iterations on sane seas. The orbits' too,
/// although their answer is only a velocity: at 0.1 mm they were no faster, and their
/// answer then depended on where the iteration started, which a Godot rollback's replay
/// did not repeat to the bit (`godot_addon_engine`'s rollback test failed).
#[inline(always)]
fn tolerance(x: DVec2) -> f64 {
    1e-6 + 1e-13 * x.length()
}

/// Points solved side by side in [`sample_batch`], one per vector lane.
const LANES: usize = 8;

/// Waves whose angles [`GerstnerWater::surfaces_at`] works out at a time, before their
/// sines and cosines in one call: one wave's eight lanes are a single vector, and its
/// polynomials' chain of dependent steps left the processor idle; many waves' interleave.
const WAVES: usize = 16;

/// [`WAVES`] waves' angles, sines and cosines in [`LANES`] lanes: room that
/// [`GerstnerWater::surfaces_at`] writes before it reads, kept for a whole batch rather
/// than zeroed (3 kB) at each of its surface evaluations.
struct Angles {
    theta: [[f64; LANES]; WAVES],
    sines: [[f64; LANES]; WAVES],
    cosines: [[f64; LANES]; WAVES],
}

impl Angles {
    fn new() -> Self {
        Self {
            theta: [[0.0; LANES]; WAVES],
            sines: [[0.0; LANES]; WAVES],
            cosines: [[0.0; LANES]; WAVES],
        }
    }
}

/// The surface at [`LANES`] rest positions, one number per lane: what
/// [`GerstnerWater::surface_at`] gives for one, in the same arithmetic.
#[derive(Clone, Copy, Debug, Default)]
struct Lanes {
    height: [f64; LANES],
    displacement: [[f64; LANES]; 2],
    /// Columns as in [`DMat2`]: `x_axis.x, x_axis.y, y_axis.x, y_axis.y`.
    jacobian: [[f64; LANES]; 4],
    slope: [[f64; LANES]; 2],
    velocity: [[f64; LANES]; 3],
}

impl Lanes {
    fn lane(&self, l: usize) -> Surface {
        let j = &self.jacobian;
        Surface {
            height: self.height[l],
            displacement: DVec2::new(self.displacement[0][l], self.displacement[1][l]),
            jacobian: DMat2::from_cols_array(&[j[0][l], j[1][l], j[2][l], j[3][l]]),
            slope: DVec2::new(self.slope[0][l], self.slope[1][l]),
            velocity: DVec3::new(self.velocity[0][l], self.velocity[1][l], self.velocity[2][l]),
        }
    }
}

impl GerstnerWater {
    /// [`GerstnerWater::surface_at`] for [`LANES`] rest positions at once: the sum over
    /// the waves runs in each lane in the same order, so each lane's numbers are the
    /// one-point answer's to the bit, and the lanes fill a vector (summing one point's
    /// waves across a vector would reorder its additions).
    #[inline(always)]
    fn surfaces_at<const ORBIT: bool>(&self, x0: &[[f64; LANES]; 2], t: f64, angles: &mut Angles) -> Lanes {
        let mut s = Lanes {
            height: [self.level; LANES],
            jacobian: [[1.0; LANES], [0.0; LANES], [0.0; LANES], [1.0; LANES]],
            ..Lanes::default()
        };
        let Angles { theta, sines, cosines } = angles;
        for waves in self.waves.chunks(WAVES) {
            for (theta, w) in theta.iter_mut().zip(waves) {
                let start = w.phase - w.omega * t;
                for l in 0..LANES {
                    theta[l] = w.angle(x0[0][l], x0[1][l], start);
                }
            }
            let count = waves.len() * LANES;
            super::trig::sin_cos(
                &theta.as_flattened()[..count],
                &mut sines.as_flattened_mut()[..count],
                &mut cosines.as_flattened_mut()[..count],
            );
            for ((w, sines), cosines) in waves.iter().zip(&*sines).zip(&*cosines) {
                let (push, bend) = w.shape::<ORBIT>();
                for l in 0..LANES {
                    let (sin, cos) = (sines[l], cosines[l]);
                    s.displacement[0][l] -= push.x * sin;
                    s.displacement[1][l] -= push.y * sin;
                    // (Symmetric: the two off-diagonal entries are one number.)
                    s.jacobian[0][l] -= bend[0] * cos;
                    s.jacobian[1][l] -= bend[1] * cos;
                    s.jacobian[3][l] -= bend[2] * cos;
                    if ORBIT {
                        s.velocity[0][l] += w.along.x * cos;
                        s.velocity[1][l] += w.vertical * sin;
                        s.velocity[2][l] += w.along.y * cos;
                    } else {
                        s.height[l] += w.amplitude * cos;
                        s.slope[0][l] += w.rise.x * sin;
                        s.slope[1][l] += w.rise.y * sin;
                    }
                }
            }
        }
        // (Symmetric: the off-diagonal entries are one sum, as in the one-point code.)
        s.jacobian[2] = s.jacobian[1];
        s
    }

    /// The drawn particles' velocities (`(Q omega / k) D cos` and `A omega sin` summed, as
    /// [`GerstnerWater::surface_at`] sums them for one point) into `s`, the surfaces
    /// [`GerstnerWater::surfaces_at`] last evaluated with `angles`. Only the riding
    /// velocity needs them, and only at the solve's answer: summed in every iteration
    /// they cost more than the looser orbit solve saves. A sea of up to [`WAVES`] waves
    /// finds that evaluation's sines and cosines still in `angles` (a lane that is done
    /// keeps its rest position, so the last evaluation had every lane's answer); a
    /// bigger one takes them again at `x0`, chunk by chunk.
    #[inline(always)]
    fn drawn_velocities(&self, x0: &[[f64; LANES]; 2], t: f64, angles: &mut Angles, s: &mut Lanes) {
        let Angles { theta, sines, cosines } = angles;
        let again = self.waves.len() > WAVES;
        for waves in self.waves.chunks(WAVES) {
            if again {
                for (theta, w) in theta.iter_mut().zip(waves) {
                    let start = w.phase - w.omega * t;
                    for l in 0..LANES {
                        theta[l] = w.angle(x0[0][l], x0[1][l], start);
                    }
                }
                let count = waves.len() * LANES;
                super::trig::sin_cos(
                    &theta.as_flattened()[..count],
                    &mut sines.as_flattened_mut()[..count],
                    &mut cosines.as_flattened_mut()[..count],
                );
            }
            for ((w, sines), cosines) in waves.iter().zip(&*sines).zip(&*cosines) {
                for l in 0..LANES {
                    let (sin, cos) = (sines[l], cosines[l]);
                    s.velocity[0][l] += w.drawn_along.x * cos;
                    s.velocity[1][l] += w.vertical * sin;
                    s.velocity[2][l] += w.drawn_along.y * cos;
                }
            }
        }
    }

    /// [`GerstnerWater::solve_from`] for [`LANES`] points at once: every lane iterates
    /// until its own residual is small enough, and a lane that is done keeps its answer
    /// while the others go on.
    #[inline(always)]
    fn solve_lanes<const ORBIT: bool>(
        &self,
        x: [DVec2; LANES],
        mut x0: [DVec2; LANES],
        t: f64,
        angles: &mut Angles,
    ) -> ([DVec2; LANES], Lanes) {
        let tolerance = x.map(tolerance);
        let mut done = [false; LANES];
        let mut guards = [Guard::default(); LANES];
        let mut out = Lanes::default();
        for _ in 0..MAX_ITERATIONS {
            let at = [x0.map(|p| p.x), x0.map(|p| p.y)];
            let s = self.surfaces_at::<ORBIT>(&at, t, angles);
            for l in 0..LANES {
                if done[l] {
                    continue;
                }
                copy_lane(&s, &mut out, l);
                let surface = s.lane(l);
                let residual = x0[l] + surface.displacement - x[l];
                let norm = residual.length();
                if norm <= tolerance[l] {
                    done[l] = true;
                    continue;
                }
                if let Some(back) = guards[l].back(norm) {
                    x0[l] = back;
                    continue;
                }
                let j = surface.jacobian;
                let step = if j.determinant() > 1e-6 {
                    j.inverse() * residual
                } else {
                    0.5 * residual
                };
                guards[l].took(x0[l], norm, step);
                x0[l] -= step;
            }
            if done.iter().all(|&d| d) {
                break;
            }
        }
        (x0, out)
    }
}

/// Newton's method kept from running away: near a sharp crest (`Q` near 1, where the
/// drawn surface's Jacobian nearly vanishes) a full step can land farther from the answer
/// than it started, and the iteration then wandered for its whole budget (heights 0.8 m
/// off at `Q` 0.98). Where a step did not shrink the residual, it is taken back and half
/// of it tried instead: Newton's step is a descent direction of the residual's square,
/// so some fraction of it always shrinks it. Where every step shrinks the residual the
/// iteration is Newton's as before, to the bit (the force-bits comparison's Gerstner
/// lines did not change). The budget ([`MAX_ITERATIONS`]) is 64: at a cusp (`Q` 1)
/// Newton's method converges only linearly.
#[derive(Clone, Copy, Default)]
struct Guard {
    /// Where the last step was taken from, the residual there, and the step.
    last: Option<(DVec2, f64, DVec2)>,
}

impl Guard {
    /// Where to go instead of a point whose residual is `norm`: back to the last step's
    /// start with half the step, when the step did not shrink the residual.
    #[inline(always)]
    fn back(&mut self, norm: f64) -> Option<DVec2> {
        let (from, before, step) = self.last?;
        if norm < before || !before.is_finite() {
            return None;
        }
        let half = 0.5 * step;
        self.last = Some((from, before, half));
        Some(from - half)
    }

    /// Records a step taken from `from`, where the residual was `norm`.
    #[inline(always)]
    fn took(&mut self, from: DVec2, norm: f64, step: DVec2) {
        self.last = Some((from, norm, step));
    }
}

fn copy_lane(from: &Lanes, to: &mut Lanes, l: usize) {
    to.height[l] = from.height[l];
    for k in 0..2 {
        to.displacement[k][l] = from.displacement[k][l];
        to.slope[k][l] = from.slope[k][l];
    }
    for k in 0..4 {
        to.jacobian[k][l] = from.jacobian[k][l];
    }
    for k in 0..3 {
        to.velocity[k][l] = from.velocity[k][l];
    }
}

/// The points [`LANES`] at a time. Each lane starts from the nearest point of the previous
/// group, carried over by the inverse Jacobian there (a first-order guess of the rest
/// position; neighbouring grid points and hull vertices are near each other).
#[multiversion(targets("x86_64+avx512f+avx512vl+avx512dq+avx512bw+avx2", "x86_64+avx2"))]
fn sample_batch(
    sea: &GerstnerWater,
    points: &[DVec3],
    t: f64,
    heights: &mut [f64],
    mut normals: Option<&mut [DVec3]>,
    mut velocities: Option<&mut [DVec3]>,
) {
    // The last group's points: each point, its rest position and d(x0)/d(x) there, on
    // the drawn surface and on the water's orbits.
    let mut last: [Option<(DVec2, DVec2, DMat2)>; LANES] = [None; LANES];
    let mut last_orbit: [Option<(DVec2, DVec2, DMat2)>; LANES] = [None; LANES];
    let orbits = velocities.is_some() && sea.velocities == GerstnerVelocities::Orbits;
    let mut angles = Angles::new();
    for (group, chunk) in points.chunks(LANES).enumerate() {
        // A short last group repeats its last point in the spare lanes.
        let x: [DVec2; LANES] = std::array::from_fn(|l| {
            let p = chunk[l.min(chunk.len() - 1)];
            DVec2::new(p.x, p.z)
        });
        let (x0, mut lanes) = sea.solve_lanes::<false>(x, guess(&last, &x), t, &mut angles);
        if orbits {
            let at = [x0.map(|p| p.x), x0.map(|p| p.y)];
            sea.drawn_velocities(&at, t, &mut angles, &mut lanes);
        }
        remember(&mut last, &x, &x0, &lanes, chunk.len());
        let orbit = orbits.then(|| {
            let (x0, lanes) = sea.solve_lanes::<true>(x, guess(&last_orbit, &x), t, &mut angles);
            remember(&mut last_orbit, &x, &x0, &lanes, chunk.len());
            lanes
        });
        // The riding velocities' vertical, lane by lane in vector code.
        let vertical: [f64; LANES] = match &orbit {
            Some(orbit) => {
                let (j, s, w, u) = (&lanes.jacobian, &lanes.slope, &lanes.velocity, &orbit.velocity);
                std::array::from_fn(|l| {
                    riding_row(
                        [j[0][l], j[1][l], j[3][l]],
                        [s[0][l], s[1][l]],
                        [w[0][l], w[1][l], w[2][l]],
                        [u[0][l], u[2][l]],
                    )
                })
            }
            None => [0.0; LANES],
        };
        for (l, &x) in x.iter().enumerate().take(chunk.len()) {
            let s = lanes.lane(l);
            let i = group * LANES + l;
            heights[i] = s.height;
            if let Some(v) = velocities.as_deref_mut() {
                v[i] = match &orbit {
                    Some(orbit) => DVec3::new(orbit.velocity[0][l], vertical[l], orbit.velocity[2][l]),
                    None => sea.linear_velocity(x, s.height, t),
                };
            }
            if let Some(n) = normals.as_deref_mut() {
                n[i] = s.sample().normal;
            }
        }
    }
}

/// [`Surface::riding`]'s vertical velocity from the drawn surface's symmetric Jacobian
/// `[a, b, c]` (`[[a, b], [b, c]]`), its slope, its particle's velocity `w` and the
/// orbit's horizontal velocity `u`: the one arithmetic of the point and the lanes (where
/// it runs as vector code, the fold's choice a select).
#[inline(always)]
fn riding_row([a, b, c]: [f64; 3], [sx, sz]: [f64; 2], [wx, vd, wz]: [f64; 3], [ux, uz]: [f64; 2]) -> f64 {
    let det = a * c - b * b;
    // grad eta = -J^-1 slope, J^-1 = [[c, -b], [-b, a]] / det.
    let (gx, gz) = ((b * sz - c * sx) / det, (b * sx - a * sz) / det);
    let along = vd + gx * (ux - wx) + gz * (uz - wz);
    if det > 1e-6 { along } else { vd }
}

/// Each lane's first guess: the nearest solved point of the last group, its rest
/// position carried over by the inverse Jacobian there, or the point itself.
#[inline(always)]
fn guess(last: &[Option<(DVec2, DVec2, DMat2)>; LANES], x: &[DVec2; LANES]) -> [DVec2; LANES] {
    std::array::from_fn(|l| {
        let guess = match nearest(last, x[l]) {
            Some((x_last, x0_last, inverse)) => x0_last + inverse * (x[l] - x_last),
            None => x[l],
        };
        if guess.is_finite() { guess } else { x[l] }
    })
}

/// A group's solved points, for the next group's guesses.
#[inline(always)]
fn remember(
    last: &mut [Option<(DVec2, DVec2, DMat2)>; LANES],
    x: &[DVec2; LANES],
    x0: &[DVec2; LANES],
    lanes: &Lanes,
    count: usize,
) {
    *last = [None; LANES];
    for l in 0..count {
        let j = lanes.lane(l).jacobian;
        let det = j.determinant();
        last[l] = (det > 1e-6 && x0[l].is_finite()).then(|| (x[l], x0[l], j.inverse()));
    }
}

/// Of the last group's solved points, the one nearest to `x` (the first of equals): on a
/// patch's grid, the point one row up rather than the one eight places back, which at the
/// end of a row is a whole row's width away and took its lane (and so its group) a third
/// surface evaluation.
#[inline(always)]
fn nearest(last: &[Option<(DVec2, DVec2, DMat2)>; LANES], x: DVec2) -> Option<(DVec2, DVec2, DMat2)> {
    let mut best: Option<(f64, (DVec2, DVec2, DMat2))> = None;
    for solved in last.iter().flatten() {
        let distance = (solved.0 - x).length_squared();
        if best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, *solved));
        }
    }
    best.map(|(_, solved)| solved)
}

impl Surface {
    /// The water's velocity at this point of the drawn surface, from the orbits'
    /// `orbit`: the orbits' horizontal velocity `u`, and the vertical one that keeps the
    /// water's surface on the drawn one (the kinematic condition `v = d eta / dt + u .
    /// grad eta` at fixed `x`). With the drawn particle's velocity `(w, v_d)` (the sums'
    /// `(Q omega / k) D cos` and `A omega sin`, this surface's `velocity`) and `grad eta =
    /// -J^-1 slope` (`J` symmetric), `d eta / dt = v_d - grad eta . w`, so
    ///
    /// ```text
    /// v = v_d + grad eta . (u - w)
    /// ```
    ///
    /// `A omega` at crests and troughs (`grad eta = 0`, `v_d = 0`) whatever `Q`; where a
    /// sharpened crest's face rises faster than the orbits, the water rises with it. A
    /// surface folded over (`det J` near 0) keeps the drawn particle's `v_d`.
    #[inline(always)]
    fn riding(&self, orbit: DVec3) -> DVec3 {
        let (j, s, w) = (self.jacobian, self.slope, self.velocity);
        let vertical = riding_row(
            [j.x_axis.x, j.x_axis.y, j.y_axis.y],
            s.to_array(),
            w.to_array(),
            [orbit.x, orbit.z],
        );
        DVec3::new(orbit.x, vertical, orbit.z)
    }

    /// The surface's height, normal and velocity.
    fn sample(&self) -> WaterSample {
        let s = self;
        // Tangents of the surface along x0 and z0: (d position / d x0, d height / d x0).
        let tx = DVec3::new(s.jacobian.x_axis.x, -s.slope.x, s.jacobian.x_axis.y);
        let tz = DVec3::new(s.jacobian.y_axis.x, -s.slope.y, s.jacobian.y_axis.y);
        let normal = tz.cross(tx);
        let normal = if normal.length_squared() > 0.0 {
            normal.normalize()
        } else {
            DVec3::Y
        };
        WaterSample {
            height: s.height,
            normal,
            velocity: s.velocity,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wave(amplitude: f64, wavelength: f64, dir: (f64, f64), steepness: f64) -> GerstnerWave {
        GerstnerWave {
            amplitude,
            wavelength,
            direction: DVec2::new(dir.0, dir.1),
            steepness,
            phase: 0.3,
        }
    }

    #[test]
    fn without_waves_the_sea_is_flat() {
        let sea = GerstnerWater::new(&[], 1.5, 9.81).unwrap();
        assert_eq!(sea.height(3.0, -2.0, 7.0), 1.5);
        assert_eq!(sea.sample(3.0, -2.0, 7.0).normal, DVec3::Y);
    }

    #[test]
    fn normal_and_velocity_match_finite_differences() {
        let sea = GerstnerWater::new(
            &[wave(0.5, 12.0, (1.0, 0.2), 0.5), wave(0.2, 5.0, (-0.3, 1.0), 0.3)],
            0.0,
            9.81,
        )
        .unwrap();
        let (x, z, t) = (1.3, -0.7, 2.1);
        let s = sea.sample(x, z, t);
        let e = 1e-5;
        let dx = (sea.height(x + e, z, t) - sea.height(x - e, z, t)) / (2.0 * e);
        let dz = (sea.height(x, z + e, t) - sea.height(x, z - e, t)) / (2.0 * e);
        let expected = DVec3::new(-dx, 1.0, -dz).normalize();
        assert!((s.normal - expected).length() < 1e-6, "{} vs {}", s.normal, expected);
        assert_eq!(s.height, sea.height(x, z, t));
        // The water's particle at x moves along its orbit, radius A: the velocity is the
        // time derivative of that trochoid at its rest position x0.
        let x0 = sea.solve::<true>(DVec2::new(x, z), t).0;
        let position = |t: f64| {
            let mut p = DVec3::new(x0.x, 0.0, x0.y);
            for w in &sea.waves {
                let (sin, cos) = (w.gradient.dot(x0) - w.omega * t + w.phase).sin_cos();
                p += w.amplitude
                    * DVec3::new(
                        -w.orbit_push.x / w.amplitude * sin,
                        cos,
                        -w.orbit_push.y / w.amplitude * sin,
                    );
            }
            p
        };
        assert!((position(t).x - x).abs() < 1e-6 && (position(t).z - z).abs() < 1e-6);
        let v = (position(t + e) - position(t - e)) / (2.0 * e);
        let horizontal = |v: DVec3| DVec2::new(v.x, v.z);
        assert!(
            (horizontal(s.velocity) - horizontal(v)).length() < 1e-6,
            "{} vs {}",
            s.velocity,
            v
        );
        // Vertically the water keeps to the drawn surface: d eta / dt + u . grad eta.
        let rate = (sea.height(x, z, t + e) - sea.height(x, z, t - e)) / (2.0 * e);
        let riding = rate + s.velocity.x * dx + s.velocity.z * dz;
        assert!((s.velocity.y - riding).abs() < 1e-6, "{} vs {riding}", s.velocity.y);
    }

    /// A 16-wave sea like the benchmarks' (and sum Q = 0.8, near the cusp).
    fn rough_sea() -> GerstnerWater {
        sea_of(16)
    }

    /// `count` waves, sum Q = 0.05 count.
    fn sea_of(count: usize) -> GerstnerWater {
        let waves: Vec<GerstnerWave> = (0..count)
            .map(|i| {
                let a = i as f64 * 0.7;
                wave(0.05 + 0.02 * i as f64, 3.0 + 2.5 * i as f64, (a.cos(), a.sin()), 0.05)
            })
            .collect();
        GerstnerWater::new(&waves, 0.3, 9.81).unwrap()
    }

    #[test]
    fn each_lane_is_the_one_point_answer_to_the_bit() {
        // 16 waves: one call of the sines and cosines per evaluation; 19: two.
        for sea in [rough_sea(), sea_of(19)] {
            each_lane_is_the_one_point_answer(&sea);
        }
    }

    fn each_lane_is_the_one_point_answer(sea: &GerstnerWater) {
        each_lane_is_the_one_point_answer_of::<false>(sea);
        each_lane_is_the_one_point_answer_of::<true>(sea);
    }

    fn each_lane_is_the_one_point_answer_of<const ORBIT: bool>(sea: &GerstnerWater) {
        let t = 4.2;
        let x0: [DVec2; LANES] = std::array::from_fn(|l| DVec2::new(l as f64 * 1.3 - 4.0, (l as f64).sin() * 3.0));
        let (at, mut angles) = ([x0.map(|p| p.x), x0.map(|p| p.y)], Angles::new());
        let mut lanes = sea.surfaces_at::<ORBIT>(&at, t, &mut angles);
        if !ORBIT {
            sea.drawn_velocities(&at, t, &mut angles, &mut lanes);
        }
        for (l, &p) in x0.iter().enumerate() {
            let (one, lane) = (sea.surface_at::<ORBIT>(p, t), lanes.lane(l));
            assert_eq!(format!("{one:?}"), format!("{lane:?}"), "lane {l}");
        }
        // Solving side by side: each lane stops when its own residual is small enough,
        // with the answer the one-point solver gives from the same guess.
        let x: [DVec2; LANES] = std::array::from_fn(|l| DVec2::new(l as f64 * 0.9 - 3.0, 2.0 - l as f64 * 0.4));
        let guess: [DVec2; LANES] = std::array::from_fn(|l| if l % 2 == 0 { x[l] } else { x[l] + DVec2::splat(0.3) });
        let mut angles = Angles::new();
        let (x0, mut lanes) = sea.solve_lanes::<ORBIT>(x, guess, t, &mut angles);
        if !ORBIT {
            // From the last evaluation's sines and cosines (or taken again at the answer).
            let at = [x0.map(|p| p.x), x0.map(|p| p.y)];
            sea.drawn_velocities(&at, t, &mut angles, &mut lanes);
        }
        for l in 0..LANES {
            let (p, one) = sea.solve_from::<ORBIT>(x[l], guess[l], t);
            assert_eq!(p, x0[l], "lane {l}");
            assert_eq!(format!("{one:?}"), format!("{:?}", lanes.lane(l)), "lane {l}");
        }
    }

    #[test]
    fn a_batch_of_any_length_agrees_with_its_points() {
        let sea = rough_sea();
        for n in [1, 7, 8, 9, 30] {
            let points: Vec<DVec3> = (0..n)
                .map(|i| DVec3::new(i as f64 * 0.37 - 5.0, 0.0, (i as f64 * 0.5).cos() * 4.0))
                .collect();
            let (mut heights, mut normals, mut velocities) =
                (vec![f64::NAN; n], vec![DVec3::NAN; n], vec![DVec3::NAN; n]);
            sea.sample_batch(&points, 1.7, &mut heights, Some(&mut normals), Some(&mut velocities));
            for (i, p) in points.iter().enumerate() {
                let one = sea.sample(p.x, p.z, 1.7);
                assert!((heights[i] - one.height).abs() < 1e-5, "{n} points, point {i}");
                assert!((normals[i] - one.normal).length() < 1e-5, "{n} points, point {i}");
                let off = (velocities[i] - one.velocity).length();
                assert!(off < 1e-5, "{n} points, point {i}: {off}");
            }
        }
    }

    #[test]
    fn each_lane_starts_from_the_nearest_solved_point_of_the_last_group() {
        let solved = |x: f64, z: f64| Some((DVec2::new(x, z), DVec2::new(x + 0.5, z), DMat2::IDENTITY));
        let mut last = [None; LANES];
        assert!(nearest(&last, DVec2::ZERO).is_none());
        // A patch row's end: the point eight places back is the row's first, 8 m away;
        // the last group's last point is 1 m away.
        last[0] = solved(0.0, 0.0);
        last[6] = solved(7.0, 0.0);
        last[7] = solved(7.0, 1.0);
        assert_eq!(nearest(&last, DVec2::new(8.0, 0.0)), last[6]);
        // Of two at the same distance, the first.
        assert_eq!(nearest(&last, DVec2::new(7.5, 0.5)), last[6]);
    }

    /// The drawn trochoid's height at `x` (one wave along x, phase 0, level 0): its angle
    /// by bisection of `theta - Q sin theta = k x - omega t` (the left side rises
    /// monotonically for Q <= 1), independent of the sea's Newton solves.
    fn trochoid_height(a: f64, wavelength: f64, q: f64, x: f64, t: f64) -> f64 {
        let k = TAU / wavelength;
        let psi = k * x - (9.81 * k).sqrt() * t;
        let (mut lo, mut hi) = (psi - 1.0, psi + 1.0);
        for _ in 0..100 {
            let mid = 0.5 * (lo + hi);
            if mid - q * mid.sin() > psi { hi = mid } else { lo = mid }
        }
        a * (0.5 * (lo + hi)).cos()
    }

    #[test]
    fn the_drawn_surface_is_the_trochoid_up_to_the_cusp_point_by_point_and_in_lanes() {
        // Near a crest of steepness 0.98 a full Newton step could land farther off than it
        // started, and the point solve (what keel_water_sample draws) wandered for its
        // whole budget: heights 0.8 m off at Q 0.98, 1 m at Q 1.
        for q in [0.5, 0.9, 0.98, 0.99, 1.0] {
            let sea = one_wave(q, GerstnerVelocities::Orbits);
            let t = 1.9;
            let points: Vec<DVec3> = (0..4000).map(|i| DVec3::new(i as f64 * 0.01 - 5.0, 0.0, 0.3)).collect();
            let mut lanes = vec![0.0; points.len()];
            sea.sample_batch(&points, t, &mut lanes, None, None);
            let (mut worst_point, mut worst_lanes) = (0.0f64, 0.0f64);
            for (p, lane) in points.iter().zip(&lanes) {
                let want = trochoid_height(0.5, 40.0, q, p.x, t);
                worst_point = worst_point.max((sea.height(p.x, p.z, t) - want).abs());
                worst_lanes = worst_lanes.max((lane - want).abs());
            }
            assert!(
                worst_point < 1e-5 && worst_lanes < 1e-5,
                "Q {q}: heights off by {worst_point} m (point by point) and {worst_lanes} m (lanes)"
            );
        }
    }

    /// One wave of amplitude 0.5 m and wavelength 40 m along x, crest at x = 0 at t = 0.
    fn one_wave(steepness: f64, velocities: GerstnerVelocities) -> GerstnerWater {
        let wave = GerstnerWave {
            amplitude: 0.5,
            wavelength: 40.0,
            direction: DVec2::X,
            steepness,
            phase: 0.0,
        };
        GerstnerWater::new(&[wave], 0.0, 9.81)
            .unwrap()
            .with_velocities(velocities)
    }

    #[test]
    fn the_surface_water_moves_at_a_omega_at_crest_and_trough_whatever_the_steepness() {
        let (a, k) = (0.5, TAU / 40.0);
        let speed = a * (9.81 * k).sqrt();
        for steepness in [0.0, 0.25, 0.5, 0.8, 1.0] {
            let sea = one_wave(steepness, GerstnerVelocities::Orbits);
            let crest = sea.sample(0.0, 0.0, 0.0);
            let trough = sea.sample(20.0, 0.0, 0.0);
            assert!((crest.height - a).abs() < 1e-9 && (trough.height + a).abs() < 1e-9);
            // Forward at the crest, backward in the trough, A omega either way.
            let (forward, back) = (DVec3::X * speed, -DVec3::X * speed);
            assert!(
                (crest.velocity - forward).length() <= 0.01 * speed,
                "Q {steepness}: crest {}",
                crest.velocity
            );
            assert!(
                (trough.velocity - back).length() <= 0.01 * speed,
                "Q {steepness}: trough {}",
                trough.velocity
            );
            // And everywhere on the surface: a circle's speed along the waves, and
            // vertically the drawn surface's rise and fall where the water is (the
            // kinematic condition), which is the circle's too when Q = k A.
            let e = 1e-5;
            for i in 0..40 {
                let (x, t) = (i as f64 * 0.77, 0.4);
                let v = sea.sample(x, 1.0, t).velocity;
                let circle = sea.solve::<true>(DVec2::new(x, 1.0), t).1.velocity;
                assert!(
                    (v.x - circle.x).abs() <= 1e-12 && v.z == 0.0,
                    "Q {steepness}, point {i}: {v}"
                );
                assert!(circle.length() - speed <= 1e-9 * speed);
                let rate = (sea.height(x, 1.0, t + e) - sea.height(x, 1.0, t - e)) / (2.0 * e);
                let slope = (sea.height(x + e, 1.0, t) - sea.height(x - e, 1.0, t)) / (2.0 * e);
                let riding = rate + v.x * slope;
                // (Q = 1's cusps have no slope to take differences of.)
                assert!(
                    steepness == 1.0 || (v.y - riding).abs() <= 1e-5 * speed,
                    "Q {steepness}, point {i}: {} vs {riding}",
                    v.y
                );
            }
        }
        let sea = one_wave(TAU / 40.0 * 0.5, GerstnerVelocities::Orbits);
        for i in 0..40 {
            let v = sea.sample(i as f64 * 0.77, 1.0, 0.4).velocity;
            assert!((v.length() - speed).abs() <= 1e-6 * speed, "Q = k A, point {i}: {v}");
        }
    }

    /// A surface particle of `sea` carried by its horizontal velocity for one period
    /// (fourth-order Runge-Kutta): how far it moved along x.
    fn carried_one_period(sea: &GerstnerWater, start: f64) -> f64 {
        let period = TAU / (9.81 * TAU / 40.0).sqrt();
        let n = 2000;
        let dt = period / n as f64;
        let v = |x: f64, t: f64| sea.sample(x, 0.0, t).velocity.x;
        let mut x = start;
        for i in 0..n {
            let t = i as f64 * dt;
            let k1 = v(x, t);
            let k2 = v(x + 0.5 * dt * k1, t + 0.5 * dt);
            let k3 = v(x + 0.5 * dt * k2, t + 0.5 * dt);
            let k4 = v(x + dt * k3, t + dt);
            x += dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
        }
        x - start
    }

    #[test]
    fn the_seas_orbits_are_closed_whatever_the_steepness() {
        // Linear theory's particles move by omega k A^2 T per period, 0.25 m here.
        let (a, k) = (0.5, TAU / 40.0);
        let stokes_per_period = k * a * a * TAU;
        for steepness in [0.0, 0.5, 0.8] {
            let sea = one_wave(steepness, GerstnerVelocities::Orbits);
            for start in [0.0, 7.0, 23.0] {
                let moved = carried_one_period(&sea, start);
                assert!(
                    moved.abs() < 1e-3 * stokes_per_period,
                    "Q {steepness}, from {start}: moved {moved} m in a period"
                );
            }
        }
    }

    #[test]
    fn linear_velocities_drift_at_the_stokes_drift() {
        let sea = one_wave(0.0, GerstnerVelocities::Linear);
        let (a, k) = (0.5, TAU / 40.0);
        let omega = (9.81 * k).sqrt();
        let period = TAU / omega;
        // A particle below the surface, carried by the water's velocity at its depth: the
        // surface's taken down by the decay, as the step does (Airy's field, e^{k y}).
        let decay = sea.velocity_decay();
        assert_eq!(decay, k);
        let v = |p: DVec2, t: f64| {
            let s = sea.sample(p.x, 0.0, t);
            let v = s.velocity * (decay * (p.y - s.height).min(0.0)).exp();
            DVec2::new(v.x, v.y)
        };
        // Four periods; the orbit's centre (the mean position over a period) in the first
        // and the last: how far it moved, whatever the phase the particle started at.
        let (n, periods) = (1000, 4);
        let dt = period / n as f64;
        let mut p = DVec2::new(3.0, -1.0);
        let mut centres = [DVec2::ZERO; 4];
        for i in 0..n * periods {
            let t = i as f64 * dt;
            let k1 = v(p, t);
            let k2 = v(p + 0.5 * dt * k1, t + 0.5 * dt);
            let k3 = v(p + 0.5 * dt * k2, t + 0.5 * dt);
            let k4 = v(p + dt * k3, t + dt);
            p += dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
            centres[i / n] += p / n as f64;
        }
        let moved = (centres[3] - centres[0]) / 3.0;
        // Second order: omega k A^2 e^{2 k y} at the orbit's mean depth, per period.
        let mean_depth = (centres[0].y + centres[3].y) / 2.0;
        let expected = omega * k * a * a * (2.0 * k * mean_depth).exp() * period;
        assert!(
            (moved.x / expected - 1.0).abs() < 0.02,
            "moved {} m a period, Stokes {expected} m",
            moved.x
        );
        assert!(moved.y.abs() < 1e-3 * expected, "{}", moved.y);
    }

    #[test]
    fn the_velocity_decay_is_the_wavenumber_weighted_by_the_velocities_squares() {
        assert_eq!(GerstnerWater::new(&[], 0.0, 9.81).unwrap().velocity_decay(), 0.0);
        let sea = GerstnerWater::new(
            &[wave(0.5, 40.0, (1.0, 0.0), 0.3), wave(0.2, 10.0, (0.0, 1.0), 0.3)],
            0.0,
            9.81,
        )
        .unwrap();
        let (k1, k2) = (TAU / 40.0, TAU / 10.0);
        // (A omega)^2 = A^2 g k.
        let (w1, w2) = (0.25 * 9.81 * k1, 0.04 * 9.81 * k2);
        let expected = (k1 * w1 + k2 * w2) / (w1 + w2);
        assert!((sea.velocity_decay() - expected).abs() < 1e-12 * expected);
    }

    #[test]
    fn bad_waves_are_refused() {
        for bad in [
            wave(f64::NAN, 10.0, (1.0, 0.0), 0.5),
            wave(1.0, 0.0, (1.0, 0.0), 0.5),
            wave(1.0, 10.0, (0.0, 0.0), 0.5),
            wave(1.0, 10.0, (1.0, 0.0), 1.5),
            wave(1.0, 10.0, (1.0, 0.0), -0.1),
        ] {
            assert!(GerstnerWater::new(&[bad], 0.0, 9.81).is_err());
        }
    }
}
