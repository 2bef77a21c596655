//! A regular grid of heights that the host refreshes each frame: a GPU readback, a
//! baked FFT tile, a river's surface.
//!
//! `heights[iz * count_x + ix]` is the surface at `(origin_x + ix * cell, origin_z + iz * cell)`.
//! Between samples the surface is the plane of one of the two triangles of each cell
//! (split along the diagonal from `(ix, iz)` to `(ix + 1, iz + 1)`), as in Kerner's water
//! patch: continuous, exact at the samples, and with a well-defined normal. Outside the
//! grid a clamped heightfield repeats its nearest edge sample; a tiled one wraps around
//! (sample `count_x` is sample 0 again), for oceans made of one repeating tile. The
//! surface does not move by itself: its particle velocity is zero.

use glam::DVec3;

use super::{WaterSample, WaterSurface};
use crate::error::{Error, Result, positive_up_to, within};

/// The most samples a heightfield may have (a 8192 x 8192 grid).
pub const MAX_SAMPLES: usize = 1 << 26;

/// A heightfield water surface.
#[derive(Clone, Debug)]
pub struct HeightfieldWater {
    heights: Vec<f32>,
    count_x: usize,
    count_z: usize,
    origin_x: f64,
    origin_z: f64,
    cell: f64,
    tiled: bool,
}

impl HeightfieldWater {
    /// Copies and checks a grid of `count_x * count_z` heights: at least 2 x 2 samples, all
    /// finite, a finite origin and a finite cell size > 0.
    pub fn new(
        heights: &[f32],
        count_x: usize,
        count_z: usize,
        origin_x: f64,
        origin_z: f64,
        cell_size: f64,
        tiled: bool,
    ) -> Result<Self> {
        if count_x < 2 || count_z < 2 {
            return Err(Error::argument(format!(
                "a heightfield needs at least 2 x 2 samples, got {count_x} x {count_z}"
            )));
        }
        let count = count_x
            .checked_mul(count_z)
            .filter(|&n| n <= MAX_SAMPLES)
            .ok_or_else(|| {
                Error::argument(format!(
                    "a heightfield may have at most {MAX_SAMPLES} samples, got {count_x} x {count_z}"
                ))
            })?;
        if heights.len() != count {
            return Err(Error::argument(format!(
                "{count_x} x {count_z} heights expected, got {}",
                heights.len()
            )));
        }
        within("origin_x", origin_x, 1e9)?;
        within("origin_z", origin_z, 1e9)?;
        positive_up_to("cell_size", cell_size, 1e9)?;
        if cell_size < 1e-6 {
            return Err(Error::argument(format!(
                "cell_size must be at least 1e-6 m, got {cell_size}"
            )));
        }
        if let Some(i) = heights.iter().position(|h| !h.is_finite() || h.abs() > 1e9) {
            return Err(Error::argument(format!(
                "heights[{i}] (ix = {}, iz = {}) is not a finite height within +-1e9 m: {}",
                i % count_x,
                i / count_x,
                heights[i]
            )));
        }
        Ok(Self {
            heights: heights.to_vec(),
            count_x,
            count_z,
            origin_x,
            origin_z,
            cell: cell_size,
            tiled,
        })
    }

    /// The level of this grid if it is flat: every sample the same height (the surface
    /// interpolates between samples and holds the edge's beyond a clamped grid, so it
    /// is that height everywhere, with no slope).
    pub fn flat_level(&self) -> Option<f64> {
        let first = self.heights[0];
        self.heights.iter().all(|&h| h == first).then_some(first as f64)
    }

    #[inline]
    fn at(&self, ix: usize, iz: usize) -> f64 {
        self.heights[iz * self.count_x + ix] as f64
    }

    /// The cell under a grid coordinate along one axis: its first sample, the next one,
    /// and the position inside the cell in [0, 1].
    #[inline]
    fn locate(&self, u: f64, count: usize) -> (usize, usize, f64) {
        if self.tiled {
            let u = u.rem_euclid(count as f64);
            let i = (u.floor() as usize).min(count - 1);
            (i, (i + 1) % count, (u - i as f64).clamp(0.0, 1.0))
        } else {
            let u = u.clamp(0.0, (count - 1) as f64);
            let i = (u.floor() as usize).min(count - 2);
            (i, i + 1, u - i as f64)
        }
    }

    /// Height and its gradient `(dh/dx, dh/dz)` under `(x, z)`.
    #[inline]
    fn plane(&self, x: f64, z: f64) -> (f64, f64, f64) {
        let (u, v) = ((x - self.origin_x) / self.cell, (z - self.origin_z) / self.cell);
        if !(u.is_finite() && v.is_finite()) {
            return (self.at(0, 0), 0.0, 0.0);
        }
        let (i0, i1, fu) = self.locate(u, self.count_x);
        let (j0, j1, fv) = self.locate(v, self.count_z);
        let (h00, h10, h01, h11) = (self.at(i0, j0), self.at(i1, j0), self.at(i0, j1), self.at(i1, j1));
        // Outside a clamped grid the surface is flat at the edge value.
        let flat_u = !self.tiled && (u <= 0.0 || u >= (self.count_x - 1) as f64);
        let flat_v = !self.tiled && (v <= 0.0 || v >= (self.count_z - 1) as f64);
        let (gu, gv, h) = if fu >= fv {
            // Triangle (00, 10, 11).
            (h10 - h00, h11 - h10, h00 + fu * (h10 - h00) + fv * (h11 - h10))
        } else {
            // Triangle (00, 01, 11).
            (h11 - h01, h01 - h00, h00 + fv * (h01 - h00) + fu * (h11 - h01))
        };
        let gx = if flat_u { 0.0 } else { gu / self.cell };
        let gz = if flat_v { 0.0 } else { gv / self.cell };
        (h, gx, gz)
    }
}

impl WaterSurface for HeightfieldWater {
    fn height(&self, x: f64, z: f64, _t: f64) -> f64 {
        self.plane(x, z).0
    }

    fn sample(&self, x: f64, z: f64, _t: f64) -> WaterSample {
        let (height, gx, gz) = self.plane(x, z);
        WaterSample {
            height,
            normal: DVec3::new(-gx, 1.0, -gz).normalize(),
            velocity: DVec3::ZERO,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(tiled: bool) -> HeightfieldWater {
        // 3 x 2 samples, cell 2 m, origin (10, -4): heights 0 1 2 / 3 4 5.
        HeightfieldWater::new(&[0.0, 1.0, 2.0, 3.0, 4.0, 5.0], 3, 2, 10.0, -4.0, 2.0, tiled).unwrap()
    }

    #[test]
    fn exact_at_samples_and_planar_inside_cells() {
        let g = grid(false);
        assert_eq!(g.height(10.0, -4.0, 0.0), 0.0);
        assert_eq!(g.height(14.0, -2.0, 0.0), 5.0);
        assert_eq!(g.height(12.0, -2.0, 0.0), 4.0);
        // The field h = x/2 + 3 z/2 (in cells) is linear: every triangle reproduces it.
        for (x, z) in [(10.5, -3.5), (11.7, -2.2), (13.1, -3.9)] {
            let expected = (x - 10.0) / 2.0 + 3.0 * (z + 4.0) / 2.0;
            assert!((g.height(x, z, 0.0) - expected).abs() < 1e-12);
            let n = g.sample(x, z, 0.0).normal;
            assert!((n - DVec3::new(-0.5, 1.0, -1.5).normalize()).length() < 1e-12);
        }
    }

    #[test]
    fn a_clamped_grid_repeats_its_edges_and_a_tiled_one_wraps() {
        let g = grid(false);
        assert_eq!(g.height(-100.0, -100.0, 0.0), 0.0);
        assert_eq!(g.height(100.0, 100.0, 0.0), 5.0);
        assert_eq!(g.sample(100.0, 100.0, 0.0).normal, DVec3::Y);
        let t = grid(true);
        // One tile is 3 x 2 cells (6 m x 4 m): shifting by a tile changes nothing.
        assert_eq!(t.height(11.0, -3.0, 0.0), t.height(11.0 + 6.0, -3.0 + 4.0, 0.0));
        // Between the last column and the first, the surface goes back from 2 to 0.
        assert!((t.height(15.0, -4.0, 0.0) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn bad_grids_are_refused() {
        let h = [0.0f32; 4];
        assert!(HeightfieldWater::new(&h, 1, 4, 0.0, 0.0, 1.0, false).is_err());
        assert!(HeightfieldWater::new(&h, 2, 2, 0.0, 0.0, 0.0, false).is_err());
        assert!(HeightfieldWater::new(&h, 2, 2, 0.0, 0.0, -1.0, false).is_err());
        assert!(HeightfieldWater::new(&h, 2, 2, f64::NAN, 0.0, 1.0, false).is_err());
        assert!(HeightfieldWater::new(&[0.0, f32::NAN, 0.0, 0.0], 2, 2, 0.0, 0.0, 1.0, false).is_err());
        assert!(HeightfieldWater::new(&h, 3, 2, 0.0, 0.0, 1.0, false).is_err());
    }
}
