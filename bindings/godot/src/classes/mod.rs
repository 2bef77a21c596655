//! The Godot classes: thin shells over [`crate::logic`].

pub mod body;
pub mod body_params;
pub mod callable_water;
pub mod direct;
pub mod ocean;
pub mod tasks;
pub mod water;
pub mod wave;
