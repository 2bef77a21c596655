//! Pass two in the lanes: viscous and pressure drag on the pieces under the water of a
//! group's bodies, at their end-of-step motion.

use super::{
    CUT_ONE, CUT_ONE_AT_0, CUT_ONE_AT_1, CUT_ONE_AT_2, CUT_TWO, CUT_TWO_AT_0, CUT_TWO_AT_1, CUT_TWO_AT_2, DRY, Group,
    HALF, LANES, LaneMotion, LaneVectors, LaneVertex, Lanes, MIXED, Piece, WET, add_lane, clipped, corners, corners_of,
    lane, piece_area, second_wet,
};
use crate::forces::drag::{DragConstants, centroid_and_radius, drag_at, drag_points, needs_three_points};
use crate::forces::row::{add, cross, dot, point_velocity, scale, sub};
use crate::hull::Hull;

/// The second pass's sums per body.
#[derive(Clone, Copy, Default)]
pub(crate) struct DragLanes {
    pub viscous: LaneVectors,
    pub pressure: LaneVectors,
    pub torque: LaneVectors,
}

/// Viscous and pressure drag on the pieces under the water at each body's `motion` (the
/// end-of-step one); `viscous_factor` is each body's `-rho C_F / 2`. `k` holds what the
/// bodies share (coefficients, which forces are on); its motion is not read. The drag
/// falloffs must be 1/2. `kinds` are the triangles' kinds [`pass_one`](super::pass_one())
/// found. The sums go to `s`, every lane written.
#[inline(always)]
pub(crate) fn pass_two(
    hull: &Hull,
    group: &Group<'_>,
    kinds: &[u8],
    motion: &LaneMotion,
    viscous_factor: &Lanes,
    k: &DragConstants,
    s: &mut DragLanes,
) {
    if group.water.is_some() {
        pass_two_loop::<true>(hull, group, kinds, motion, viscous_factor, k, s)
    } else {
        pass_two_loop::<false>(hull, group, kinds, motion, viscous_factor, k, s)
    }
}

/// Viscous and pressure drag at `point` on a face of unit `normal` and `area` in a rigid
/// motion through water moving at `water` ([`drag_at`]).
#[inline(always)]
fn drag_point(
    k: &DragConstants,
    (com, velocity, omega): ([f64; 3], [f64; 3], [f64; 3]),
    water: [f64; 3],
    point: [f64; 3],
    normal: [f64; 3],
    area: f64,
) -> ([f64; 3], [f64; 3], [f64; 3]) {
    let arm = sub(point, com);
    drag_at::<true>(k, arm, point_velocity(velocity, omega, arm, water), normal, area)
}

/// Viscous and pressure drag on one piece under the water ([`drag_at`]), by the one-point
/// or the three-point rule (`Body`'s `drag_rule`): forces and moment.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn drag_piece(
    piece: &Piece,
    whole: bool,
    whole_area: f64,
    normal: [f64; 3],
    (com, velocity, omega): ([f64; 3], [f64; 3], [f64; 3]),
    water: [f64; 3],
    k: &DragConstants,
) -> ([f64; 3], [f64; 3], [f64; 3]) {
    let area = piece_area(whole, whole_area, piece.scaled_normal(), normal);
    let (centroid, radius_squared) = centroid_and_radius(piece.v);
    let u = point_velocity(velocity, omega, sub(centroid, com), water);
    let three = needs_three_points(dot(omega, omega), radius_squared, dot(u, u));
    let [(p1, w1), (p2, w2), (p3, w3)] = drag_points(piece.v, centroid, area, three);
    // (Calls, not a closure: a closure this size may be left out of line, and closures are
    // compiled for the baseline processor only.)
    let m = (com, velocity, omega);
    let (v1, d1, t1) = drag_point(k, m, water, p1, normal, w1);
    let (v2, d2, t2) = drag_point(k, m, water, p2, normal, w2);
    let (v3, d3, t3) = drag_point(k, m, water, p3, normal, w3);
    (add(add(v1, v2), v3), add(add(d1, d2), d3), add(add(t1, t2), t3))
}

#[inline(always)]
fn pass_two_loop<const MOVING: bool>(
    hull: &Hull,
    group: &Group<'_>,
    kinds: &[u8],
    motion: &LaneMotion,
    viscous_factor: &Lanes,
    k: &DragConstants,
    s: &mut DragLanes,
) {
    // (Written in place: returned, a group's 576 bytes were copied twice.)
    *s = DragLanes::default();
    for ((tri, &whole_area), &kind) in hull.triangles.iter().zip(&hull.areas).zip(kinds) {
        // (No drag above the water: nothing to gather.)
        if kind == DRY {
            continue;
        }
        let (corners, water) = corners::<MOVING>(group, *tri);
        // (The same in every lane: one division, not one per lane.)
        let to_unit = [1.0 / (2.0 * whole_area); LANES];
        let args = (
            &corners,
            &water,
            &[whole_area; LANES],
            &to_unit,
            motion,
            viscous_factor,
            k,
        );
        drag_triangle_of_kind(kind, group.half, args, s);
    }
}

/// [`drag_triangle`] for a triangle of kind `kind`, in half the lanes when `half`.
#[inline(always)]
pub(super) fn drag_triangle_of_kind(kind: u8, half: bool, args: DragArgs<'_>, s: &mut DragLanes) {
    match (kind, half) {
        // (No drag above the water.)
        (DRY, _) => {}
        (CUT_ONE_AT_0, false) => drag_triangle::<CUT_ONE_AT_0, LANES>(args, s),
        (CUT_ONE_AT_1, false) => drag_triangle::<CUT_ONE_AT_1, LANES>(args, s),
        (CUT_ONE_AT_2, false) => drag_triangle::<CUT_ONE_AT_2, LANES>(args, s),
        (CUT_TWO_AT_0, false) => drag_triangle::<CUT_TWO_AT_0, LANES>(args, s),
        (CUT_TWO_AT_1, false) => drag_triangle::<CUT_TWO_AT_1, LANES>(args, s),
        (CUT_TWO_AT_2, false) => drag_triangle::<CUT_TWO_AT_2, LANES>(args, s),
        (WET, false) => drag_triangle::<WET, LANES>(args, s),
        (CUT_ONE, false) => drag_triangle::<CUT_ONE, LANES>(args, s),
        (CUT_TWO, false) => drag_triangle::<CUT_TWO, LANES>(args, s),
        (_, false) => drag_triangle::<MIXED, LANES>(args, s),
        (WET, true) => drag_triangle::<WET, HALF>(args, s),
        (CUT_ONE, true) => drag_triangle::<CUT_ONE, HALF>(args, s),
        (CUT_TWO, true) => drag_triangle::<CUT_TWO, HALF>(args, s),
        (_, true) => drag_triangle::<MIXED, HALF>(args, s),
    }
}

/// One triangle's corners, the water's velocity, the triangle's area and `1 / (2 area)`
/// in each lane; the bodies' end-of-step motion, viscous factors and shared constants.
pub(super) type DragArgs<'a> = (
    &'a [&'a LaneVertex; 3],
    &'a LaneVectors,
    &'a Lanes,
    &'a Lanes,
    &'a LaneMotion,
    &'a Lanes,
    &'a DragConstants,
);

/// One triangle of the second pass in lanes `0..WIDTH`, of kind `KIND` ([`kind`](super::kind)); a
/// function of its own, like [`one_triangle`](super::pass_one::one_triangle), which says
/// why `WIDTH`.
#[multiversion::multiversion(targets("x86_64+avx512f+avx512vl+avx512dq+avx512bw+avx2", "x86_64+avx2"))]
pub(super) fn drag_triangle<'a, const KIND: u8, const WIDTH: usize>(
    (corners, water, whole_area, to_unit, motion, viscous_factor, k): DragArgs<'a>,
    s: &mut DragLanes,
) {
    const { assert!(WIDTH <= LANES) };
    {
        for l in 0..WIDTH {
            let (whole_area, to_unit) = (whole_area[l], to_unit[l]);
            let (p, h) = corners_of(corners, l);
            let water = lane(water, l);
            let motion = (
                lane(&motion.com, l),
                lane(&motion.velocity, l),
                lane(&motion.angular_velocity, l),
            );
            let k = DragConstants {
                viscous_factor: viscous_factor[l],
                ..*k
            };
            let normal = scale(cross(sub(p[1], p[0]), sub(p[2], p[0])), to_unit);
            let clipped = clipped::<KIND>(p, h);
            let whole = clipped.under == 3;
            let (v0, d0, t0) = drag_piece(&clipped.wet[0], whole, whole_area, normal, motion, water, &k);
            let (v1, d1, t1) = if second_wet(KIND) {
                drag_piece(&clipped.wet[1], false, whole_area, normal, motion, water, &k)
            } else {
                ([0.0; 3], [0.0; 3], [0.0; 3])
            };
            add_lane(&mut s.viscous, l, add(v0, v1));
            add_lane(&mut s.pressure, l, add(d0, d1));
            add_lane(&mut s.torque, l, add(t0, t1));
        }
    }
}
