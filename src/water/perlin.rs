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
//! The surface only moves up and down, so the particle velocity is `(0, dy/dt, 0)`.
//! Normals and that velocity come from the noise's exact gradient, evaluated with the
//! value in one pass ([`noise_and_gradient`]): a height with its velocity costs one noise
//! evaluation per octave, where differences cost two (and a sample with its normal
//! five).

use std::sync::OnceLock;

use glam::DVec3;
use multiversion::multiversion;
use noise::permutationtable::{NoiseHasher, PermutationTable};

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
    signs: &'static CellSigns,
}

/// The gradient signs of the four corners of every lattice cell of the `noise` crate's
/// seed-0 table, one byte a cell ([`CellSigns::cell`]): the crate's hash only decides
/// a corner's gradient `(+-1, +-1)` (its bits 0 and 1), and it costs two dependent table
/// reads per corner, eight per noise evaluation, each a scalar load inside the vector
/// loop. The byte is one load, and integer, so every noise value keeps its bits.
///
/// Bits `2k` and `2k + 1` are the hash's bits 0 and 1 of corner `k`, in the order
/// `(0, 0)`, `(1, 0)`, `(0, 1)`, `(1, 1)`. One table (64 KiB) for every water: the seed is
/// always 0, like `noise::Perlin::new(0)`'s.
pub(crate) struct CellSigns(Box<[u8; 1 << 16]>);

impl CellSigns {
    /// Built once per process, at the first Perlin water (well under a millisecond).
    fn shared() -> &'static CellSigns {
        static SIGNS: OnceLock<CellSigns> = OnceLock::new();
        SIGNS.get_or_init(|| CellSigns::of(&PermutationTable::new(0)))
    }

    fn of(table: &PermutationTable) -> CellSigns {
        let mut signs: Box<[u8; 1 << 16]> = vec![0u8; 1 << 16].into_boxed_slice().try_into().expect("64 KiB");
        for cx in 0..256isize {
            for cz in 0..256isize {
                let corner = |i: isize, j: isize| (table.hash(&[cx + i, cz + j]) & 3) as u8;
                signs[(cx * 256 + cz) as usize] =
                    corner(0, 0) | corner(1, 0) << 2 | corner(0, 1) << 4 | corner(1, 1) << 6;
            }
        }
        CellSigns(signs)
    }

    /// The byte of cell `(cx, cz)`, each the low byte of the crate's cell coordinate.
    #[inline(always)]
    fn cell(&self, cx: usize, cz: usize) -> u8 {
        // (The mask keeps the index in the table: no bounds check.)
        self.0[((cx << 8) | cz) & 0xffff]
    }
}

impl std::fmt::Debug for CellSigns {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CellSigns { .. }")
    }
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
            // `noise::Perlin::new(0)`'s table's corner signs.
            signs: CellSigns::shared(),
        })
    }

    /// The level of this water if it is flat: waves of no height (every term of the
    /// surface is multiplied by the wave height, so the surface is the level and the
    /// particles are still, whatever the noise).
    pub fn flat_level(&self) -> Option<f64> {
        (self.wave_height == 0.0).then_some(self.level)
    }

    /// Perlin noise mapped to [0, 1], and its derivatives along both coordinates. The
    /// noise repeats every 256 lattice cells (its hash keeps 8 bits of each coordinate),
    /// so reducing the coordinates modulo 256, which is exact in floating point, changes
    /// nothing and keeps the integer conversion from overflowing far from the origin or
    /// late in time.
    #[inline(always)]
    fn p(&self, x: f64, z: f64) -> (f64, f64, f64) {
        // `v - 256 floor(v / 256)` is exact (256 is a power of two) and, unlike
        // `rem_euclid`, not a software fmod. Beyond f64's range any cell will do.
        let wrap = |v: f64| {
            if v.is_finite() {
                v - 256.0 * (v * (1.0 / 256.0)).floor()
            } else {
                0.0
            }
        };
        let (n, dx, dz) = noise_and_gradient(self.signs, wrap(x), wrap(z));
        (0.5 * (n + 1.0), 0.5 * dx, 0.5 * dz)
    }

    /// Height, its slopes along x and z, and its rate of change, at `(x, z)` at time `t`.
    #[inline(always)]
    fn surface(&self, x: f64, z: f64, t: f64) -> [f64; 4] {
        let (s, w, h) = (self.scale, self.speed, self.wave_height);
        let px = x * s + t * w;
        let pz = z * s + t * w;
        if self.only_x {
            // P(pZ, pZ) + P(pX, pZ) / 2: the first moves with z only.
            let (a, ax, az) = self.p(pz, pz);
            let (b, bx, bz) = self.p(px, pz);
            let y = (a - 0.5) * h + (b - 0.5) * h / 2.0;
            return [
                self.level + y,
                bx * h / 2.0 * s,
                (ax + az) * h * s + bz * h / 2.0 * s,
                (ax + az) * h * w + (bx + bz) * h / 2.0 * w,
            ];
        }
        // P(pX, pZ) + P(pX', pZ') / 12, the fine octave at six times the spatial and
        // twice the time frequency.
        let fine_x = x * s * 6.0 + t * w * 2.0;
        let fine_z = z * s * 6.0 + t * w * 2.0;
        let (coarse, fine) = (self.p(px, pz), self.p(fine_x, fine_z));
        let ((a, ax, az), (b, bx, bz)) = (coarse, fine);
        let y = (a - 0.5) * h + (b - 0.5) * h / 12.0;
        [
            self.level + y,
            ax * h * s + bx * h / 12.0 * 6.0 * s,
            az * h * s + bz * h / 12.0 * 6.0 * s,
            (ax + az) * h * w + (bx + bz) * h / 12.0 * 2.0 * w,
        ]
    }
}

/// The `noise` crate's two-dimensional Perlin noise (`noise::core::perlin::perlin_2d`),
/// with its gradient from the same evaluation: `(n, dn/dx, dn/dz)`. The value is the
/// crate's arithmetic step for step, so the same number to the bit (a test compares it
/// with `noise::Perlin::get`); the gradient is its exact derivative, zero where the crate
/// clamps the value to [-1, 1].
///
/// With `(u, v)` the offsets in the lattice cell, `q(u) = 6u^5 - 15u^4 + 10u^3` and `g_ij`
/// the corner gradients `(+-1, +-1)` dotted with the offset from corner `(i, j)`:
/// `n = k lerp(lerp(g00, g01, q(v)), lerp(g10, g11, q(v)), q(u))`, `k = 2 / sqrt 2`.
#[inline(always)]
fn noise_and_gradient(signs: &CellSigns, x: f64, z: f64) -> (f64, f64, f64) {
    const SCALE: f64 = 2.0 / std::f64::consts::SQRT_2;
    // The crate's `floor_to_isize` (`v as isize`, minus one at zero or below), as a float
    // and as the low byte of the integer, which is all the hash reads (`& 0xff`): `c` plus
    // 1.5 * 2^52 keeps `c` in its low bits (exact for |c| < 2^51; the callers wrap their
    // coordinates into [0, 256]). A float-to-integer cast in a vector loop saturates and
    // cost a fifth of the whole batch.
    let cell = |v: f64| {
        let c = v.trunc() - if v <= 0.0 { 1.0 } else { 0.0 };
        (c, ((c + super::trig::ROUNDER).to_bits() & 0xff) as usize)
    };
    let ((fx, cx), (fz, cz)) = (cell(x), cell(z));
    let (u, v) = (x - fx, z - fz);
    let byte = u64::from(signs.cell(cx, cz));
    // A corner's gradient `(+-1, +-1)` as the sign bits it flips: the crate's four cases
    // `(+-px) + (+-pz)`, and the products of the gradient with the weights below, are
    // the same numbers (a product with +-1 is exact) with neither a branch (the corner's
    // hash is a coin toss, which a branch predictor loses half the time) nor a product.
    let flip = |a: f64, sign: u64| f64::from_bits(a.to_bits() ^ sign);
    let corner = |i: isize, j: isize| {
        let (px, pz) = (u - i as f64, v - j as f64);
        // (Bit `2k` of the byte moved up to the sign bit, the rest masked off.)
        let bit = 2 * (i + 2 * j);
        let sx = (byte << (63 - bit)) & (1 << 63);
        let sz = (byte << (62 - bit)) & (1 << 63);
        (flip(px, sx) + flip(pz, sz), sx, sz)
    };
    let quintic = |a: f64| {
        let a = a.clamp(0.0, 1.0);
        (
            a * a * a * (a * (a * 6.0 - 15.0) + 10.0),
            30.0 * a * a * (a - 1.0) * (a - 1.0),
        )
    };
    let (g00, g10, g01, g11) = (corner(0, 0), corner(1, 0), corner(0, 1), corner(1, 1));
    let ((qu, dqu), (qv, dqv)) = (quintic(u), quintic(v));
    let linear = |a: f64, b: f64, t: f64| b * t + a * (1.0 - t);
    let (near, far) = (linear(g00.0, g01.0, qv), linear(g10.0, g11.0, qv));
    let n = linear(near, far, qu) * SCALE;
    if !(-1.0..=1.0).contains(&n) {
        return (n.clamp(-1.0, 1.0), 0.0, 0.0);
    }
    // d/dx: the interpolation weight qu moves, and so does every corner's dot product.
    // (`linear` of two gradient components: `b t + a (1 - t)` with `a`, `b` = +-1.)
    let signed = |a: u64, b: u64, t: f64| flip(t, b) + flip(1.0 - t, a);
    let (near_x, far_x) = (signed(g00.1, g01.1, qv), signed(g10.1, g11.1, qv));
    let dx = ((far - near) * dqu + linear(near_x, far_x, qu)) * SCALE;
    // d/dz: the weight qv moves in both rows.
    let near_z = (g01.0 - g00.0) * dqv + signed(g00.2, g01.2, qv);
    let far_z = (g11.0 - g10.0) * dqv + signed(g10.2, g11.2, qv);
    let dz = linear(near_z, far_z, qu) * SCALE;
    (n, dx, dz)
}

impl PerlinWater {
    /// Heights, and particle velocities when asked, under many points: the numbers of
    /// [`WaterSurface::height_and_velocity`] to the bit, in a loop compiled for AVX2 and
    /// AVX-512 too (`floor` is then one instruction rather than a library call).
    pub(crate) fn sample_batch(&self, points: &[DVec3], t: f64, heights: &mut [f64], velocities: Option<&mut [DVec3]>) {
        sample_batch(self, points, t, heights, velocities);
    }
}

#[multiversion(targets("x86_64+avx512f+avx512vl+avx512dq+avx512bw+avx2", "x86_64+avx2"))]
fn sample_batch(water: &PerlinWater, points: &[DVec3], t: f64, heights: &mut [f64], velocities: Option<&mut [DVec3]>) {
    match velocities {
        Some(velocities) => {
            for ((p, h), v) in points.iter().zip(heights.iter_mut()).zip(velocities.iter_mut()) {
                (*h, *v) = water.height_and_velocity(p.x, p.z, t);
            }
        }
        None => {
            for (p, h) in points.iter().zip(heights.iter_mut()) {
                *h = water.surface(p.x, p.z, t)[0];
            }
        }
    }
}

impl WaterSurface for PerlinWater {
    fn height(&self, x: f64, z: f64, t: f64) -> f64 {
        self.surface(x, z, t)[0]
    }

    #[inline(always)]
    fn height_and_velocity(&self, x: f64, z: f64, t: f64) -> (f64, DVec3) {
        let [height, _, _, rate] = self.surface(x, z, t);
        (height, DVec3::new(0.0, if rate.is_finite() { rate } else { 0.0 }, 0.0))
    }

    fn sample(&self, x: f64, z: f64, t: f64) -> WaterSample {
        let [height, dx, dz, rate] = self.surface(x, z, t);
        let normal = DVec3::new(-dx, 1.0, -dz).normalize();
        WaterSample {
            height,
            normal: if normal.is_finite() { normal } else { DVec3::Y },
            velocity: DVec3::new(0.0, if rate.is_finite() { rate } else { 0.0 }, 0.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use noise::{NoiseFn, Perlin};

    #[test]
    fn the_noise_is_the_noise_crates_to_the_bit_and_its_gradient_is_the_derivative() {
        let (signs, crate_noise) = (CellSigns::shared(), Perlin::new(0));
        let mut checked = 0;
        for i in 0..4000 {
            // Cell corners, cell edges, zero and negative coordinates, ordinary points.
            let x = match i % 4 {
                0 => (i as f64 * 0.37).sin() * 40.0,
                1 => (i / 4) as f64 * 0.25 - 20.0,
                2 => 0.0,
                _ => i as f64 * 0.0731,
            };
            let z = (i as f64 * 0.913).cos() * 17.0 + 0.5 * (i % 3) as f64;
            let (n, dx, dz) = noise_and_gradient(signs, x, z);
            assert_eq!(n.to_bits(), crate_noise.get([x, z]).to_bits(), "value at ({x}, {z})");
            // Central differences of the crate's noise, away from cell edges (where the
            // derivative is continuous but the difference straddles two cells' roundings).
            let e = 1e-6;
            let away = |v: f64| (v - v.round()).abs() > 10.0 * e;
            if away(x) && away(z) {
                let fx = (crate_noise.get([x + e, z]) - crate_noise.get([x - e, z])) / (2.0 * e);
                let fz = (crate_noise.get([x, z + e]) - crate_noise.get([x, z - e])) / (2.0 * e);
                assert!(
                    (dx - fx).abs() < 1e-6 && (dz - fz).abs() < 1e-6,
                    "gradient at ({x}, {z}): ({dx}, {dz}) vs ({fx}, {fz})"
                );
                checked += 1;
            }
        }
        assert!(checked > 2000, "{checked}");
    }

    #[test]
    fn a_cells_signs_are_its_corners_hashes() {
        // Every cell, every corner, against the crate's own hash (the wrap from 255 to 0
        // included); a second seed so that a table built from a constant would fail.
        for seed in [0, 7] {
            let table = PermutationTable::new(seed);
            let signs = CellSigns::of(&table);
            for (cx, cz) in (0..256usize).flat_map(|cx| (0..256usize).map(move |cz| (cx, cz))) {
                for (k, (i, j)) in [(0, 0), (1, 0), (0, 1), (1, 1)].into_iter().enumerate() {
                    let hash = table.hash(&[(cx + i) as isize, (cz + j) as isize]);
                    let code = signs.cell(cx, cz) >> (2 * k) & 3;
                    assert_eq!(code as usize, hash & 3, "seed {seed}, cell ({cx}, {cz}), corner {k}");
                }
            }
        }
    }

    #[test]
    fn velocity_and_normal_are_the_surfaces_derivatives() {
        for only_x in [false, true] {
            let water = PerlinWater::new(0.3, 0.17, 0.6, 1.4, only_x).unwrap();
            for i in 0..500 {
                let (x, z, t) = (i as f64 * 0.731 - 150.0, (i as f64 * 1.3).sin() * 90.0, i as f64 * 0.05);
                let sample = water.sample(x, z, t);
                let (height, velocity) = water.height_and_velocity(x, z, t);
                assert_eq!(height.to_bits(), water.height(x, z, t).to_bits());
                assert_eq!(sample.height.to_bits(), height.to_bits());
                let e = 1e-5;
                let rate = (water.height(x, z, t + e) - water.height(x, z, t - e)) / (2.0 * e);
                let dx = (water.height(x + e, z, t) - water.height(x - e, z, t)) / (2.0 * e);
                let dz = (water.height(x, z + e, t) - water.height(x, z - e, t)) / (2.0 * e);
                let normal = DVec3::new(-dx, 1.0, -dz).normalize();
                assert!(
                    (velocity - DVec3::new(0.0, rate, 0.0)).length() < 1e-5,
                    "{velocity} vs {rate}"
                );
                assert_eq!(sample.velocity, velocity);
                assert!(
                    (sample.normal - normal).length() < 1e-5,
                    "{} vs {normal}",
                    sample.normal
                );
            }
        }
    }

    #[test]
    fn a_batch_answers_each_point_as_a_query_of_it_alone_does() {
        for only_x in [false, true] {
            let water = PerlinWater::new(-0.2, 0.13, 0.7, 1.9, only_x).unwrap();
            let points: Vec<DVec3> = (0..257)
                .map(|i| DVec3::new(i as f64 * 0.377 - 40.0, 5.0, (i as f64 * 0.61).cos() * 30.0))
                .chain([DVec3::ZERO, DVec3::new(1e300, 0.0, -1e300)])
                .collect();
            let t = 3.7;
            let (mut heights, mut velocities) = (vec![0.0; points.len()], vec![DVec3::ZERO; points.len()]);
            water.sample_batch(&points, t, &mut heights, Some(&mut velocities));
            let mut alone = vec![0.0; points.len()];
            water.sample_batch(&points, t, &mut alone, None);
            for (i, p) in points.iter().enumerate() {
                let (h, v) = water.height_and_velocity(p.x, p.z, t);
                assert_eq!(heights[i].to_bits(), h.to_bits(), "point {i}");
                assert_eq!(alone[i].to_bits(), h.to_bits(), "point {i}");
                assert_eq!(
                    velocities[i].to_array().map(f64::to_bits),
                    v.to_array().map(f64::to_bits)
                );
            }
        }
    }

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
