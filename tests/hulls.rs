//! Meshes as artists and engines make them: split vertices, seams, poles, inside-out
//! winding, open meshes and garbage.

mod common;

use common::{Mesh, boat_hull, info_of, simple_box, unity_cube, uv_sphere, world};
use glam::{DVec3, Vec3};
use keel::{ErrorKind, HullDesc};

#[test]
fn bourgs_cube_has_volume_8_and_its_centroid_at_its_centre() {
    // Bourg ch. 8: side 2, a corner at the origin.
    let mesh = simple_box(Vec3::splat(2.0), Vec3::ONE);
    let mut w = world();
    let info = info_of(&mut w, &mesh.desc());
    assert!(info.is_closed && !info.winding_flipped);
    assert!((info.volume - 8.0).abs() < 1e-12);
    assert!((info.centroid - DVec3::ONE).length() < 1e-12);
    assert_eq!(info.bounds_min, DVec3::ZERO);
    assert_eq!(info.bounds_max, DVec3::splat(2.0));
}

#[test]
fn unitys_24_vertex_cube_counts_as_closed() {
    let mesh = unity_cube();
    assert_eq!(mesh.vertices.len(), 24);
    let mut w = world();
    let info = info_of(&mut w, &mesh.desc());
    assert!(info.is_closed);
    assert_eq!(
        (info.vertex_count, info.triangle_count, info.degenerate_count),
        (24, 12, 0)
    );
    assert!((info.volume - 1.0).abs() < 1e-12);
    assert!((info.area - 6.0).abs() < 1e-12);
}

#[test]
fn a_uv_sphere_with_a_seam_is_closed_and_its_pole_slivers_are_skipped_and_counted() {
    let (stacks, slices) = (12, 20);
    let mesh = uv_sphere(1.0, stacks, slices);
    let mut w = world();
    let info = info_of(&mut w, &mesh.desc());
    assert!(
        info.is_closed,
        "the seam differs by f32 rounding and must still be closed"
    );
    // Each pole row has one zero-area triangle per slice.
    assert_eq!(info.degenerate_count, 2 * slices);
    assert_eq!(info.triangle_count, 2 * stacks * slices - 2 * slices);
    let (volume, centroid) = mesh.volume_and_centroid();
    assert!((info.volume - volume).abs() < 1e-6 * volume);
    assert!((info.centroid - centroid).length() < 1e-6);
    // The polyhedron is inscribed in the unit sphere: a little less than 4/3 pi.
    assert!(info.volume < 4.0 / 3.0 * std::f64::consts::PI && info.volume > 3.9);
}

#[test]
fn an_inside_out_closed_mesh_is_flipped_and_says_so() {
    for mesh in [
        simple_box(Vec3::new(1.0, 2.0, 3.0), Vec3::ZERO),
        uv_sphere(1.0, 8, 12),
        boat_hull(6.0, 2.0, 0.8, 0.6, 10, 8),
    ] {
        let mut w = world();
        let right = info_of(&mut w, &mesh.desc());
        let inverted = mesh.reversed();
        let flipped = info_of(&mut w, &inverted.desc());
        assert!(!right.winding_flipped);
        assert!(flipped.winding_flipped);
        assert!((flipped.volume - right.volume).abs() < 1e-12 * right.volume);
        // Godot's convention: flip_winding turns it back without any automatic flip.
        let godot = HullDesc {
            flip_winding: true,
            ..inverted.desc()
        };
        let info = info_of(&mut w, &godot);
        assert!(!info.winding_flipped);
        assert!((info.volume - right.volume).abs() < 1e-12 * right.volume);
    }
}

#[test]
fn an_open_mesh_has_no_volume_and_cannot_use_the_volume_models() {
    let mut mesh = simple_box(Vec3::ONE, Vec3::ZERO);
    mesh.indices.truncate(30);
    let mut w = world();
    let hull = w.create_hull(&mesh.desc()).unwrap();
    let info = w.hull_info(hull).unwrap();
    assert!(!info.is_closed);
    assert_eq!(info.volume, 0.0);
    for model in [keel::BuoyancyModel::Volume, keel::BuoyancyModel::AreaRatio] {
        let err = w
            .create_body(&keel::BodyDesc {
                hull,
                buoyancy: model,
                ..Default::default()
            })
            .unwrap_err();
        assert_eq!(err.kind, ErrorKind::InvalidArgument);
        assert!(err.message.contains("closed"), "{}", err.message);
    }
    assert!(
        w.create_body(&keel::BodyDesc {
            hull,
            ..Default::default()
        })
        .is_ok()
    );
}

#[test]
fn mismatched_winding_is_repaired_and_non_manifold_meshes_are_not_closed() {
    let cube = simple_box(Vec3::ONE, Vec3::ZERO);
    let mut w = world();
    // One triangle wound the wrong way is turned to agree with its neighbours.
    let mut wrong = cube.clone();
    wrong.indices.swap(1, 2);
    let info = info_of(&mut w, &wrong.desc());
    assert!(info.is_closed && !info.winding_flipped);
    assert_eq!(info.reoriented_count, 1);
    assert!((info.volume - 1.0).abs() < 1e-12);
    // A cube with one face doubled: three triangles on some edges.
    let mut doubled = cube.clone();
    doubled.indices.extend_from_slice(&cube.indices[..6]);
    assert!(!info_of(&mut w, &doubled.desc()).is_closed);
}

#[test]
fn garbage_is_refused_with_a_message_naming_the_problem() {
    let cube = simple_box(Vec3::ONE, Vec3::ZERO);
    let mut w = world();
    let mut refuse = |mesh: Mesh, needle: &str| {
        let err = w.create_hull(&mesh.desc()).unwrap_err();
        assert_eq!(err.kind, ErrorKind::InvalidMesh);
        assert!(
            err.message.contains(needle),
            "{:?} should mention {needle:?}",
            err.message
        );
    };
    refuse(
        Mesh {
            vertices: cube.vertices.clone(),
            indices: cube.indices[..35].to_vec(),
        },
        "multiple of 3",
    );
    refuse(
        Mesh {
            vertices: cube.vertices.clone(),
            indices: vec![0, 1, 8],
        },
        "out of range",
    );
    let mut nan = cube.clone();
    nan.vertices[2].x = f32::INFINITY;
    refuse(nan, "vertex 2");
    refuse(
        Mesh {
            vertices: vec![Vec3::ONE; 3],
            indices: vec![0, 1, 2],
        },
        "no usable triangle",
    );
    let line = vec![Vec3::ZERO, Vec3::X, 2.0 * Vec3::X];
    refuse(
        Mesh {
            vertices: line,
            indices: vec![0, 1, 2],
        },
        "no usable triangle",
    );
    refuse(
        Mesh {
            vertices: vec![],
            indices: vec![],
        },
        "no triangle",
    );
    assert_eq!(w.hull_count(), 0, "nothing is created on failure");
}
