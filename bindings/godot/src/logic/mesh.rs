//! A Godot mesh as a keel hull: the surfaces' triangles merged, every node transform
//! between the mesh and the body baked into the vertices (scale included), and the
//! winding flipped to keel's convention.
//!
//! Godot's front faces wind clockwise seen from outside, so `cross(b - a, c - a)` points
//! *into* a Godot mesh; keel's outward normal is that cross product, hence
//! `HullDesc::flip_winding`. A transform with a reflection (a negative scale) turns the
//! winding over once more.

use glam::{DAffine3, DMat3, Vec3};
use keel::HullDesc;

use super::state::rotation_of;

/// One triangle surface of a mesh: Godot's `ARRAY_VERTEX` and `ARRAY_INDEX` (empty when
/// the surface is not indexed: every three vertices are a triangle).
#[derive(Clone, Copy, Debug)]
pub struct Surface<'a> {
    /// Vertex positions in the mesh's own space.
    pub vertices: &'a [Vec3],
    /// Three indices per triangle, or none.
    pub indices: &'a [i32],
}

/// A mesh baked into a body's frame, ready for [`HullDesc`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BakedMesh {
    /// Body-local vertices (the body's frame is its origin and rotation, without scale).
    pub vertices: Vec<Vec3>,
    /// Three per triangle, in the source's order.
    pub indices: Vec<u32>,
    /// Whether keel must flip the winding (Godot's clockwise, unless reflected).
    pub flip_winding: bool,
}

impl BakedMesh {
    /// The hull description of this mesh.
    pub fn hull_desc(&self) -> HullDesc<'_> {
        HullDesc {
            vertices: &self.vertices,
            indices: &self.indices,
            flip_winding: self.flip_winding,
        }
    }
}

/// The transform from a mesh's space to its body's keel frame: the body's global
/// transform without its scale, inverted, after the mesh node's global transform. The
/// body's own scale and every scale between body and mesh end up in the vertices.
pub fn mesh_to_body(body_global: DAffine3, mesh_global: DAffine3) -> DAffine3 {
    let rigid = DAffine3::from_mat3_translation(
        DMat3::from_quat(rotation_of(body_global.matrix3)),
        body_global.translation,
    );
    rigid.inverse() * mesh_global
}

/// Merges `surfaces` into one body-local triangle list through `to_body`.
pub fn bake(surfaces: &[Surface<'_>], to_body: DAffine3) -> Result<BakedMesh, String> {
    let mut out = BakedMesh {
        flip_winding: to_body.matrix3.determinant() > 0.0,
        ..BakedMesh::default()
    };
    for (s, surface) in surfaces.iter().enumerate() {
        let base = u32::try_from(out.vertices.len()).map_err(|_| "the mesh has too many vertices".to_string())?;
        let count = surface.vertices.len();
        if surface.indices.is_empty() {
            if count % 3 != 0 {
                return Err(format!(
                    "surface {s} has {count} vertices and no indices: not a triangle list"
                ));
            }
            out.indices.extend((0..count as u32).map(|i| base + i));
        } else {
            if surface.indices.len() % 3 != 0 {
                return Err(format!(
                    "surface {s} has {} indices, not a multiple of three",
                    surface.indices.len()
                ));
            }
            for &i in surface.indices {
                if i < 0 || i as usize >= count {
                    return Err(format!("surface {s} has index {i} outside its {count} vertices"));
                }
                out.indices.push(base + i as u32);
            }
        }
        out.vertices.extend(
            surface
                .vertices
                .iter()
                .map(|v| to_body.transform_point3(v.as_dvec3()).as_vec3()),
        );
    }
    if out.indices.is_empty() {
        return Err("the mesh has no triangles".to_string());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use glam::{DQuat, DVec3};
    use keel::hull::box_mesh;
    use keel::{World, WorldDesc};

    use super::*;

    /// keel's box turned to Godot's convention (clockwise front faces).
    fn godot_box(size: Vec3) -> (Vec<Vec3>, Vec<i32>) {
        let (vertices, indices) = box_mesh(size);
        let indices = indices
            .chunks(3)
            .flat_map(|t| [t[0] as i32, t[2] as i32, t[1] as i32])
            .collect();
        (vertices, indices)
    }

    fn hull_info(mesh: &BakedMesh) -> keel::HullInfo {
        let mut world = World::new(&WorldDesc::default()).unwrap();
        let id = world.create_hull(&mesh.hull_desc()).unwrap();
        world.hull_info(id).unwrap()
    }

    #[test]
    fn godot_winding_becomes_an_outward_hull() {
        let (vertices, indices) = godot_box(Vec3::new(2.0, 1.0, 3.0));
        let mesh = bake(
            &[Surface {
                vertices: &vertices,
                indices: &indices,
            }],
            DAffine3::IDENTITY,
        )
        .unwrap();
        assert!(mesh.flip_winding);
        let info = hull_info(&mesh);
        assert!(info.is_closed);
        // Right side out as given: keel had nothing to turn over.
        assert_eq!(info.reoriented_count, 0);
        assert!((info.volume - 6.0).abs() < 1e-9, "volume {}", info.volume);
    }

    #[test]
    fn node_and_body_scale_are_baked() {
        let (vertices, indices) = godot_box(Vec3::ONE);
        // Body scaled 2 and turned; its mesh child offset 1 m up and scaled (1, 3, 1).
        let body = DAffine3::from_scale_rotation_translation(
            DVec3::splat(2.0),
            DQuat::from_rotation_y(0.4),
            DVec3::new(5.0, 0.0, -2.0),
        );
        let child = DAffine3::from_scale_rotation_translation(DVec3::new(1.0, 3.0, 1.0), DQuat::IDENTITY, DVec3::Y);
        let to_body = mesh_to_body(body, body * child);
        let mesh = bake(
            &[Surface {
                vertices: &vertices,
                indices: &indices,
            }],
            to_body,
        )
        .unwrap();
        let info = hull_info(&mesh);
        assert!((info.volume - 2.0 * 6.0 * 2.0).abs() < 1e-6, "volume {}", info.volume);
        // The child's offset doubles with the body's scale.
        assert!(
            (info.centroid - DVec3::new(0.0, 2.0, 0.0)).length() < 1e-6,
            "{}",
            info.centroid
        );
    }

    #[test]
    fn a_reflection_turns_the_winding_back() {
        let (vertices, indices) = godot_box(Vec3::ONE);
        let mirror = DAffine3::from_scale(DVec3::new(-1.0, 1.0, 1.0));
        let mesh = bake(
            &[Surface {
                vertices: &vertices,
                indices: &indices,
            }],
            mirror,
        )
        .unwrap();
        assert!(!mesh.flip_winding);
        let info = hull_info(&mesh);
        assert_eq!(info.reoriented_count, 0);
        assert!((info.volume - 1.0).abs() < 1e-9);
    }

    #[test]
    fn surfaces_merge_and_unindexed_surfaces_are_triangle_lists() {
        let (vertices, indices) = godot_box(Vec3::ONE);
        let flat: Vec<Vec3> = indices.iter().map(|&i| vertices[i as usize] + Vec3::X * 3.0).collect();
        let mesh = bake(
            &[
                Surface {
                    vertices: &vertices,
                    indices: &indices,
                },
                Surface {
                    vertices: &flat,
                    indices: &[],
                },
            ],
            DAffine3::IDENTITY,
        )
        .unwrap();
        assert_eq!(mesh.indices.len(), 2 * indices.len());
        assert_eq!(mesh.vertices.len(), vertices.len() + flat.len());
        assert!((hull_info(&mesh).volume - 2.0).abs() < 1e-9);
    }

    #[test]
    fn malformed_surfaces_are_refused() {
        let v = [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z];
        assert!(
            bake(
                &[Surface {
                    vertices: &v,
                    indices: &[]
                }],
                DAffine3::IDENTITY
            )
            .is_err()
        );
        assert!(
            bake(
                &[Surface {
                    vertices: &v,
                    indices: &[0, 1, 4]
                }],
                DAffine3::IDENTITY
            )
            .is_err()
        );
        assert!(
            bake(
                &[Surface {
                    vertices: &v,
                    indices: &[0, 1]
                }],
                DAffine3::IDENTITY
            )
            .is_err()
        );
        assert!(bake(&[], DAffine3::IDENTITY).is_err());
    }
}
