//! The host's half of a simulation: a rigid body integrated with the forces keel returns,
//! as a game engine's physics loop would (keel's host integrator, [`keel::host`]).
//! Keel computes the forces and its host module integrates them; this file runs the
//! scene and records it.

use std::time::{Duration, Instant};

use glam::{DQuat, DVec3};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use keel::{BodyForces, BodyId, HullId, World};

use crate::error::Result;
use crate::mesh::Mesh;

/// The rigid body: keel's host integrator (semi-implicit Euler with the gyroscopic term).
pub use keel::host::RigidBody;

/// Roll (heel, +X side up positive, through the whole turn: 180 degrees is upside down)
/// and pitch (trim, +Z end down positive), radians: `keel::hydrostatics::attitude`, the
/// one reading of an attitude every subcommand prints.
pub fn roll_pitch(rotation: DQuat) -> (f64, f64) {
    let a = keel::hydrostatics::attitude(rotation);
    (a.heel, a.trim)
}

/// What one step leaves for the plots and the CSV.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    pub time: f64,
    pub com: DVec3,
    pub roll: f64,
    pub pitch: f64,
    pub forces: BodyForces,
}

/// A world with one body in it, ready to run.
pub struct Scene {
    pub name: String,
    pub world: World,
    pub hull: HullId,
    pub body: BodyId,
    pub rigid: RigidBody,
    pub mesh: Mesh,
}

/// Runs `scene` for `seconds` in steps of `dt`, showing a progress bar once the run has
/// taken a second (and only on a terminal).
pub fn run(scene: &mut Scene, seconds: f64, dt: f64, label: &str) -> Result<Vec<Sample>> {
    let steps = (seconds / dt).round().max(1.0) as u64;
    let mut samples = Vec::with_capacity(steps as usize + 1);
    let bar = ProgressBar::with_draw_target(Some(steps), ProgressDrawTarget::hidden());
    let style = ProgressStyle::with_template("{msg:>14} [{bar:40}] {percent:>3}% {eta}")
        .map(|s| s.progress_chars("=> "))
        .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    bar.set_message(label.to_string());
    let started = Instant::now();
    let mut shown = false;
    let gravity = scene.world.desc().gravity;
    for i in 0..steps {
        let time = i as f64 * dt;
        scene.world.set_time(time)?;
        let forces = scene.world.step_body(scene.body, &scene.rigid.state(), dt)?;
        let (roll, pitch) = roll_pitch(scene.rigid.rotation);
        samples.push(Sample {
            time,
            com: scene.rigid.com(),
            roll,
            pitch,
            forces,
        });
        scene.rigid.integrate(forces.force, forces.torque, gravity, dt);
        if !shown && started.elapsed() > Duration::from_secs(1) {
            bar.set_draw_target(ProgressDrawTarget::stderr());
            shown = true;
        }
        if i % 64 == 0 {
            bar.set_position(i);
        }
    }
    bar.finish_and_clear();
    Ok(samples)
}

/// Mean and largest deviation of a series over its last `fraction` (settled?).
pub fn tail_stats(values: impl Iterator<Item = f64>, fraction: f64) -> (f64, f64) {
    let all: Vec<f64> = values.collect();
    let start = ((1.0 - fraction) * all.len() as f64) as usize;
    let tail = &all[start.min(all.len().saturating_sub(1))..];
    let mean = tail.iter().sum::<f64>() / tail.len().max(1) as f64;
    let spread = tail.iter().map(|v| (v - mean).abs()).fold(0.0, f64::max);
    (mean, spread)
}

/// Period of an oscillation from its upward crossings of its mean, after `skip` seconds;
/// `None` with fewer than two full cycles.
pub fn period(samples: &[Sample], value: impl Fn(&Sample) -> f64, skip: f64) -> Option<f64> {
    let tail: Vec<(f64, f64)> = samples
        .iter()
        .filter(|s| s.time >= skip)
        .map(|s| (s.time, value(s)))
        .collect();
    if tail.len() < 4 {
        return None;
    }
    let mean = tail.iter().map(|p| p.1).sum::<f64>() / tail.len() as f64;
    let mut crossings = Vec::new();
    for w in tail.windows(2) {
        let (a, b) = ((w[0].1 - mean), (w[1].1 - mean));
        if a < 0.0 && b >= 0.0 {
            crossings.push(w[0].0 + (w[1].0 - w[0].0) * (-a / (b - a)));
        }
    }
    if crossings.len() < 3 {
        return None;
    }
    Some((crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64)
}
