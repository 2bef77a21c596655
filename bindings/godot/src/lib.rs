//! Keel's Godot 4 addon: `BuoyantBody3D`, `KeelWater` and `KeelOcean` as a GDExtension.
//!
//! The classes are thin shells: they read their properties and the physics state into
//! the plain functions of [`logic`] and apply what those return.

pub mod logic;
