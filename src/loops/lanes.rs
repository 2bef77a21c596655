//! Bodies of one small hull stepped eight at a time, one body in each vector lane.
//!
//! A box has 12 triangles. Stepped alone, its few rows leave the vector loops of
//! [`crate::loops::whole`] mostly empty and their fixed costs (constants, block
//! buffers, lane sums) spread over a dozen triangles; its eight cut triangles go one at a
//! time through the clipping code. Here the lanes hold eight bodies that share a hull
//! and a description, and the loop runs over the hull's triangles: the corners of
//! triangle `j` in body `l` are lane `l` of the group's vertex columns, and every number
//! of the step (clipping included) is computed for the eight bodies by the same
//! instructions.
//!
//! Clipping has no branches: each triangle gives at most two pieces under the water and
//! two above ([`crate::hull::clip`]'s case table, the same cut points to the bit), and a missing
//! piece is all three corners on one point, whose area, and so every force on it, is
//! zero. The forces are those of [`crate::forces`] in the arithmetic of
//! [`crate::loops::whole`]: exact hydrostatic pressure and the divergence theorem's
//! volume on the pieces under water, slamming per triangle against its last step, air on
//! the pieces above, and in the second pass viscous and pressure drag by the one-point
//! or the three-point rule (three points either way: the centroid with all the area and
//! twice with none, or the edge midpoints with a third each). Only the
//! order of the sums differs from the one-body code, so the forces agree with it to
//! rounding (`Body`'s tests); like it, they do not depend on the processor or the
//! threads.
//!
//! No arithmetic crosses lanes, so a body's forces are the same bits whichever bodies
//! share its group. A triangle dry (or wet) in every lane skips the pieces no lane has,
//! which would only add zeros (a sum from +0 is never -0, and adding a zero of either sign
//! leaves it as it is). A small body stepped alone puts eight of its own triangles in the
//! lanes ([`pass_one_single`], [`pass_two_single`]) and adds each triangle's contribution
//! to its sums in triangle order, as a group adds it: `World::step_body` and a batch give
//! the same bits.
//!
//! The bodies' own scalar work (the end-of-step motion, damping, the limiter, the added
//! mass) stays in `Body`, shared with the one-body step.

// Loops index lanes by number: that is what the compiler turns into vector instructions.
#![allow(clippy::needless_range_loop)]

use crate::forces::air::air_row;
use crate::forces::buoyancy::{pressure_row, volume_row};
use crate::forces::drag::{DragConstants, centroid_and_radius, drag_at, drag_points, needs_three_points};
use crate::forces::row::{add, cross, dot, pick, point_velocity, scale, sub};
use crate::forces::slamming::{SlammingConstants, SlammingParams, slamming_row};
use glam::DVec3;

use crate::hull::Hull;
use crate::loops::whole::{History, HistoryChunk, HistoryChunkMut, narrow};

/// Bodies per group.
pub(crate) const LANES: usize = 8;

/// One number per body of a group.
pub(crate) type Lanes = [f64; LANES];

/// A vector per body of a group, one column per axis.
pub(crate) type LaneVectors = [Lanes; 3];

/// A hull vertex in each body of a group: x, y, z relative to the body's origin (world
/// axes) and the height above the water.
pub(crate) type LaneVertex = [Lanes; 4];

/// What slamming remembers of a triangle in each body of a group: its swept volume rate
/// `A v` (x, y, z).
pub(crate) type LaneHistory = [Lanes; 3];

#[inline(always)]
fn lane(v: &LaneVectors, l: usize) -> [f64; 3] {
    [v[0][l], v[1][l], v[2][l]]
}

#[inline(always)]
fn add_lane(sum: &mut LaneVectors, l: usize, v: [f64; 3]) {
    for axis in 0..3 {
        sum[axis][l] += v[axis];
    }
}

/// The group's triangle corners and the water's velocity at them.
#[derive(Clone, Copy)]
pub(crate) struct Group<'a> {
    pub vertices: &'a [LaneVertex],
    /// Per vertex, when the water moves.
    pub water: Option<&'a [LaneVectors]>,
}

/// A rigid motion per body: centre of mass (relative to the origin, world axes),
/// velocity and angular velocity.
#[derive(Clone, Copy, Default)]
pub(crate) struct LaneMotion {
    pub com: LaneVectors,
    pub velocity: LaneVectors,
    pub angular_velocity: LaneVectors,
}

/// A piece of a triangle in one body: corners and their heights above the water.
#[derive(Clone, Copy)]
struct Piece {
    v: [[f64; 3]; 3],
    h: [f64; 3],
}

impl Piece {
    #[inline(always)]
    fn pick(yes: bool, a: &Piece, b: &Piece) -> Piece {
        Piece {
            v: [
                pick(yes, a.v[0], b.v[0]),
                pick(yes, a.v[1], b.v[1]),
                pick(yes, a.v[2], b.v[2]),
            ],
            h: [
                if yes { a.h[0] } else { b.h[0] },
                if yes { a.h[1] } else { b.h[1] },
                if yes { a.h[2] } else { b.h[2] },
            ],
        }
    }

    #[inline(always)]
    fn scaled_normal(&self) -> [f64; 3] {
        cross(sub(self.v[1], self.v[0]), sub(self.v[2], self.v[0]))
    }

    #[inline(always)]
    fn centroid(&self) -> [f64; 3] {
        scale(add(add(self.v[0], self.v[1]), self.v[2]), 1.0 / 3.0)
    }
}

/// A triangle of one body clipped against the water.
struct Clipped {
    wet: [Piece; 2],
    dry: [Piece; 2],
    /// Corners under the water.
    under: u32,
}

/// Where the edge from `u` (under water) to `a` meets the surface, as
/// [`crate::hull::clip`] computes it; `cut` false gives a finite point of no use.
#[inline(always)]
fn cut_point(cut: bool, u: [f64; 3], du: f64, a: [f64; 3], da: f64) -> [f64; 3] {
    let t = du / if cut { du - da } else { 1.0 };
    add(u, scale(sub(a, u), t))
}

/// [`crate::hull::clip::clip`] without branches.
#[inline(always)]
fn clip(p: [[f64; 3]; 3], h: [f64; 3]) -> Clipped {
    let u = [h[0] < 0.0, h[1] < 0.0, h[2] < 0.0];
    let under = u[0] as u32 + u[1] as u32 + u[2] as u32;
    let two = under == 2;
    // The corner alone on its side (above when two are under) comes first, the winding
    // kept.
    let lone = [u[0] != two, u[1] != two, u[2] != two];
    let (first1, first2) = (lone[1], !lone[1] && lone[2]);
    let rotate = |k0: usize, k1: usize, k2: usize| {
        let v = pick(first1, p[k1], pick(first2, p[k2], p[k0]));
        let d = if first1 {
            h[k1]
        } else if first2 {
            h[k2]
        } else {
            h[k0]
        };
        (v, d)
    };
    let ((p0, d0), (p1, d1), (p2, d2)) = (rotate(0, 1, 2), rotate(1, 2, 0), rotate(2, 0, 1));
    let cut = under == 1 || two;
    // Each cut edge from its end under water.
    let x = pick(two, cut_point(cut, p1, d1, p0, d0), cut_point(cut, p0, d0, p1, d1));
    let y = pick(two, cut_point(cut, p2, d2, p0, d0), cut_point(cut, p0, d0, p2, d2));
    let tri = Piece {
        v: [p0, x, y],
        h: [d0, 0.0, 0.0],
    };
    let quad1 = Piece {
        v: [x, p1, p2],
        h: [0.0, d1, d2],
    };
    let quad2 = Piece {
        v: [x, p2, y],
        h: [0.0, d2, 0.0],
    };
    let whole = Piece { v: p, h };
    let none = Piece {
        v: [p[0]; 3],
        h: [0.0; 3],
    };
    Clipped {
        wet: [
            Piece::pick(
                under == 3,
                &whole,
                &Piece::pick(two, &quad1, &Piece::pick(under == 1, &tri, &none)),
            ),
            Piece::pick(two, &quad2, &none),
        ],
        dry: [
            Piece::pick(
                under == 0,
                &whole,
                &Piece::pick(two, &tri, &Piece::pick(under == 1, &quad1, &none)),
            ),
            Piece::pick(under == 1, &quad2, &none),
        ],
        under,
    }
}

/// A triangle of kind `KIND` ([`kind`]) clipped: only a [`MIXED`] one needs [`clip`].
#[inline(always)]
fn clipped<const KIND: u8>(p: [[f64; 3]; 3], h: [f64; 3]) -> Clipped {
    let whole = Piece { v: p, h };
    let none = Piece {
        v: [p[0]; 3],
        h: [0.0; 3],
    };
    match KIND {
        DRY => Clipped {
            wet: [none, none],
            dry: [whole, none],
            under: 0,
        },
        WET => Clipped {
            wet: [whole, none],
            dry: [none, none],
            under: 3,
        },
        _ => clip(p, h),
    }
}

/// No vertex (a hull's indices are valid; this only spares the loops a bounds check).
const NO_VERTEX: LaneVertex = [[0.0; LANES]; 4];

/// Triangle `tri`'s corners in the group's bodies, looked up once (the loop over lanes
/// then has no bounds to check, and the compiler turns it into vector instructions),
/// and the water's velocity averaged over them.
#[inline(always)]
fn corners<'g, const MOVING: bool>(group: &Group<'g>, tri: [u32; 3]) -> ([&'g LaneVertex; 3], LaneVectors) {
    let vertex = |i: u32| group.vertices.get(i as usize).unwrap_or(&NO_VERTEX);
    let corners = [vertex(tri[0]), vertex(tri[1]), vertex(tri[2])];
    let mut water = [[0.0; LANES]; 3];
    if let (Some(w), true) = (group.water, MOVING) {
        let at = |i: u32| w.get(i as usize).copied().unwrap_or_default();
        let (a, b, c) = (at(tri[0]), at(tri[1]), at(tri[2]));
        for axis in 0..3 {
            for l in 0..LANES {
                water[axis][l] = (a[axis][l] + b[axis][l] + c[axis][l]) / 3.0;
            }
        }
    }
    (corners, water)
}

/// Lane `l` of [`corners`]: the corners and their heights.
#[inline(always)]
fn corners_of(corners: &[&LaneVertex; 3], l: usize) -> ([[f64; 3]; 3], [f64; 3]) {
    let [a, b, c] = corners;
    (
        [
            [a[0][l], a[1][l], a[2][l]],
            [b[0][l], b[1][l], b[2][l]],
            [c[0][l], c[1][l], c[2][l]],
        ],
        [a[3][l], b[3][l], c[3][l]],
    )
}

/// A triangle wholly above the water in every lane of a group ...
const DRY: u8 = 0;
/// ... wholly under it in every lane ...
const WET: u8 = 1;
/// ... or neither: cut by the water, or the lanes differ.
const MIXED: u8 = 2;

/// Which of [`DRY`], [`WET`] and [`MIXED`] a triangle is. Its loop over the lanes then
/// leaves out the pieces no lane has, whose forces would be zeros: the same numbers
/// (a sum, from +0, is never -0, and adding a zero of either sign leaves it as it was), so
/// a body's forces still do not depend on the company it is stepped in.
#[inline(always)]
fn kind(corners: &[&LaneVertex; 3]) -> u8 {
    let (mut any_under, mut all_under) = (false, true);
    for corner in corners {
        for &h in &corner[3] {
            any_under |= h < 0.0;
            all_under &= h < 0.0;
        }
    }
    if !any_under {
        DRY
    } else if all_under {
        WET
    } else {
        MIXED
    }
}

/// The area of a piece of a triangle of area `whole_area` and unit normal `normal`
/// (`whole`: the piece is the triangle).
#[inline(always)]
fn piece_area(whole: bool, whole_area: f64, scaled: [f64; 3], normal: [f64; 3]) -> f64 {
    if whole { whole_area } else { 0.5 * dot(scaled, normal) }
}

/// The first pass's constants, the same for the group's bodies.
#[derive(Clone, Copy)]
pub(crate) struct PassOneConstants {
    pub rho_g: f64,
    pub vertical_only: bool,
    pub slamming: Option<(SlammingParams, f64)>,
    /// `-rho_air C_air / 2` and the wind.
    pub air: Option<(f64, [f64; 3])>,
}

/// The first pass's sums per body.
#[derive(Clone, Copy, Default)]
pub(crate) struct PassOneSums {
    pub buoyancy_force: LaneVectors,
    pub buoyancy_torque: LaneVectors,
    pub slamming_force: LaneVectors,
    pub slamming_torque: LaneVectors,
    pub air_force: LaneVectors,
    pub air_torque: LaneVectors,
    pub volume: Lanes,
    pub volume_moment: LaneVectors,
    pub area: Lanes,
    pub area_moment: LaneVectors,
    /// Pieces under the water.
    pub pieces: Lanes,
}

/// Hydrostatic pressure, volume, wetted area, slamming and air on every triangle of the
/// group's bodies (of masses `mass`, for slamming; the mass in `k` is not read); writes what slamming remembers of each triangle to `history` (one
/// entry per triangle, `prior` the last step's).
#[inline(always)]
pub(crate) fn pass_one(
    hull: &Hull,
    group: &Group<'_>,
    motion: &LaneMotion,
    mass: &Lanes,
    k: &PassOneConstants,
    prior: &[LaneHistory],
    history: &mut [LaneHistory],
) -> PassOneSums {
    match (k.slamming.is_some(), k.air.is_some(), group.water.is_some()) {
        (true, true, false) => pass_one_loop::<true, true, false>(hull, group, motion, mass, k, prior, history),
        (true, true, true) => pass_one_loop::<true, true, true>(hull, group, motion, mass, k, prior, history),
        (false, true, false) => pass_one_loop::<false, true, false>(hull, group, motion, mass, k, prior, history),
        (false, true, true) => pass_one_loop::<false, true, true>(hull, group, motion, mass, k, prior, history),
        (true, false, false) => pass_one_loop::<true, false, false>(hull, group, motion, mass, k, prior, history),
        (true, false, true) => pass_one_loop::<true, false, true>(hull, group, motion, mass, k, prior, history),
        (false, false, false) => pass_one_loop::<false, false, false>(hull, group, motion, mass, k, prior, history),
        (false, false, true) => pass_one_loop::<false, false, true>(hull, group, motion, mass, k, prior, history),
    }
}

/// What a piece under the water adds to the first pass's sums.
#[derive(Clone, Copy)]
struct WetPiece {
    area: f64,
    moment: [f64; 3],
    force: [f64; 3],
    torque: [f64; 3],
    volume: f64,
    volume_moment: [f64; 3],
}

impl WetPiece {
    const ZERO: WetPiece = WetPiece {
        area: 0.0,
        moment: [0.0; 3],
        force: [0.0; 3],
        torque: [0.0; 3],
        volume: 0.0,
        volume_moment: [0.0; 3],
    };
}

/// Hydrostatic pressure ([`crate::forces::buoyancy::pressure_row`]) and the volume's
/// integrals ([`crate::forces::buoyancy::SubmergedVolume::add`]) on one piece; `whole`:
/// the piece is the triangle, of area `whole_area` and unit `normal`. `k6` is
/// `-rho g / 6`, `keep_horizontal` 0 when only the vertical force is kept.
#[inline(always)]
fn wet_piece(
    piece: &Piece,
    whole: bool,
    whole_area: f64,
    normal: [f64; 3],
    com: [f64; 3],
    k6: f64,
    keep_horizontal: f64,
) -> WetPiece {
    let sn = piece.scaled_normal();
    let area = piece_area(whole, whole_area, sn, normal);
    let centroid = piece.centroid();
    let depths = [-piece.h[0], -piece.h[1], -piece.h[2]];
    let pushed = [sn[0] * keep_horizontal, sn[1], sn[2] * keep_horizontal];
    let pressure = pressure_row(piece.v, depths, pushed, k6, com, (true, [0.0; 3]));
    let (volume, volume_moment) = volume_row(piece.v, depths, sn[1]);
    WetPiece {
        area,
        moment: scale(centroid, area),
        force: pressure.force,
        torque: pressure.torque,
        volume,
        volume_moment,
    }
}

/// Air resistance ([`crate::forces::air::air_force`]) on a piece above the water moving
/// at `velocity + omega x (r - com)` through air blowing at `wind`: force and moment.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn dry_piece(
    piece: &Piece,
    whole: bool,
    whole_area: f64,
    normal: [f64; 3],
    (com, velocity, omega): ([f64; 3], [f64; 3], [f64; 3]),
    wind: [f64; 3],
    air_factor: f64,
) -> ([f64; 3], [f64; 3]) {
    let area = piece_area(whole, whole_area, piece.scaled_normal(), normal);
    let arm = sub(piece.centroid(), com);
    let force = air_row(
        point_velocity(velocity, omega, arm, wind),
        normal,
        area,
        air_factor,
        true,
    );
    (force, cross(arm, force))
}

#[inline(always)]
fn pass_one_loop<const SLAM: bool, const AIR: bool, const MOVING: bool>(
    hull: &Hull,
    group: &Group<'_>,
    motion: &LaneMotion,
    mass: &Lanes,
    k: &PassOneConstants,
    prior: &[LaneHistory],
    history: &mut [LaneHistory],
) -> PassOneSums {
    let mut s = PassOneSums::default();
    let c = one_constants(k);
    let triangles = hull.triangles.iter().zip(&hull.areas);
    for (((tri, &whole_area), before), history) in triangles.zip(prior).zip(history.iter_mut()) {
        let (corners, water) = corners::<MOVING>(group, *tri);
        let args = (&corners, &water, &[whole_area; LANES], motion, mass, before, history);
        match kind(&corners) {
            DRY => one_triangle::<SLAM, AIR, DRY>(args, &c, &mut s),
            WET => one_triangle::<SLAM, AIR, WET>(args, &c, &mut s),
            _ => one_triangle::<SLAM, AIR, MIXED>(args, &c, &mut s),
        }
    }
    s
}

/// The first pass's constants, as one triangle's loop reads them.
#[derive(Clone, Copy)]
struct OneConstants {
    k6: f64,
    keep_horizontal: f64,
    slam: SlammingParams,
    dt: f64,
    air_factor: f64,
    wind: [f64; 3],
}

/// The first pass's constants from `k`.
#[inline(always)]
fn one_constants(k: &PassOneConstants) -> OneConstants {
    let (slam, dt) = k.slamming.unwrap_or((SlammingParams::OFF, 1.0));
    let (air_factor, wind) = k.air.unwrap_or((0.0, [0.0; 3]));
    OneConstants {
        k6: -k.rho_g / 6.0,
        keep_horizontal: if k.vertical_only { 0.0 } else { 1.0 },
        slam,
        dt,
        air_factor,
        wind,
    }
}

type OneArgs<'a> = (
    &'a [&'a LaneVertex; 3],
    &'a LaneVectors,
    &'a Lanes,
    &'a LaneMotion,
    &'a Lanes,
    &'a LaneHistory,
    &'a mut LaneHistory,
);

/// One triangle of the first pass in every lane, of kind `KIND` ([`kind`]). A function of
/// its own for each processor (not inlined into the step: in one function that big, the
/// compiler left most loops unvectorised).
#[multiversion::multiversion(targets("x86_64+avx512f+avx512vl+avx512dq+avx512bw+avx2", "x86_64+avx2"))]
fn one_triangle<'a, const SLAM: bool, const AIR: bool, const KIND: u8>(
    (corners, water, whole_area, motion, mass, before, history): OneArgs<'a>,
    c: &OneConstants,
    s: &mut PassOneSums,
) {
    let OneConstants {
        k6,
        keep_horizontal,
        slam,
        dt,
        air_factor,
        wind,
    } = *c;
    let before = *before;
    let mut now = [[0.0; LANES]; 3];
    // One body (or triangle) in each lane; no loop inside (the compiler vectorises
    // innermost loops).
    for l in 0..LANES {
        let whole_area = whole_area[l];
        let to_unit = 1.0 / (2.0 * whole_area);
        let (p, h) = corners_of(corners, l);
        let water = lane(water, l);
        let (com, velocity, omega) = (
            lane(&motion.com, l),
            lane(&motion.velocity, l),
            lane(&motion.angular_velocity, l),
        );
        let scaled = cross(sub(p[1], p[0]), sub(p[2], p[0]));
        let normal = scale(scaled, to_unit);
        let clipped = clipped::<KIND>(p, h);
        let (mut area, mut moment) = (0.0, [0.0; 3]);
        if KIND != DRY {
            let w0 = wet_piece(
                &clipped.wet[0],
                clipped.under == 3,
                whole_area,
                normal,
                com,
                k6,
                keep_horizontal,
            );
            let w1 = if KIND == MIXED {
                wet_piece(&clipped.wet[1], false, whole_area, normal, com, k6, keep_horizontal)
            } else {
                WetPiece::ZERO
            };
            area = w0.area + w1.area;
            moment = add(w0.moment, w1.moment);
            add_lane(&mut s.buoyancy_force, l, add(w0.force, w1.force));
            add_lane(&mut s.buoyancy_torque, l, add(w0.torque, w1.torque));
            s.volume[l] += w0.volume + w1.volume;
            add_lane(&mut s.volume_moment, l, add(w0.volume_moment, w1.volume_moment));
            s.area[l] += area;
            add_lane(&mut s.area_moment, l, moment);
            s.pieces[l] += match clipped.under {
                0 => 0.0,
                2 => 2.0,
                _ => 1.0,
            };
        }

        let centre = scale(add(add(p[0], p[1]), p[2]), 1.0 / 3.0);
        let v = point_velocity(velocity, omega, sub(centre, com), water);
        // (A triangle dry in every lane has no slamming: its wetted area is zero.)
        if SLAM && KIND != DRY {
            let change = sub(scale(v, area), [before[0][l], before[1][l], before[2][l]]);
            let k = SlammingConstants::new(&SlammingParams { mass: mass[l], ..slam }, dt);
            let force = slamming_row::<false, false>(v, normal, area, whole_area, change, area > 0.0, &k);
            let wet = area > 0.0;
            let point = pick(wet, scale(moment, 1.0 / if wet { area } else { 1.0 }), centre);
            add_lane(&mut s.slamming_force, l, force);
            add_lane(&mut s.slamming_torque, l, cross(sub(point, com), force));
        }
        // (The product `slamming_row`'s `change` starts from: the same bits.)
        now[0][l] = area * v[0];
        now[1][l] = area * v[1];
        now[2][l] = area * v[2];

        if AIR && KIND != WET {
            let motion = (com, velocity, omega);
            let whole = clipped.under == 0;
            let (f0, t0) = dry_piece(&clipped.dry[0], whole, whole_area, normal, motion, wind, air_factor);
            let (f1, t1) = if KIND == MIXED {
                dry_piece(&clipped.dry[1], false, whole_area, normal, motion, wind, air_factor)
            } else {
                ([0.0; 3], [0.0; 3])
            };
            add_lane(&mut s.air_force, l, add(f0, f1));
            add_lane(&mut s.air_torque, l, add(t0, t1));
        }
    }
    *history = now;
}

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
/// falloffs must be 1/2.
#[inline(always)]
pub(crate) fn pass_two(
    hull: &Hull,
    group: &Group<'_>,
    motion: &LaneMotion,
    viscous_factor: &Lanes,
    k: &DragConstants,
) -> DragLanes {
    if group.water.is_some() {
        pass_two_loop::<true>(hull, group, motion, viscous_factor, k)
    } else {
        pass_two_loop::<false>(hull, group, motion, viscous_factor, k)
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
    motion: &LaneMotion,
    viscous_factor: &Lanes,
    k: &DragConstants,
) -> DragLanes {
    let mut s = DragLanes::default();
    for (tri, &whole_area) in hull.triangles.iter().zip(&hull.areas) {
        let (corners, water) = corners::<MOVING>(group, *tri);
        let args = (&corners, &water, &[whole_area; LANES], motion, viscous_factor, k);
        match kind(&corners) {
            // (No drag above the water.)
            DRY => {}
            WET => drag_triangle::<WET>(args, &mut s),
            _ => drag_triangle::<MIXED>(args, &mut s),
        }
    }
    s
}

type DragArgs<'a> = (
    &'a [&'a LaneVertex; 3],
    &'a LaneVectors,
    &'a Lanes,
    &'a LaneMotion,
    &'a Lanes,
    &'a DragConstants,
);

/// One triangle of the second pass in every lane, of kind `KIND` ([`kind`]); a function
/// of its own, like [`one_triangle`].
#[multiversion::multiversion(targets("x86_64+avx512f+avx512vl+avx512dq+avx512bw+avx2", "x86_64+avx2"))]
fn drag_triangle<'a, const KIND: u8>(
    (corners, water, whole_area, motion, viscous_factor, k): DragArgs<'a>,
    s: &mut DragLanes,
) {
    {
        for l in 0..LANES {
            let whole_area = whole_area[l];
            let to_unit = 1.0 / (2.0 * whole_area);
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
            let (v1, d1, t1) = if KIND == MIXED {
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

/// A body stepped alone: its vertices relative to its origin (world axes), their heights
/// above the water, and the water's velocity at them when it moves.
#[derive(Clone, Copy)]
pub(crate) struct Single<'a> {
    pub vertices: &'a [DVec3],
    pub heights: &'a [f64],
    pub water: Option<&'a [DVec3]>,
}

/// Which of a lone body's triangles its lanes take: all of them in order, or those of a
/// list (a big hull's cut ones).
#[derive(Clone, Copy)]
enum Rows<'a> {
    All,
    Listed(&'a [u32]),
}

impl Rows<'_> {
    /// How many triangles, of a hull of `count`.
    #[inline(always)]
    fn len(self, count: usize) -> usize {
        match self {
            Rows::All => count,
            Rows::Listed(list) => list.len(),
        }
    }

    /// The hull row of the `i`-th triangle taken.
    #[inline(always)]
    fn row(self, i: usize) -> Option<usize> {
        match self {
            Rows::All => Some(i),
            Rows::Listed(list) => list.get(i).map(|&j| j as usize),
        }
    }
}

/// The triangles `first..first + n` of `rows` of a body stepped alone, one in each lane
/// (the spare lanes repeat the last), as [`corners`] gives a group's: corners, heights,
/// and the water's velocity averaged over the corners (the same arithmetic).
#[inline(always)]
fn lone_corners(
    hull: &Hull,
    body: &Single<'_>,
    rows: Rows<'_>,
    first: usize,
    n: usize,
) -> ([LaneVertex; 3], LaneVectors, Lanes) {
    let mut corners = [[[0.0; LANES]; 4]; 3];
    let mut water = [[0.0; LANES]; 3];
    let mut areas = [0.0; LANES];
    for l in 0..LANES {
        let Some(j) = rows.row(first + l.min(n - 1)) else {
            continue;
        };
        let (Some(tri), Some(&area)) = (hull.triangles.get(j), hull.areas.get(j)) else {
            continue;
        };
        areas[l] = area;
        let mut sum = [[0.0; 3]; 3];
        for (c, &i) in tri.iter().enumerate() {
            let i = i as usize;
            let v = body.vertices.get(i).copied().unwrap_or_default();
            corners[c][0][l] = v.x;
            corners[c][1][l] = v.y;
            corners[c][2][l] = v.z;
            corners[c][3][l] = body.heights.get(i).copied().unwrap_or_default();
            if let Some(w) = body.water {
                sum[c] = w.get(i).copied().unwrap_or_default().to_array();
            }
        }
        for axis in 0..3 {
            water[axis][l] = (sum[0][axis] + sum[1][axis] + sum[2][axis]) / 3.0;
        }
    }
    (corners, water, areas)
}

/// Adds lanes `0..n` of `from`, in order, to lane 0 of `to`: a lone body's triangles'
/// contributions, in the order a group adds them to each body's sums.
#[inline(always)]
fn add_in_order(to: &mut Lanes, from: &Lanes, n: usize) {
    for value in &from[..n] {
        to[0] += value;
    }
}

#[inline(always)]
fn add_vectors_in_order(to: &mut LaneVectors, from: &LaneVectors, n: usize) {
    for axis in 0..3 {
        add_in_order(&mut to[axis], &from[axis], n);
    }
}

impl PassOneSums {
    /// Adds lanes `0..n` of `t`, in order, to lane 0 ([`add_in_order`]).
    #[inline(always)]
    fn add_in_order(&mut self, t: &PassOneSums, n: usize) {
        add_vectors_in_order(&mut self.buoyancy_force, &t.buoyancy_force, n);
        add_vectors_in_order(&mut self.buoyancy_torque, &t.buoyancy_torque, n);
        add_vectors_in_order(&mut self.slamming_force, &t.slamming_force, n);
        add_vectors_in_order(&mut self.slamming_torque, &t.slamming_torque, n);
        add_vectors_in_order(&mut self.air_force, &t.air_force, n);
        add_vectors_in_order(&mut self.air_torque, &t.air_torque, n);
        add_in_order(&mut self.volume, &t.volume, n);
        add_vectors_in_order(&mut self.volume_moment, &t.volume_moment, n);
        add_in_order(&mut self.area, &t.area, n);
        add_vectors_in_order(&mut self.area_moment, &t.area_moment, n);
        add_in_order(&mut self.pieces, &t.pieces, n);
    }
}

impl DragLanes {
    /// Adds lanes `0..n` of `t`, in order, to lane 0 ([`add_in_order`]).
    #[inline(always)]
    fn add_in_order(&mut self, t: &DragLanes, n: usize) {
        add_vectors_in_order(&mut self.viscous, &t.viscous, n);
        add_vectors_in_order(&mut self.pressure, &t.pressure, n);
        add_vectors_in_order(&mut self.torque, &t.torque, n);
    }
}

/// Where a lone body's slamming history is read and written: by chunk (all its rows, a
/// small hull), or by row with the new rates pushed to a list (a big hull's cut rows).
enum LoneHistory<'p, 'h> {
    Chunk(&'p HistoryChunk<'h>, &'p mut HistoryChunkMut<'h>),
    Listed(&'p History, &'p mut Vec<(u32, DVec3)>),
}

impl LoneHistory<'_, '_> {
    /// Row `j`'s last swept volume rate.
    #[inline(always)]
    fn prior(&self, j: usize) -> [f64; 3] {
        match self {
            LoneHistory::Chunk(prior, _) => {
                std::array::from_fn(|axis| f64::from(prior.swept[axis].get(j).copied().unwrap_or_default()))
            }
            LoneHistory::Listed(prior, _) => prior.get(j).to_array(),
        }
    }

    /// Keeps row `j`'s new swept volume rate.
    #[inline(always)]
    fn keep(&mut self, j: usize, now: [f64; 3]) {
        match self {
            LoneHistory::Chunk(_, history) => {
                for axis in 0..3 {
                    if let Some(swept) = history.swept[axis].get_mut(j) {
                        *swept = narrow(now[axis]);
                    }
                }
            }
            LoneHistory::Listed(_, history) => history.push((j as u32, DVec3::from_array(now))),
        }
    }
}

/// [`pass_one`] for a body stepped alone: its triangles eight at a time, one in each lane,
/// by the functions a group uses, and each triangle's contribution added to the body's
/// sums in triangle order as a group adds it: the same numbers, to the bit, as the body
/// would get in any group. The sums are in lane 0; `motion` and `mass` in every lane.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn pass_one_single<'h>(
    hull: &Hull,
    body: &Single<'_>,
    motion: &LaneMotion,
    mass: &Lanes,
    k: &PassOneConstants,
    prior: &HistoryChunk<'h>,
    history: &mut HistoryChunkMut<'h>,
) -> PassOneSums {
    let history = LoneHistory::Chunk(prior, history);
    lone_pass_one(hull, body, Rows::All, motion, mass, k, history)
}

/// [`pass_one_single`] for the triangles in `list` only (a big hull's cut ones), eight
/// at a time, with their slamming history read from `prior` by row and each one's new
/// swept volume rate pushed to `history`. The sums, in lane 0, in the list's order.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn pass_one_listed(
    hull: &Hull,
    body: &Single<'_>,
    list: &[u32],
    motion: &LaneMotion,
    mass: &Lanes,
    k: &PassOneConstants,
    prior: &History,
    history: &mut Vec<(u32, DVec3)>,
) -> PassOneSums {
    let history = LoneHistory::Listed(prior, history);
    lone_pass_one(hull, body, Rows::Listed(list), motion, mass, k, history)
}

#[inline(always)]
fn lone_pass_one(
    hull: &Hull,
    body: &Single<'_>,
    rows: Rows<'_>,
    motion: &LaneMotion,
    mass: &Lanes,
    k: &PassOneConstants,
    history: LoneHistory<'_, '_>,
) -> PassOneSums {
    match (k.slamming.is_some(), k.air.is_some()) {
        (true, true) => lone_one_loop::<true, true>(hull, body, rows, motion, mass, k, history),
        (false, true) => lone_one_loop::<false, true>(hull, body, rows, motion, mass, k, history),
        (true, false) => lone_one_loop::<true, false>(hull, body, rows, motion, mass, k, history),
        (false, false) => lone_one_loop::<false, false>(hull, body, rows, motion, mass, k, history),
    }
}

#[inline(always)]
fn lone_one_loop<const SLAM: bool, const AIR: bool>(
    hull: &Hull,
    body: &Single<'_>,
    rows: Rows<'_>,
    motion: &LaneMotion,
    mass: &Lanes,
    k: &PassOneConstants,
    mut history: LoneHistory<'_, '_>,
) -> PassOneSums {
    let mut s = PassOneSums::default();
    let c = one_constants(k);
    let count = rows.len(hull.triangles.len());
    for first in (0..count).step_by(LANES) {
        let n = LANES.min(count - first);
        let (corners, water, areas) = lone_corners(hull, body, rows, first, n);
        let corners = [&corners[0], &corners[1], &corners[2]];
        let mut before = [[0.0; LANES]; 3];
        for l in 0..n {
            if let Some(j) = rows.row(first + l) {
                let prior = history.prior(j);
                for axis in 0..3 {
                    before[axis][l] = prior[axis];
                }
            }
        }
        let mut now = [[0.0; LANES]; 3];
        let mut t = PassOneSums::default();
        let args = (&corners, &water, &areas, motion, mass, &before, &mut now);
        match kind(&corners) {
            DRY => one_triangle::<SLAM, AIR, DRY>(args, &c, &mut t),
            WET => one_triangle::<SLAM, AIR, WET>(args, &c, &mut t),
            _ => one_triangle::<SLAM, AIR, MIXED>(args, &c, &mut t),
        }
        for l in 0..n {
            if let Some(j) = rows.row(first + l) {
                history.keep(j, [now[0][l], now[1][l], now[2][l]]);
            }
        }
        s.add_in_order(&t, n);
    }
    s
}

/// [`pass_two`] for a body stepped alone, as [`pass_one_single`] does the first pass.
#[inline(always)]
pub(crate) fn pass_two_single(
    hull: &Hull,
    body: &Single<'_>,
    motion: &LaneMotion,
    viscous_factor: &Lanes,
    k: &DragConstants,
) -> DragLanes {
    lone_pass_two(hull, body, Rows::All, motion, viscous_factor, k)
}

/// [`pass_two_single`] for the triangles in `list` only, as [`pass_one_listed`].
#[inline(always)]
pub(crate) fn pass_two_listed(
    hull: &Hull,
    body: &Single<'_>,
    list: &[u32],
    motion: &LaneMotion,
    viscous_factor: &Lanes,
    k: &DragConstants,
) -> DragLanes {
    lone_pass_two(hull, body, Rows::Listed(list), motion, viscous_factor, k)
}

#[inline(always)]
fn lone_pass_two(
    hull: &Hull,
    body: &Single<'_>,
    rows: Rows<'_>,
    motion: &LaneMotion,
    viscous_factor: &Lanes,
    k: &DragConstants,
) -> DragLanes {
    let mut s = DragLanes::default();
    let count = rows.len(hull.triangles.len());
    for first in (0..count).step_by(LANES) {
        let n = LANES.min(count - first);
        let (corners, water, areas) = lone_corners(hull, body, rows, first, n);
        let corners = [&corners[0], &corners[1], &corners[2]];
        let mut t = DragLanes::default();
        let args = (&corners, &water, &areas, motion, viscous_factor, k);
        match kind(&corners) {
            DRY => continue,
            WET => drag_triangle::<WET>(args, &mut t),
            _ => drag_triangle::<MIXED>(args, &mut t),
        }
        s.add_in_order(&t, n);
    }
    s
}

/// A thread's buffers for a group's columns, kept from one group to the next (no
/// allocation once they have grown to the hull).
#[derive(Default)]
pub(crate) struct LaneScratch {
    pub vertices: Vec<LaneVertex>,
    pub water: Vec<LaneVectors>,
    pub prior: Vec<LaneHistory>,
    pub history: Vec<LaneHistory>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<LaneScratch> = std::cell::RefCell::default();
}

impl LaneScratch {
    /// This thread's buffers, lent until [`LaneScratch::give_back`]. (Not a closure run
    /// with them: closures are compiled for the baseline processor only, not for the one
    /// the step's code was chosen for.)
    pub fn take() -> LaneScratch {
        SCRATCH.with(|s| std::mem::take(&mut *s.borrow_mut()))
    }

    pub fn give_back(scratch: LaneScratch) {
        SCRATCH.with(|s| *s.borrow_mut() = scratch);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::forces::kernel_tests::Lcg;
    use crate::hull::clip::{self, Tri};

    fn bits(p: &Piece) -> Vec<u64> {
        p.v.iter().flatten().chain(&p.h).map(|x| x.to_bits()).collect()
    }

    fn tri_bits(t: &Tri) -> Vec<u64> {
        t.v.iter()
            .flat_map(|v| v.to_array())
            .chain(t.height)
            .map(f64::to_bits)
            .collect()
    }

    /// A missing piece: three corners on one point (no area, so no force).
    fn is_none(p: &Piece) -> bool {
        p.v[1] == p.v[0] && p.v[2] == p.v[0]
    }

    /// The lanes' clipping against `clip.rs`'s, to the bit, for one triangle.
    fn check(v: [[f64; 3]; 3], h: [f64; 3]) {
        let lanes = clip(v, h);
        let reference = clip::clip(&Tri {
            v: v.map(DVec3::from_array),
            height: h,
        });
        assert_eq!(
            lanes.under as usize,
            h.iter().filter(|&&h| h < 0.0).count(),
            "{v:?} {h:?}"
        );
        for (name, got, want) in [
            ("wet", &lanes.wet, reference.submerged()),
            ("dry", &lanes.dry, reference.emerged()),
        ] {
            for (k, piece) in got.iter().enumerate() {
                match want.get(k) {
                    Some(t) => assert_eq!(bits(piece), tri_bits(t), "{name} piece {k} of {v:?} {h:?}"),
                    None => assert!(is_none(piece), "{name} piece {k} of {v:?} {h:?} should be missing"),
                }
            }
        }
    }

    #[test]
    fn the_lanes_clip_a_triangle_into_clip_rs_pieces_to_the_bit() {
        let mut rng = Lcg(29);
        let mut cases = 0;
        // Heights that matter: on the water (+0 and -0), just under or over it, far off.
        let special = [0.0, -0.0, 1e-300, -1e-300, f64::MIN_POSITIVE, -1e-12, 1e-12, -3.0, 5.0];
        for round in 0..20_000 {
            let mut corner = || [rng.next(), rng.next(), rng.next()];
            let mut v = [corner(), corner(), corner()];
            match round % 5 {
                // Degenerate: two corners on one point, or three on a line.
                1 => v[1] = v[0],
                2 => v[2] = std::array::from_fn(|x| 0.5 * (v[0][x] + v[1][x])),
                // A sliver: the third corner a hair from the first edge.
                3 => v[2] = std::array::from_fn(|x| v[0][x] + 0.3 * (v[1][x] - v[0][x]) + 1e-13),
                _ => {}
            }
            let level = rng.next() * 0.8;
            let mut h = v.map(|p| p[1] - level);
            if round % 3 == 0 {
                let k = (round / 3) % 3;
                h[k] = special[(round / 9) % special.len()];
            }
            if round % 7 == 0 {
                h[(round + 1) % 3] = special[(round / 7) % special.len()];
            }
            check(v, h);
            cases += 1;
        }
        // Every count of corners under the water, with corners on it.
        for h in [
            [-1.0, -2.0, -0.5],
            [1.0, 2.0, 0.5],
            [0.0, 0.0, 0.0],
            [-0.0, -0.0, -0.0],
            [0.0, -1.0, -1.0],
            [0.0, 0.0, -1.0],
            [-1.0, 0.0, 1.0],
            [1.0, -1.0, 0.0],
        ] {
            check([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], h);
            cases += 1;
        }
        assert!(cases > 20_000);
    }
}
