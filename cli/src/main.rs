//! `keel`: see a hull float without a game engine.
//!
//! - `keel demo`: the thesis's scenes, headless, checked and plotted;
//! - `keel simulate <mesh.obj>`: any hull on any water, CSV and plots;
//! - `keel hydrostatics <mesh.obj> --mass M`: equilibrium and stability on flat water.
//!
//! Exit codes: 0 success, 1 internal error, 2 usage, 3 missing file, 4 malformed OBJ,
//! 5 no usable triangle, 6 cannot float, 7 invalid argument (a negative mass...),
//! 8 open hull, 9 an output not written, 10 a demo check warned.

/// `println!` that ignores a closed stdout (`keel ... | head` must not panic).
macro_rules! outln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($t)*);
    }};
}

mod demo;
mod error;
mod hydro;
mod mesh;
mod plot;
mod setup;
mod sim;
mod simulate;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use glam::DVec3;

use crate::error::CliError;
use crate::setup::{MassChoice, WaterKind};

#[derive(Parser)]
#[command(name = "keel", version, about = "Buoyancy and boat physics from the command line")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Simulate the thesis's scenes headless, check them against physics and plot them.
    Demo {
        /// Seconds simulated per scene.
        #[arg(long, default_value_t = 20.0)]
        seconds: f64,
        /// Time step, s.
        #[arg(long, default_value_t = 0.01)]
        dt: f64,
        /// Directory for the plots.
        #[arg(long, default_value = "keel-demo")]
        plot: PathBuf,
        /// Write no plots.
        #[arg(long)]
        no_plot: bool,
    },
    /// Drop a hull from an OBJ file on water and follow it.
    Simulate(SimulateArgs),
    /// Equilibrium draft, heel and trim, and stability (GM) on flat water.
    Hydrostatics(HydrostaticsArgs),
}

#[derive(Args)]
struct MeshArgs {
    /// OBJ mesh of the hull (Y up, length along Z), in metres after --scale. It must be
    /// closed; either winding works (an inside-out mesh is detected and turned).
    mesh: PathBuf,
    /// Scale applied to the mesh's coordinates.
    #[arg(long, default_value_t = 1.0)]
    scale: f32,
    /// Mass, kg.
    #[arg(long, allow_negative_numbers = true)]
    mass: Option<f64>,
    /// Density of the body, kg/m^3 (instead of --mass).
    #[arg(long, allow_negative_numbers = true)]
    density: Option<f64>,
    /// Centre of mass x,y,z in the mesh's coordinates (after --scale); default the hull's centroid.
    #[arg(long, value_parser = setup::parse_vec3, allow_hyphen_values = true)]
    cog: Option<DVec3>,
}

impl MeshArgs {
    fn mass(&self) -> MassChoice {
        MassChoice {
            mass: self.mass,
            density: self.density,
            cog: self.cog,
        }
    }
}

#[derive(Args)]
struct SimulateArgs {
    #[command(flatten)]
    mesh: MeshArgs,
    /// Water surface.
    #[arg(long, value_enum, default_value_t = WaterKind::Flat)]
    water: WaterKind,
    /// Wave height for perlin and gerstner, m.
    #[arg(long, default_value_t = 0.8)]
    wave_height: f64,
    /// Wind speed for spectrum, m/s.
    #[arg(long, default_value_t = 8.0)]
    wind: f64,
    /// Seconds to simulate.
    #[arg(long, default_value_t = 20.0)]
    seconds: f64,
    /// Time step, s.
    #[arg(long, default_value_t = 0.01)]
    dt: f64,
    /// Write every step to this CSV file.
    #[arg(long)]
    csv: Option<PathBuf>,
    /// Write plots (PNG) and plots.json into this directory.
    #[arg(long)]
    plot: Option<PathBuf>,
    /// How the body starts.
    #[arg(long, value_enum, default_value_t = simulate::Start::Drop)]
    start: simulate::Start,
    /// Start heel, degrees.
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    heel: f64,
    /// Start trim, degrees.
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    trim: f64,
    /// Height of the hull's lowest point above the water with --start drop, m.
    #[arg(long, default_value_t = 0.1)]
    drop: f64,
    /// Buoyancy alone: no drag, slamming, air or damping (free oscillations).
    #[arg(long)]
    buoyancy_only: bool,
    /// Linear and angular damping per kg of mass (N per m/s, N m per rad/s).
    #[arg(long, default_value_t = 0.0)]
    damping: f64,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct HydrostaticsArgs {
    #[command(flatten)]
    mesh: MeshArgs,
    /// Start heel for the equilibrium search, degrees.
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    heel: f64,
    /// Start trim for the equilibrium search, degrees.
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    trim: f64,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    /// Write the hull at its equilibrium pose (world coordinates) to this OBJ file.
    #[arg(long)]
    export_obj: Option<PathBuf>,
}

fn run(cli: Cli) -> Result<u8, CliError> {
    match cli.command {
        Command::Demo {
            seconds,
            dt,
            plot,
            no_plot,
        } => {
            if !(seconds > 0.0 && dt > 0.0 && dt <= 1.0 && seconds.is_finite()) {
                return Err(CliError::argument("--seconds and --dt must be positive (dt <= 1 s)"));
            }
            let ok = demo::run(seconds, dt, (!no_plot).then_some(plot.as_path()))?;
            Ok(if ok { 0 } else { 10 })
        }
        Command::Simulate(a) => {
            let args = simulate::Args {
                mass: a.mesh.mass(),
                mesh: a.mesh.mesh,
                scale: a.mesh.scale,
                water: a.water,
                wave_height: a.wave_height,
                wind: a.wind,
                seconds: a.seconds,
                dt: a.dt,
                csv: a.csv,
                plot: a.plot,
                start: a.start,
                heel: a.heel,
                trim: a.trim,
                drop: a.drop,
                buoyancy_only: a.buoyancy_only,
                damping: a.damping,
                json: a.json,
            };
            simulate::run(&args)?;
            Ok(0)
        }
        Command::Hydrostatics(a) => {
            let args = hydro::Args {
                mass: a.mesh.mass(),
                mesh: a.mesh.mesh,
                scale: a.mesh.scale,
                heel: a.heel,
                trim: a.trim,
                json: a.json,
                export_obj: a.export_obj,
            };
            hydro::run(&args)?;
            Ok(0)
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit as u8)
        }
    }
}
