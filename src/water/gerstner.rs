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
    omega: f64,
    phase: f64,
    /// What the sums multiply each sine or cosine by, worked out once (`D` the unit
    /// direction, `Q / k` the radius of the horizontal orbit): `k D` (the angle's
    /// gradient), `(Q / k) D` (displacement per sine), `Q (Dx Dx, Dx Dy, Dy Dy)` (the
    /// Jacobian, symmetric, per cosine), `A k D` (slope per sine) and `(Q / k) omega D`,
    /// `A omega` (velocity per cosine, vertical per sine).
    gradient: DVec2,
    push: DVec2,
    bend: [f64; 3],
    rise: DVec2,
    along: DVec2,
    vertical: f64,
}

impl Wave {
    fn new(amplitude: f64, wavelength: f64, direction: DVec2, steepness: f64, phase: f64, gravity: f64) -> Self {
        let k = TAU / wavelength;
        let omega = (gravity * k).sqrt();
        let d = direction.normalize();
        let reach = steepness / k;
        Wave {
            amplitude,
            omega,
            phase,
            gradient: k * d,
            push: reach * d,
            bend: [steepness * d.x * d.x, steepness * d.x * d.y, steepness * d.y * d.y],
            rise: amplitude * k * d,
            along: reach * omega * d,
            vertical: amplitude * omega,
        }
    }

    /// The angle at rest position `(x, z)`, with `start = phase - omega t`.
    #[inline(always)]
    fn angle(&self, x: f64, z: f64, start: f64) -> f64 {
        self.gradient.x * x + self.gradient.y * z + start
    }
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
            out.push(Wave::new(
                w.amplitude,
                w.wavelength,
                w.direction,
                w.steepness,
                w.phase,
                gravity,
            ));
        }
        Ok(Self { level, waves: out })
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
                *theta = w.angle(x0.x, x0.y, w.phase - w.omega * t);
            }
            // A wave pushed past f64's range (absurd coordinates or times) adds nothing:
            // its sine and cosine come back 0.
            super::trig::sin_cos(&theta[..waves.len()], &mut sines, &mut cosines);
            for ((w, &sin), &cos) in waves.iter().zip(&sines).zip(&cosines) {
                s.height += w.amplitude * cos;
                s.displacement -= w.push * sin;
                let [xx, xz, zz] = w.bend.map(|b| b * cos);
                s.jacobian -= DMat2::from_cols(DVec2::new(xx, xz), DVec2::new(xz, zz));
                s.slope += w.rise * sin;
                s.velocity += DVec3::new(w.along.x * cos, w.vertical * sin, w.along.y * cos);
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
    fn surfaces_at(&self, x0: &[[f64; LANES]; 2], t: f64, angles: &mut Angles) -> Lanes {
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
                for l in 0..LANES {
                    let (sin, cos) = (sines[l], cosines[l]);
                    s.height[l] += w.amplitude * cos;
                    s.displacement[0][l] -= w.push.x * sin;
                    s.displacement[1][l] -= w.push.y * sin;
                    // (Symmetric: the two off-diagonal entries are one number.)
                    s.jacobian[0][l] -= w.bend[0] * cos;
                    s.jacobian[1][l] -= w.bend[1] * cos;
                    s.jacobian[3][l] -= w.bend[2] * cos;
                    s.slope[0][l] += w.rise.x * sin;
                    s.slope[1][l] += w.rise.y * sin;
                    s.velocity[0][l] += w.along.x * cos;
                    s.velocity[1][l] += w.vertical * sin;
                    s.velocity[2][l] += w.along.y * cos;
                }
            }
        }
        // (Symmetric: the off-diagonal entries are one sum, as in the one-point code.)
        s.jacobian[2] = s.jacobian[1];
        s
    }

    /// [`GerstnerWater::solve_from`] for [`LANES`] points at once: every lane iterates
    /// until its own residual is small enough, and a lane that is done keeps its answer
    /// while the others go on.
    #[inline(always)]
    fn solve_lanes(
        &self,
        x: [DVec2; LANES],
        mut x0: [DVec2; LANES],
        t: f64,
        angles: &mut Angles,
    ) -> ([DVec2; LANES], Lanes) {
        let tolerance = x.map(|x| 1e-6 + 1e-13 * x.length());
        let mut done = [false; LANES];
        let mut out = Lanes::default();
        for _ in 0..MAX_ITERATIONS {
            let at = [x0.map(|p| p.x), x0.map(|p| p.y)];
            let s = self.surfaces_at(&at, t, angles);
            for l in 0..LANES {
                if done[l] {
                    continue;
                }
                copy_lane(&s, &mut out, l);
                let surface = s.lane(l);
                let residual = x0[l] + surface.displacement - x[l];
                if residual.length() <= tolerance[l] {
                    done[l] = true;
                    continue;
                }
                let j = surface.jacobian;
                let step = if j.determinant() > 1e-6 {
                    j.inverse() * residual
                } else {
                    0.5 * residual
                };
                x0[l] -= step;
            }
            if done.iter().all(|&d| d) {
                break;
            }
        }
        (x0, out)
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
    // The last group's points: each point, its rest position and d(x0)/d(x) there.
    let mut last: [Option<(DVec2, DVec2, DMat2)>; LANES] = [None; LANES];
    let mut angles = Angles::new();
    for (group, chunk) in points.chunks(LANES).enumerate() {
        // A short last group repeats its last point in the spare lanes.
        let x: [DVec2; LANES] = std::array::from_fn(|l| {
            let p = chunk[l.min(chunk.len() - 1)];
            DVec2::new(p.x, p.z)
        });
        let guess: [DVec2; LANES] = std::array::from_fn(|l| {
            let guess = match nearest(&last, x[l]) {
                Some((x_last, x0_last, inverse)) => x0_last + inverse * (x[l] - x_last),
                None => x[l],
            };
            if guess.is_finite() { guess } else { x[l] }
        });
        let (x0, lanes) = sea.solve_lanes(x, guess, t, &mut angles);
        last = [None; LANES];
        for l in 0..chunk.len() {
            let s = lanes.lane(l);
            let i = group * LANES + l;
            let det = s.jacobian.determinant();
            last[l] = (det > 1e-6 && x0[l].is_finite()).then(|| (x[l], x0[l], s.jacobian.inverse()));
            heights[i] = s.height;
            if let Some(v) = velocities.as_deref_mut() {
                v[i] = s.velocity;
            }
            if let Some(n) = normals.as_deref_mut() {
                n[i] = s.sample().normal;
            }
        }
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
                let (sin, cos) = (w.gradient.dot(x0) - w.omega * t + w.phase).sin_cos();
                p += DVec3::new(-w.push.x * sin, w.amplitude * cos, -w.push.y * sin);
            }
            p
        };
        let v = (position(t + e) - position(t - e)) / (2.0 * e);
        assert!((s.velocity - v).length() < 1e-6, "{} vs {}", s.velocity, v);
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
        let t = 4.2;
        let x0: [DVec2; LANES] = std::array::from_fn(|l| DVec2::new(l as f64 * 1.3 - 4.0, (l as f64).sin() * 3.0));
        let lanes = sea.surfaces_at(&[x0.map(|p| p.x), x0.map(|p| p.y)], t, &mut Angles::new());
        for (l, &p) in x0.iter().enumerate() {
            let (one, lane) = (sea.surface_at(p, t), lanes.lane(l));
            assert_eq!(format!("{one:?}"), format!("{lane:?}"), "lane {l}");
        }
        // Solving side by side: each lane stops when its own residual is small enough,
        // with the answer the one-point solver gives from the same guess.
        let x: [DVec2; LANES] = std::array::from_fn(|l| DVec2::new(l as f64 * 0.9 - 3.0, 2.0 - l as f64 * 0.4));
        let guess: [DVec2; LANES] = std::array::from_fn(|l| if l % 2 == 0 { x[l] } else { x[l] + DVec2::splat(0.3) });
        let (x0, lanes) = sea.solve_lanes(x, guess, t, &mut Angles::new());
        for l in 0..LANES {
            let (p, one) = sea.solve_from(x[l], guess[l], t);
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
                assert!((velocities[i] - one.velocity).length() < 1e-5, "{n} points, point {i}");
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
