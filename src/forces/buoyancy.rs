//! Hydrostatic buoyancy: the pressure `p = rho g h` of the water at depth `h`.
//!
//! **Pressure** (Kerner part 1; thesis 5.1). On a submerged plane triangle of area `S`
//! and outward normal `n` the force is `F = -rho g h_c S n`, exact for any plane triangle
//! (`h_c`: depth of its centroid). Its point of application is the centre of pressure,
//! `sum(h_k m_k) / sum(h_k)` with `m_k` the edge midpoints and `h_k` their depths (the
//! midpoint rule integrates `h x` exactly, being quadratic). Kerner and the thesis apply
//! the force at the centroid instead, which leaves a residual torque on coarse meshes;
//! [`pressure_at_centroid`] keeps that variant for comparison.
//!
//! **Volume** (Nurnberg 2013; thesis 5.10). The submerged volume and its first moments
//! come from the divergence theorem with fields that vanish on the water surface, so the
//! water-plane cap of the clipped hull never has to be built. With `S n_y` the vertical
//! part of a piece's area vector and `h`, `x`, `y`, `z` at its edge midpoints:
//!
//! ```text
//! V         = sum -S n_y h_c                       (field (0, -h, 0))
//! int x dV  = sum -S n_y / 3 sum_k x_k h_k          (field (0, -x h, 0)), z alike
//! int y dV  = sum  S n_y / 3 sum_k (-h_k y_k - h_k^2 / 2)   (field (0, (y^2 - eta^2)/2, 0))
//! ```
//!
//! Exact on flat water for a closed hull; on waves the surface is taken linear across
//! each triangle.

use glam::DVec3;

use super::row::{add, cross, scale};
use crate::hull::clip::Tri;

/// `sum_k (p + q)_k (h_p + h_q)_k` over the edges `(a, b)`, `(b, c)`, `(c, a)`: four
/// times the depth-weighted sum of the edge midpoints, from which both the centre of
/// pressure (divided by `4 sum h`) and the volume's first moment (`/ 4`) come.
#[inline(always)]
pub(crate) fn depth_weighted_midpoints([a, b, c]: [[f64; 3]; 3], [ha, hb, hc]: [f64; 3]) -> [f64; 3] {
    add(
        add(scale(add(a, b), ha + hb), scale(add(b, c), hb + hc)),
        scale(add(c, a), hc + ha),
    )
}

/// The submerged volume under a piece and its first moment (module docs), from its
/// corners, their `depths` and the vertical part `scaled_normal_y` of its
/// `cross(b - a, c - a)`.
#[inline(always)]
pub(crate) fn volume_row([a, b, c]: [[f64; 3]; 3], [ha, hb, hc]: [f64; 3], scaled_normal_y: f64) -> (f64, [f64; 3]) {
    let area_y = 0.5 * scaled_normal_y;
    let (m0, m1, m2) = (scale(add(a, b), 0.5), scale(add(b, c), 0.5), scale(add(c, a), 0.5));
    let (d0, d1, d2) = (0.5 * (ha + hb), 0.5 * (hb + hc), 0.5 * (hc + ha));
    let xz = add(add(scale(m0, d0), scale(m1, d1)), scale(m2, d2));
    let y = -(d0 * m0[1] + 0.5 * d0 * d0) - (d1 * m1[1] + 0.5 * d1 * d1) - (d2 * m2[1] + 0.5 * d2 * d2);
    let third = area_y / 3.0;
    let depth_sum = ha + hb + hc;
    (
        -(area_y * depth_sum / 3.0),
        [-(third * xz[0]), third * y, -(third * xz[2])],
    )
}

/// The hydrostatic pressure on one submerged piece, as every path computes it (the
/// whole triangles' loops, the lanes, the cut pieces and the replay through
/// [`pressure`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PressureRow {
    /// The force, `k D pushed`.
    pub force: [f64; 3],
    /// Its moment about the centre of mass.
    pub torque: [f64; 3],
    /// `P / 4`: the depth-weighted edge midpoints ([`depth_weighted_midpoints`]) over 4,
    /// the centre of pressure times the depth sum `D` (and the volume's moment's part).
    pub weighted: [f64; 3],
}

/// The module's pressure force on a piece with `corners` at `depths`, and its moment
/// about `com`: `pushed` is the piece's `cross(b - a, c - a)` (or its part along world
/// up, for vertical buoyancy), `k` is `-rho g / 6`. The moment is `(P / (4 D) - com) x
/// k D pushed`, `D` the depth sum and `P` the depth-weighted midpoints, written
/// `(P / 4 - com D) x k pushed`, with no division (and no special case for `D = 0`,
/// where both are zero). `exact` false: the lever is `arm D` instead, `arm` being the
/// centroid's from `com` (Kerner's shortcut, [`pressure_at_centroid`]). Both levers are
/// computed and one is chosen: a branch here keeps the compiler from vectorising the
/// loops around it.
#[inline(always)]
pub(crate) fn pressure_row(
    corners: [[f64; 3]; 3],
    depths: [f64; 3],
    pushed: [f64; 3],
    k: f64,
    com: [f64; 3],
    (exact, arm): (bool, [f64; 3]),
) -> PressureRow {
    let depth_sum = depths[0] + depths[1] + depths[2];
    let pushed_k = scale(pushed, k);
    let force = scale(pushed_k, depth_sum);
    let weighted = scale(depth_weighted_midpoints(corners, depths), 0.25);
    let exact_lever: [f64; 3] = std::array::from_fn(|x| weighted[x] - com[x] * depth_sum);
    let centroid_lever = scale(arm, depth_sum);
    let lever: [f64; 3] = std::array::from_fn(|x| if exact { exact_lever[x] } else { centroid_lever[x] });
    PressureRow {
        force,
        torque: cross(lever, pushed_k),
        weighted,
    }
}

/// [`pressure_row`] on a piece of the one-at-a-time code: force, its moment about `com`
/// and its point of application (the centre of pressure, or the centroid when
/// `at_centroid` or when the piece has no depth). `vertical_only`: only the force's part
/// along world up (`y`) is kept.
#[inline]
pub(crate) fn pressure_about(
    piece: &Tri,
    scaled_normal: DVec3,
    rho_g: f64,
    com: DVec3,
    vertical_only: bool,
    at_centroid: bool,
) -> (DVec3, DVec3, DVec3) {
    let depths = piece.height.map(|d| -d);
    let depth_sum = depths[0] + depths[1] + depths[2];
    let pushed = if vertical_only {
        DVec3::new(0.0, scaled_normal.y, 0.0)
    } else {
        scaled_normal
    };
    let centroid = piece.centroid();
    let row = pressure_row(
        piece.v.map(|p| p.to_array()),
        depths,
        pushed.to_array(),
        -rho_g / 6.0,
        com.to_array(),
        (!at_centroid, (centroid - com).to_array()),
    );
    let point = if !at_centroid && depth_sum > 0.0 {
        DVec3::from_array(row.weighted) / depth_sum
    } else {
        centroid
    };
    (DVec3::from_array(row.force), DVec3::from_array(row.torque), point)
}

/// Hydrostatic force on a submerged piece and its exact centre of pressure;
/// `scaled_normal` is the piece's `cross(b - a, c - a)` (`pressure_row`, the loops' own
/// arithmetic).
#[inline]
pub fn pressure(piece: &Tri, scaled_normal: DVec3, rho_g: f64) -> (DVec3, DVec3) {
    let (force, _, point) = pressure_about(piece, scaled_normal, rho_g, DVec3::ZERO, false, false);
    (force, point)
}

/// The same force applied at the piece's centroid (Kerner's and the thesis's shortcut).
#[inline]
pub fn pressure_at_centroid(piece: &Tri, scaled_normal: DVec3, rho_g: f64) -> (DVec3, DVec3) {
    let (force, _, point) = pressure_about(piece, scaled_normal, rho_g, DVec3::ZERO, false, true);
    (force, point)
}

/// Running integrals of the submerged volume (module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SubmergedVolume {
    /// Submerged volume, m^3.
    pub volume: f64,
    /// First moment of the submerged volume, `integral of r dV`.
    pub moment: DVec3,
}

impl SubmergedVolume {
    /// Adds one submerged piece of a closed hull (`scaled_normal`: its `cross(b - a, c - a)`).
    #[inline]
    pub fn add(&mut self, piece: &Tri, scaled_normal: DVec3) {
        let (volume, moment) = volume_row(piece.v.map(|p| p.to_array()), piece.height.map(|d| -d), scaled_normal.y);
        self.volume += volume;
        self.moment += DVec3::from_array(moment);
    }

    /// Centroid of the submerged volume, if there is any.
    pub fn centroid(&self) -> Option<DVec3> {
        (self.volume > 0.0).then(|| self.moment / self.volume)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flat(v: [DVec3; 3], level: f64) -> Tri {
        Tri {
            v,
            height: v.map(|p| p.y - level),
        }
    }

    #[test]
    fn centre_of_pressure_of_a_vertical_rectangle_is_two_thirds_down() {
        // A 1 x 1 vertical wall from the surface (y = 0) to y = -1, facing +z.
        let (p, q, r, s) = (
            DVec3::new(0.0, 0.0, 0.0),
            DVec3::new(0.0, -1.0, 0.0),
            DVec3::new(1.0, -1.0, 0.0),
            DVec3::new(1.0, 0.0, 0.0),
        );
        let (f1, c1) = {
            let t = flat([p, q, r], 0.0);
            pressure(&t, t.scaled_normal(), 1.0)
        };
        let (f2, c2) = {
            let t = flat([p, r, s], 0.0);
            pressure(&t, t.scaled_normal(), 1.0)
        };
        let force = f1 + f2;
        let point = (c1 * f1.z + c2 * f2.z) / force.z;
        // Force = rho g h_c A = 0.5, pushing against the normal (-z); centre at depth 2/3.
        assert!((force - DVec3::new(0.0, 0.0, -0.5)).length() < 1e-15);
        assert!((point.y + 2.0 / 3.0).abs() < 1e-15, "{point}");
        assert!((point.x - 0.5).abs() < 1e-15);
    }

    #[test]
    fn a_submerged_tetrahedron_integrates_to_its_volume_and_centroid() {
        let v = [
            DVec3::new(0.1, -2.0, 0.3),
            DVec3::new(1.2, -2.5, 0.1),
            DVec3::new(0.4, -1.5, 1.4),
            DVec3::new(0.5, -0.5, 0.6),
        ];
        let faces = [[0, 1, 2], [0, 3, 1], [1, 3, 2], [2, 3, 0]];
        let mut integral = SubmergedVolume::default();
        let mut force = DVec3::ZERO;
        for f in faces {
            let tri = flat(f.map(|i| v[i]), 0.0);
            integral.add(&tri, tri.scaled_normal());
            force += pressure(&tri, tri.scaled_normal(), 1.0).0;
        }
        let volume = (v[1] - v[0]).dot((v[2] - v[0]).cross(v[3] - v[0])).abs() / 6.0;
        let centroid = (v[0] + v[1] + v[2] + v[3]) / 4.0;
        assert!(
            (integral.volume - volume).abs() < 1e-14,
            "{} vs {volume}",
            integral.volume
        );
        assert!((integral.centroid().unwrap() - centroid).length() < 1e-14);
        assert!((force - DVec3::new(0.0, volume, 0.0)).length() < 1e-14, "{force}");
    }
}
