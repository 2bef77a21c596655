//! Kerner's water patch: the water sampled once on a grid over a body's horizontal
//! footprint, and every vertex answered from the grid.
//!
//! A hull of thousands of vertices on a costly sea (a sum of Gerstner waves) asks the
//! water `(cells + 1)^2` times rather than once per vertex. Each grid cell is split
//! into two triangles along its diagonal, as a heightfield is, and a vertex takes the
//! plane of the grid triangle under it:
//!
//! ```text
//! u, w = the vertex's position in cells (clamped to the grid)
//! h = (1 - max(fu, fw)) h00 + (max - min) h_mid + min(fu, fw) h11
//! ```
//!
//! with `fu, fw` the fractions within the cell and `h_mid` the corner `10` when
//! `fu >= fw`, else `01`. The same weights carry the water's velocity.

use glam::{DVec2, DVec3, Vec3Swizzles};
use multiversion::multiversion;

use super::Water;
use crate::error::Result;
use crate::runtime::profile::{self, Section};
use crate::runtime::team::Team;

/// A water patch's grid and what the water answered there.
#[derive(Clone, Debug, Default)]
pub(crate) struct WaterPatch {
    cells: usize,
    points: Vec<DVec3>,
    heights: Vec<f64>,
    velocities: Vec<DVec3>,
    /// Each grid point's height and velocity side by side, `[h, vx, vy, vz]`: a vertex
    /// reads three corners as three 32-byte loads rather than twelve scattered ones.
    packed: Vec<[f64; 4]>,
}

impl WaterPatch {
    /// A patch of `cells x cells` cells, or none (`cells == 0`).
    pub fn sized(cells: usize) -> Self {
        let samples = if cells > 0 { (cells + 1).pow(2) } else { 0 };
        Self {
            cells,
            points: vec![DVec3::ZERO; samples],
            heights: vec![0.0; samples],
            velocities: vec![DVec3::ZERO; samples],
            packed: vec![[0.0; 4]; samples],
        }
    }

    /// Whether this patch has a grid.
    pub fn is_used(&self) -> bool {
        self.cells > 0
    }

    /// Samples `water` at `time` on a grid over the footprint of `points`, then writes
    /// each point's surface height (and the water's velocity there, when `velocities` is
    /// given) from the grid. With `share`, on a world's thread pool, the interpolation is
    /// split between two threads (the same numbers either way).
    pub fn sample(
        &mut self,
        water: &Water,
        time: f64,
        points: &[DVec3],
        heights: &mut [f64],
        velocities: Option<&mut [DVec3]>,
        team: Team<'_>,
    ) -> Result<()> {
        let cells = self.cells;
        let (mut lo, mut hi) = (DVec2::INFINITY, DVec2::NEG_INFINITY);
        for p in points {
            lo = lo.min(p.xz());
            hi = hi.max(p.xz());
        }
        // A degenerate footprint (a vertical sheet) still gets cells of some width.
        let size = (hi - lo).max(DVec2::splat(1e-6 * (1.0 + (hi - lo).max_element())));
        let step = size / cells as f64;
        let n = cells + 1;
        for iz in 0..n {
            for ix in 0..n {
                let xz = lo + step * DVec2::new(ix as f64, iz as f64);
                self.points[iz * n + ix] = DVec3::new(xz.x, 0.0, xz.y);
            }
        }
        let grid = Grid {
            cells,
            lo,
            per_cell: 1.0 / step,
        };
        match velocities {
            Some(velocities) => {
                let timer = profile::time(Section::PatchWater);
                self.sample_water(water, time, team)?;
                timer.stop();
                let _timer = profile::time(Section::PatchInterpolation);
                for ((packed, &h), v) in self.packed.iter_mut().zip(&self.heights).zip(&self.velocities) {
                    *packed = [h, v.x, v.y, v.z];
                }
                let grid = &grid;
                let packed = &self.packed;
                if team.is_shared() && points.len() >= 2 * CHUNK {
                    // Halves on a chunk boundary, each vertex's answer its own: the same
                    // numbers as in one piece.
                    let split = (points.len() / 2).next_multiple_of(CHUNK).min(points.len());
                    let (points_a, points_b) = points.split_at(split);
                    let (heights_a, heights_b) = heights.split_at_mut(split);
                    let (velocities_a, velocities_b) = velocities.split_at_mut(split);
                    team.join(
                        || interpolate_with_velocities(grid, points_a, packed, heights_a, velocities_a),
                        || interpolate_with_velocities(grid, points_b, packed, heights_b, velocities_b),
                    );
                } else {
                    interpolate_with_velocities(grid, points, packed, heights, velocities);
                }
            }
            None => {
                let timer = profile::time(Section::PatchWater);
                water.sample_into(&self.points, time, &mut self.heights, None, None)?;
                timer.stop();
                let _timer = profile::time(Section::PatchInterpolation);
                interpolate(&grid, points, &self.heights, heights);
            }
        }
        Ok(())
    }
}

impl WaterPatch {
    /// The water's height and velocity at the grid points, in two fixed halves, the second
    /// starting its own solver chain (Gerstner), whatever the threads: the numbers are the
    /// same whether the halves run one after the other or side by side. Side by side only
    /// with the world's helper thread, which is awake by then ([`crate::runtime::team`]); a pool
    /// thread would be asleep at the start of a step, and waking it for half of ~11 µs of
    /// Gerstner sums made the section 40 % slower (docs/performance-history.md, eighth round). Never for
    /// the host's own water, which is asked from its thread only.
    fn sample_water(&mut self, water: &Water, time: f64, team: Team<'_>) -> Result<()> {
        let split = SAMPLE_SPLIT.min(self.points.len());
        let (points_a, points_b) = self.points.split_at(split);
        let (heights_a, heights_b) = self.heights.split_at_mut(split);
        let (velocities_a, velocities_b) = self.velocities.split_at_mut(split);
        let mut a = move || water.sample_into(points_a, time, heights_a, None, Some(velocities_a));
        let mut b = move || water.sample_into(points_b, time, heights_b, None, Some(velocities_b));
        let (a, b) = match team {
            Team::Helper(_) if !water.is_serial() => team.join(a, b),
            _ => (a(), b()),
        };
        a.and(b)
    }
}

/// The first half of a patch's samples (a multiple of the Gerstner solver's eight lanes;
/// the default patch has 81 samples).
const SAMPLE_SPLIT: usize = 48;

/// Where the grid lies.
struct Grid {
    cells: usize,
    lo: DVec2,
    per_cell: DVec2,
}

impl Grid {
    /// The grid triangle under `p`: its three corners' sample indices and weights.
    ///
    /// Written for vector code: the cell comes from `floor` and the rounding's low bits
    /// (`u` is in `[0, cells]`), not a float-to-integer cast, which saturates and takes a
    /// dozen vector instructions; a NaN coordinate takes the first corner.
    #[inline(always)]
    fn weights(&self, p: DVec3) -> [(usize, f64); 3] {
        let cells = self.cells;
        let n = cells + 1;
        let top = cells as f64;
        let u = ((p.x - self.lo.x) * self.per_cell.x).max(0.0).min(top);
        let w = ((p.z - self.lo.y) * self.per_cell.y).max(0.0).min(top);
        let cell =
            |v: f64| (((v.floor() + crate::water::trig::ROUNDER).to_bits() & 0xffff_ffff) as usize).min(cells - 1);
        let (ix, iz) = (cell(u), cell(w));
        let (fu, fw) = (u - ix as f64, w - iz as f64);
        // (ix, iz < cells: the far corner is the last sample at most.)
        let near = (iz * n + ix).min(n * n - n - 2);
        // Barycentric weights of (00, 10, 11) or (00, 01, 11): the middle corner is the one
        // on the side of the diagonal the point is on. Chosen by arithmetic, not a branch:
        // the side is a coin toss from one vertex to the next.
        let right = usize::from(fu >= fw);
        let middle = near + right + (1 - right) * n;
        let (high, low) = (fu.max(fw), fu.min(fw));
        [(near, 1.0 - high), (middle, high - low), (near + n + 1, low)]
    }
}

/// Points per pass of the interpolation loops: their corners and weights (a few kB)
/// stay on the stack between the pass that finds them and the one that reads the grid.
const CHUNK: usize = 64;

/// The corners and weights of up to [`CHUNK`] points, one column each.
struct Corners {
    index: [[u32; CHUNK]; 3],
    weight: [[f64; CHUNK]; 3],
}

impl Corners {
    /// Zeroed once per call, not per chunk (zeroing them per chunk took 1.6 % of a bunny's
    /// step in waves, in `memset`).
    fn new() -> Self {
        Corners {
            index: [[0; CHUNK]; 3],
            weight: [[0.0; CHUNK]; 3],
        }
    }

    /// Those of `points` (at most [`CHUNK`]) in the first columns. A loop of its own, with
    /// nothing but arithmetic and stores to the stack: the compiler vectorises it.
    #[inline(always)]
    fn find(&mut self, grid: &Grid, points: &[DVec3]) {
        for (i, p) in points.iter().take(CHUNK).enumerate() {
            let [(ka, ta), (kb, tb), (kc, tc)] = grid.weights(*p);
            (self.index[0][i], self.index[1][i], self.index[2][i]) = (ka as u32, kb as u32, kc as u32);
            (self.weight[0][i], self.weight[1][i], self.weight[2][i]) = (ta, tb, tc);
        }
    }
}

#[multiversion(targets("x86_64+avx512f+avx512vl+avx512dq+avx512bw+avx2", "x86_64+avx2"))]
fn interpolate(grid: &Grid, points: &[DVec3], samples: &[f64], heights: &mut [f64]) {
    let samples = &samples[..(grid.cells + 1).pow(2)];
    let last = samples.len() - 1;
    let (mut c, mut out) = (Corners::new(), [0.0; CHUNK]);
    for (points, heights) in points.chunks(CHUNK).zip(heights.chunks_mut(CHUNK)) {
        c.find(grid, points);
        // (Indices clamped to the last sample, which they never pass: the compiler then
        // knows every read is in bounds and gathers them as vectors.)
        for i in 0..points.len().min(CHUNK) {
            let read = |k: usize| samples[(c.index[k][i] as usize).min(last)] * c.weight[k][i];
            out[i] = read(0) + read(1) + read(2);
        }
        heights.copy_from_slice(&out[..heights.len()]);
    }
}

#[multiversion(targets("x86_64+avx512f+avx512vl+avx512dq+avx512bw+avx2", "x86_64+avx2"))]
fn interpolate_with_velocities(
    grid: &Grid,
    points: &[DVec3],
    samples: &[[f64; 4]],
    heights: &mut [f64],
    velocities: &mut [DVec3],
) {
    let samples = &samples[..(grid.cells + 1).pow(2)];
    let last = samples.len() - 1;
    let chunks = points
        .chunks(CHUNK)
        .zip(heights.chunks_mut(CHUNK))
        .zip(velocities.chunks_mut(CHUNK));
    let (mut c, mut out) = (Corners::new(), [[0.0; CHUNK]; 4]);
    for ((points, heights), velocities) in chunks {
        c.find(grid, points);
        for i in 0..points.len().min(CHUNK) {
            let [a, b, cc] = [0, 1, 2].map(|k| samples[(c.index[k][i] as usize).min(last)]);
            let [ta, tb, tc] = [0, 1, 2].map(|k| c.weight[k][i]);
            out[0][i] = ta * a[0] + tb * b[0] + tc * cc[0];
            out[1][i] = ta * a[1] + tb * b[1] + tc * cc[1];
            out[2][i] = ta * a[2] + tb * b[2] + tc * cc[2];
            out[3][i] = ta * a[3] + tb * b[3] + tc * cc[3];
        }
        heights.copy_from_slice(&out[0][..heights.len()]);
        for (i, v) in velocities.iter_mut().enumerate() {
            *v = DVec3::new(out[1][i], out[2][i], out[3][i]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::water::{PerlinWater, WaterSurface};

    /// Water whose batch answers are its point answers to the bit (a Gerstner sea's
    /// agree only to its solver's tolerance).
    fn sea() -> Water {
        Water::Perlin(Box::new(PerlinWater::new(0.5, 0.3, 0.8, 1.2, false).unwrap()))
    }

    #[test]
    fn at_grid_points_the_patch_is_the_water_and_between_them_the_plane_through_three() {
        let water = sea();
        let (cells, t) = (4, 1.3);
        let mut patch = WaterPatch::sized(cells);
        // A footprint from (-2, -1) to (6, 3): grid points every 2 m along x, 1 m along z.
        let corners = [DVec3::new(-2.0, 0.0, -1.0), DVec3::new(6.0, 0.0, 3.0)];
        let grid_point = |ix: usize, iz: usize| DVec3::new(-2.0 + 2.0 * ix as f64, 0.0, -1.0 + iz as f64);
        let mut points = corners.to_vec();
        points.extend((0..=cells).flat_map(|iz| (0..=cells).map(move |ix| grid_point(ix, iz))));
        // Inside cell (1, 2): one point each side of its diagonal, and one on it.
        let inside = [(0.25, 0.75), (0.8, 0.1), (0.5, 0.5)];
        points.extend(inside.map(|(fu, fw)| grid_point(1, 2) + DVec3::new(2.0 * fu, 0.0, fw)));
        let (mut heights, mut velocities) = (vec![0.0; points.len()], vec![DVec3::ZERO; points.len()]);
        patch
            .sample(&water, t, &points, &mut heights, Some(&mut velocities), Team::Alone)
            .unwrap();
        let exact = |p: DVec3| water.sample(p.x, p.z, t);
        for (i, p) in points.iter().enumerate().take(2 + (cells + 1).pow(2)) {
            assert!((heights[i] - exact(*p).height).abs() < 1e-12, "point {i}");
            assert!((velocities[i] - exact(*p).velocity).length() < 1e-12, "point {i}");
        }
        let h = |ix, iz| exact(grid_point(ix, iz)).height;
        let first = 2 + (cells + 1).pow(2);
        for (k, (fu, fw)) in inside.into_iter().enumerate() {
            let middle = if fu >= fw { h(2, 2) } else { h(1, 3) };
            let (high, low) = (f64::max(fu, fw), f64::min(fu, fw));
            let plane = (1.0 - high) * h(1, 2) + (high - low) * middle + low * h(2, 3);
            assert!(
                (heights[first + k] - plane).abs() < 1e-12,
                "{k}: {} vs {plane}",
                heights[first + k]
            );
        }
        // Without velocities, the same heights.
        let mut alone = vec![0.0; points.len()];
        patch.sample(&water, t, &points, &mut alone, None, Team::Alone).unwrap();
        assert_eq!(alone, heights);
    }

    #[test]
    fn every_point_of_a_long_list_takes_the_plane_of_its_grid_triangle() {
        // More points than one pass of the loops takes, so that every chunk and the short
        // last one are checked against a plain one-point reading of the grid.
        let water = sea();
        let (cells, t) = (5, 0.7);
        let mut patch = WaterPatch::sized(cells);
        let mut seed = 12345u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let points: Vec<DVec3> = (0..2 * CHUNK + 17)
            .map(|_| DVec3::new(-3.0 + 7.0 * next(), 0.0, 1.0 + 4.0 * next()))
            .collect();
        let (mut heights, mut velocities) = (vec![0.0; points.len()], vec![DVec3::ZERO; points.len()]);
        patch
            .sample(&water, t, &points, &mut heights, Some(&mut velocities), Team::Alone)
            .unwrap();
        let mut alone = vec![0.0; points.len()];
        patch.sample(&water, t, &points, &mut alone, None, Team::Alone).unwrap();
        // The footprint, and the grid the patch laid over it.
        let (lo, hi) = points
            .iter()
            .fold((DVec2::INFINITY, DVec2::NEG_INFINITY), |(lo, hi), p| {
                (lo.min(p.xz()), hi.max(p.xz()))
            });
        let step = (hi - lo) / cells as f64;
        let n = cells + 1;
        for (i, p) in points.iter().enumerate() {
            let at = (p.xz() - lo) / step;
            let (ix, iz) = ((at.x as usize).min(cells - 1), (at.y as usize).min(cells - 1));
            let (fu, fw) = (at.x - ix as f64, at.y - iz as f64);
            let k = |dx: usize, dz: usize| (iz + dz) * n + ix + dx;
            let middle = if fu >= fw { k(1, 0) } else { k(0, 1) };
            let (high, low) = (fu.max(fw), fu.min(fw));
            let corners = [(k(0, 0), 1.0 - high), (middle, high - low), (k(1, 1), low)];
            let height: f64 = corners.iter().map(|&(k, t)| t * patch.heights[k]).sum();
            let velocity: DVec3 = corners.iter().map(|&(k, t)| t * patch.velocities[k]).sum();
            assert!(
                (heights[i] - height).abs() < 1e-12,
                "point {i}: {} vs {height}",
                heights[i]
            );
            assert!((velocities[i] - velocity).length() < 1e-12, "point {i}");
            assert_eq!(alone[i], heights[i], "point {i}");
        }
    }

    #[test]
    fn a_patch_shared_between_two_threads_gives_the_same_numbers_as_one() {
        use crate::water::{GerstnerWater, GerstnerWave};
        let waves = [
            GerstnerWave {
                amplitude: 0.4,
                wavelength: 12.0,
                direction: DVec2::new(1.0, 0.2),
                steepness: 0.5,
                phase: 0.0,
            },
            GerstnerWave {
                amplitude: 0.15,
                wavelength: 5.0,
                direction: DVec2::new(-0.3, 1.0),
                steepness: 0.4,
                phase: 0.7,
            },
        ];
        let water = Water::Gerstner(GerstnerWater::new(&waves, 0.0, 9.81).unwrap());
        let points: Vec<DVec3> = (0..5 * CHUNK + 3)
            .map(|i| DVec3::new((i as f64 * 0.37).sin() * 4.0, 0.0, (i as f64 * 0.91).cos() * 3.0))
            .collect();
        let run = |team: Team<'_>| {
            let mut patch = WaterPatch::sized(8);
            let (mut heights, mut velocities) = (vec![0.0; points.len()], vec![DVec3::ZERO; points.len()]);
            patch
                .sample(&water, 2.5, &points, &mut heights, Some(&mut velocities), team)
                .unwrap();
            (heights, velocities)
        };
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let helper = crate::runtime::team::Helper::start("test-helper").unwrap();
        let alone = run(Team::Alone);
        for shared in [pool.install(|| run(Team::Pool)), run(Team::Helper(&helper))] {
            assert!(alone.0.iter().all(|h| h.is_finite()) && alone.0.iter().any(|&h| h != alone.0[0]));
            assert_eq!(
                alone.0.iter().map(|h| h.to_bits()).collect::<Vec<_>>(),
                shared.0.iter().map(|h| h.to_bits()).collect::<Vec<_>>()
            );
            assert_eq!(alone.1, shared.1);
        }
    }

    #[test]
    fn points_past_the_grid_take_its_edge_and_a_flat_footprint_still_has_cells() {
        let water = sea();
        let mut patch = WaterPatch::sized(3);
        // All points on one line along x: the footprint has no depth along z.
        let points: Vec<DVec3> = (0..7).map(|i| DVec3::new(i as f64, 0.0, 2.0)).collect();
        let mut heights = vec![f64::NAN; points.len()];
        patch
            .sample(&water, 0.4, &points, &mut heights, None, Team::Alone)
            .unwrap();
        for (p, h) in points.iter().zip(&heights) {
            assert!(h.is_finite());
            // Grid points fall on x = 0, 2, 4, 6: exact there.
            if (p.x as usize).is_multiple_of(2) {
                assert!((h - water.height(p.x, p.z, 0.4)).abs() < 1e-9, "{p}");
            }
        }
    }
}
