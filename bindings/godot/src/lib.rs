//! Keel's Godot 4 addon: `BuoyantBody3D`, `KeelWater`, `KeelOcean` and
//! `KeelGerstnerWave` as a GDExtension (gdext, Godot 4.3 API, editor docs from these
//! doc comments).
//!
//! The classes ([`classes`]) are thin shells: they read their properties and the
//! physics state into the plain functions of [`logic`], which the unit tests run
//! without Godot, and apply what those return.

use godot::prelude::*;

pub mod classes;
pub mod convert;
pub mod logic;

/// The library Godot loads; its entry symbol is `gdext_rust_init`.
struct KeelExtension;

#[gdextension]
unsafe impl ExtensionLibrary for KeelExtension {}
