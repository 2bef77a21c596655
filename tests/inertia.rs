//! The host's inertia (`BodyDesc::inertia`) and the hull's own (`World::hull_inertia`),
//! against the analytic inertia of a box and the limiter's promise: drag may stop a spin
//! in one step but never reverse it, judged with the inertia the host integrates with.

mod common;

use common::simple_box;
use glam::{DMat3, DQuat, DVec3, Vec3};
use keel::{BodyDesc, BodyState, World, WorldDesc};

fn world() -> World {
    World::new(&WorldDesc {
        thread_count: 1,
        ..WorldDesc::default()
    })
    .unwrap()
}

/// A solid box's inertia about its centre: m (b^2 + c^2) / 12 about each axis.
fn box_moments(size: DVec3, mass: f64) -> DVec3 {
    let s = size * size;
    DVec3::new(s.y + s.z, s.x + s.z, s.x + s.y) * (mass / 12.0)
}

#[test]
fn a_box_hull_has_the_inertia_of_a_solid_box_about_its_principal_axes() {
    let mut world = world();
    let size = Vec3::new(2.0, 1.0, 4.0);
    let hull = world.create_box_hull(size).unwrap();
    let mass = 800.0;
    let (moments, axes) = world.hull_inertia(hull, mass).unwrap();
    let expected = box_moments(size.as_dvec3(), mass);
    // Ascending: about the long Z axis (x and y sides) is the smallest.
    let mut sorted = expected.to_array();
    sorted.sort_by(f64::total_cmp);
    for (found, want) in moments.to_array().iter().zip(sorted) {
        assert!((found - want).abs() < 1e-9 * want, "{moments:?} against {expected:?}");
    }
    // The rotation puts each moment on its body axis: R diag(moments) R^T is diagonal
    // with the box's moments in body order.
    let r = DMat3::from_quat(axes);
    let tensor = r * DMat3::from_diagonal(moments) * r.transpose();
    let body_axes = DVec3::new(tensor.x_axis.x, tensor.y_axis.y, tensor.z_axis.z);
    assert!((body_axes - expected).abs().max_element() < 1e-9 * expected.max_element());
    assert!(tensor.x_axis.y.abs() + tensor.x_axis.z.abs() + tensor.y_axis.z.abs() < 1e-9 * expected.max_element());
}

#[test]
fn a_box_hull_is_the_box_mesh_and_bad_sizes_are_refused() {
    let mut world = world();
    let hull = world.create_box_hull(Vec3::new(2.0, 0.5, 3.0)).unwrap();
    let info = world.hull_info(hull).unwrap();
    assert!(info.is_closed);
    assert_eq!(info.triangle_count, 12);
    assert!((info.volume - 3.0).abs() < 1e-12);
    assert_eq!(info.bounds_min, DVec3::new(-1.0, -0.25, -1.5));
    for bad in [
        Vec3::new(0.0, 1.0, 1.0),
        Vec3::new(1.0, -1.0, 1.0),
        Vec3::new(f32::NAN, 1.0, 1.0),
    ] {
        assert!(world.create_box_hull(bad).is_err(), "{bad:?} was accepted");
    }
    assert!(world.hull_inertia(hull, -1.0).is_err());
    assert!(world.hull_inertia(hull, f64::NAN).is_err());
}

/// A raft half under water, turning about the vertical at `spin` rad/s, stepped with a
/// long step: the drag torque that would stop it within the step is limited.
fn spun_raft(inertia: DVec3, rotation: DQuat, dt: f64) -> (DVec3, DVec3) {
    let mut world = world();
    let size = Vec3::new(2.0, 0.5, 2.0);
    let mesh = simple_box(size, Vec3::ZERO);
    let hull = world.create_hull(&mesh.desc()).unwrap();
    let body = world
        .create_body(&BodyDesc {
            hull,
            mass: 1000.0,
            inertia,
            inertia_rotation: rotation,
            // Drag's limiter; slamming has its own (`src/forces/slamming.rs`).
            forces: keel::forces::FORCE_VISCOUS | keel::forces::FORCE_PRESSURE_DRAG,
            ..BodyDesc::default()
        })
        .unwrap();
    let spin = 30.0;
    let state = BodyState {
        position: DVec3::ZERO,
        angular_velocity: DVec3::new(0.0, spin, 0.0),
        ..BodyState::default()
    };
    let forces = world.step_body(body, &state, dt).unwrap();
    (forces.torque, state.angular_velocity)
}

#[test]
fn the_limiter_never_reverses_a_spin_with_the_hosts_inertia() {
    // The limiter lets drag take a spin close to rest within a step, never past it
    // (`src/forces/limiter.rs`), judged with the inertia the host integrates with. A
    // light raft (its mass near the axis) would be spun backwards by the torque that
    // only slows the uniform one, and a heavy one (ballast at its rim) takes more.
    let dt = 0.5;
    let uniform = box_moments(DVec3::new(2.0, 0.5, 2.0), 1000.0);
    let mut torques = Vec::new();
    for factor in [1.0, 10.0, 0.1] {
        let inertia = uniform * factor;
        let given = if factor == 1.0 { DVec3::ZERO } else { inertia };
        let (torque, omega) = spun_raft(given, DQuat::IDENTITY, dt);
        let end = omega.y + torque.y * dt / inertia.y;
        assert!(
            (0.0..0.5 * omega.y).contains(&end),
            "inertia x{factor}: the spin of {} rad/s ends at {end} rad/s",
            omega.y
        );
        torques.push(torque.y.abs());
    }
    assert!(
        torques[1] > 2.0 * torques[0],
        "heavy {} against uniform {}",
        torques[1],
        torques[0]
    );
    assert!(
        torques[2] < 0.5 * torques[0],
        "light {} against uniform {}",
        torques[2],
        torques[0]
    );
}

#[test]
fn the_hulls_own_inertia_given_by_the_host_changes_nothing() {
    let mut world = world();
    let hull = world.create_box_hull(Vec3::new(2.0, 0.5, 2.0)).unwrap();
    let (moments, axes) = world.hull_inertia(hull, 1000.0).unwrap();
    for dt in [1.0 / 60.0, 0.5] {
        let (default_torque, _) = spun_raft(DVec3::ZERO, DQuat::IDENTITY, dt);
        let (given_torque, _) = spun_raft(moments, axes, dt);
        assert!(
            (default_torque - given_torque).length() <= 1e-9 * default_torque.length(),
            "dt {dt}: {default_torque} with the hull's inertia, {given_torque} with the same given"
        );
    }
}

#[test]
fn bad_inertia_is_refused_with_a_message() {
    let mut world = world();
    let hull = world.create_box_hull(Vec3::ONE).unwrap();
    for (inertia, rotation) in [
        (DVec3::new(1.0, 0.0, 1.0), DQuat::IDENTITY),
        (DVec3::new(1.0, -1.0, 1.0), DQuat::IDENTITY),
        (DVec3::new(1.0, f64::NAN, 1.0), DQuat::IDENTITY),
        (DVec3::ONE, DQuat::from_xyzw(0.0, 0.0, 0.0, 0.0)),
        (DVec3::ZERO, DQuat::from_xyzw(f64::INFINITY, 0.0, 0.0, 1.0)),
    ] {
        let error = world
            .create_body(&BodyDesc {
                hull,
                inertia,
                inertia_rotation: rotation,
                ..BodyDesc::default()
            })
            .unwrap_err();
        assert!(error.message.contains("inertia"), "{}", error.message);
    }
}
