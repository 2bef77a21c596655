//! # Keel
//!
//! Forces that water and air put on floating rigid bodies whose hulls are triangle
//! meshes: Jacques Kerner's water interaction model, made exact where it approximates.
//! Your engine integrates its rigid bodies; Keel answers "what force and torque act on
//! this body now?".
//!
//! ## A body that floats
//!
//! ```
//! use keel::glam::{DVec3, Vec3};
//! use keel::{BodyDesc, BodyState, World, WorldDesc};
//!
//! let mut world = World::new(&WorldDesc::default())?; // flat water at y = 0
//! let hull = world.create_box_hull(Vec3::new(2.0, 0.5, 2.0))?; // a 2 m x 0.5 m x 2 m raft
//! let mass = 1000.0;
//! let body = world.create_body(&BodyDesc { hull, mass, ..BodyDesc::default() })?;
//!
//! // Your engine's loop: its state in, a force and a torque out, its integrator on.
//! let dt = 1.0 / 60.0;
//! let mut state = BodyState { position: DVec3::new(0.0, 0.5, 0.0), ..BodyState::default() };
//! for _ in 0..600 {
//!     state.center_of_mass = state.position; // world coordinates
//!     let forces = world.step_body(body, &state, dt)?;
//!     // `force` excludes gravity: the engine adds its own.
//!     state.linear_velocity += (forces.force / mass - DVec3::Y * 9.81) * dt;
//!     state.position += state.linear_velocity * dt;
//! }
//! // Archimedes: 1000 kg displace 1 m^3, a draft of 0.25 m under a 2 m x 2 m raft.
//! assert!((state.position.y - 0.0).abs() < 0.01, "{}", state.position.y);
//! # Ok::<(), keel::Error>(())
//! ```
//!
//! What comes back ([`BodyForces`]) is in world axes: `force` is the sum of every enabled
//! force (buoyancy, skin friction, pressure drag, slamming, air, damping; gravity is
//! not in it), `torque` is about [`BodyState::center_of_mass`] (world coordinates; the
//! angular velocity is in world axes too), and the parts are given one by one for
//! tuning. A step remembers what slamming needs for the next one: call
//! [`World::step_body`] once per physics step (twice for one step counts as two steps),
//! or [`World::step_bodies`] for many bodies at once, in parallel, with the same bits.
//!
//! ## Water, waves and the pose at rest
//!
//! ```
//! use keel::glam::{DVec3, Vec3};
//! use keel::{BodyDesc, BodyState, GerstnerWater, GerstnerWave, Water, World, WorldDesc};
//!
//! let mut world = World::new(&WorldDesc { water_density: 1025.0, ..WorldDesc::default() })?;
//! let wave = GerstnerWave {
//!     amplitude: 0.5,
//!     wavelength: 40.0,
//!     direction: keel::glam::DVec2::X,
//!     steepness: 0.3,
//!     phase: 0.0,
//! };
//! world.set_water(Water::Gerstner(GerstnerWater::new(&[wave], 0.0, world.desc().gravity)?));
//! world.set_time(2.0)?;
//! let height = world.water_height(10.0, 3.0);
//! assert!(height.abs() <= 0.5 + 1e-9);
//!
//! // A hull's inertia at uniform density, for an engine's rigid body:
//! let hull = world.create_box_hull(Vec3::new(4.0, 1.0, 2.0))?;
//! let (moments, axes) = world.hull_inertia(hull, 2000.0)?;
//! assert!(moments.x <= moments.y && moments.y <= moments.z);
//! let _ = (axes, DVec3::ZERO, BodyState::default(), BodyDesc::default());
//! # Ok::<(), keel::Error>(())
//! ```
//!
//! ## Modules
//!
//! - [`world`]: hulls and bodies by id, stepping one body or a batch in parallel;
//! - [`body`]: a body's parameters ([`BodyDesc`]), state, forces and last-step detail;
//! - [`hull`]: mesh validation, welding, volume, centroid; [`inertia`]: principal axes;
//! - [`water`]: flat, Perlin, Gerstner, spectra, heightfields, the host's callback;
//! - [`forces`]: one module per force, each with its formula and source;
//! - [`hydrostatics`]: flat-water analysis and the stable rest pose;
//! - [`clip`]: Kerner's clipping of triangles at the waterline;
//! - [`snapshot`]: rollback and replay: a body's and a world's state to bytes and back;
//! - [`tasks`]: the host's job system, in place of keel's threads;
//! - [`ffi`]: the C ABI (`include/keel.h`), the only `unsafe` FFI code;
//! - [`sections`]: a step's time, section by section (benchmarks, `profile-sections`).
//!
//! `docs/ARCHITECTURE.md` in the repository draws a step's stages and how they are made
//! fast.
//!
//! Units are SI, Y is up, gravity points along -Y, and a triangle `(a, b, c)` faces
//! `cross(b - a, c - a)` (Unity's and OpenGL's winding; Godot meshes: `flip_winding`).

pub mod body;
pub mod clip;
pub mod error;
pub mod ffi;
mod flat_moments;
pub mod forces;
mod handle;
pub mod hull;
pub mod hydrostatics;
pub mod inertia;

mod lanes;
mod pack;
mod prefetch;
pub mod sections;
pub mod snapshot;
mod step;
pub mod tasks;
mod team;
pub mod water;
mod whole_triangles;
pub mod world;

/// The math types of the API (`DVec3`, `DQuat`, ...), re-exported so that callers use
/// the same version.
pub use glam;

pub use body::{Body, BodyDesc, BodyForces, BodyState, BuoyancyModel, PointForce};
pub use error::{Error, ErrorKind, Result};
pub use hull::{Hull, HullDesc, HullInfo};
pub use water::{
    FlatWater, GerstnerVelocities, GerstnerWater, GerstnerWave, HeightfieldWater, PerlinWater, Water, WaterQuery,
    WaterSample, WaterSurface,
};
pub use world::{BodyId, HullId, World, WorldDesc};
