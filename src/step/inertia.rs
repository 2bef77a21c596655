//! The inertia tensor a step uses, in world axes, and its inverse, which the end-of-step
//! motion and both limiters read.
//!
//! For a body of the hull's shape at uniform density, with `R` the body's rotation, `U`
//! the hull's inertia per unit mass about its centroid `c` (body axes), `m` the mass and
//! `d = com - R c` the centre of mass's offset from the turned centroid:
//!
//! ```text
//! I = ((R U) R^T + |d|^2 E - d d^T) m          (parallel axes)
//! I^-1 = (1 / (x . (y x z))) (y x z, z x x, x x y)^T     with x, y, z the columns of I
//! ```
//!
//! [`hull_inertia`](crate::hull::inertia::hull_inertia) is the one-body reference (`glam`'s matrix arithmetic);
//! [`inverse_hull_inertias`] does the same arithmetic, operation for operation and in the
//! same order, for eight bodies at once, one in each lane: the compiler turns its loops
//! over the lanes into vector instructions, and every lane's numbers are the reference's
//! bits (a test checks them).

use glam::{DMat3, DVec3};

#[cfg(test)]
use crate::hull::inertia::hull_inertia;
use crate::loops::lanes::LANES;

/// Eight numbers, one a lane.
type Lanes = [f64; LANES];

/// [`hull_inertia`](crate::hull::inertia::hull_inertia)`(..).inverse()` for the first `N` lanes' bodies at once (`N` at most
/// [`LANES`]; a group of four takes half the work of eight): lane `l`'s rotation has
/// columns `rotations[k][..][l]`, its centre of mass is `com[..][l]` and its mass
/// `mass[l]`; its inverse inertia goes to `out[l]`, and to `lanes[3 k + i][l]` by column
/// `k` and component `i`. The same arithmetic in the same order
/// as the reference, lane by lane (plain loops: `array::from_fn` and `array::map` may be
/// left out of line, compiled for the baseline processor).
#[inline(always)]
pub(crate) fn inverse_hull_inertias<const N: usize>(
    rotations: &[[Lanes; 3]; 3],
    com: &[Lanes; 3],
    mass: &Lanes,
    (unit, centroid): (&DMat3, DVec3),
    (out, lanes): (&mut [DMat3; LANES], &mut [Lanes; 9]),
) {
    let [r0, r1, r2] = rotations;
    let u = unit.to_cols_array_2d();
    // `I` by column and component.
    let mut inertia = [[[0.0; LANES]; 3]; 3];
    for l in 0..N {
        // `R c` and `d`.
        let mut d = [0.0; 3];
        for i in 0..3 {
            let turned = r0[i][l] * centroid.x + r1[i][l] * centroid.y + r2[i][l] * centroid.z;
            d[i] = com[i][l] - turned;
        }
        let d_squared = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        // `A = R U`, column by column: `R u_j`.
        let mut a = [[0.0; 3]; 3];
        for (j, column) in a.iter_mut().enumerate() {
            for (i, value) in column.iter_mut().enumerate() {
                *value = r0[i][l] * u[j][0] + r1[i][l] * u[j][1] + r2[i][l] * u[j][2];
            }
        }
        // `(A R^T)_j = A (row j of R)`, plus the shift, times the mass.
        for (k, column) in inertia.iter_mut().enumerate() {
            for (i, value) in column.iter_mut().enumerate() {
                let turned = a[0][i] * r0[k][l] + a[1][i] * r1[k][l] + a[2][i] * r2[k][l];
                let diagonal = if i == k { d_squared } else { 0.0 };
                let shift = diagonal - d[i] * d[k];
                value[l] = (turned + shift) * mass[l];
            }
        }
    }
    // The inverse: the columns' cross products over the determinant, transposed.
    let inverse = lanes;
    for l in 0..N {
        // (No closures here: one may be left out of line, compiled for the baseline
        // processor.)
        let [x, y, z] = [
            [inertia[0][0][l], inertia[0][1][l], inertia[0][2][l]],
            [inertia[1][0][l], inertia[1][1][l], inertia[1][2][l]],
            [inertia[2][0][l], inertia[2][1][l], inertia[2][2][l]],
        ];
        let tmp = [cross(y, z), cross(z, x), cross(x, y)];
        let inverse_determinant = 1.0 / (x[0] * tmp[0][0] + x[1] * tmp[0][1] + x[2] * tmp[0][2]);
        for k in 0..3 {
            for i in 0..3 {
                inverse[3 * k + i][l] = tmp[i][k] * inverse_determinant;
            }
        }
    }
    for (l, matrix) in out.iter_mut().enumerate().take(N) {
        *matrix = DMat3::from_cols(
            DVec3::new(inverse[0][l], inverse[1][l], inverse[2][l]),
            DVec3::new(inverse[3][l], inverse[4][l], inverse[5][l]),
            DVec3::new(inverse[6][l], inverse[7][l], inverse[8][l]),
        );
    }
}

/// `glam`'s `DVec3::cross`, component for component.
#[inline(always)]
fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - b[1] * a[2],
        a[2] * b[0] - b[2] * a[0],
        a[0] * b[1] - b[0] * a[1],
    ]
}

#[cfg(test)]
mod tests {
    use glam::DQuat;

    use super::*;

    /// Each lane's inverse inertia is the one-body reference's bits, for turned bodies,
    /// off-centre centres of mass, a tensor with products of inertia, and a massless body
    /// (whose inverse is not finite).
    #[test]
    fn lanes_match_the_reference_bit_for_bit() {
        let unit = DMat3::from_cols(
            DVec3::new(0.31, 0.02, -0.015),
            DVec3::new(0.02, 0.27, 0.011),
            DVec3::new(-0.015, 0.011, 0.19),
        );
        let centroid = DVec3::new(0.013, -0.21, 0.4);
        let mut rotations = [[[0.0; LANES]; 3]; 3];
        let mut com = [[0.0; LANES]; 3];
        let mut mass = [0.0; LANES];
        let mut expected = [DMat3::ZERO; LANES];
        for l in 0..LANES {
            let t = l as f64;
            let q = DQuat::from_euler(glam::EulerRot::YXZ, 0.7 * t - 1.3, 0.21 * t, -0.37 * t + 0.1);
            let rotation = DMat3::from_quat(q);
            for (k, axis) in [rotation.x_axis, rotation.y_axis, rotation.z_axis].iter().enumerate() {
                for c in 0..3 {
                    rotations[k][c][l] = axis[c];
                }
            }
            let c = DVec3::new(0.1 * t - 0.3, 0.05 * t * t, -0.02 * t);
            for axis in 0..3 {
                com[axis][l] = c[axis];
            }
            mass[l] = if l == 5 { 0.0 } else { 3.0 + 11.0 * t };
            expected[l] = hull_inertia(&rotation, &unit, centroid, c, mass[l]).inverse();
        }
        let (mut out, mut lanes) = ([DMat3::IDENTITY; LANES], [[0.0; LANES]; 9]);
        inverse_hull_inertias::<LANES>(&rotations, &com, &mass, (&unit, centroid), (&mut out, &mut lanes));
        let mut half = [DMat3::IDENTITY; LANES];
        let mut half_lanes = [[0.0; LANES]; 9];
        inverse_hull_inertias::<{ LANES / 2 }>(
            &rotations,
            &com,
            &mass,
            (&unit, centroid),
            (&mut half, &mut half_lanes),
        );
        assert_eq!(half[..LANES / 2], out[..LANES / 2]);
        assert_eq!(half[LANES / 2..], [DMat3::IDENTITY; LANES / 2]);
        for l in 0..LANES {
            let (got, want) = (out[l].to_cols_array(), expected[l].to_cols_array());
            for (g, w) in got.iter().zip(&want) {
                assert!(
                    g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
                    "lane {l}: {got:?} != {want:?}"
                );
            }
            assert_eq!(out[l].is_finite(), l != 5);
            for (k, value) in out[l].to_cols_array().iter().enumerate() {
                assert!(value.to_bits() == lanes[k][l].to_bits() || value.is_nan() && lanes[k][l].is_nan());
            }
        }
        // The reference is the tensor: a level body whose centre of mass is its centroid
        // has the hull's unit inertia times its mass.
        let level = hull_inertia(&DMat3::IDENTITY, &unit, centroid, centroid, 2.0);
        assert_eq!(level, unit * 2.0);
    }
}
