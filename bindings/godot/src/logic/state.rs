//! A Godot body's pose and motion as keel's [`BodyState`], and its inertia as
//! [`BodyDesc`](keel::BodyDesc)'s principal moments and axes.
//!
//! Godot's `PhysicsDirectBodyState3D` gives the transform (its basis may carry the
//! node's scale), the velocity of the centre of mass, the angular velocity in world
//! axes, the centre of mass as an offset from the body's origin *in world axes*, and
//! the inertia as inverse principal moments about principal axes in world axes.

use glam::{DMat3, DQuat, DVec3};
use keel::BodyState;

/// What the binding reads from a `PhysicsDirectBodyState3D`, in plain numbers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DirectState {
    /// `transform.origin`.
    pub origin: DVec3,
    /// `transform.basis` columns (the body's x, y, z axes in world, scale included).
    pub basis: DMat3,
    /// `linear_velocity`: the centre of mass's velocity.
    pub linear_velocity: DVec3,
    /// `angular_velocity`, world axes.
    pub angular_velocity: DVec3,
    /// `center_of_mass`: offset of the centre of mass from `origin`, world axes.
    pub center_of_mass_offset: DVec3,
}

/// The rotation of a basis that may carry scale (and a reflection, which a rigid body
/// cannot represent: it is dropped by flipping the last axis).
///
/// A rigid body's basis, as the physics servers give it every frame, is a rotation to
/// within f32 rounding: then the quaternion is taken from the basis as it is (one
/// square root, then normalised), about half the work of orthonormalising it first,
/// which a profile of 400 floating boxes put at some 70 ns a body a frame (issue 39
/// item 4). The two differ by the basis's own rounding (a few 1e-8 of a radian for
/// Godot's f32 bases): the quaternion of the nearly orthonormal basis spreads that error
/// over the three axes where the orthonormalised one keeps the x axis exact.
pub fn rotation_of(basis: DMat3) -> DQuat {
    if is_rotation(&basis) {
        return DQuat::from_mat3(&basis).normalize();
    }
    let x = basis.x_axis.normalize_or(DVec3::X);
    // (The fallback only when needed: `normalize_or` would take it worked out each call,
    // a division, for every body every frame; the same bits either way.)
    let y = (basis.y_axis - x * x.dot(basis.y_axis))
        .try_normalize()
        .unwrap_or_else(|| x.any_orthonormal_vector());
    let z = x.cross(y);
    DQuat::from_mat3(&DMat3::from_cols(x, y, z)).normalize()
}

/// Whether a basis is a rotation to within f32 rounding: unit columns at right angles,
/// right-handed. (1e-5 is a hundred times an f32 basis's rounding, and a thousandth of
/// the smallest scale a user would give a node on purpose.)
fn is_rotation(basis: &DMat3) -> bool {
    const TOLERANCE: f64 = 1e-5;
    let (x, y, z) = (basis.x_axis, basis.y_axis, basis.z_axis);
    let off = DVec3::new(
        x.length_squared() - 1.0,
        y.length_squared() - 1.0,
        z.length_squared() - 1.0,
    )
    .abs()
    .max(DVec3::new(x.dot(y), y.dot(z), z.dot(x)).abs());
    off.max_element() < TOLERANCE && x.cross(y).dot(z) > 0.0
}

/// The per-axis scale of a basis (the lengths of its columns).
pub fn scale_of(basis: DMat3) -> DVec3 {
    DVec3::new(basis.x_axis.length(), basis.y_axis.length(), basis.z_axis.length())
}

/// Keel's state of a Godot body: keel wants the centre of mass in world coordinates.
pub fn body_state(s: &DirectState) -> BodyState {
    BodyState {
        position: s.origin,
        rotation: rotation_of(s.basis),
        linear_velocity: s.linear_velocity,
        angular_velocity: s.angular_velocity,
        center_of_mass: s.origin + s.center_of_mass_offset,
    }
}

/// Keel's `inertia` and `inertia_rotation` from Godot's `inverse_inertia` (principal,
/// 1/kg m^2) and `principal_inertia_axes` (world axes) for a body rotated by
/// `body_rotation`. Keel wants the principal axes in body axes. A locked or unset axis
/// (an inverse moment of zero or not finite) leaves keel the hull's own inertia: all
/// zeros and the identity.
pub fn principal_inertia(inverse_inertia: DVec3, principal_axes_world: DMat3, body_rotation: DQuat) -> (DVec3, DQuat) {
    let usable = inverse_inertia.is_finite() && inverse_inertia.min_element() > 0.0;
    if !usable {
        return (DVec3::ZERO, DQuat::IDENTITY);
    }
    let moments = DVec3::ONE / inverse_inertia;
    let in_body = DMat3::from_quat(body_rotation.inverse()) * principal_axes_world;
    (moments, rotation_of(in_body))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: DVec3, b: DVec3) -> bool {
        (a - b).length() < 1e-9
    }

    /// (Not `angle_between`: its acos loses half the digits near zero.)
    fn same_rotation(a: DQuat, b: DQuat) -> bool {
        a.dot(b).abs() > 1.0 - 1e-12
    }

    #[test]
    fn centre_of_mass_is_origin_plus_world_offset() {
        let rotation = DQuat::from_rotation_y(0.7);
        let s = DirectState {
            origin: DVec3::new(1.0, 2.0, 3.0),
            basis: DMat3::from_quat(rotation),
            linear_velocity: DVec3::X,
            angular_velocity: DVec3::Y,
            center_of_mass_offset: DVec3::new(0.0, -0.5, 0.25),
        };
        let state = body_state(&s);
        assert!(close(state.center_of_mass, DVec3::new(1.0, 1.5, 3.25)));
        assert!(same_rotation(state.rotation, rotation));
        assert_eq!(state.angular_velocity, DVec3::Y);
    }

    #[test]
    fn scaled_basis_gives_its_rotation_and_scale() {
        let rotation = DQuat::from_euler(glam::EulerRot::YXZ, 0.3, -0.4, 1.1);
        let scale = DVec3::new(2.0, 0.5, 3.0);
        let basis = DMat3::from_quat(rotation) * DMat3::from_diagonal(scale);
        assert!(same_rotation(rotation_of(basis), rotation));
        assert!(close(scale_of(basis), scale));
    }

    #[test]
    fn both_paths_give_the_rotation_of_an_f32_basis() {
        // A rotation as Godot hands it over (f32), and the same basis scaled by 1 + 2e-5
        // (just past the fast path's tolerance): both give the rotation to f32 precision,
        // and the fast path agrees with the orthonormalising one to that precision too.
        for (yaw, pitch, roll) in [(0.3, -0.4, 1.1), (3.0, 1.5, -2.9), (0.0, 0.0, 0.0), (-1.2, 0.01, 3.1)] {
            let rotation = DQuat::from_euler(glam::EulerRot::YXZ, yaw, pitch, roll);
            let f32_basis = DMat3::from_quat(rotation).as_mat3().as_dmat3();
            assert!(is_rotation(&f32_basis));
            let fast = rotation_of(f32_basis);
            assert!((fast.length() - 1.0).abs() < 1e-15);
            assert!(fast.dot(rotation).abs() > 1.0 - 1e-13, "{yaw} {pitch} {roll}");
            let scaled = f32_basis * (1.0 + 2e-5);
            assert!(!is_rotation(&scaled));
            let general = rotation_of(scaled);
            assert!(general.dot(fast).abs() > 1.0 - 1e-13, "{yaw} {pitch} {roll}");
        }
    }

    #[test]
    fn a_reflection_or_a_skew_takes_the_general_path() {
        let mirrored = DMat3::from_cols(DVec3::X, DVec3::Y, -DVec3::Z);
        assert!(!is_rotation(&mirrored));
        // The reflection dropped: the identity, not a quaternion of a mirror.
        assert!(rotation_of(mirrored).dot(DQuat::IDENTITY).abs() > 1.0 - 1e-15);
        let skewed = DMat3::from_cols(DVec3::X, DVec3::new(1e-3, 1.0, 0.0).normalize(), DVec3::Z);
        assert!(!is_rotation(&skewed));
        assert!(rotation_of(skewed).dot(DQuat::IDENTITY).abs() > 1.0 - 1e-12);
    }

    #[test]
    fn principal_axes_come_back_in_body_axes() {
        // A body turned 90 degrees about Y whose principal axes are its own axes: in body
        // axes they are the identity, although in world axes they are turned.
        let body = DQuat::from_rotation_y(std::f64::consts::FRAC_PI_2);
        let (moments, axes) = principal_inertia(DVec3::new(0.5, 0.25, 0.125), DMat3::from_quat(body), body);
        assert!(close(moments, DVec3::new(2.0, 4.0, 8.0)));
        assert!(same_rotation(axes, DQuat::IDENTITY));
        // Principal axes turned 30 degrees about X from the body's: that rotation.
        let tilt = DQuat::from_rotation_x(0.5);
        let (_, axes) = principal_inertia(DVec3::ONE, DMat3::from_quat(body * tilt), body);
        assert!(same_rotation(axes, tilt));
    }

    #[test]
    fn locked_axis_leaves_the_hull_inertia() {
        let (moments, axes) = principal_inertia(DVec3::new(1.0, 0.0, 1.0), DMat3::IDENTITY, DQuat::IDENTITY);
        assert_eq!(moments, DVec3::ZERO);
        assert_eq!(axes, DQuat::IDENTITY);
    }
}
