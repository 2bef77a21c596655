//! Principal axes of an inertia tensor: what hosts pass to keel (and engines take)
//! as three moments and a rotation, from the symmetric 3x3 tensor the hull's
//! integrals give.
//!
//! Cyclic Jacobi rotations: each zeroes one off-diagonal element of the symmetric
//! matrix `A` by `A <- J^T A J`, and the product of the `J` is the eigenvector matrix.
//! For 3x3 it converges quadratically; a dozen sweeps reach f64 rounding for any
//! tensor, and the result is orthonormal by construction (a product of rotations),
//! which a characteristic-polynomial solution is not for repeated moments (a cube).

use glam::{DMat3, DQuat, DVec3};

/// The principal moments of a symmetric tensor and the rotation from its principal
/// axes to the tensor's axes: `tensor = R diag(moments) R^T` with `R` the rotation's
/// matrix. Moments are in ascending order; `R` is a proper rotation (determinant +1).
pub fn principal_axes(tensor: DMat3) -> (DVec3, DQuat) {
    let mut a = tensor.to_cols_array_2d();
    let mut v = DMat3::IDENTITY.to_cols_array_2d();
    let scale = a.iter().flatten().fold(0.0_f64, |m, x| m.max(x.abs()));
    if scale == 0.0 || !scale.is_finite() {
        return (DVec3::new(a[0][0], a[1][1], a[2][2]), DQuat::IDENTITY);
    }
    for _sweep in 0..16 {
        let off = a[0][1].abs() + a[0][2].abs() + a[1][2].abs();
        if off <= scale * 1e-17 {
            break;
        }
        for (p, q) in [(0, 1), (0, 2), (1, 2)] {
            if a[p][q] == 0.0 {
                continue;
            }
            // The rotation angle that zeroes a[p][q] (Numerical Recipes' stable form).
            let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
            let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
            let t = if theta == 0.0 { 1.0 } else { t };
            let c = 1.0 / (t * t + 1.0).sqrt();
            let s = t * c;
            // A <- A J (columns p and q), then A <- J^T A (rows p and q), V <- V J.
            for row in &mut a {
                let (akp, akq) = (row[p], row[q]);
                row[p] = c * akp - s * akq;
                row[q] = s * akp + c * akq;
            }
            let (row_p, row_q) = (a[p], a[q]);
            a[p] = std::array::from_fn(|k| c * row_p[k] - s * row_q[k]);
            a[q] = std::array::from_fn(|k| s * row_p[k] + c * row_q[k]);
            for row in &mut v {
                let (vp, vq) = (row[p], row[q]);
                row[p] = c * vp - s * vq;
                row[q] = s * vp + c * vq;
            }
        }
    }
    // `v[k][i]` is component k of eigenvector i. Sort by moment and keep the basis
    // right-handed.
    let mut order = [0usize, 1, 2];
    order.sort_by(|&i, &j| a[i][i].total_cmp(&a[j][j]));
    let column = |i: usize| DVec3::new(v[0][i], v[1][i], v[2][i]);
    let (x, y) = (column(order[0]), column(order[1]));
    let z = x.cross(y);
    let rotation = DQuat::from_mat3(&DMat3::from_cols(x, y, z)).normalize();
    (
        DVec3::new(a[order[0]][order[0]], a[order[1]][order[1]], a[order[2]][order[2]]),
        rotation,
    )
}

/// A body's inertia tensor about its centre of mass `com` (relative to its position),
/// world axes: the hull's unit inertia `unit` about its centroid `centroid` (body axes),
/// turned by `rotation`, moved to `com` (parallel axes) and scaled by `mass`:
///
/// ```text
/// I = ((R U) R^T + |d|^2 E - d d^T) m          d = com - R centroid
/// ```
///
/// The step's lanes do the same arithmetic for eight bodies at once
/// (`crate::step::inertia`).
#[inline(always)]
pub(crate) fn hull_inertia(rotation: &DMat3, unit: &DMat3, centroid: DVec3, com: DVec3, mass: f64) -> DMat3 {
    let centroid = *rotation * centroid;
    let d = com - centroid;
    let about_centroid = *rotation * *unit * rotation.transpose();
    let shift = DMat3::from_diagonal(DVec3::splat(d.length_squared())) - DMat3::from_cols(d * d.x, d * d.y, d * d.z);
    (about_centroid + shift) * mass
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rebuild(moments: DVec3, rotation: DQuat) -> DMat3 {
        let r = DMat3::from_quat(rotation);
        r * DMat3::from_diagonal(moments) * r.transpose()
    }

    fn assert_close(a: DMat3, b: DMat3, tolerance: f64) {
        let scale = b.to_cols_array().iter().fold(1e-300_f64, |m, x| m.max(x.abs()));
        for (x, y) in a.to_cols_array().iter().zip(b.to_cols_array()) {
            assert!((x - y).abs() <= tolerance * scale, "{a:?}\n!=\n{b:?}");
        }
    }

    #[test]
    fn a_rotated_diagonal_tensor_gives_back_its_moments_and_axes() {
        for (k, moments) in [
            DVec3::new(1.0, 2.0, 3.0),
            DVec3::new(5.0, 0.5, 40.0),
            DVec3::new(2.0, 2.0, 7.0),
        ]
        .into_iter()
        .enumerate()
        {
            let rotation = DQuat::from_euler(glam::EulerRot::YXZ, 0.3 + k as f64, -0.7, 1.1);
            let tensor = rebuild(moments, rotation);
            let (found, axes) = principal_axes(tensor);
            let mut sorted = moments.to_array();
            sorted.sort_by(f64::total_cmp);
            for (f, m) in found.to_array().iter().zip(sorted) {
                assert!((f - m).abs() < 1e-12 * m, "{found:?} against {moments:?}");
            }
            assert_close(rebuild(found, axes), tensor, 1e-13);
            assert!((DMat3::from_quat(axes).determinant() - 1.0).abs() < 1e-12);
        }
    }

    #[test]
    fn a_diagonal_or_isotropic_tensor_needs_no_rotation() {
        let (moments, rotation) = principal_axes(DMat3::from_diagonal(DVec3::splat(4.0)));
        assert_eq!(moments, DVec3::splat(4.0));
        assert!(rotation.abs_diff_eq(DQuat::IDENTITY, 1e-15));
        let (moments, rotation) = principal_axes(DMat3::from_diagonal(DVec3::new(1.0, 3.0, 2.0)));
        assert_eq!(moments, DVec3::new(1.0, 2.0, 3.0));
        assert_close(
            rebuild(moments, rotation),
            DMat3::from_diagonal(DVec3::new(1.0, 3.0, 2.0)),
            1e-15,
        );
    }
}
