//! # Keel
//!
//! Forces that water and air put on floating rigid bodies with triangle-mesh hulls:
//! Jacques Kerner's water interaction model, made exact where it approximates.
//!
//! The host engine integrates its rigid bodies; keel answers "what force and torque act
//! on this body now?". The engine is plain data in, plain data out:
//!
//! - [`hull`]: mesh validation, welding, volume and centroid;
//! - [`water`]: the water surface models;
//! - [`clip`]: Kerner's clipping of triangles at the waterline;
//! - [`forces`]: one module per force, formula and source in its documentation;
//! - [`body`]: a body's parameters, state, forces and last-step detail;
//! - [`world`]: handles, stepping, parallelism;
//! - [`sections`]: a step's time, section by section (benchmarks, `profile-sections`);
//! - [`ffi`]: the C ABI (`include/keel.h`), the only `unsafe` code but for a one-line
//!   memory prefetch hint (`prefetch`, private), AVX-512 packing of rows (`pack`,
//!   private) and the helper thread's shares (`team`, private).
//!
//! Every module but `ffi` is marked `cbindgen:ignore`: the header shows the C ABI only.
//!
//! Units are SI, Y is up, gravity points along -Y, and a triangle `(a, b, c)` faces
//! `cross(b - a, c - a)`.

/// cbindgen:ignore
pub mod body;
/// cbindgen:ignore
pub mod clip;
/// cbindgen:ignore
pub mod error;
pub mod ffi;
/// cbindgen:ignore
mod flat_moments;
/// cbindgen:ignore
pub mod forces;
/// cbindgen:ignore
mod handle;
/// cbindgen:ignore
pub mod hull;
/// cbindgen:ignore
pub mod hydrostatics;
/// cbindgen:ignore
pub mod inertia;

mod lanes;
/// cbindgen:ignore
mod pack;
/// cbindgen:ignore
mod prefetch;
/// cbindgen:ignore
pub mod sections;
mod team;
/// cbindgen:ignore
pub mod water;
/// cbindgen:ignore
mod whole_triangles;
/// cbindgen:ignore
pub mod world;

pub use body::{Body, BodyDesc, BodyForces, BodyState, BuoyancyModel, PointForce};
pub use error::{Error, ErrorKind, Result};
pub use hull::{Hull, HullDesc, HullInfo};
pub use water::{
    FlatWater, GerstnerWater, GerstnerWave, HeightfieldWater, PerlinWater, Water, WaterQuery, WaterSample, WaterSurface,
};
pub use world::{BodyId, HullId, World, WorldDesc};
