//! Measures how boxes drift on one Gerstner wave (amplitude 0.5 m, wavelength 40 m):
//! the tables of docs/WAVES.md (issue 40).
//!
//! Run with `cargo run --release --example wave_drift` (about a minute). Each box floats
//! at 0.4 of water's density, with every default force, integrated as an engine does
//! (semi-implicit Euler with the gyroscopic term, dt 1/120 s, the world's clock advanced
//! before every step), from where the water moves
//! straight up and with the water's velocity, and its mean velocity along the waves is
//! taken over 32 wave periods (162 s) after 16 (81 s): printed in m/s
//! and in Stokes drifts `omega k A^2` (0.049 m/s), positive along the waves, with half the
//! box's range along the waves over the last period (its sway) in amplitudes. Rows: the
//! steepness on the sea's orbits (the default velocities), then a sine wave with linear
//! theory's velocities, whose particles drift at the Stokes drift.
//!
//! Cubes at 0.4 of water's density are not stable upright (a cube floats upright only
//! below 0.21 or above 0.79): they roll over to float corner-up within the first
//! periods, and turn slowly about the vertical. A second table takes rafts, boxes 0.3 as
//! high as they are long and wide (stable upright at the same density), which ride the
//! waves level and pitch with the drawn slope; a third the same rafts with Bourg's
//! added-mass ratio 1, which resists their acceleration relative to the water's.
//!
//! `-- --forces` adds, under each table, where the drift comes from: each force's mean
//! along the waves over the box's whole encounter periods (from one passage of a wave
//! phase to its last passage, so that the orbit's own velocity cancels out of the mean;
//! over a fixed time window a drifting box's mean force carries its change of orbital
//! velocity), in thousandths of the box's weight, and the share of the steps it spent
//! with nothing wet (sharp crests throw small bodies off). `-- --push P` adds a constant
//! push of `P` thousandths of its weight along the waves to every box, which shows how
//! stiff the drift is: how much mean force a given change of drift costs. `-- --cuts N`
//! cuts every face of the boxes into `N x N` squares (how much the hull's resolution
//! matters), `-- --cubes` and `-- --rafts` take one kind of box only.

use std::f64::consts::TAU;

use glam::{DMat3, DQuat, DVec2, DVec3, Vec3};
use keel::{
    BodyDesc, BodyState, GerstnerVelocities, GerstnerWater, GerstnerWave, HullDesc, Water, WaterSurface, World,
    WorldDesc,
};

const AMPLITUDE: f64 = 0.5;
const WAVELENGTH: f64 = 40.0;
const GRAVITY: f64 = 9.81;
const SIZES: [f64; 5] = [0.25, 0.5, 1.0, 2.0, 4.0];

/// What the command line asks for.
#[derive(Clone, Copy, Default)]
struct Options {
    /// Print the mean forces along the waves under each table.
    forces: bool,
    /// A constant push along the waves, in thousandths of the box's weight.
    push: f64,
    /// Each face of the boxes cut into `cuts x cuts` squares (0: the 12-triangle box).
    cuts: u32,
    /// Only the cubes (`Some(true)`) or only the rafts (`Some(false)`).
    only_cubes: Option<bool>,
}

fn options() -> Result<Options, String> {
    let mut options = Options::default();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--forces" => options.forces = true,
            "--push" => {
                let value = args.next().ok_or("--push needs a value (thousandths of the weight)")?;
                options.push = value
                    .parse()
                    .ok()
                    .filter(|p: &f64| p.is_finite())
                    .ok_or(format!("--push: {value:?} is not a number"))?;
            }
            "--cuts" => {
                let value = args
                    .next()
                    .ok_or("--cuts needs a number of squares along each face's side")?;
                options.cuts = value
                    .parse()
                    .ok()
                    .filter(|n| (1..=64).contains(n))
                    .ok_or(format!("--cuts: {value:?} is not a whole number from 1 to 64"))?;
            }
            "--cubes" => options.only_cubes = Some(true),
            "--rafts" => options.only_cubes = Some(false),
            // (What `cargo bench` and test harnesses may pass along.)
            "--bench" => {}
            _ => {
                return Err(format!(
                    "unknown argument {arg:?}; expected --forces, --push P, --cuts N, --cubes or --rafts"
                ));
            }
        }
    }
    Ok(options)
}

fn main() -> keel::Result<()> {
    let options = match options() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("wave_drift: {message}");
            std::process::exit(2);
        }
    };
    let k = TAU / WAVELENGTH;
    let omega = (GRAVITY * k).sqrt();
    let stokes = omega * k * AMPLITUDE * AMPLITUDE;
    println!("Stokes drift omega k A^2 = {stokes:.4} m/s; mean velocity along the waves, m/s (Stokes drifts)");
    if options.push != 0.0 {
        println!(
            "every box pushed along the waves by {} thousandths of its weight",
            options.push
        );
    }
    let rows = [
        (GerstnerVelocities::Orbits, 0.0),
        (GerstnerVelocities::Orbits, TAU / WAVELENGTH * AMPLITUDE),
        (GerstnerVelocities::Orbits, 0.25),
        (GerstnerVelocities::Orbits, 0.5),
        (GerstnerVelocities::Orbits, 0.8),
        (GerstnerVelocities::Linear, 0.0),
    ];
    if options.cuts > 0 {
        println!("every face cut into {0} x {0} squares", options.cuts);
    }
    for (shape, body) in [
        ("cubes", (1.0, 0.0)),
        ("rafts (0.3 as high as long)", (0.3, 0.0)),
        ("rafts with Bourg's added-mass ratio 1", (0.3, 1.0)),
    ] {
        if options.only_cubes.is_some_and(|cubes| cubes != (body.0 == 1.0)) {
            continue;
        }
        println!("\n{shape}:");
        table(&rows, body, stokes, options)?;
    }
    Ok(())
}

/// One table: every row's drift for every size of a box `body.0` times as high as it is
/// long and wide, of added-mass ratio `body.1`; with `options.forces`, a second table of
/// where the drift comes from.
fn table(rows: &[(GerstnerVelocities, f64)], body: (f64, f64), stokes: f64, options: Options) -> keel::Result<()> {
    let header = || {
        println!(
            "| velocities, steepness Q | {} |",
            SIZES.map(|s| format!("{s} m box")).join(" | ")
        );
        println!("|---|{}", "---|".repeat(SIZES.len()));
    };
    header();
    let mut force_rows = Vec::new();
    for &(velocities, steepness) in rows {
        let mut cells = Vec::new();
        let mut force_cells = Vec::new();
        for size in SIZES {
            let m = drift(size, body, steepness, velocities, options)?;
            cells.push(format!(
                "{:+.3} ({:+.2}; sway {:.2} A)",
                m.drift,
                m.drift / stokes,
                m.sway / AMPLITUDE
            ));
            let [buoyancy, pressure, viscous, slamming, air] = m.forces.map(|f| f * 1e3);
            force_cells.push(format!(
                "b {buoyancy:+.3} p {pressure:+.3} v {viscous:+.3} s {slamming:+.3} a {air:+.3}; dry {:.1} %",
                m.dry * 100.0
            ));
        }
        let name = match velocities {
            GerstnerVelocities::Orbits => "orbits",
            GerstnerVelocities::Linear => "linear",
        };
        let q = (steepness * 1e4).round() / 1e4;
        println!("| {name}, Q {q} | {} |", cells.join(" | "));
        force_rows.push(format!("| {name}, Q {q} | {} |", force_cells.join(" | ")));
    }
    if options.forces {
        println!(
            "\nmean forces along the waves over whole encounter periods, thousandths of the weight \
             (b buoyancy with the Froude-Krylov and added-mass parts, p pressure drag, v viscous, s slamming, a air), \
             and the steps with nothing wet:"
        );
        header();
        for row in force_rows {
            println!("{row}");
        }
    }
    Ok(())
}

/// A box of full extents `size` centred on the origin, each face cut into `n x n`
/// squares of two triangles (outward normals `cross(b - a, c - a)`).
fn cut_box(size: Vec3, n: u32) -> (Vec<Vec3>, Vec<u32>) {
    let (mut vertices, mut indices) = (Vec::new(), Vec::new());
    // Each face's outward normal and two in-plane axes with `cross(u, v)` along it.
    let faces = [
        (Vec3::X, Vec3::Y, Vec3::Z),
        (-Vec3::X, Vec3::Z, Vec3::Y),
        (Vec3::Y, Vec3::Z, Vec3::X),
        (-Vec3::Y, Vec3::X, Vec3::Z),
        (Vec3::Z, Vec3::X, Vec3::Y),
        (-Vec3::Z, Vec3::Y, Vec3::X),
    ];
    for (normal, u, v) in faces {
        let base = vertices.len() as u32;
        for j in 0..=n {
            for i in 0..=n {
                let (s, t) = (2.0 * i as f32 / n as f32 - 1.0, 2.0 * j as f32 / n as f32 - 1.0);
                vertices.push((normal + s * u + t * v) * size / 2.0);
            }
        }
        for j in 0..n {
            for i in 0..n {
                let a = base + j * (n + 1) + i;
                indices.extend_from_slice(&[a, a + 1, a + n + 2, a, a + n + 2, a + n + 1]);
            }
        }
    }
    (vertices, indices)
}

/// What one box did.
struct Measure {
    /// Mean velocity along the waves, m/s.
    drift: f64,
    /// Half its range of positions along the waves over the last period, m.
    sway: f64,
    /// Mean forces along the waves over whole encounter periods, in weights: buoyancy,
    /// pressure drag, viscous, slamming, air.
    forces: [f64; 5],
    /// Share of the measured steps with nothing wet.
    dry: f64,
}

/// How a box `size` long and wide and `height` times that high (of added-mass ratio
/// `added_mass`) moves along the waves: its mean velocity, half its range of positions
/// over the last period (the orbit's radius `A` if it follows the water), and the forces
/// behind it; `push` is a constant push along the waves in thousandths of its weight.
fn drift(
    size: f64,
    (height, added_mass): (f64, f64),
    steepness: f64,
    velocities: GerstnerVelocities,
    Options { push, cuts, .. }: Options,
) -> keel::Result<Measure> {
    let mut world = World::new(&WorldDesc {
        gravity: GRAVITY,
        thread_count: 1,
        ..WorldDesc::default()
    })?;
    let wave = GerstnerWave {
        amplitude: AMPLITUDE,
        wavelength: WAVELENGTH,
        direction: DVec2::X,
        steepness,
        phase: 0.0,
    };
    let sea = GerstnerWater::new(&[wave], 0.0, GRAVITY)?.with_velocities(velocities);
    world.set_water(Water::Gerstner(sea));
    let dims = DVec3::new(size, height * size, size);
    let hull = if cuts == 0 {
        world.create_box_hull(dims.as_vec3())?
    } else {
        let (vertices, indices) = cut_box(dims.as_vec3(), cuts);
        world.create_hull(&HullDesc {
            vertices: &vertices,
            indices: &indices,
            flip_winding: false,
        })?
    };
    let mass = 0.4 * world.desc().water_density * dims.x * dims.y * dims.z;
    let id = world.create_body(&BodyDesc {
        hull,
        mass,
        added_mass_ratio: added_mass,
        ..BodyDesc::default()
    })?;
    let sq = dims * dims;
    let inertia = DMat3::from_diagonal(DVec3::new(sq.y + sq.z, sq.x + sq.z, sq.x + sq.y) * (mass / 12.0));
    // Floating at its draught where the water moves straight up, with the water (a box
    // dropped at rest into moving water sheds the push it gets over some 40 s).
    let x = WAVELENGTH / 4.0 - AMPLITUDE;
    let water = world.water().sample(x, 0.0, 0.0);
    let (mut position, mut rotation) = (DVec3::new(x, water.height + 0.1 * dims.y, 0.0), DQuat::IDENTITY);
    let (mut velocity, mut spin) = (water.velocity, DVec3::ZERO);
    let dt = 1.0 / 120.0;
    let period = TAU / (GRAVITY * TAU / WAVELENGTH).sqrt();
    let steps = |periods: f64| (periods * period / dt).round() as usize;
    let (settle, measure) = (steps(16.0), steps(32.0));
    let mut start = 0.0;
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    // Per measured step: how many whole waves have passed the box (the wave's phase at
    // it, `k x - omega t`, in turns, rounded down), and the forces along the waves.
    let mut log: Vec<(f64, [f64; 5])> = Vec::with_capacity(measure);
    let mut dry = 0usize;
    let omega = TAU / period;
    for i in 0..settle + measure {
        if i == settle {
            start = position.x;
        }
        if i + steps(1.0) >= settle + measure {
            (lo, hi) = (lo.min(position.x), hi.max(position.x));
        }
        let state = BodyState {
            position,
            rotation,
            linear_velocity: velocity,
            angular_velocity: spin,
            center_of_mass: position,
        };
        // The water moves on: the world's clock is the host's to set.
        world.set_time(i as f64 * dt)?;
        let forces = world.step_body(id, &state, dt)?;
        if i >= settle {
            let turns = ((TAU / WAVELENGTH * position.x - omega * i as f64 * dt) / TAU).floor();
            let f = forces;
            let parts = [
                f.buoyancy_force,
                f.pressure_drag_force,
                f.viscous_force,
                f.slamming_force,
                f.air_force,
            ];
            log.push((turns, parts.map(|p| p.x)));
            dry += usize::from(f.submerged_area == 0.0);
        }
        let pushed = DVec3::X * (push * 1e-3 * GRAVITY);
        velocity += (forces.force / mass - DVec3::Y * GRAVITY + pushed) * dt;
        let r = DMat3::from_quat(rotation);
        let world_inertia = r * inertia * r.transpose();
        spin += world_inertia.inverse() * (forces.torque - spin.cross(world_inertia * spin)) * dt;
        position += velocity * dt;
        rotation = (rotation + DQuat::from_xyzw(spin.x, spin.y, spin.z, 0.0) * rotation * (0.5 * dt)).normalize();
    }
    // From the first step after a wave's phase passes the box to the last step before
    // its last passage: whole encounter periods, over which the box's orbital velocity
    // comes back where it was, so that the forces' mean is what moves its drift.
    let first = log.iter().position(|e| e.0 != log[0].0).unwrap_or(0);
    let last = log
        .iter()
        .rposition(|e| e.0 != log[log.len() - 1].0)
        .unwrap_or(log.len() - 1);
    let window = &log[first..=last.max(first)];
    let weight = mass * GRAVITY * window.len() as f64;
    let mut forces = [0.0; 5];
    for (_, parts) in window {
        for (sum, part) in forces.iter_mut().zip(parts) {
            *sum += part;
        }
    }
    Ok(Measure {
        drift: (position.x - start) / (measure as f64 * dt),
        sway: (hi - lo) / 2.0,
        forces: forces.map(|f| f / weight),
        dry: dry as f64 / measure as f64,
    })
}
