//! Hydrostatics of a block of wholly wet triangles under flat water, from moments of the
//! block computed once with the hull.
//!
//! Under flat water a point's height is linear in the point: `h(p) = u . p + e`, with `u`
//! world up in body axes and `e` the body origin's height above the water. Every
//! hydrostatic sum of the whole-triangle pass ([`crate::loops::whole`]) over wholly
//! wet triangles is then a polynomial of degree at most three in `(u, e)`, whose
//! coefficients are sums over the triangles that do not change with the body's pose:
//! the pass adds 32 triangles' pressure force and moment, submerged volume and its
//! moments with a few dozen operations, where it took some seventy per triangle.
//!
//! For a triangle with corners `a, b, c`, area vector `s = 2 A n` (as the pass reads
//! it: the stored unit normal times twice the stored area), corner sum `g = a + b + c`,
//! edge sums `m_e` (`a + b`, `b + c`, `c + a`) and `Q = sum_e m_e m_e^T`, the depths are
//! `d_p = -(u . p + e)`, so that the pass's per-triangle terms are
//!
//! - depth sum `D = -(u . g + 3 e)`, edge depth sums `d_e = -(u . m_e + 2 e)`;
//! - `P/4 = sum_e m_e d_e / 4 = -(Q u + 4 e g) / 4` (the depth-weighted edge midpoints);
//! - pressure force `k D s` (`k = -rho g / 6`; or `k D (u . s) u` for vertical buoyancy),
//!   its moment `(P/4 - com D) x k s` (`x k (u . s) u`);
//! - submerged volume `-(u . s) D / 6`, its moment `(P/4) (u . s) / 6` and, along up,
//!   `(u . s) / 6 * sum_e d_e^2 / 8`.
//!
//! Summed over a block with `S = sum s`, `A = sum s g^T`, `G = sum g x s`,
//! `C_j = sum (Q e_j) x s` and `T_xjk = sum s_j Q_xk` (`T(u, u)_x = sum_jk T_xjk u_j u_k`):
//!
//! - force `-k (A u + 3 e S)`, or `-k (u^T A u + 3 e u . S) u`;
//! - moment `k W - com x force` with `W = -(sum_j u_j C_j + 4 e G) / 4`, or
//!   `W = -(T(u, u) + 4 e A^T u) / 4 x u`;
//! - volume `(u^T A u + 3 e u . S) / 6`, its moment `-(T(u, u) + 4 e A^T u) / 24`, and
//!   along up `(u . T(u, u) + 8 e u^T A u + 12 e^2 u . S) / 48`;
//! - wetted area and its moment: the sums of the areas and of area times centroid.
//!
//! The sums agree with the triangle-by-triangle ones to rounding (the tests compare them
//! on random blocks and poses), not to the bit. The pressure's centroid lever
//! ([`crate::loops::whole::Pressure::Centroid`]) is not covered: the pass keeps its
//! per-triangle sums for it.

use glam::DVec3;

/// A block's moments (module documentation), in body axes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct BlockMoments {
    s: [f64; 3],
    /// `a[x][j] = sum s_x g_j`.
    a: [[f64; 3]; 3],
    g: [f64; 3],
    /// `c[j] = sum (Q e_j) x s`.
    c: [[f64; 3]; 3],
    /// `t[x][j][k] = sum s_j Q_xk`.
    t: [[[f64; 3]; 3]; 3],
    area: f64,
    area_moment: [f64; 3],
}

/// One triangle as the whole-triangle pass reads it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Row {
    pub corners: [DVec3; 3],
    pub normal: DVec3,
    pub area: f64,
    pub centroid: DVec3,
}

/// The hydrostatic sums of a block, body axes, as the pass keeps them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct HydrostaticSums {
    pub force: DVec3,
    pub torque: DVec3,
    pub volume: f64,
    /// `sum (P/4) (u . s) / 6`: the volume's moment but for its part along up.
    pub volume_moment: DVec3,
    /// The volume moment's part along up, `sum (u . s) / 6 * sum_e d_e^2 / 8`.
    pub depth_moment: f64,
    pub wetted: f64,
    pub wetted_moment: DVec3,
}

/// The pose of a body over flat water, in its own axes, and the pressure's constant.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FlatPose {
    /// World up.
    pub up: DVec3,
    /// The body origin's height above the water.
    pub height: f64,
    pub com: DVec3,
    /// `-rho g / 6`, or zero when pressure is not summed.
    pub k: f64,
    pub vertical_only: bool,
}

impl BlockMoments {
    /// The moments of `rows`.
    pub fn of(rows: impl IntoIterator<Item = Row>) -> Self {
        let mut m = Self::default();
        for row in rows {
            let [a, b, c] = row.corners;
            let s = row.normal * (row.area * 2.0);
            let g = a + b + c;
            let edges = [a + b, b + c, c + a];
            let q: [[f64; 3]; 3] =
                std::array::from_fn(|x| std::array::from_fn(|k| edges.iter().map(|e| e[x] * e[k]).sum::<f64>()));
            for x in 0..3 {
                m.s[x] += s[x];
                m.g[x] += g.cross(s)[x];
                m.area_moment[x] += row.centroid[x] * row.area;
                for j in 0..3 {
                    m.a[x][j] += s[x] * g[j];
                    let column = DVec3::new(q[0][j], q[1][j], q[2][j]);
                    m.c[j][x] += column.cross(s)[x];
                    for (t, q) in m.t[x][j].iter_mut().zip(q[x]) {
                        *t += s[j] * q;
                    }
                }
            }
            m.area += row.area;
        }
        m
    }

    /// The block's hydrostatic sums at `pose`.
    #[inline(always)]
    pub fn sums(&self, pose: &FlatPose) -> HydrostaticSums {
        let u = pose.up.to_array();
        let e = pose.height;
        let vector = |v: [f64; 3]| DVec3::from_array(v);
        let a_u: [f64; 3] = std::array::from_fn(|x| (0..3).map(|j| self.a[x][j] * u[j]).sum());
        let at_u: [f64; 3] = std::array::from_fn(|j| (0..3).map(|x| self.a[x][j] * u[x]).sum());
        let u_a_u: f64 = (0..3).map(|x| u[x] * a_u[x]).sum();
        let u_s: f64 = (0..3).map(|x| u[x] * self.s[x]).sum();
        let t_uu: [f64; 3] = std::array::from_fn(|x| {
            (0..3)
                .map(|j| u[j] * (0..3).map(|k| self.t[x][j][k] * u[k]).sum::<f64>())
                .sum()
        });
        // sum (u . s) P/4.
        let weighted_up = vector(std::array::from_fn(|x| -0.25 * (t_uu[x] + 4.0 * e * at_u[x])));
        let (pushed, weighted_cross) = if pose.vertical_only {
            (-(u_a_u + 3.0 * e * u_s) * pose.up, weighted_up.cross(pose.up))
        } else {
            let c_u: [f64; 3] = std::array::from_fn(|x| (0..3).map(|j| u[j] * self.c[j][x]).sum());
            (
                vector(std::array::from_fn(|x| -(a_u[x] + 3.0 * e * self.s[x]))),
                vector(std::array::from_fn(|x| -0.25 * (c_u[x] + 4.0 * e * self.g[x]))),
            )
        };
        let force = pushed * pose.k;
        let u_t_uu: f64 = (0..3).map(|x| u[x] * t_uu[x]).sum();
        HydrostaticSums {
            force,
            torque: weighted_cross * pose.k - pose.com.cross(force),
            volume: (u_a_u + 3.0 * e * u_s) / 6.0,
            volume_moment: weighted_up / 6.0,
            depth_moment: (u_t_uu + 8.0 * e * u_a_u + 12.0 * e * e * u_s) / 48.0,
            wetted: self.area,
            wetted_moment: vector(self.area_moment),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::forces::buoyancy::depth_weighted_midpoints;
    use crate::forces::kernel_tests::Lcg;

    /// The pass's per-triangle terms (module documentation), summed one triangle at a
    /// time: the reference; and the sums of their sizes, the scale of rounding.
    fn one_at_a_time(rows: &[Row], pose: &FlatPose) -> (HydrostaticSums, HydrostaticSums) {
        let u = pose.up;
        let (mut sums, mut sizes) = (HydrostaticSums::default(), HydrostaticSums::default());
        let size = |v: DVec3| DVec3::splat(v.length());
        for row in rows {
            let [a, b, c] = row.corners;
            let depth = |p: DVec3| -(u.dot(p) + pose.height);
            let (da, db, dc) = (depth(a), depth(b), depth(c));
            let total = da + db + dc;
            let s = row.normal * (row.area * 2.0);
            let s_up = u.dot(s);
            let pushed = if pose.vertical_only { u * s_up } else { s } * pose.k;
            let force = pushed * total;
            let (ab, bc, ca) = (da + db, db + dc, dc + da);
            // (The pass's own row function.)
            let weighted =
                DVec3::from_array(depth_weighted_midpoints([a, b, c].map(|p| p.to_array()), [da, db, dc])) * 0.25;
            let torque = (weighted - pose.com * total).cross(pushed);
            let volume = -(s_up * 0.5 * total / 3.0);
            let volume_moment = weighted * (s_up * 0.5 / 3.0);
            let depth_moment = s_up * 0.5 / 3.0 * (ab * ab + bc * bc + ca * ca) * 0.125;
            sums.force += force;
            sums.torque += torque;
            sums.volume += volume;
            sums.volume_moment += volume_moment;
            sums.depth_moment += depth_moment;
            sums.wetted += row.area;
            sums.wetted_moment += row.centroid * row.area;
            // (A torque's size: its lever's, which cancels between the two levers.)
            sizes.force += size(force);
            sizes.torque += size(weighted.abs().cross(pushed.abs()) + (pose.com * total).abs().cross(pushed.abs()));
            sizes.volume += volume.abs();
            sizes.volume_moment += size(volume_moment);
            sizes.depth_moment += depth_moment.abs();
            sizes.wetted += row.area;
            sizes.wetted_moment += size(row.centroid * row.area);
        }
        (sums, sizes)
    }

    /// The crate's test generator, uniform in [0, 1) and in a cube of half-side `scale`.
    struct Rng(Lcg);

    impl Rng {
        fn next(&mut self) -> f64 {
            0.5 * (self.0.next() + 1.0)
        }

        fn vec(&mut self, scale: f64) -> DVec3 {
            self.0.vec() * scale
        }
    }

    #[test]
    fn block_sums_from_moments_are_the_sums_of_the_triangles() {
        let mut rng = Rng(Lcg(5));
        for case in 0..200 {
            let size = [0.01, 1.0, 30.0][case % 3];
            let count = 1 + case % 32;
            let rows: Vec<Row> = (0..count)
                .map(|_| {
                    let corners = [rng.vec(size), rng.vec(size), rng.vec(size)];
                    let [a, b, c] = corners;
                    let twice = (b - a).cross(c - a);
                    let area = 0.5 * twice.length();
                    Row {
                        corners,
                        normal: twice / (2.0 * area),
                        area,
                        centroid: (a + b + c) / 3.0,
                    }
                })
                .collect();
            let moments = BlockMoments::of(rows.iter().copied());
            for vertical_only in [false, true] {
                let pose = FlatPose {
                    up: rng.vec(1.0).normalize(),
                    height: -size * (1.0 + 3.0 * rng.next()),
                    com: rng.vec(size),
                    k: -1000.0 * 9.81 / 6.0,
                    vertical_only,
                };
                let (fast, (slow, sizes)) = (moments.sums(&pose), one_at_a_time(&rows, &pose));
                // Rounding of the terms, not of their sums (which cancel), sets the
                // tolerance: a few thousand units in the last place of the terms' sizes.
                let close = |a: f64, b: f64, size: f64| (a - b).abs() <= 1e-12 * size;
                let vectors = [
                    (fast.force, slow.force, sizes.force),
                    (fast.torque, slow.torque, sizes.torque),
                    (fast.volume_moment, slow.volume_moment, sizes.volume_moment),
                    (fast.wetted_moment, slow.wetted_moment, sizes.wetted_moment),
                ];
                for (k, (a, b, size)) in vectors.into_iter().enumerate() {
                    for axis in 0..3 {
                        assert!(
                            close(a[axis], b[axis], size[axis]),
                            "case {case} vertical {vertical_only} vector {k}: {a} vs {b} (sizes {size})"
                        );
                    }
                }
                for (k, (a, b, size)) in [
                    (fast.volume, slow.volume, sizes.volume),
                    (fast.depth_moment, slow.depth_moment, sizes.depth_moment),
                    (fast.wetted, slow.wetted, sizes.wetted),
                ]
                .into_iter()
                .enumerate()
                {
                    assert!(
                        close(a, b, size),
                        "case {case} vertical {vertical_only} scalar {k}: {a} vs {b} (size {size})"
                    );
                }
            }
        }
    }
}
