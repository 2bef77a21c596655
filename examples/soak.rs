//! Soak run: 1024 bodies on a Gerstner sea for many steps, printing the resident memory
//! now and then, to show that memory stays flat and nothing drifts to NaN.
//!
//! `cargo run --release --example soak -- [steps]` (default 100000).

use glam::{DQuat, DVec2, DVec3, Vec3};
use keel::host::RigidBody;
use keel::{BodyDesc, BodyForces, GerstnerWater, GerstnerWave, Water, World, WorldDesc};

fn resident_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmRSS:")).map(|l| l.to_string()))
        .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        .unwrap_or(0)
}

fn main() -> keel::Result<()> {
    let steps: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let mut world = World::new(&WorldDesc::default())?;
    let waves: Vec<GerstnerWave> = (0..8)
        .map(|i| GerstnerWave {
            amplitude: 0.4 / (1.0 + i as f64),
            wavelength: 30.0 / (1.0 + 0.7 * i as f64),
            direction: DVec2::from_angle(0.4 * i as f64),
            steepness: 0.08,
            phase: i as f64,
        })
        .collect();
    world.set_water(Water::Gerstner(GerstnerWater::new(&waves, 0.0, 9.81)?));
    let (vertices, indices) = keel::hull::box_mesh(Vec3::new(1.0, 0.5, 2.0));
    let hull = world.create_hull(&keel::HullDesc {
        vertices: &vertices,
        indices: &indices,
        flip_winding: false,
    })?;
    let mass = 400.0;
    let desc = BodyDesc {
        hull,
        mass,
        forces: keel::forces::FORCE_ALL & !keel::forces::FORCE_LUMPED_RESISTANCE,
        linear_damping: 50.0,
        angular_damping: 50.0,
        ..BodyDesc::default()
    };
    let ids: Vec<_> = (0..1024)
        .map(|_| world.create_body(&desc))
        .collect::<keel::Result<_>>()?;
    let mut states: Vec<RigidBody> = (0..1024)
        .map(|i| {
            let p = DVec3::new((i % 32) as f64 * 4.0, 0.0, (i / 32) as f64 * 4.0);
            RigidBody::homogeneous_box(DVec3::new(1.0, 0.5, 2.0), mass, p, DQuat::from_rotation_y(i as f64))
        })
        .collect();
    let mut forces = vec![BodyForces::default(); ids.len()];
    let dt = 1.0 / 60.0;
    let start = std::time::Instant::now();
    println!("{:>8} {:>10} {:>12} {:>12}", "step", "RSS KiB", "mean y", "max speed");
    for step in 0..=steps {
        world.set_time(step as f64 * dt)?;
        world.step_bodies(&ids, &states, dt, &mut forces, RigidBody::state, |f, o| *o = *f)?;
        for (body, f) in states.iter_mut().zip(&forces) {
            body.integrate(f.force, f.torque, 9.81, dt);
        }
        if step % (steps / 20).max(1) == 0 {
            let mean_y = states.iter().map(|s| s.position.y).sum::<f64>() / states.len() as f64;
            let max_speed = states.iter().map(|s| s.velocity.length()).fold(0.0, f64::max);
            assert!(mean_y.is_finite() && max_speed.is_finite(), "NaN at step {step}");
            println!("{step:>8} {:>10} {mean_y:>12.4} {max_speed:>12.4}", resident_kib());
        }
    }
    let elapsed = start.elapsed().as_secs_f64();
    println!(
        "{steps} steps of 1024 bodies in {elapsed:.1} s ({:.3} ms per step)",
        1e3 * elapsed / steps as f64
    );
    Ok(())
}
