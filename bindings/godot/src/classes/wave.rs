//! `KeelGerstnerWave`: one wave of a `KeelWater`'s Gerstner sea, a resource the
//! inspector lists.

use godot::prelude::*;
use keel::GerstnerWave;

use crate::convert::dvec2;

/// One Gerstner wave of a `KeelWater`'s sea (model Gerstner). Its speed follows from
/// its wavelength and gravity (deep water), so a longer wave travels faster.
#[derive(GodotClass)]
#[class(tool, init, base=Resource)]
pub struct KeelGerstnerWave {
    base: Base<Resource>,
    /// Height of a crest above the mean level, m.
    #[export(range = (0.0, 20.0, 0.01, or_greater, suffix = "m"))]
    #[init(val = 0.5)]
    amplitude: f64,
    /// Crest to crest, m.
    #[export(range = (0.01, 500.0, 0.01, or_greater, suffix = "m"))]
    #[init(val = 20.0)]
    wavelength: f64,
    /// Direction of travel on the water, (x, z).
    #[export]
    #[init(val = Vector2::new(1.0, 0.0))]
    direction: Vector2,
    /// 0 is a sine wave, 1 the sharpest crest (Gerstner's Q); 2 pi amplitude / wavelength
    /// draws the sea's own trochoid. It shapes the crests, not how far the water moves:
    /// floating bodies ride the waves' closed orbits at any steepness.
    #[export(range = (0.0, 1.0, 0.01))]
    #[init(val = 0.4)]
    steepness: f64,
    /// Phase, radians (the inspector shows degrees).
    #[export(range = (-180.0, 180.0, 0.1, radians_as_degrees))]
    phase: f64,
}

impl KeelGerstnerWave {
    /// The wave as keel's.
    pub fn wave(&self) -> GerstnerWave {
        GerstnerWave {
            amplitude: self.amplitude,
            wavelength: self.wavelength,
            direction: dvec2(self.direction),
            steepness: self.steepness,
            phase: self.phase,
        }
    }
}
