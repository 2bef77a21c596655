//! The thesis's Perlin-noise waves (Tenhunen 2019, function 2.2, `GetWaveYPos`).
//!
//! With `pX = x s + t w`, `pZ = z s + t w` (s: scale, w: wave speed, H: wave height) and
//! `P` two-dimensional Perlin noise mapped to [0, 1]:
//!
//! ```text
//! only_x: y = level + (P(pZ, pZ) - 0.5) H + (P(pX, pZ) - 0.5) H / 2
//! else:   y = level + (P(pX, pZ) - 0.5) H + (P(pX', pZ') - 0.5) H / 12,
//!         pX' = 6 x s + 2 t w, pZ' = 6 z s + 2 t w
//! ```
//!
//! The noise is the `noise` crate's (seed 0), not Unity's `Mathf.PerlinNoise`: the same
//! kind of surface, not the same numbers. Engine hosts move their water meshes with this
//! function through `keel_water_sample`, so what players see is what bodies feel.
//!
//! The surface only moves up and down, so the particle velocity is `(0, dy/dt, 0)`;
//! normals and that velocity come from central differences.

use glam::DVec3;
use noise::{NoiseFn, Perlin};

use super::{WaterSample, WaterSurface};
use crate::error::{Result, within};

/// The thesis's Perlin water.
#[derive(Clone, Debug)]
pub struct PerlinWater {
    level: f64,
    scale: f64,
    speed: f64,
    wave_height: f64,
    only_x: bool,
    noise: Perlin,
}

impl PerlinWater {
    /// Perlin water with the thesis's parameters (`perlinScale`, `wavespeed`,
    /// `waveHeight`, `onlyX`); every number must be finite.
    pub fn new(level: f64, scale: f64, speed: f64, wave_height: f64, only_x: bool) -> Result<Self> {
        within("level", level, 1e9)?;
        within("perlin_scale", scale, 1e6)?;
        within("wave_speed", speed, 1e6)?;
        within("wave_height", wave_height, 1e6)?;
        Ok(Self {
            level,
            scale,
            speed,
            wave_height,
            only_x,
            noise: Perlin::new(0),
        })
    }

    /// Perlin noise in [0, 1]. The noise repeats every 256 lattice cells (its hash keeps
    /// 8 bits of each coordinate), so reducing the coordinates modulo 256, which is exact
    /// in floating point, changes nothing and keeps the noise crate's integer conversion
    /// from overflowing far from the origin or late in time.
    #[inline]
    fn p(&self, x: f64, z: f64) -> f64 {
        // `v - 256 floor(v / 256)` is exact (256 is a power of two) and, unlike
        // `rem_euclid`, not a software fmod. Beyond f64's range any cell will do.
        let wrap = |v: f64| {
            if v.is_finite() {
                v - 256.0 * (v * (1.0 / 256.0)).floor()
            } else {
                0.0
            }
        };
        0.5 * (self.noise.get([wrap(x), wrap(z)]) + 1.0)
    }
}

impl WaterSurface for PerlinWater {
    fn height(&self, x: f64, z: f64, t: f64) -> f64 {
        let (s, w, h) = (self.scale, self.speed, self.wave_height);
        let px = x * s + t * w;
        let pz = z * s + t * w;
        let y = if self.only_x {
            (self.p(pz, pz) - 0.5) * h + (self.p(px, pz) - 0.5) * h / 2.0
        } else {
            let fine_x = x * s * 6.0 + t * w * 2.0;
            let fine_z = z * s * 6.0 + t * w * 2.0;
            (self.p(px, pz) - 0.5) * h + (self.p(fine_x, fine_z) - 0.5) * h / 12.0
        };
        self.level + y
    }

    fn height_and_velocity(&self, x: f64, z: f64, t: f64) -> (f64, DVec3) {
        let height = self.height(x, z, t);
        let et = 1e-4 / (2.0 * self.speed.abs()).max(1e-3);
        let rate = (self.height(x, z, t + et) - height) / et;
        (height, DVec3::new(0.0, if rate.is_finite() { rate } else { 0.0 }, 0.0))
    }

    fn sample(&self, x: f64, z: f64, t: f64) -> WaterSample {
        // A step small against the finest feature (1 / (6 s)) yet far above rounding.
        let e = 1e-4 / (6.0 * self.scale.abs()).max(1e-3);
        let dx = (self.height(x + e, z, t) - self.height(x - e, z, t)) / (2.0 * e);
        let dz = (self.height(x, z + e, t) - self.height(x, z - e, t)) / (2.0 * e);
        let et = 1e-4 / (2.0 * self.speed.abs()).max(1e-3);
        let dt = (self.height(x, z, t + et) - self.height(x, z, t - et)) / (2.0 * et);
        WaterSample {
            height: self.height(x, z, t),
            normal: DVec3::new(-dx, 1.0, -dz).normalize(),
            velocity: DVec3::new(0.0, dt, 0.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn far_away_and_late_the_water_is_still_finite_and_periodic() {
        let water = PerlinWater::new(0.0, 0.1, 0.5, 1.0, false).unwrap();
        for (x, t) in [(1e20, 0.0), (0.0, 1e20), (-1e300, 1e300)] {
            assert!(water.height(x, 3.0, t).is_finite());
            assert!(water.sample(x, 3.0, t).normal.is_finite());
        }
        let huge = PerlinWater::new(0.0, 1e6, 1e6, 1.0, true).unwrap();
        assert!(huge.height(1e9, -1e9, 1e12).is_finite());
        assert!(huge.sample(1e9, -1e9, 1e12).velocity.is_finite());
        assert!(huge.height(1e300, -1e300, 1e300).is_finite());
        assert!(PerlinWater::new(0.0, 1e300, 0.5, 1.0, false).is_err());
        // 256 noise cells are 2560 m at scale 0.1 (and 6 * 2560 m for the fine octave).
        assert!((water.height(1.5, 2.5, 4.0) - water.height(1.5 + 6.0 * 2560.0, 2.5, 4.0)).abs() < 1e-9);
    }
}
