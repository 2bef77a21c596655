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
//! sharpest crest at `Q = 1` is a cusp). The particle velocity is the time derivative of
//! the same trochoid at fixed `x0`.

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
    /// Q in [0, 1]: 0 is a sine wave, 1 the sharpest crest.
    pub steepness: f64,
    /// Phase, radians.
    pub phase: f64,
}

#[derive(Clone, Copy, Debug)]
struct Wave {
    amplitude: f64,
    k: f64,
    omega: f64,
    direction: DVec2,
    /// Q / k: radius of the horizontal orbit.
    reach: f64,
    steepness: f64,
    phase: f64,
}

/// A sum of Gerstner waves around a mean level.
#[derive(Clone, Debug)]
pub struct GerstnerWater {
    level: f64,
    waves: Vec<Wave>,
}

/// Newton iterations for the rest position at most.
const MAX_ITERATIONS: usize = 24;

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
            let k = TAU / w.wavelength;
            out.push(Wave {
                amplitude: w.amplitude,
                k,
                omega: (gravity * k).sqrt(),
                direction: w.direction.normalize(),
                reach: w.steepness / k,
                steepness: w.steepness,
                phase: w.phase,
            });
        }
        Ok(Self { level, waves: out })
    }

    /// The rest position `x0` of the surface particle that is at `x` at time `t`, and the
    /// surface there. Newton's method: every iteration evaluates the whole surface at the
    /// current guess, so the iteration that finds the guess good enough has the answer.
    fn solve(&self, x: DVec2, t: f64) -> (DVec2, Surface) {
        self.solve_from(x, x, t)
    }

    /// [`Self::solve`] from the guess `x0` (the answer is the same to the tolerance).
    #[inline(always)]
    fn solve_from(&self, x: DVec2, mut x0: DVec2, t: f64) -> (DVec2, Surface) {
        // A micrometre: far below the millimetre the heights need, and reached in 3 to 5
        // iterations on sane seas.
        let tolerance = 1e-6 + 1e-13 * x.length();
        let mut surface = Surface::default();
        for _ in 0..MAX_ITERATIONS {
            surface = self.surface_at(x0, t);
            let residual = x0 + surface.displacement - x;
            if residual.length() <= tolerance {
                break;
            }
            let j = surface.jacobian;
            let det = j.determinant();
            // Past sum Q = 1 the surface folds over: fall back to a damped fixed point.
            let step = if det > 1e-6 {
                j.inverse() * residual
            } else {
                0.5 * residual
            };
            x0 -= step;
        }
        (x0, surface)
    }

    /// Everything about the surface particle with rest position `x0`. The sines and
    /// cosines of a chunk of waves are taken together ([`super::trig::sin_cos`], vector
    /// code) before the sums.
    #[inline(always)]
    fn surface_at(&self, x0: DVec2, t: f64) -> Surface {
        const CHUNK: usize = 16;
        let mut s = Surface {
            height: self.level,
            jacobian: DMat2::IDENTITY,
            ..Surface::default()
        };
        let (mut theta, mut sines, mut cosines) = ([0.0; CHUNK], [0.0; CHUNK], [0.0; CHUNK]);
        for waves in self.waves.chunks(CHUNK) {
            for (theta, w) in theta.iter_mut().zip(waves) {
                *theta = w.k * w.direction.dot(x0) - w.omega * t + w.phase;
            }
            // A wave pushed past f64's range (absurd coordinates or times) adds nothing:
            // its sine and cosine come back 0.
            super::trig::sin_cos(&theta[..waves.len()], &mut sines, &mut cosines);
            for ((w, &sin), &cos) in waves.iter().zip(&sines).zip(&cosines) {
                let d = w.direction;
                s.height += w.amplitude * cos;
                s.displacement -= d * (w.reach * sin);
                let q = w.steepness * cos;
                s.jacobian -= DMat2::from_cols(d * (d.x * q), d * (d.y * q));
                let slope = w.amplitude * w.k * sin;
                s.slope += d * slope;
                let horizontal = w.reach * w.omega * cos;
                s.velocity += DVec3::new(d.x * horizontal, w.amplitude * w.omega * sin, d.y * horizontal);
            }
        }
        s
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
        self.solve(DVec2::new(x, z), t).1.height
    }

    fn height_and_velocity(&self, x: f64, z: f64, t: f64) -> (f64, DVec3) {
        let (_, s) = self.solve(DVec2::new(x, z), t);
        (s.height, s.velocity)
    }

    fn sample(&self, x: f64, z: f64, t: f64) -> WaterSample {
        let (_, s) = self.solve(DVec2::new(x, z), t);
        s.sample()
    }
}

impl GerstnerWater {
    /// [`Water::sample_into`](super::Water::sample_into) for this sea. Points next to each
    /// other (a hull's vertices, a water patch) have nearly the same displacement, so each
    /// point's Newton iteration starts from the last point's rest position moved by the
    /// inverse Jacobian there (`x0 + J^-1 dx`, a first-order guess) rather than from
    /// `x0 = x`: fewer surface evaluations, the same answer to the tolerance. Compiled for
    /// AVX2 and AVX-512 too (the sines and cosines are vector code).
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

#[multiversion(targets("x86_64+avx512f+avx512vl+avx512dq+avx512bw+avx2", "x86_64+avx2"))]
fn sample_batch(
    sea: &GerstnerWater,
    points: &[DVec3],
    t: f64,
    heights: &mut [f64],
    mut normals: Option<&mut [DVec3]>,
    mut velocities: Option<&mut [DVec3]>,
) {
    // The last point, its rest position and d(x0)/d(x) there (the inverse Jacobian).
    let mut last: Option<(DVec2, DVec2, DMat2)> = None;
    for (i, p) in points.iter().enumerate() {
        let x = DVec2::new(p.x, p.z);
        let guess = match last {
            Some((x_last, x0_last, inverse)) => x0_last + inverse * (x - x_last),
            None => x,
        };
        let guess = if guess.is_finite() { guess } else { x };
        let (x0, s) = sea.solve_from(x, guess, t);
        let det = s.jacobian.determinant();
        last = (det > 1e-6 && x0.is_finite()).then(|| (x, x0, s.jacobian.inverse()));
        heights[i] = s.height;
        if let Some(v) = velocities.as_deref_mut() {
            v[i] = s.velocity;
        }
        if let Some(n) = normals.as_deref_mut() {
            n[i] = s.sample().normal;
        }
    }
}

impl Surface {
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
        // The particle at rest position x0 moves along the trochoid.
        let x0 = sea.solve(DVec2::new(x, z), t).0;
        let position = |t: f64| {
            let mut p = DVec3::new(x0.x, 0.0, x0.y);
            for w in &sea.waves {
                let (sin, cos) = (w.k * w.direction.dot(x0) - w.omega * t + w.phase).sin_cos();
                p += DVec3::new(
                    -w.direction.x * w.reach * sin,
                    w.amplitude * cos,
                    -w.direction.y * w.reach * sin,
                );
            }
            p
        };
        let v = (position(t + e) - position(t - e)) / (2.0 * e);
        assert!((s.velocity - v).length() < 1e-6, "{} vs {}", s.velocity, v);
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
