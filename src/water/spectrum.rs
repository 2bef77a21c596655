//! Wave spectra: Gerstner waves for a wind speed, so a user can ask for a sea state
//! instead of tuning waves by hand.
//!
//! Pierson-Moskowitz (a fully developed sea; `U` the wind speed at 19.5 m, `g` gravity):
//!
//! ```text
//! S(omega) = alpha g^2 / omega^5 exp(-5/4 (omega_p / omega)^4),  alpha = 8.1e-3,
//! omega_p  = 0.877 g / U                                          (the spectral peak)
//! ```
//!
//! JONSWAP (a growing sea) multiplies it by the peak enhancement `gamma^r`,
//! `r = exp(-(omega - omega_p)^2 / (2 sigma^2 omega_p^2))`, `gamma = 3.3`,
//! `sigma = 0.07` below the peak and `0.09` above, with the same peak frequency.
//!
//! The band `[0.5, 3] omega_p` is cut into `wave_count` equal bins; each bin gives one
//! wave at a frequency jittered inside the bin (so the sum does not repeat), with
//! amplitude `sqrt(2 S(omega) d_omega)`, deep-water wavelength `2 pi g / omega^2`, a
//! direction drawn around the wind's from a `cos^2` spreading, and a random phase, all
//! from `seed`. The steepness `0.5` is shared among the waves in proportion to their
//! slopes `k A`, so the crests sharpen without folding. The significant wave height of
//! Pierson-Moskowitz is `H_s = 0.21 U^2 / g`: a wind of 10 m/s gives about 2 m, sea
//! state 4 to 5.

use std::f64::consts::{PI, TAU};

use glam::DVec2;

use super::GerstnerWave;
use crate::error::{Error, Result, positive, positive_up_to};

/// The most waves a spectrum may be cut into.
pub const MAX_WAVES: u32 = 256;

/// Which spectrum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spectrum {
    /// Pierson-Moskowitz, a fully developed sea.
    PiersonMoskowitz,
    /// JONSWAP, a fetch-limited sea with a sharper peak.
    Jonswap,
}

const ALPHA: f64 = 8.1e-3;
const TOTAL_STEEPNESS: f64 = 0.5;

/// Spectral density, m^2 s, at angular frequency `omega`.
pub fn density(spectrum: Spectrum, omega: f64, peak: f64, gravity: f64) -> f64 {
    let pm = ALPHA * gravity * gravity / omega.powi(5) * (-1.25 * (peak / omega).powi(4)).exp();
    match spectrum {
        Spectrum::PiersonMoskowitz => pm,
        Spectrum::Jonswap => {
            let sigma = if omega <= peak { 0.07 } else { 0.09 };
            let r = (-(omega - peak).powi(2) / (2.0 * sigma * sigma * peak * peak)).exp();
            pm * 3.3f64.powf(r)
        }
    }
}

/// SplitMix64: small, fast and fully determined by the seed.
struct SplitMix(u64);

impl SplitMix {
    fn unit(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The waves of `spectrum` for a wind of `wind_speed` m/s blowing along `direction`.
pub fn waves(
    spectrum: Spectrum,
    wind_speed: f64,
    direction: DVec2,
    wave_count: u32,
    seed: u64,
    gravity: f64,
) -> Result<Vec<GerstnerWave>> {
    positive_up_to("wind_speed", wind_speed, 200.0)?;
    positive("gravity", gravity)?;
    if !direction.is_finite() || direction.length() == 0.0 {
        return Err(Error::argument(format!(
            "the wind direction must be finite and non-zero, got {direction}"
        )));
    }
    if wave_count == 0 || wave_count > MAX_WAVES {
        return Err(Error::argument(format!(
            "wave_count must be 1 to {MAX_WAVES}, got {wave_count}"
        )));
    }
    let heading = direction.y.atan2(direction.x);
    let peak = 0.877 * gravity / wind_speed;
    let (low, high) = (0.5 * peak, 3.0 * peak);
    let bin = (high - low) / wave_count as f64;
    let mut rng = SplitMix(seed);
    let mut waves = Vec::with_capacity(wave_count as usize);
    for i in 0..wave_count {
        let omega = low + (i as f64 + 0.2 + 0.6 * rng.unit()) * bin;
        let amplitude = (2.0 * density(spectrum, omega, peak, gravity) * bin).sqrt();
        // cos^2 spreading in [-pi/2, pi/2] by rejection.
        let spread = loop {
            let angle = (rng.unit() - 0.5) * PI;
            if rng.unit() <= angle.cos().powi(2) {
                break angle;
            }
        };
        let angle = heading + spread;
        waves.push(GerstnerWave {
            amplitude,
            wavelength: TAU * gravity / (omega * omega),
            direction: DVec2::new(angle.cos(), angle.sin()),
            steepness: 0.0,
            phase: TAU * rng.unit(),
        });
    }
    let slope: f64 = waves.iter().map(|w| TAU / w.wavelength * w.amplitude).sum();
    for w in &mut waves {
        w.steepness = (TOTAL_STEEPNESS * (TAU / w.wavelength * w.amplitude) / slope).min(1.0);
    }
    Ok(waves)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pierson_moskowitz_has_the_significant_height_of_its_wind() {
        for wind in [5.0, 10.0, 20.0] {
            let waves = waves(Spectrum::PiersonMoskowitz, wind, DVec2::X, 64, 1, 9.81).unwrap();
            // H_s = 4 sqrt(m0), m0 = sum A^2 / 2; the band [0.5, 3] omega_p holds nearly all of it.
            let m0: f64 = waves.iter().map(|w| w.amplitude * w.amplitude / 2.0).sum();
            let hs = 4.0 * m0.sqrt();
            let expected = 0.21 * wind * wind / 9.81;
            assert!(
                (hs - expected).abs() < 0.05 * expected,
                "wind {wind}: Hs {hs} vs {expected}"
            );
            assert!(waves.iter().map(|w| w.steepness).sum::<f64>() <= TOTAL_STEEPNESS + 1e-12);
        }
    }

    #[test]
    fn jonswap_is_peakier_and_seeds_repeat() {
        let peak = 0.877 * 9.81 / 10.0;
        assert!(
            density(Spectrum::Jonswap, peak, peak, 9.81) > 3.0 * density(Spectrum::PiersonMoskowitz, peak, peak, 9.81)
        );
        let a = waves(Spectrum::Jonswap, 10.0, DVec2::new(1.0, 1.0), 16, 7, 9.81).unwrap();
        let b = waves(Spectrum::Jonswap, 10.0, DVec2::new(1.0, 1.0), 16, 7, 9.81).unwrap();
        let c = waves(Spectrum::Jonswap, 10.0, DVec2::new(1.0, 1.0), 16, 8, 9.81).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
        // Waves travel within 90 degrees of the wind.
        assert!(
            a.iter()
                .all(|w| w.direction.dot(DVec2::new(1.0, 1.0).normalize()) >= -1e-12)
        );
    }

    #[test]
    fn bad_requests_are_refused() {
        assert!(waves(Spectrum::Jonswap, 0.0, DVec2::X, 16, 0, 9.81).is_err());
        assert!(waves(Spectrum::Jonswap, f64::NAN, DVec2::X, 16, 0, 9.81).is_err());
        assert!(waves(Spectrum::Jonswap, 10.0, DVec2::ZERO, 16, 0, 9.81).is_err());
        assert!(waves(Spectrum::Jonswap, 10.0, DVec2::X, 0, 0, 9.81).is_err());
        assert!(waves(Spectrum::Jonswap, 10.0, DVec2::X, 100_000, 0, 9.81).is_err());
    }
}
