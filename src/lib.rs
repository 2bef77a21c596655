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
//! The source is a house in layers, each module importing only from those listed before
//! it (`tests/layers.rs` reads the `mod` lines below, in their order, and fails
//! on an import that runs back up):
//!
//! - [`error`]: what every call returns when it fails;
//! - [`runtime`]: the host's job system ([`runtime::tasks`]), keel's threads, a step's
//!   time section by section ([`runtime::profile`]);
//! - `handle`: generational ids ([`HullId`], [`BodyId`]);
//! - [`water`]: flat, Perlin, Gerstner, spectra, heightfields, the host's callback;
//! - [`snapshot`]: the byte format of rollback and replay;
//! - [`hull`]: mesh validation, welding, volume, centroid, the triangles' columns;
//!   [`hull::clip`]: Kerner's clipping at the waterline; [`hull::inertia`]: principal axes;
//! - [`forces`]: one module per force, each with its formula and source;
//! - `loops`: the step's vector loops over whole triangles and over small bodies in lanes;
//! - [`body`]: a body's parameters ([`BodyDesc`]), state, forces and what a step keeps;
//! - `step`: a step, stage by stage, and the detail getters that replay one;
//! - [`world`]: hulls and bodies by id, stepping one body or a batch in parallel, a
//!   world's snapshot;
//! - [`hydrostatics`]: flat-water analysis and the stable rest pose;
//! - [`host`]: a host's rigid body integrated with keel's forces (tests, examples, CLI);
//! - [`ffi`]: the C ABI (`include/keel.h`).
//!
//! `docs/ARCHITECTURE.md` in the repository draws a step's stages and how they are made
//! fast.
//!
//! Units are SI, Y is up, gravity points along -Y, and a triangle `(a, b, c)` faces
//! `cross(b - a, c - a)` (Unity's and OpenGL's winding; Godot meshes: `flip_winding`).

#![warn(missing_docs)]

// The layers, bottom first: each module imports only from those listed before it
// (`tests/layers.rs` reads this order; the blank lines keep rustfmt from sorting it).
pub mod error;

pub mod runtime;

mod handle;

pub mod water;

pub mod snapshot;

pub mod hull;

pub mod forces;

mod loops;

pub mod body;

mod step;

pub mod world;

pub mod hydrostatics;

pub mod host;

pub mod ffi;

/// Moved to [`hull::clip`]; this path goes in the next release.
#[deprecated(note = "moved to keel::hull::clip")]
pub mod clip {
    pub use crate::hull::clip::*;
}

/// Moved to [`hull::inertia`]; this path goes in the next release.
#[deprecated(note = "moved to keel::hull::inertia")]
pub mod inertia {
    pub use crate::hull::inertia::*;
}

/// Moved to [`runtime::profile`]; this path goes in the next release.
#[deprecated(note = "moved to keel::runtime::profile")]
pub mod sections {
    pub use crate::runtime::profile::*;
}

/// Moved to [`runtime::tasks`]; this path goes in the next release.
#[deprecated(note = "moved to keel::runtime::tasks")]
pub mod tasks {
    pub use crate::runtime::tasks::*;
}

/// The math types of the API (`DVec3`, `DQuat`, ...), re-exported so that callers use
/// the same version.
pub use glam;

pub use body::{Body, BodyDesc, BodyForces, BodyState, BuoyancyModel, PointForce};
pub use error::{Error, ErrorKind, Result};
pub use handle::{BodyId, HullId};
pub use hull::{Hull, HullDesc, HullInfo};
pub use water::{
    FlatWater, FroudeKrylov, GerstnerVelocities, GerstnerWater, GerstnerWave, HeightfieldWater, PerlinWater, Water,
    WaterQuery, WaterSample, WaterSurface,
};
pub use world::{World, WorldDesc};

/// README.md, whose Rust snippet `cargo test --doc` compiles and runs as written (its C
/// and C++ snippets: `tests/readme_snippets.rs`).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeSnippets;
