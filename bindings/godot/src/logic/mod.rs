//! The binding's logic in plain Rust, tested without a running Godot: the Godot classes
//! only read properties and the physics state into these functions and apply what they
//! return. No physics here either: every number a body feels comes from keel.

pub mod apply;
mod emulated;
pub mod fleet;
pub mod handoff;
pub mod mesh;
pub mod ocean;
pub mod params;
pub mod rollback;
pub mod state;
pub mod water;
