//! `keel simulate`: any OBJ hull dropped on any water, its motion summarised, written to
//! CSV and plotted.

use std::path::{Path, PathBuf};

use glam::DVec3;
use keel::hydrostatics::{self, Pose};
use serde::Serialize;

use crate::error::{CliError, Result};
use crate::mesh;
use crate::plot;
use crate::setup::{self, MassChoice, WaterKind};
use crate::sim::{self, Sample, Scene};

/// How the run starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Start {
    /// At rest, its lowest point `--drop` metres above the water, tilted by --heel/--trim.
    Drop,
    /// At its flat-water equilibrium, then tilted by --heel/--trim about its centre of mass.
    Equilibrium,
}

pub struct Args {
    pub mesh: PathBuf,
    pub scale: f32,
    pub mass: MassChoice,
    pub water: WaterKind,
    pub wave_height: f64,
    pub wind: f64,
    pub seconds: f64,
    pub dt: f64,
    pub csv: Option<PathBuf>,
    pub plot: Option<PathBuf>,
    pub start: Start,
    pub heel: f64,
    pub trim: f64,
    pub drop: f64,
    pub buoyancy_only: bool,
    pub damping: f64,
    pub json: bool,
}

/// The end of a run and what hydrostatics predicts, for people and for scripts.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub name: String,
    pub seconds: f64,
    pub settled: bool,
    pub center_of_mass: [f64; 3],
    /// `keel::hydrostatics::attitude` at the end: heel through the whole turn (180:
    /// upside down), trim within +-90, tilt from world up.
    pub heel_deg: f64,
    pub trim_deg: f64,
    pub tilt_deg: f64,
    /// World up in body axes at the end.
    pub up_local: [f64; 3],
    pub heave_spread: f64,
    pub roll_spread_deg: f64,
    pub roll_period: Option<f64>,
    pub heave_period: Option<f64>,
    pub mean_buoyancy: f64,
    pub weight: f64,
    /// Largest magnitude of the slamming force (the CSV's `slamming_magnitude_n`), N.
    pub peak_slamming: f64,
    pub predicted: Option<Prediction>,
}

/// `keel hydrostatics`' figures for the same body.
#[derive(Clone, Debug, Serialize)]
pub struct Prediction {
    pub center_of_mass_y: f64,
    pub up_local: [f64; 3],
    pub heel_deg: f64,
    pub trim_deg: f64,
    pub tilt_deg: f64,
    /// Depth of the hull's lowest point at rest, m.
    pub draft: f64,
    pub roll_period: Option<f64>,
    pub heave_period: Option<f64>,
    pub gm_t: f64,
}

/// Equilibrium and periods on flat water, when the hull floats at all.
pub fn predict(scene: &Scene) -> Option<Prediction> {
    let body = scene.world.body(scene.body).ok()?;
    let load = hydrostatics::Loading {
        mass: scene.rigid.mass,
        com_local: scene.rigid.com_local,
        water_density: scene.world.desc().water_density,
        gravity: scene.world.desc().gravity,
        level: 0.0,
    };
    let start = Pose {
        position: DVec3::ZERO,
        rotation: glam::DQuat::IDENTITY,
    };
    let eq = hydrostatics::find_equilibrium(body.hull(), &load, &start).ok()?;
    let r = hydrostatics::hydrostatics(body.hull(), &load, &eq.pose, Some(scene.rigid.inertia)).ok()?;
    let up = eq.pose.rotation.inverse() * DVec3::Y;
    let finite = |v: f64| v.is_finite().then_some(v);
    let a = hydrostatics::attitude(eq.pose.rotation);
    Some(Prediction {
        center_of_mass_y: eq.center_of_mass.y,
        up_local: up.to_array(),
        heel_deg: a.heel.to_degrees(),
        trim_deg: a.trim.to_degrees(),
        tilt_deg: a.tilt.to_degrees(),
        draft: r.draft,
        roll_period: finite(r.roll_period),
        heave_period: finite(r.heave_period),
        gm_t: r.gm_t,
    })
}

/// How far the body's last pose is from the hydrostatic rest nearest it.
pub struct Rest {
    /// Turn `find_equilibrium` gives the body, started from its last pose, degrees.
    pub turn_deg: f64,
    /// Rise of the centre of mass it gives it, m.
    pub rise: f64,
    /// Depth of the hull's lowest point at the end of the run, m.
    pub draft: f64,
    /// The same at that equilibrium, where Archimedes holds (`rho V g = m g`), m.
    pub archimedes_draft: f64,
}

/// The hydrostatic rest `find_equilibrium` finds from the body's last pose (whichever of
/// several a body has): near the last pose when the simulation came to rest there.
/// Flat water at y = 0 only.
pub fn distance_to_rest(scene: &Scene) -> Option<Rest> {
    let start = Pose {
        position: scene.rigid.position,
        rotation: scene.rigid.rotation,
    };
    let eq = hydrostatics::find_body_equilibrium(&scene.world, scene.body, scene.rigid.com_local, &start).ok()?;
    let up = |q: glam::DQuat| q.inverse() * DVec3::Y;
    let turn = up(eq.pose.rotation)
        .angle_between(up(scene.rigid.rotation))
        .to_degrees();
    let lowest = |pose: &Pose| {
        scene
            .mesh
            .vertices
            .iter()
            .map(|v| pose.apply(v.as_dvec3()).y)
            .fold(f64::INFINITY, f64::min)
    };
    Some(Rest {
        turn_deg: turn,
        rise: eq.center_of_mass.y - scene.rigid.com().y,
        draft: -lowest(&start),
        archimedes_draft: -lowest(&eq.pose),
    })
}

pub fn summarise(scene: &Scene, samples: &[Sample], seconds: f64) -> Summary {
    let (_, heave_spread) = sim::tail_stats(samples.iter().map(|s| s.com.y), 0.2);
    let (_, roll_spread) = sim::tail_stats(samples.iter().map(|s| s.roll), 0.2);
    let (mean_buoyancy, _) = sim::tail_stats(samples.iter().map(|s| s.forces.buoyancy_force.y), 0.2);
    let (roll, pitch) = sim::roll_pitch(scene.rigid.rotation);
    let size = scene
        .world
        .hull_info(scene.hull)
        .map(|i| (i.bounds_max - i.bounds_min).length())
        .unwrap_or(1.0);
    let skip = seconds * 0.1;
    Summary {
        name: scene.name.clone(),
        seconds,
        settled: heave_spread < 1e-3 * size && roll_spread.to_degrees() < 0.5,
        center_of_mass: scene.rigid.com().to_array(),
        heel_deg: roll.to_degrees(),
        trim_deg: pitch.to_degrees(),
        tilt_deg: hydrostatics::attitude(scene.rigid.rotation).tilt.to_degrees(),
        up_local: (scene.rigid.rotation.inverse() * DVec3::Y).to_array(),
        heave_spread,
        roll_spread_deg: roll_spread.to_degrees(),
        roll_period: sim::period(samples, |s| s.roll, skip),
        heave_period: sim::period(samples, |s| s.com.y, skip),
        mean_buoyancy,
        weight: scene.rigid.mass * scene.world.desc().gravity,
        peak_slamming: samples
            .iter()
            .map(|s| s.forces.slamming_force.length())
            .fold(0.0, f64::max),
        predicted: predict(scene),
    }
}

/// One force of the breakdown.
type Part = fn(&keel::BodyForces) -> DVec3;

/// The force breakdown's parts, as the CSV names them.
const PARTS: [(&str, Part); 7] = [
    ("force", |f| f.force),
    ("buoyancy", |f| f.buoyancy_force),
    ("viscous", |f| f.viscous_force),
    ("pressure_drag", |f| f.pressure_drag_force),
    ("slamming", |f| f.slamming_force),
    ("air", |f| f.air_force),
    ("damping", |f| f.damping_force),
];

/// One row per step: time, centre of mass, heel and trim, then every force of the
/// breakdown (the total first) as x, y, z and magnitude in N, the torque about the centre
/// of mass and the submerged volume.
pub fn write_csv(path: &Path, samples: &[Sample]) -> Result<()> {
    let fail = |e: csv::Error| CliError::output(path, e);
    let mut w = csv::Writer::from_path(path).map_err(fail)?;
    let mut header: Vec<String> = ["time_s", "com_x_m", "com_y_m", "com_z_m", "roll_deg", "pitch_deg"]
        .map(String::from)
        .to_vec();
    for (name, _) in PARTS {
        for axis in ["x", "y", "z", "magnitude"] {
            header.push(format!("{name}_{axis}_n"));
        }
    }
    header.extend(["torque_x_nm", "torque_y_nm", "torque_z_nm", "submerged_volume_m3"].map(String::from));
    w.write_record(&header).map_err(fail)?;
    for s in samples {
        let f = &s.forces;
        let mut row = vec![
            s.time,
            s.com.x,
            s.com.y,
            s.com.z,
            s.roll.to_degrees(),
            s.pitch.to_degrees(),
        ];
        for (_, part) in PARTS {
            let v = part(f);
            row.extend([v.x, v.y, v.z, v.length()]);
        }
        row.extend([f.torque.x, f.torque.y, f.torque.z, f.submerged_volume]);
        w.write_record(row.iter().map(|v| v.to_string())).map_err(fail)?;
    }
    w.flush().map_err(|e| CliError::output(path, e))
}

fn check(args: &Args) -> Result<()> {
    if !(args.dt.is_finite() && args.dt > 0.0 && args.dt <= 1.0) {
        return Err(CliError::argument(format!("--dt must be in (0, 1] s, got {}", args.dt)));
    }
    if !(args.seconds.is_finite() && args.seconds > 0.0 && args.seconds / args.dt <= 1e7) {
        return Err(CliError::argument(format!(
            "--seconds must be positive and at most 1e7 steps, got {}",
            args.seconds
        )));
    }
    if !(args.damping.is_finite() && args.damping >= 0.0) {
        return Err(CliError::argument("--damping must be >= 0"));
    }
    Ok(())
}

pub fn run(args: &Args) -> Result<()> {
    check(args)?;
    let mesh = mesh::load_obj(&args.mesh)?.scaled(args.scale);
    let forces = if args.buoyancy_only {
        0
    } else if args.damping > 0.0 {
        keel::forces::FORCE_DEFAULT | keel::forces::FORCE_DAMPING
    } else {
        keel::forces::FORCE_DEFAULT
    };
    let mut built = setup::build(&mesh, &args.mass, forces)?;
    if args.damping > 0.0 {
        let mut desc = *built.world.body(built.body)?.desc();
        desc.linear_damping = args.damping * built.load.mass;
        desc.angular_damping = args.damping * built.load.mass;
        built.world.set_body_desc(built.body, &desc)?;
    }
    setup::set_water(&mut built.world, args.water, args.wave_height, args.wind)?;
    let tilt = setup::tilt(args.heel, args.trim);
    let pose = match args.start {
        Start::Equilibrium => {
            let eq = setup::equilibrium(&built, glam::DQuat::IDENTITY)?;
            let rotation = tilt * eq.pose.rotation;
            Pose {
                position: eq.center_of_mass - rotation * built.load.com_local,
                rotation,
            }
        }
        Start::Drop => {
            let lowest = mesh
                .vertices
                .iter()
                .map(|v| (tilt * v.as_dvec3()).y)
                .fold(f64::INFINITY, f64::min);
            Pose {
                position: DVec3::new(0.0, args.drop - lowest, 0.0),
                rotation: tilt,
            }
        }
    };
    let name = args
        .mesh
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "hull".into());
    let mut scene = setup::scene(&name, built, mesh, pose)?;
    let samples = sim::run(&mut scene, args.seconds, args.dt, &name)?;
    if let Some(path) = &args.csv {
        write_csv(path, &samples)?;
    }
    if let Some(dir) = &args.plot {
        let panels = plot::write_all(dir, "", &scene, &samples)?;
        plot::write_layout(dir, &panels)?;
    }
    let summary = summarise(&scene, &samples, args.seconds);
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&summary).unwrap_or_default());
    } else {
        print_summary(&summary);
    }
    Ok(())
}

/// `value` with `decimals` decimals, without the sign of a value that rounds to zero.
pub fn fixed(value: f64, decimals: usize) -> String {
    crate::plot::no_negative_zero(format!("{value:.decimals$}"))
}

pub fn print_summary(s: &Summary) {
    let c = s.center_of_mass;
    outln!("{}: {:.1} s simulated", s.name, s.seconds);
    outln!(
        "  end: centre of mass ({}, {}, {}) m, heel {} deg, trim {} deg (tilt {} deg{}), {}",
        fixed(c[0], 4),
        fixed(c[1], 4),
        fixed(c[2], 4),
        fixed(s.heel_deg, 2),
        fixed(s.trim_deg, 2),
        fixed(s.tilt_deg, 1),
        if s.tilt_deg > 90.0 { ", upside down" } else { "" },
        if s.settled { "settled" } else { "still moving" }
    );
    let p = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.3} s"));
    outln!(
        "  measured periods: roll {}, heave {}",
        p(s.roll_period),
        p(s.heave_period)
    );
    outln!(
        "  vertical buoyancy over the last fifth: {:.1} N (weight {:.1} N); peak slamming magnitude {:.1} N (the CSV's slamming_magnitude_n)",
        s.mean_buoyancy,
        s.weight,
        s.peak_slamming
    );
    if let Some(h) = &s.predicted {
        outln!(
            "  hydrostatics: rest centre of mass y {:.4} m, draft {:.4} m, heel {} deg, trim {} deg (tilt {} deg), GM_T {:.4} m, roll period {}, heave period {}",
            h.center_of_mass_y,
            h.draft,
            fixed(h.heel_deg, 2),
            fixed(h.trim_deg, 2),
            fixed(h.tilt_deg, 1),
            h.gm_t,
            p(h.roll_period),
            p(h.heave_period)
        );
    }
}
