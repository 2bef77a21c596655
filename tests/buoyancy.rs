//! Hydrostatics against analytic references: Archimedes, the divergence theorem, the
//! draft of a floating box, and the residual torque of Kerner's centroid shortcut.

mod common;

use common::{
    Mesh, Rng, boat_hull, body, box_with_diagonals, buoyancy_only, simple_box, subdivided_box, uv_sphere, world,
};
use glam::{DQuat, DVec3, Vec3};
use keel::{BodyState, BuoyancyModel, World, WorldDesc};

const RHO_G: f64 = 1000.0 * 9.81;

/// A state that puts the hull's volume centroid at `centre` with rotation `rotation`.
fn state_with_centroid_at(mesh: &Mesh, centre: DVec3, rotation: DQuat) -> BodyState {
    let (_, centroid) = mesh.volume_and_centroid();
    BodyState {
        position: centre - rotation * centroid,
        rotation,
        center_of_mass: centre,
        ..BodyState::default()
    }
}

fn closed_meshes() -> Vec<(&'static str, Mesh)> {
    vec![
        ("box", simple_box(Vec3::new(2.0, 0.5, 1.2), Vec3::new(0.3, -0.1, 0.2))),
        ("uv sphere", uv_sphere(0.8, 16, 24)),
        ("boat hull", boat_hull(6.0, 2.0, 0.8, 0.6, 24, 16)),
    ]
}

#[test]
fn fully_submerged_closed_hulls_feel_archimedes_and_no_torque_at_any_orientation() {
    let mut rng = Rng::new(1);
    for (name, mesh) in closed_meshes() {
        let mut w = world();
        let (hull, id) = body(&mut w, &mesh, buoyancy_only(BuoyancyModel::Pressure));
        let info = w.hull_info(hull).unwrap();
        assert!(info.is_closed, "{name} must be closed");
        assert!(!info.winding_flipped, "{name} is generated with outward winding");
        let (volume, _) = mesh.volume_and_centroid();
        let size = mesh.size();
        for _ in 0..50 {
            let rotation = rng.rotation();
            let centre = DVec3::new(
                rng.range(-50.0, 50.0),
                rng.range(-30.0, -3.0) - size,
                rng.range(-50.0, 50.0),
            );
            let state = state_with_centroid_at(&mesh, centre, rotation);
            let f = w.step_body(id, &state, 1.0 / 60.0).unwrap();
            let expected = DVec3::new(0.0, RHO_G * volume, 0.0);
            assert!(
                (f.force - expected).length() <= 1e-4 * expected.y,
                "{name}: force {} expected {expected}",
                f.force
            );
            assert!(
                f.torque.length() <= 1e-4 * RHO_G * volume * size,
                "{name}: torque {} about the volume centroid",
                f.torque
            );
            assert!(
                (f.submerged_volume - volume).abs() <= 1e-6 * volume,
                "{name}: volume {}",
                f.submerged_volume
            );
            assert!(
                (f.center_of_buoyancy - centre).length() <= 1e-6 * size,
                "{name}: centre of buoyancy"
            );
            assert!((f.wetted_ratio - 1.0).abs() < 1e-9);
        }
    }
}

/// Residual torque of the centroid variant about the volume centroid, fully submerged.
/// The quads of the box are split along pseudo-random diagonals: with the same split on
/// opposite faces the shortcut's errors would cancel exactly.
fn centroid_variant_residual(n: u32, rng: &mut Rng) -> f64 {
    let other = |quad: u32| (quad.wrapping_mul(2654435761) >> 13) & 1 == 1;
    let mesh = box_with_diagonals(Vec3::new(2.0, 1.0, 1.4), Vec3::ZERO, n, other);
    let mut w = world();
    let (_, id) = body(&mut w, &mesh, buoyancy_only(BuoyancyModel::PressureCentroid));
    let (volume, _) = mesh.volume_and_centroid();
    let mut worst: f64 = 0.0;
    for _ in 0..20 {
        let state = state_with_centroid_at(&mesh, DVec3::new(0.0, -3.0, 0.0), rng.rotation());
        let f = w.step_body(id, &state, 0.02).unwrap();
        worst = worst.max(f.torque.length() / (RHO_G * volume * mesh.size()));
    }
    worst
}

#[test]
fn the_centroid_variant_leaves_a_residual_torque_that_shrinks_with_refinement() {
    let coarse = centroid_variant_residual(1, &mut Rng::new(5));
    let fine = centroid_variant_residual(8, &mut Rng::new(5));
    eprintln!("residual torque / (rho g V size): coarse {coarse:.3e}, 8x finer {fine:.3e}");
    assert!(
        coarse > 1e-3,
        "a coarse box must show the shortcut's residual torque, got {coarse}"
    );
    assert!(
        fine < coarse / 20.0,
        "refining 8x must shrink it (about 64x), got {coarse} -> {fine}"
    );
}

/// Area and centroid of the part of a convex polygon below y = 0 (2-D, shoelace).
fn clipped_polygon(points: &[(f64, f64)]) -> (f64, (f64, f64)) {
    let mut kept = Vec::new();
    for i in 0..points.len() {
        let (p, q) = (points[i], points[(i + 1) % points.len()]);
        if p.1 <= 0.0 {
            kept.push(p);
        }
        if (p.1 < 0.0) != (q.1 < 0.0) {
            let t = p.1 / (p.1 - q.1);
            kept.push((p.0 + t * (q.0 - p.0), 0.0));
        }
    }
    let (mut area, mut cx, mut cy) = (0.0, 0.0, 0.0);
    for i in 0..kept.len() {
        let (p, q) = (kept[i], kept[(i + 1) % kept.len()]);
        let cross = p.0 * q.1 - q.0 * p.1;
        area += cross / 2.0;
        cx += (p.0 + q.0) * cross / 6.0;
        cy += (p.1 + q.1) * cross / 6.0;
    }
    (area, (cx / area, cy / area))
}

#[test]
fn a_heeled_box_partly_submerged_has_the_exact_volume_and_centre_of_buoyancy() {
    // A box 1.6 (x) by 1.0 (y) by 3.0 (z), heeled about z, its centre at height `y0`.
    let size = Vec3::new(1.6, 1.0, 3.0);
    let (b, h, l) = (size.x as f64, size.y as f64, size.z as f64);
    let mesh = subdivided_box(size, Vec3::ZERO, 3);
    for model in [
        BuoyancyModel::Pressure,
        BuoyancyModel::PressureCentroid,
        BuoyancyModel::Volume,
    ] {
        let mut w = world();
        let (_, id) = body(&mut w, &mesh, buoyancy_only(model));
        for (heel_degrees, y0) in [(0.0, 0.1), (10.0, 0.05), (25.0, -0.2), (40.0, 0.3), (70.0, 0.0)] {
            let heel = f64::to_radians(heel_degrees);
            let rotation = DQuat::from_rotation_z(heel);
            let state = BodyState {
                position: DVec3::new(2.0, y0, -1.0),
                rotation,
                center_of_mass: DVec3::new(2.0, y0, -1.0),
                ..BodyState::default()
            };
            let f = w.step_body(id, &state, 0.02).unwrap();
            let corners: Vec<(f64, f64)> = [(b, h), (-b, h), (-b, -h), (b, -h)]
                .iter()
                .map(|&(x, y)| {
                    let p = rotation * DVec3::new(x / 2.0, y / 2.0, 0.0);
                    (p.x, p.y + y0)
                })
                .collect();
            let (area, (cx, cy)) = clipped_polygon(&corners);
            let volume = area * l;
            let expected_centre = DVec3::new(2.0 + cx, cy, -1.0);
            assert!(
                (f.submerged_volume - volume).abs() < 1e-9,
                "{model:?} {heel_degrees}: volume {} vs {volume}",
                f.submerged_volume
            );
            assert!(
                (f.center_of_buoyancy - expected_centre).length() < 1e-9,
                "{model:?} {heel_degrees}: centre {} vs {expected_centre}",
                f.center_of_buoyancy
            );
            // Archimedes on flat water: the force is rho g V straight up.
            let expected = DVec3::new(0.0, RHO_G * volume, 0.0);
            assert!(
                (f.force - expected).length() < 1e-6 * RHO_G,
                "{model:?}: {} vs {expected}",
                f.force
            );
            if model != BuoyancyModel::PressureCentroid {
                // ... through the centre of buoyancy.
                let arm = expected_centre - state.center_of_mass;
                let torque = arm.cross(expected);
                assert!(
                    (f.torque - torque).length() < 1e-6 * RHO_G,
                    "{model:?}: {} vs {torque}",
                    f.torque
                );
            }
        }
    }
}

#[test]
fn a_homogeneous_box_floats_at_the_draft_of_archimedes() {
    let height = 1.0;
    let mesh = simple_box(Vec3::new(1.2, height as f32, 0.8), Vec3::ZERO);
    let (volume, _) = mesh.volume_and_centroid();
    for density_ratio in [0.483, 0.8, 0.25] {
        let mut w = world();
        let (_, id) = body(&mut w, &mesh, buoyancy_only(BuoyancyModel::Pressure));
        let weight = density_ratio * 1000.0 * volume * 9.81;
        let mut lift = |y: f64| {
            let state = BodyState {
                position: DVec3::new(0.0, y, 0.0),
                ..BodyState::default()
            };
            w.step_body(id, &state, 0.02).unwrap().force.y - weight
        };
        // Bisection on the height of the box's centre: lift falls as the box rises.
        let (mut lo, mut hi) = (-height, height);
        for _ in 0..80 {
            let mid = 0.5 * (lo + hi);
            if lift(mid) > 0.0 { lo = mid } else { hi = mid }
        }
        let draft = height / 2.0 - 0.5 * (lo + hi);
        let expected = height * density_ratio;
        assert!(
            (draft - expected).abs() < 1e-4,
            "density ratio {density_ratio}: draft {draft}, expected {expected}"
        );
    }
}

#[test]
fn the_volume_models_agree_with_pressure_on_flat_water() {
    let mesh = boat_hull(6.0, 2.0, 0.8, 0.6, 24, 16);
    let mut rng = Rng::new(9);
    let mut w = world();
    let (_, pressure) = body(&mut w, &mesh, buoyancy_only(BuoyancyModel::Pressure));
    let (_, volume) = body(&mut w, &mesh, buoyancy_only(BuoyancyModel::Volume));
    for _ in 0..30 {
        let state = BodyState {
            position: DVec3::new(0.0, rng.range(-0.6, 0.4), 0.0),
            rotation: DQuat::from_euler(
                glam::EulerRot::XYZ,
                rng.range(-0.4, 0.4),
                rng.range(-3.0, 3.0),
                rng.range(-0.5, 0.5),
            ),
            center_of_mass: DVec3::new(0.0, -0.2, 0.3),
            ..BodyState::default()
        };
        let a = w.step_body(pressure, &state, 0.02).unwrap();
        let b = w.step_body(volume, &state, 0.02).unwrap();
        let scale = RHO_G * 10.0;
        assert!(
            (a.force - b.force).length() < 1e-9 * scale,
            "{} vs {}",
            a.force,
            b.force
        );
        assert!(
            (a.torque - b.torque).length() < 1e-9 * scale * 6.0,
            "{} vs {}",
            a.torque,
            b.torque
        );
    }
}

#[test]
fn the_area_ratio_model_scales_the_hull_volume_by_the_wetted_ratio() {
    let mesh = simple_box(Vec3::new(2.0, 1.0, 2.0), Vec3::ZERO);
    let mut w = world();
    let (_, id) = body(&mut w, &mesh, buoyancy_only(BuoyancyModel::AreaRatio));
    // Draft 0.25: wetted area = bottom 4 + sides 4 * 2 * 0.25 = 6 of 16.
    let state = BodyState {
        position: DVec3::new(0.0, 0.25, 0.0),
        ..BodyState::default()
    };
    let f = w.step_body(id, &state, 0.02).unwrap();
    assert!((f.wetted_ratio - 6.0 / 16.0).abs() < 1e-12);
    assert!((f.force.y - RHO_G * 4.0 * 6.0 / 16.0).abs() < 1e-9 * RHO_G);
    // Centroid of the wetted area: the bottom (4 m^2 at y = -0.25) and the sides
    // (2 m^2 centred at y = -0.125).
    let expected = (4.0 * -0.25 + 2.0 * -0.125) / 6.0;
    assert!(
        (f.center_of_buoyancy - DVec3::new(0.0, expected, 0.0)).length() < 1e-12,
        "{}",
        f.center_of_buoyancy
    );
}

#[test]
fn vertical_buoyancy_only_drops_the_horizontal_push_of_a_wave_face() {
    let mesh = simple_box(Vec3::new(1.0, 1.0, 1.0), Vec3::ZERO);
    let mut w = world();
    let waves = [keel::GerstnerWave {
        amplitude: 0.6,
        wavelength: 8.0,
        direction: glam::DVec2::X,
        steepness: 0.5,
        phase: 0.0,
    }];
    w.set_water(keel::Water::Gerstner(
        keel::GerstnerWater::new(&waves, 0.0, 9.81).unwrap(),
    ));
    let (_, full) = body(&mut w, &mesh, buoyancy_only(BuoyancyModel::Pressure));
    let desc = keel::BodyDesc {
        vertical_buoyancy_only: true,
        ..buoyancy_only(BuoyancyModel::Pressure)
    };
    let (_, vertical) = body(&mut w, &mesh, desc);
    let state = BodyState {
        position: DVec3::new(2.0, 0.0, 0.0),
        ..BodyState::default()
    };
    let a = w.step_body(full, &state, 0.02).unwrap();
    let b = w.step_body(vertical, &state, 0.02).unwrap();
    assert!(
        a.force.x.abs() > 1.0,
        "a box on a wave face is pushed sideways: {}",
        a.force
    );
    assert_eq!((b.force.x, b.force.z), (0.0, 0.0));
    assert_eq!(a.force.y, b.force.y);
}

#[test]
fn a_body_far_from_the_origin_feels_the_same_force() {
    let mesh = boat_hull(6.0, 2.0, 0.8, 0.6, 12, 8);
    let desc = WorldDesc {
        thread_count: 1,
        ..WorldDesc::default()
    };
    let mut w = World::new(&desc).unwrap();
    let (_, id) = body(&mut w, &mesh, buoyancy_only(BuoyancyModel::Pressure));
    let at = |w: &mut World, x: f64| {
        let state = BodyState {
            position: DVec3::new(x, -0.2, -x),
            rotation: DQuat::from_rotation_x(0.1),
            center_of_mass: DVec3::new(x, -0.3, -x),
            ..BodyState::default()
        };
        w.step_body(id, &state, 0.02).unwrap()
    };
    let near = at(&mut w, 0.0);
    let far = at(&mut w, 100_000.0);
    assert!((near.force - far.force).length() < 1e-9 * near.force.length());
    assert!((near.torque - far.torque).length() < 1e-9 * near.force.length());
}
