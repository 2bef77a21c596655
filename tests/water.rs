//! Water models against their definitions: the Gerstner trochoid by brute force, the
//! thesis's Perlin function by its symmetries.

mod common;

use common::Rng;
use glam::{DVec2, DVec3};
use keel::{GerstnerWater, GerstnerWave, PerlinWater, WaterSurface};

const G: f64 = 9.81;

/// A surface particle of the trochoid at rest position `x0`, written from the definition.
fn particle(waves: &[GerstnerWave], level: f64, x0: DVec2, t: f64) -> DVec3 {
    let mut p = DVec3::new(x0.x, level, x0.y);
    for w in waves {
        let k = std::f64::consts::TAU / w.wavelength;
        let d = w.direction.normalize();
        let theta = k * d.dot(x0) - (G * k).sqrt() * t + w.phase;
        p.x -= d.x * w.steepness / k * theta.sin();
        p.z -= d.y * w.steepness / k * theta.sin();
        p.y += w.amplitude * theta.cos();
    }
    p
}

#[test]
fn gerstner_height_matches_a_brute_force_search_of_the_trochoid() {
    let mut rng = Rng::new(3);
    for steepness in [0.0, 0.2, 0.5, 0.7, 0.8] {
        let angle = rng.range(0.0, std::f64::consts::TAU);
        let wave = GerstnerWave {
            amplitude: 1.2,
            wavelength: 20.0,
            direction: DVec2::new(angle.cos(), angle.sin()),
            steepness,
            phase: 0.4,
        };
        let sea = GerstnerWater::new(&[wave], 0.5, G).unwrap();
        for _ in 0..40 {
            let x = DVec2::new(rng.range(-30.0, 30.0), rng.range(-30.0, 30.0));
            let t = rng.range(0.0, 20.0);
            // Particles move along the direction only: scan rest positions x - s D.
            let d = wave.direction;
            let along = |s: f64| {
                let p = particle(&[wave], 0.5, x - s * d, t);
                d.dot(DVec2::new(p.x, p.z) - x)
            };
            let samples = 200_000;
            let reach = wave.wavelength;
            let mut best = None;
            for i in 0..samples {
                let (s0, s1) = (
                    -reach + 2.0 * reach * i as f64 / samples as f64,
                    -reach + 2.0 * reach * (i + 1) as f64 / samples as f64,
                );
                let (f0, f1) = (along(s0), along(s1));
                if f0 <= 0.0 && f1 > 0.0 || f0 >= 0.0 && f1 < 0.0 {
                    let s = s0 + (s1 - s0) * f0 / (f0 - f1);
                    best = Some(particle(&[wave], 0.5, x - s * d, t).y);
                    break;
                }
            }
            let expected = best.expect("the trochoid covers every point");
            let got = sea.height(x.x, x.y, t);
            assert!(
                (got - expected).abs() < 1e-3,
                "Q = {steepness}: {got} vs brute force {expected}"
            );
        }
    }
}

#[test]
fn gerstner_sums_put_the_surface_where_the_particles_are() {
    let mut rng = Rng::new(8);
    let waves: Vec<GerstnerWave> = (0..6)
        .map(|i| GerstnerWave {
            amplitude: rng.range(0.05, 0.6),
            wavelength: rng.range(4.0, 40.0),
            direction: DVec2::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)),
            steepness: 0.8 / 6.0 * (1.0 + 0.2 * (i as f64 - 2.5) / 2.5),
            phase: rng.range(0.0, 6.0),
        })
        .collect();
    let sea = GerstnerWater::new(&waves, -1.0, G).unwrap();
    for _ in 0..500 {
        let x0 = DVec2::new(rng.range(-100.0, 100.0), rng.range(-100.0, 100.0));
        let t = rng.range(0.0, 100.0);
        let p = particle(&waves, -1.0, x0, t);
        let h = sea.height(p.x, p.z, t);
        assert!((h - p.y).abs() < 1e-6, "surface {h} vs particle {}", p.y);
        let s = sea.sample(p.x, p.z, t);
        assert_eq!(s.height, h);
        assert!((s.normal.length() - 1.0).abs() < 1e-12 && s.normal.y > 0.0);
    }
}

#[test]
fn the_thesis_perlin_water_moves_diagonally_with_time_in_its_only_x_branch() {
    // pX = x s + t w and pZ = z s + t w: moving (x, z) by d and t by -d s / w leaves
    // both unchanged, so the surface is a pattern sliding along (-1, -1) at w / s.
    let (scale, speed) = (0.1, 0.5);
    let water = PerlinWater::new(0.0, scale, speed, 1.0, true).unwrap();
    let mut rng = Rng::new(4);
    for _ in 0..100 {
        let (x, z, t) = (rng.range(-50.0, 50.0), rng.range(-50.0, 50.0), rng.range(0.0, 30.0));
        let d = rng.range(-5.0, 5.0);
        let a = water.height(x, z, t);
        let b = water.height(x + d, z + d, t - d * scale / speed);
        assert!((a - b).abs() < 1e-9, "{a} vs {b}");
    }
}

#[test]
fn the_thesis_perlin_water_stays_within_its_wave_height() {
    let height = 2.0;
    for only_x in [false, true] {
        let water = PerlinWater::new(3.0, 0.1, 0.5, height, only_x).unwrap();
        let mut rng = Rng::new(6);
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for _ in 0..20_000 {
            let y = water.height(
                rng.range(-500.0, 500.0),
                rng.range(-500.0, 500.0),
                rng.range(0.0, 100.0),
            );
            lo = lo.min(y);
            hi = hi.max(y);
        }
        // Noise in [0, 1] minus 0.5, times H plus H/2 (only_x) or H/12.
        let bound = if only_x {
            0.75 * height
        } else {
            (0.5 + 1.0 / 24.0) * height
        };
        assert!(lo >= 3.0 - bound && hi <= 3.0 + bound, "{lo}..{hi}");
        assert!(hi - lo > 0.3 * height, "the surface must actually move: {lo}..{hi}");
        let s = water.sample(1.0, 2.0, 3.0);
        assert!((s.normal.length() - 1.0).abs() < 1e-12);
        assert_eq!((s.velocity.x, s.velocity.z), (0.0, 0.0));
    }
}

#[test]
fn bad_water_parameters_are_refused() {
    assert!(PerlinWater::new(f64::NAN, 0.1, 0.5, 1.0, false).is_err());
    assert!(PerlinWater::new(0.0, f64::INFINITY, 0.5, 1.0, false).is_err());
    let wave = GerstnerWave {
        amplitude: 1.0,
        wavelength: 10.0,
        direction: DVec2::X,
        steepness: 0.5,
        phase: 0.0,
    };
    assert!(GerstnerWater::new(&[wave], f64::NAN, G).is_err());
    assert!(
        GerstnerWater::new(
            &[GerstnerWave {
                wavelength: -1.0,
                ..wave
            }],
            0.0,
            G
        )
        .is_err()
    );
}
