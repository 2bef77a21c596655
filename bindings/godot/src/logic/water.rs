//! `KeelWater`'s properties as keel's [`Water`]. Every model is the engine's; the
//! binding only picks one and passes its numbers.

use glam::DVec2;
use keel::water::spectrum::{self, Spectrum};
use keel::{FlatWater, GerstnerWater, GerstnerWave, HeightfieldWater, PerlinWater, Water};

/// Which water, in the order of the inspector's drop-down (`KeelWater.model`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Model {
    /// A level plane.
    Flat,
    /// The thesis's Perlin waves.
    Perlin,
    /// The listed Gerstner waves.
    Gerstner,
    /// Gerstner waves from a wind-sea spectrum.
    Spectrum,
    /// Heights read from an image.
    Heightfield,
    /// A script's callable.
    Callable,
}

/// The models in drop-down order.
pub const MODELS: [Model; 6] = [
    Model::Flat,
    Model::Perlin,
    Model::Gerstner,
    Model::Spectrum,
    Model::Heightfield,
    Model::Callable,
];

/// The model at drop-down `index`.
pub fn model(index: i64) -> Option<Model> {
    usize::try_from(index).ok().and_then(|i| MODELS.get(i).copied())
}

/// The Perlin model's numbers (the thesis's `perlinScale`, `wavespeed`, `waveHeight`,
/// `onlyX`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PerlinParams {
    /// Noise cells per metre.
    pub scale: f64,
    /// Noise drift per second.
    pub speed: f64,
    /// Crest to trough, m.
    pub wave_height: f64,
    /// Waves along X only.
    pub only_x: bool,
}

impl Default for PerlinParams {
    fn default() -> Self {
        Self {
            scale: 0.1,
            speed: 0.5,
            wave_height: 1.0,
            only_x: false,
        }
    }
}

/// The spectrum model's numbers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpectrumParams {
    /// JONSWAP rather than Pierson-Moskowitz.
    pub jonswap: bool,
    /// Wind speed at 19.5 m that raised the sea, m/s.
    pub wind_speed: f64,
    /// Direction the waves travel, (x, z).
    pub direction: DVec2,
    /// Number of waves.
    pub wave_count: i64,
    /// Random seed of the waves' phases and directions.
    pub seed: i64,
}

impl Default for SpectrumParams {
    fn default() -> Self {
        Self {
            jonswap: false,
            wind_speed: 8.0,
            direction: DVec2::X,
            wave_count: 24,
            seed: 1,
        }
    }
}

/// A heightfield's layout: samples in an image's row order (X along a row, rows along
/// Z), each `level + height_scale * value`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HeightfieldLayout {
    /// World (x, z) of the first sample.
    pub origin: DVec2,
    /// Distance between samples, m.
    pub cell_size: f64,
    /// Height of a sample of value 1, m.
    pub height_scale: f64,
    /// Repeats beyond its edges.
    pub tiled: bool,
}

/// A sea of a few crossing swells: what `KeelWater` shows when the Gerstner model has
/// no waves of its own yet.
pub fn default_gerstner_waves() -> Vec<GerstnerWave> {
    [(0.6, 24.0, 1.0, 0.2), (0.3, 11.0, 0.8, 0.6), (0.15, 5.5, 1.3, -0.4)]
        .iter()
        .map(|&(amplitude, wavelength, dx, dz)| GerstnerWave {
            amplitude,
            wavelength,
            direction: DVec2::new(dx, dz),
            steepness: 0.4,
            phase: 0.0,
        })
        .collect()
}

/// A Gerstner sea around `level`.
pub fn gerstner(waves: &[GerstnerWave], level: f64, gravity: f64) -> Result<Water, String> {
    GerstnerWater::new(waves, level, gravity)
        .map(Water::Gerstner)
        .map_err(|e| e.to_string())
}

/// The waves of a spectrum.
pub fn spectrum_waves(p: &SpectrumParams, gravity: f64) -> Result<Vec<GerstnerWave>, String> {
    let wave_count =
        u32::try_from(p.wave_count).map_err(|_| format!("wave_count must be positive, got {}", p.wave_count))?;
    let kind = if p.jonswap {
        Spectrum::Jonswap
    } else {
        Spectrum::PiersonMoskowitz
    };
    spectrum::waves(kind, p.wind_speed, p.direction, wave_count, p.seed as u64, gravity).map_err(|e| e.to_string())
}

/// Perlin water around `level`.
pub fn perlin(p: &PerlinParams, level: f64) -> Result<Water, String> {
    PerlinWater::new(level, p.scale, p.speed, p.wave_height, p.only_x)
        .map(|w| Water::Perlin(Box::new(w)))
        .map_err(|e| e.to_string())
}

/// A level plane.
pub fn flat(level: f64) -> Water {
    Water::Flat(FlatWater { level })
}

/// Heightfield water from `width x height` values in row order.
pub fn heightfield(
    values: &[f32],
    width: usize,
    height: usize,
    level: f64,
    layout: &HeightfieldLayout,
) -> Result<Water, String> {
    let heights: Vec<f32> = values
        .iter()
        .map(|v| (level + layout.height_scale * f64::from(*v)) as f32)
        .collect();
    HeightfieldWater::new(
        &heights,
        width,
        height,
        layout.origin.x,
        layout.origin.y,
        layout.cell_size,
        layout.tiled,
    )
    .map(|w| Water::Heightfield(Box::new(w)))
    .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use keel::WaterSurface;

    use super::*;

    #[test]
    fn drop_down_covers_every_model_once() {
        for (i, m) in MODELS.iter().enumerate() {
            assert_eq!(model(i as i64), Some(*m));
        }
        assert_eq!(model(-1), None);
        assert_eq!(model(MODELS.len() as i64), None);
    }

    #[test]
    fn heightfield_rows_run_along_z() {
        // 3 x 2 samples: value = column + 10 row; sample (ix, iz) sits at origin + cell (ix, iz).
        let values = [0.0, 1.0, 2.0, 10.0, 11.0, 12.0];
        let layout = HeightfieldLayout {
            origin: DVec2::new(-1.0, 4.0),
            cell_size: 2.0,
            height_scale: 0.5,
            tiled: false,
        };
        let water = heightfield(&values, 3, 2, 1.0, &layout).unwrap();
        let at = |ix: f64, iz: f64| water.height(-1.0 + 2.0 * ix, 4.0 + 2.0 * iz, 0.0);
        assert!((at(2.0, 0.0) - (1.0 + 0.5 * 2.0)).abs() < 1e-6);
        assert!((at(0.0, 1.0) - (1.0 + 0.5 * 10.0)).abs() < 1e-6);
        assert!(heightfield(&values, 3, 3, 0.0, &layout).is_err());
    }

    #[test]
    fn models_keep_their_mean_level() {
        let level = 2.5;
        assert_eq!(flat(level).height(3.0, -7.0, 1.0), level);
        let sea = gerstner(&default_gerstner_waves(), level, 9.81).unwrap();
        // A Gerstner crest is at most the sum of the amplitudes above the level.
        let crest: f64 = default_gerstner_waves().iter().map(|w| w.amplitude).sum();
        for i in 0..50 {
            let h = sea.height(i as f64 * 1.7, i as f64 * -0.9, 0.3 * i as f64);
            assert!((h - level).abs() <= crest + 1e-9, "{h}");
        }
        let p = PerlinParams::default();
        let waves = perlin(&p, level).unwrap();
        for i in 0..50 {
            let h = waves.height(i as f64 * 1.3, i as f64 * 2.1, 0.1 * i as f64);
            assert!((h - level).abs() <= p.wave_height, "{h}");
        }
    }

    #[test]
    fn a_stronger_wind_raises_a_higher_sea() {
        let energy = |wind_speed: f64| {
            let p = SpectrumParams {
                wind_speed,
                ..SpectrumParams::default()
            };
            spectrum_waves(&p, 9.81)
                .unwrap()
                .iter()
                .map(|w| w.amplitude * w.amplitude)
                .sum::<f64>()
        };
        // Pierson-Moskowitz: H_s grows as U^2, the energy as U^4.
        let ratio = energy(12.0) / energy(6.0);
        assert!((ratio - 16.0).abs() < 0.15 * 16.0, "{ratio}");
        let bad = SpectrumParams {
            wave_count: 0,
            ..SpectrumParams::default()
        };
        assert!(spectrum_waves(&bad, 9.81).is_err());
    }
}
