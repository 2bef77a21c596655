//! Water surfaces: height, normal and particle velocity at a horizontal point and a time.
//!
//! Heights are world Y. Every model answers the same three questions, so forces never
//! care which one is in use; [`Water`] dispatches statically over the built-in models.

mod gerstner;
mod perlin;

pub use gerstner::{GerstnerWater, GerstnerWave};
pub use perlin::PerlinWater;

use glam::DVec3;

/// The surface at one horizontal point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WaterSample {
    /// World Y of the surface.
    pub height: f64,
    /// Unit normal of the surface, pointing up.
    pub normal: DVec3,
    /// Velocity of the water particle at the surface, m/s.
    pub velocity: DVec3,
}

/// A water surface model.
pub trait WaterSurface {
    /// World Y of the surface under `(x, z)` at time `t`.
    fn height(&self, x: f64, z: f64, t: f64) -> f64;
    /// Height, normal and particle velocity under `(x, z)` at time `t`.
    fn sample(&self, x: f64, z: f64, t: f64) -> WaterSample;
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

/// The water of a world: one of the built-in models.
#[derive(Clone, Debug)]
pub enum Water {
    /// A level plane.
    Flat(FlatWater),
    /// The thesis's Perlin-noise waves.
    Perlin(Box<PerlinWater>),
    /// A sum of Gerstner waves.
    Gerstner(GerstnerWater),
}

impl Water {
    /// Whether the water never moves (its particle velocity is zero everywhere), so a
    /// step can skip asking for velocities.
    pub fn is_still(&self) -> bool {
        matches!(self, Water::Flat(_))
    }
}

impl Default for Water {
    fn default() -> Self {
        Water::Flat(FlatWater { level: 0.0 })
    }
}

impl WaterSurface for Water {
    #[inline]
    fn height(&self, x: f64, z: f64, t: f64) -> f64 {
        match self {
            Water::Flat(w) => w.height(x, z, t),
            Water::Perlin(w) => w.height(x, z, t),
            Water::Gerstner(w) => w.height(x, z, t),
        }
    }

    fn sample(&self, x: f64, z: f64, t: f64) -> WaterSample {
        match self {
            Water::Flat(w) => w.sample(x, z, t),
            Water::Perlin(w) => w.sample(x, z, t),
            Water::Gerstner(w) => w.sample(x, z, t),
        }
    }
}
