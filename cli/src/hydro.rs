//! `keel hydrostatics`: equilibrium and stability on flat water, the naval architect's
//! view of a hull. Every figure comes from `keel::hydrostatics`.

use std::path::PathBuf;

use glam::{DQuat, DVec3};
use keel::hydrostatics::{self, Pose, Report};
use serde::Serialize;

use crate::error::Result;
use crate::mesh;
use crate::setup::{self, MassChoice};
use crate::simulate::fixed;

/// What `keel hydrostatics` was asked.
pub struct Args {
    pub mesh: PathBuf,
    pub scale: f32,
    pub mass: MassChoice,
    pub heel: f64,
    pub trim: f64,
    pub json: bool,
    pub export_obj: Option<PathBuf>,
}

/// The figures at one pose, for JSON.
#[derive(Serialize)]
struct Figures {
    position: [f64; 3],
    rotation: [f64; 4],
    /// `keel::hydrostatics::attitude`: heel through the whole turn (180: upside down),
    /// trim within +-90.
    heel_deg: f64,
    trim_deg: f64,
    /// Angle between the body's up and world up.
    tilt_deg: f64,
    upside_down: bool,
    /// World up in body axes: the attitude whatever the heading.
    up_local: [f64; 3],
    draft: f64,
    volume: f64,
    displacement: f64,
    center_of_buoyancy: [f64; 3],
    center_of_mass: [f64; 3],
    waterplane_area: f64,
    center_of_flotation: [f64; 2],
    kb: f64,
    kg: f64,
    bm_t: f64,
    bm_l: f64,
    /// About the roll axis: the waterplane's longer principal axis.
    gm_t: f64,
    /// About the pitch axis: the shorter principal axis.
    gm_l: f64,
    /// The roll axis's world (x, z) direction.
    roll_axis: [f64; 2],
    /// Angle from the body's length (local Z, horizontal) to the roll axis, degrees.
    roll_axis_from_length_deg: f64,
    heave_period: Option<f64>,
    roll_period: Option<f64>,
    pitch_period: Option<f64>,
}

impl Figures {
    fn new(pose: &Pose, r: &Report) -> Self {
        let a = hydrostatics::attitude(pose.rotation);
        let finite = |v: f64| v.is_finite().then_some(v);
        let q = pose.rotation;
        let heading = glam::DVec2::new(a.heading.sin(), a.heading.cos());
        Self {
            position: pose.position.to_array(),
            rotation: [q.x, q.y, q.z, q.w],
            heel_deg: a.heel.to_degrees(),
            trim_deg: a.trim.to_degrees(),
            tilt_deg: a.tilt.to_degrees(),
            upside_down: a.upside_down(),
            up_local: (pose.rotation.inverse() * DVec3::Y).to_array(),
            draft: r.draft,
            volume: r.volume,
            displacement: r.displacement,
            center_of_buoyancy: r.center_of_buoyancy.to_array(),
            center_of_mass: r.center_of_mass.to_array(),
            waterplane_area: r.waterplane_area,
            center_of_flotation: r.center_of_flotation.to_array(),
            kb: r.kb,
            kg: r.kg,
            bm_t: r.bm_t,
            bm_l: r.bm_l,
            gm_t: r.gm_t,
            gm_l: r.gm_l,
            roll_axis: r.roll_axis.to_array(),
            roll_axis_from_length_deg: heading.angle_to(r.roll_axis).to_degrees(),
            heave_period: finite(r.heave_period),
            roll_period: finite(r.roll_period),
            pitch_period: finite(r.pitch_period),
        }
    }
}

#[derive(Serialize)]
struct Output {
    mesh: String,
    mass: f64,
    center_of_mass_local: [f64; 3],
    water_density: f64,
    gravity: f64,
    /// At rest: heave, heel and trim solved for a stable equilibrium.
    equilibrium: Figures,
    /// At the start attitude (upright unless --heel/--trim), heave alone solved.
    start: Figures,
    warnings: Vec<String>,
}

/// Runs the command; returns the warnings (printed already).
pub fn run(args: &Args) -> Result<()> {
    let mesh = mesh::load_obj(&args.mesh)?.scaled(args.scale);
    let built = setup::build(&mesh, &args.mass, keel::forces::FORCE_DEFAULT)?;
    let load = built.load;
    let body = built.world.body(built.body)?;
    let hull = body.hull();
    let start = Pose {
        position: DVec3::ZERO,
        rotation: setup::tilt(args.heel, args.trim),
    };
    let eq = hydrostatics::find_equilibrium(hull, &load, &start)?;
    let at_rest = hydrostatics::hydrostatics(hull, &load, &eq.pose, None)?;
    let level_pose = hydrostatics::float_level(hull, &load, &start)?;
    let level = hydrostatics::hydrostatics(hull, &load, &level_pose, None)?;
    let mut warnings = Vec::new();
    let what = if args.heel == 0.0 && args.trim == 0.0 {
        "upright"
    } else {
        "at the start attitude"
    };
    let rest = Figures::new(&eq.pose, &at_rest);
    if level.gm_t < 0.0 {
        warnings.push(format!(
            "GM_T {what} is negative ({:.4} m): the body capsizes; it comes to rest heeled {:.1} deg, trimmed {:.1} deg{}",
            level.gm_t,
            rest.heel_deg,
            rest.trim_deg,
            if rest.upside_down { " (upside down)" } else { "" },
        ));
    }
    if level.gm_l < 0.0 {
        warnings.push(format!(
            "GM_L {what} is negative ({:.4} m): the body pitches over",
            level.gm_l
        ));
    }
    if let Some(path) = &args.export_obj {
        let pose = eq.pose;
        mesh::write_obj(path, &mesh, |v| pose.apply(v.as_dvec3()))?;
    }
    let output = Output {
        mesh: args.mesh.display().to_string(),
        mass: load.mass,
        center_of_mass_local: load.com_local.to_array(),
        water_density: load.water_density,
        gravity: load.gravity,
        equilibrium: rest,
        start: Figures::new(&level_pose, &level),
        warnings: warnings.clone(),
    };
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&output).unwrap_or_default());
    } else {
        print_text(&output, eq.pose.rotation);
    }
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    Ok(())
}

fn print_text(o: &Output, rotation: DQuat) {
    let v = |a: [f64; 3]| format!("({:.4}, {:.4}, {:.4})", a[0], a[1], a[2]);
    let period = |p: Option<f64>| p.map_or("none (not stable)".to_string(), |p| format!("{p:.3} s"));
    let e = &o.equilibrium;
    outln!(
        "{}: {:.3} kg, centre of mass {} (body axes)",
        o.mesh,
        o.mass,
        v(o.center_of_mass_local)
    );
    outln!(
        "water {} kg/m^3, gravity {} m/s^2; the body's length along local Z, its beam along local X",
        o.water_density,
        o.gravity
    );
    outln!();
    outln!("equilibrium on flat water (y = 0)");
    outln!(
        "  draft                 {:10.4} m   (lowest point below the water)",
        e.draft
    );
    outln!(
        "  heel                  {:>10} deg   (+X side up; 180 is upside down)",
        fixed(e.heel_deg, 3)
    );
    outln!(
        "  trim                  {:>10} deg   (+Z end down)",
        fixed(e.trim_deg, 3)
    );
    outln!(
        "  tilt                  {:>10} deg   (body up from world up: {})",
        fixed(e.tilt_deg, 3),
        if e.upside_down { "upside down" } else { "right side up" }
    );
    outln!("  body origin           {} m", v(e.position));
    outln!(
        "  rotation (x y z w)    ({:.5}, {:.5}, {:.5}, {:.5})",
        rotation.x,
        rotation.y,
        rotation.z,
        rotation.w
    );
    outln!("hydrostatics at rest");
    outln!(
        "  displaced volume      {:10.5} m^3 ({:.2} kg)",
        e.volume,
        e.displacement
    );
    outln!("  centre of buoyancy    {} m", v(e.center_of_buoyancy));
    outln!("  waterplane area       {:10.5} m^2", e.waterplane_area);
    outln!(
        "  centre of flotation   ({:.4}, {:.4}) m (x, z)",
        e.center_of_flotation[0],
        e.center_of_flotation[1]
    );
    outln!("  KB                    {:10.4} m", e.kb);
    outln!("  KG                    {:10.4} m", e.kg);
    outln!("  BM_T                  {:10.4} m", e.bm_t);
    outln!("  BM_L                  {:10.4} m", e.bm_l);
    outln!(
        "  GM_T                  {:10.4} m   (roll: about the roll axis)",
        e.gm_t
    );
    outln!(
        "  GM_L                  {:10.4} m   (pitch: about the pitch axis)",
        e.gm_l
    );
    outln!(
        "  roll axis             ({:.4}, {:.4}) (world x, z): the waterplane's longer principal axis, {:.1} deg from the body's length; the pitch axis is the shorter one, across it",
        e.roll_axis[0],
        e.roll_axis[1],
        e.roll_axis_from_length_deg
    );
    outln!("  heave period          {}", period(e.heave_period));
    outln!("  roll period           {}", period(e.roll_period));
    outln!("  pitch period          {}", period(e.pitch_period));
    outln!("  (natural periods without added mass: the motion `keel simulate` shows)");
    let s = &o.start;
    outln!(
        "at the start attitude, heave solved: GM_T {:.4} m, GM_L {:.4} m",
        s.gm_t,
        s.gm_l
    );
}
