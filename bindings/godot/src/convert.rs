//! Godot's `real` (f32) math types to keel's f64 glam types and back: field copies, no
//! engine calls.

use glam::{DAffine3, DMat3, DVec2, DVec3};
use godot::prelude::{Basis, Transform3D, Vector2, Vector3};

/// A Godot vector in f64.
pub fn dvec3(v: Vector3) -> DVec3 {
    DVec3::new(f64::from(v.x), f64::from(v.y), f64::from(v.z))
}

/// A Godot 2D vector in f64.
pub fn dvec2(v: Vector2) -> DVec2 {
    DVec2::new(f64::from(v.x), f64::from(v.y))
}

/// A keel vector as Godot's.
pub fn vector3(v: DVec3) -> Vector3 {
    Vector3::new(v.x as f32, v.y as f32, v.z as f32)
}

/// A Godot basis as a matrix of its columns (the transformed axes).
pub fn dmat3(b: Basis) -> DMat3 {
    DMat3::from_cols(dvec3(b.col_a()), dvec3(b.col_b()), dvec3(b.col_c()))
}

/// A Godot transform as an affine map.
pub fn daffine3(t: Transform3D) -> DAffine3 {
    DAffine3::from_mat3_translation(dmat3(t.basis), dvec3(t.origin))
}
