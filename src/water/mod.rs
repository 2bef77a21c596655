//! Water surfaces: height, normal and particle velocity at a horizontal point and a time.
//!
//! Heights are world Y. Every model answers the same three questions, so forces never
//! care which one is in use; [`Water`] dispatches statically over the built-in models
//! and hands whole batches of points to a host's own water ([`WaterQuery`]).

mod froude_krylov;
mod gerstner;
mod heightfield;
pub(crate) mod patch;
mod perlin;
pub mod spectrum;
mod trig;

pub use froude_krylov::FroudeKrylov;
pub use gerstner::{GerstnerVelocities, GerstnerWater, GerstnerWave};
pub use heightfield::HeightfieldWater;
pub use perlin::PerlinWater;

use std::sync::Arc;

use glam::DVec3;

use crate::error::{Error, Result};

/// The surface at one horizontal point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WaterSample {
    /// World Y of the surface.
    pub height: f64,
    /// Unit normal of the surface, pointing up.
    pub normal: DVec3,
    /// Velocity of the water particle at the surface, m/s (below it, see
    /// [`Water::velocity_decay`]).
    pub velocity: DVec3,
}

/// A water surface model.
pub trait WaterSurface {
    /// World Y of the surface under `(x, z)` at time `t`.
    fn height(&self, x: f64, z: f64, t: f64) -> f64;
    /// Height, normal and particle velocity under `(x, z)` at time `t`.
    fn sample(&self, x: f64, z: f64, t: f64) -> WaterSample;
    /// Height and particle velocity under `(x, z)` at time `t`, what a step needs; models
    /// for which the normal costs extra skip it.
    fn height_and_velocity(&self, x: f64, z: f64, t: f64) -> (f64, DVec3) {
        let s = self.sample(x, z, t);
        (s.height, s.velocity)
    }
}

/// A level plane.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlatWater {
    /// World Y of the surface.
    pub level: f64,
}

impl WaterSurface for FlatWater {
    fn height(&self, _x: f64, _z: f64, _t: f64) -> f64 {
        self.level
    }

    fn sample(&self, _x: f64, _z: f64, _t: f64) -> WaterSample {
        WaterSample {
            height: self.level,
            normal: DVec3::Y,
            velocity: DVec3::ZERO,
        }
    }
}

/// A host's own water, answered a batch of points at a time: an engine's ocean behind a
/// callback. Keel calls it from one thread at a time.
pub trait WaterQuery: Send + Sync + std::fmt::Debug {
    /// Writes the surface height under each point's (x, z) at `time`, and the unit
    /// normal and water particle velocity there when those outputs are given.
    fn query(
        &self,
        points: &[DVec3],
        time: f64,
        heights: &mut [f64],
        normals: Option<&mut [DVec3]>,
        velocities: Option<&mut [DVec3]>,
    );
}

/// The water of a world.
#[derive(Clone, Debug)]
pub enum Water {
    /// A level plane.
    Flat(FlatWater),
    /// The thesis's Perlin-noise waves.
    Perlin(Box<PerlinWater>),
    /// A sum of Gerstner waves.
    Gerstner(GerstnerWater),
    /// A grid of heights from the host.
    Heightfield(Box<HeightfieldWater>),
    /// The host's own water, queried in batches.
    Custom(Arc<dyn WaterQuery>),
}

impl Water {
    /// The flat water this water is, if its surface is a level plane whose particles
    /// are still: Perlin waves of no height, a Gerstner sea without waves (or with only
    /// waves of no amplitude and no steepness), a heightfield of one height. A world
    /// steps bodies on it as on [`FlatWater`] (the same bits), which samples nothing:
    /// a vertex's height is its own height above the level. The host's water is never
    /// taken for flat (its answers are its own).
    pub fn as_flat(&self) -> Option<FlatWater> {
        let level = match self {
            Water::Flat(flat) => return Some(*flat),
            Water::Perlin(w) => w.flat_level(),
            Water::Gerstner(w) => w.flat_level(),
            Water::Heightfield(w) => w.flat_level(),
            Water::Custom(_) => None,
        };
        level.map(|level| FlatWater { level })
    }

    /// Whether the water never moves (its particle velocity is zero everywhere), so a
    /// step can skip asking for velocities.
    pub fn is_still(&self) -> bool {
        matches!(self, Water::Flat(_) | Water::Heightfield(_))
    }

    /// The wavenumber `k`, 1/m, by which the water's velocity falls below the surface: at
    /// depth `d` under the local surface it is the surface's times `e^{-k d}` (what waves
    /// do: their orbits shrink as `e^{-k d}`). The step applies it to every vertex under
    /// the surface, whichever way the surface was sampled (directly or through a water
    /// patch); [`Water::sample_into`] and [`crate::World::sample_water`] answer the
    /// surface's velocity. 0 (no decay) but for Gerstner seas
    /// ([`GerstnerWater::velocity_decay`]): the host's water and heightfields keep the
    /// velocities they answer, and Perlin water's surface motion is not a wave's.
    pub fn velocity_decay(&self) -> f64 {
        match self {
            Water::Gerstner(sea) => sea.velocity_decay(),
            _ => 0.0,
        }
    }

    /// What the drawn surface's hydrostatic pressure misses of the water's Froude-Krylov
    /// force on a body whose footprint is centred at `centre` (horizontal, the water's
    /// frame) with half-widths `half` along x and z (`froude_krylov` module docs):
    /// Gerstner seas on their orbits only, nothing for every other model.
    pub fn froude_krylov(&self, centre: glam::DVec2, half: glam::DVec2, time: f64, gravity: f64) -> FroudeKrylov {
        match self {
            Water::Gerstner(sea) => sea.froude_krylov(centre, half, time, gravity),
            _ => FroudeKrylov::default(),
        }
    }

    /// Whether a query costs so little that sampling the water through a water patch
    /// would only add work. Perlin water is: its batch answers a vertex in about the time
    /// the patch takes to interpolate one (one bunny on Perlin water, criterion: 162 µs
    /// per step querying every vertex, 182 µs through the patch), and exactly.
    pub fn is_cheap(&self) -> bool {
        matches!(self, Water::Flat(_) | Water::Heightfield(_) | Water::Perlin(_))
    }

    /// Whether queries must be made from one thread at a time (the host's water).
    pub fn is_serial(&self) -> bool {
        matches!(self, Water::Custom(_))
    }

    /// Samples the water under every point's (x, z) at `time`: heights always, normals
    /// and particle velocities when asked. Fails only when the host's water answers
    /// with something that is not a finite number.
    pub fn sample_into(
        &self,
        points: &[DVec3],
        time: f64,
        heights: &mut [f64],
        mut normals: Option<&mut [DVec3]>,
        mut velocities: Option<&mut [DVec3]>,
    ) -> Result<()> {
        #[cfg(test)]
        SAMPLED.with(|n| n.set(n.get() + points.len()));
        if let Water::Custom(query) = self {
            query.query(points, time, heights, normals.as_deref_mut(), velocities.as_deref_mut());
            return check_answers(heights, normals.as_deref(), velocities.as_deref());
        }
        if let Water::Flat(flat) = self {
            // (Not through the trait: a call per point costs more than the answer.)
            heights.fill(flat.level);
            if let Some(normals) = normals {
                normals.fill(DVec3::Y);
            }
            if let Some(velocities) = velocities {
                velocities.fill(DVec3::ZERO);
            }
            return Ok(());
        }
        if let Water::Gerstner(sea) = self {
            sea.sample_batch(points, time, heights, normals, velocities);
            return Ok(());
        }
        if let (Water::Perlin(water), None) = (self, normals.as_deref()) {
            water.sample_batch(points, time, heights, velocities);
            return Ok(());
        }
        let surface: &dyn WaterSurface = match self {
            Water::Flat(w) => w,
            Water::Perlin(w) => w.as_ref(),
            Water::Gerstner(w) => w,
            Water::Heightfield(w) => w.as_ref(),
            Water::Custom(_) => unreachable!("handled above"),
        };
        match (normals.is_some(), velocities.as_deref_mut()) {
            (false, None) => {
                for (p, h) in points.iter().zip(heights.iter_mut()) {
                    *h = surface.height(p.x, p.z, time);
                }
                return Ok(());
            }
            (false, Some(velocities)) => {
                for (i, p) in points.iter().enumerate() {
                    (heights[i], velocities[i]) = surface.height_and_velocity(p.x, p.z, time);
                }
                return Ok(());
            }
            _ => {}
        }
        for (i, p) in points.iter().enumerate() {
            let s = surface.sample(p.x, p.z, time);
            heights[i] = s.height;
            if let Some(n) = normals.as_deref_mut() {
                n[i] = s.normal;
            }
            if let Some(v) = velocities.as_deref_mut() {
                v[i] = s.velocity;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
thread_local! {
    /// Points this thread has asked any water about (tests of what samples nothing).
    pub(crate) static SAMPLED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The highest or lowest water surface, m (as far as bodies may be from the origin).
pub const MAX_HEIGHT: f64 = 1e9;
/// The fastest water, m/s (as fast as a current may be).
pub const MAX_WATER_SPEED: f64 = 1e4;

fn check_answers(heights: &[f64], normals: Option<&[DVec3]>, velocities: Option<&[DVec3]>) -> Result<()> {
    if let Some(i) = heights.iter().position(|h| !h.is_finite() || h.abs() > MAX_HEIGHT) {
        return Err(Error::argument(format!(
            "the water callback answered a height of {} for point {i}: heights must be finite and within \
             +-{MAX_HEIGHT:e} m",
            heights[i]
        )));
    }
    for (name, values) in [("normal", normals), ("velocity", velocities)] {
        if let Some(i) = values.and_then(|v| v.iter().position(|x| !x.is_finite())) {
            return Err(Error::argument(format!(
                "the water callback answered a non-finite {name} for point {i}"
            )));
        }
    }
    Ok(())
}

/// Point queries, for convenience (a step uses [`Water::sample_into`]). The host's water
/// is asked for a batch of one point; its answer is passed on unchecked.
impl WaterSurface for Water {
    fn height(&self, x: f64, z: f64, t: f64) -> f64 {
        let mut h = [0.0];
        match self.sample_into(&[DVec3::new(x, 0.0, z)], t, &mut h, None, None) {
            Ok(()) => h[0],
            Err(_) => f64::NAN,
        }
    }

    fn sample(&self, x: f64, z: f64, t: f64) -> WaterSample {
        let (mut h, mut n, mut v) = ([0.0], [DVec3::Y], [DVec3::ZERO]);
        let ok = self
            .sample_into(&[DVec3::new(x, 0.0, z)], t, &mut h, Some(&mut n), Some(&mut v))
            .is_ok();
        let height = if ok { h[0] } else { f64::NAN };
        WaterSample {
            height,
            normal: n[0],
            velocity: v[0],
        }
    }
}

impl Default for Water {
    fn default() -> Self {
        Water::Flat(FlatWater { level: 0.0 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_model_answers_a_batch_as_it_answers_each_point() {
        let waves = [GerstnerWave {
            amplitude: 0.3,
            wavelength: 7.0,
            direction: glam::DVec2::new(1.0, 0.4),
            steepness: 0.4,
            phase: 0.0,
        }];
        let models = [
            Water::Flat(FlatWater { level: 0.7 }),
            Water::Perlin(Box::new(PerlinWater::new(0.2, 0.3, 0.5, 1.0, true).unwrap())),
            Water::Gerstner(GerstnerWater::new(&waves, -0.1, 9.81).unwrap()),
        ];
        let points: Vec<DVec3> = (0..40)
            .map(|i| DVec3::new(i as f64 * 0.71 - 9.0, -3.0, (i as f64 * 0.37).sin() * 6.0))
            .collect();
        let n = points.len();
        for water in &models {
            let (mut heights, mut normals, mut velocities) =
                (vec![f64::NAN; n], vec![DVec3::NAN; n], vec![DVec3::NAN; n]);
            water
                .sample_into(&points, 2.5, &mut heights, Some(&mut normals), Some(&mut velocities))
                .unwrap();
            for (i, p) in points.iter().enumerate() {
                let one = water.sample(p.x, p.z, 2.5);
                // A Gerstner sea's batch agrees with its point answers to its solver's
                // tolerance (1e-6 m in position); the others to the bit.
                let close = |a: f64, b: f64| match water {
                    Water::Gerstner(_) => (a - b).abs() < 1e-5,
                    _ => a.to_bits() == b.to_bits(),
                };
                let all_close = |a: DVec3, b: DVec3| (0..3).all(|k| close(a[k], b[k]));
                assert!(
                    close(heights[i], one.height),
                    "{water:?} point {i}: {} vs {}",
                    heights[i],
                    one.height
                );
                assert!(all_close(normals[i], one.normal), "{water:?} point {i}");
                assert!(all_close(velocities[i], one.velocity), "{water:?} point {i}");
            }
        }
    }
}
