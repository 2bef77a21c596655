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
//! leaves it as it is); so does one cut the same way in every lane (one corner under, or
//! two: a box floating level, whose sides every body's water cuts alike), which also needs
//! none of the other case's selects; in a full group, such a triangle whose lone corner
//! (the one alone on its side of the water) is the same corner in every lane also skips
//! the clipping's rotation of the corners. A small body stepped alone puts up to eight of its own
//! triangles in the lanes, sorted by how the water cuts them so that each chunk takes one
//! of those cheaper kernels ([`pass_one_single`], [`pass_two_single`]), and adds each
//! triangle's contribution to its sums in triangle order, as a group adds it:
//! `World::step_body` and a batch give the same bits. A group of at most four bodies, or a
//! lone body's chunk of four triangles or fewer, is computed in the first half of the lanes
//! only ([`HALF`]): the other lanes would repeat a body or a triangle whose results are
//! dropped.
//!
//! The bodies' own scalar work (the end-of-step motion, damping, the limiter, the added
//! mass) stays in `Body`, shared with the one-body step.
//!
//! This file holds what both passes use: the lane types, a group's corners, the kind of a
//! triangle and the branch-free clipping. The passes have a file each: `pass_one.rs`
//! (pressure, volume, area, slamming, air) and `pass_two.rs` (drag); `single.rs` runs
//! them for a body stepped alone or for a big hull's cut triangles.

// Loops index lanes by number: that is what the compiler turns into vector instructions.
#![allow(clippy::needless_range_loop)]

use crate::forces::row::{add, cross, dot, pick, scale, sub};

mod pass_one;
mod pass_two;
mod single;
#[cfg(test)]
mod tests;

pub(crate) use pass_one::{PassOneConstants, PassOneSums, pass_one};
pub(crate) use pass_two::{DragLanes, pass_two};
pub(crate) use single::{
    LaneScratch, LoneScratch, NarrowHistory, Single, pass_one_listed, pass_one_single, pass_two_listed, pass_two_single,
};

/// Bodies per group.
pub(crate) const LANES: usize = 8;

/// Half the lanes: a group of at most this many bodies, or a lone body's last chunk of
/// at most this many triangles, is computed in these only (one vector of four with AVX2;
/// the other lanes would only repeat a body or a triangle, whose results are dropped).
pub(crate) const HALF: usize = LANES / 2;

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
    /// The water's velocity is vertical at every vertex (Perlin waves with no
    /// horizontal current): only `water`'s second component is written, and read.
    pub vertical: bool,
    /// At most [`HALF`] bodies: only the first half of the lanes is computed.
    pub half: bool,
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

/// [`cut_point`] on the edge from the lone corner `a` to `b`, from the end under the water
/// (`b` when `two` corners are under): the ends are chosen, then one point computed, the
/// arithmetic of the end chosen (computing both points and keeping one cost a division).
#[inline(always)]
fn cut_edge(two: bool, cut: bool, (pa, da): ([f64; 3], f64), (pb, db): ([f64; 3], f64)) -> [f64; 3] {
    let (u, du) = (pick(two, pb, pa), if two { db } else { da });
    let (a, dv) = (pick(two, pa, pb), if two { da } else { db });
    cut_point(cut, u, du, a, dv)
}

/// [`crate::hull::clip::clip`] without branches, for a triangle of kind `KIND` ([`kind`]):
/// [`CUT_ONE`] and [`CUT_TWO`] know how many corners are under the water, and the choices
/// that depend on it are made by the compiler.
#[inline(always)]
fn clip<const KIND: u8>(p: [[f64; 3]; 3], h: [f64; 3]) -> Clipped {
    let u = [h[0] < 0.0, h[1] < 0.0, h[2] < 0.0];
    let under = match base_kind(KIND) {
        CUT_ONE => 1,
        CUT_TWO => 2,
        _ => u[0] as u32 + u[1] as u32 + u[2] as u32,
    };
    let two = under == 2;
    // The corner alone on its side (above when two are under) comes first, the winding
    // kept: known to the kinds of [`kind_of_sides`], whose rotation then needs no
    // selects.
    let lone = [u[0] != two, u[1] != two, u[2] != two];
    let (first1, first2) = match lone_corner(KIND) {
        Some(r) => (r == 1, r == 2),
        None => (lone[1], !lone[1] && lone[2]),
    };
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
    // Each cut edge from its end under water: the ends chosen first, then one cut point
    // computed (the chosen one's arithmetic, not two computed and one kept).
    let (x, y) = (
        cut_edge(two, cut, (p0, d0), (p1, d1)),
        cut_edge(two, cut, (p0, d0), (p2, d2)),
    );
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

/// A triangle of kind `KIND` ([`kind`]) clipped: a wholly dry or wet one needs no [`clip`].
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
        _ => clip::<KIND>(p, h),
    }
}

/// No vertex (a hull's indices are valid; this only spares the loops a bounds check).
const NO_VERTEX: LaneVertex = [[0.0; LANES]; 4];

/// No water velocity (as [`NO_VERTEX`]: only spares a bounds check).
const NO_WATER: LaneVectors = [[0.0; LANES]; 3];

/// Triangle `tri`'s corners in the group's bodies, looked up once (the loop over lanes
/// then has no bounds to check, and the compiler turns it into vector instructions),
/// and the water's velocity averaged over them.
#[inline(always)]
fn corners<'g, const MOVING: bool>(group: &Group<'g>, tri: [u32; 3]) -> ([&'g LaneVertex; 3], LaneVectors) {
    let vertex = |i: u32| group.vertices.get(i as usize).unwrap_or(&NO_VERTEX);
    let corners = [vertex(tri[0]), vertex(tri[1]), vertex(tri[2])];
    let mut water = [[0.0; LANES]; 3];
    if let (Some(w), true) = (group.water, MOVING) {
        // (By reference: copied out of the slice, three corners' 192 bytes each were moved
        // for every triangle of both passes.)
        let at = |i: u32| w.get(i as usize).unwrap_or(&NO_WATER);
        let (a, b, c) = (at(tri[0]), at(tri[1]), at(tri[2]));
        let average = |axis: usize| std::array::from_fn(|l| (a[axis][l] + b[axis][l] + c[axis][l]) / 3.0);
        // The horizontal averages of water moving only up and down are the zeros they
        // start from (`(0 + 0 + 0) / 3`, to the bit).
        water = if group.vertical {
            [[0.0; LANES], average(1), [0.0; LANES]]
        } else {
            [average(0), average(1), average(2)]
        };
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
/// ... or none of these: the lanes differ.
const MIXED: u8 = 2;
/// ... cut with one corner under the water in every lane (one piece under, two above) ...
const CUT_ONE: u8 = 3;
/// ... cut with two corners under in every lane (two pieces under, one above) ...
const CUT_TWO: u8 = 4;

/// [`CUT_ONE`] with its corner under the water corner 0, 1 or 2 in every lane ...
const CUT_ONE_AT_0: u8 = CUT_ONE + LONE_AT;
const CUT_ONE_AT_1: u8 = CUT_ONE + 2 * LONE_AT;
const CUT_ONE_AT_2: u8 = CUT_ONE + 3 * LONE_AT;
/// ... and [`CUT_TWO`] with its corner above it corner 0, 1 or 2.
const CUT_TWO_AT_0: u8 = CUT_TWO + LONE_AT;
const CUT_TWO_AT_1: u8 = CUT_TWO + 2 * LONE_AT;
const CUT_TWO_AT_2: u8 = CUT_TWO + 3 * LONE_AT;

/// [`CUT_ONE`] or [`CUT_TWO`] with the corner alone on its side (under the water for
/// `CUT_ONE`, above it for `CUT_TWO`) the same in every lane: corner `r` for the kind
/// `CUT_ONE + LONE_AT * (r + 1)` ([`kind_of_sides`]).
const LONE_AT: u8 = 8;

/// The kind without the lone corner's place: [`DRY`] ... [`CUT_TWO`].
#[inline(always)]
const fn base_kind(kind: u8) -> u8 {
    kind % LONE_AT
}

/// The lone corner every lane has, when the kind says it.
#[inline(always)]
const fn lone_corner(kind: u8) -> Option<usize> {
    match kind / LONE_AT {
        0 => None,
        r => Some(r as usize - 1),
    }
}

/// Whether a triangle of kind `kind` can have a second piece under the water ...
#[inline(always)]
const fn second_wet(kind: u8) -> bool {
    let kind = base_kind(kind);
    kind == MIXED || kind == CUT_TWO
}

/// ... and a second piece above it.
#[inline(always)]
const fn second_dry(kind: u8) -> bool {
    let kind = base_kind(kind);
    kind == MIXED || kind == CUT_ONE
}

/// Which of [`DRY`], [`WET`], [`CUT_ONE`], [`CUT_TWO`] and [`MIXED`] a triangle is. Its
/// loop over the lanes then leaves out the pieces no lane has (a box floating level: its
/// sides are cut the same way in every body), whose forces would be zeros: the same
/// numbers (a sum, from +0, is never -0, and adding a zero of either sign leaves it as it
/// was), so a body's forces still do not depend on the company it is stepped in.
#[inline(always)]
fn kind(corners: &[&LaneVertex; 3]) -> u8 {
    let [a, b, c] = corners;
    // Each lane's count first, then the tests over all lanes, without early exits: the
    // compiler compares the eight lanes at once (lane by lane with a branch per test, this
    // was a sixth of a group's work outside the kernels).
    let under: [u8; LANES] =
        std::array::from_fn(|l| (a[3][l] < 0.0) as u8 + (b[3][l] < 0.0) as u8 + (c[3][l] < 0.0) as u8);
    if every(&under, 0) {
        DRY
    } else if every(&under, 3) {
        WET
    } else if every(&under, 1) {
        CUT_ONE
    } else if every(&under, 2) {
        CUT_TWO
    } else {
        MIXED
    }
}

/// Which side of the water a vertex is on in every lane of a group: 0 above, 1 under (as
/// [`clip`] tests it, `h < 0`), or [`BOTH`] when the lanes differ.
#[inline(always)]
fn vertex_side(v: &LaneVertex) -> u8 {
    // (Every lane tested, no early exit: compared a vector at a time.)
    let all = v[3].iter().fold(true, |all, &h| all & (h < 0.0));
    let any = v[3].iter().fold(false, |any, &h| any | (h < 0.0));
    all as u8 | ((any & !all) as u8) << 1
}

/// A vertex above the water in some lanes and under it in others ([`vertex_side`]).
const BOTH: u8 = 2;

/// The kind of a triangle whose corners are on the sides `sides` ([`vertex_side`]) when
/// each is on one side in every lane: [`DRY`], [`WET`], or a cut kind with the place of
/// its lone corner (a box floating level: each of its cut sides has the same corner under
/// the water in every body), which spares the clipping's rotation, two selects a
/// coordinate; `None` when a corner's lanes differ (then [`kind`]).
#[inline(always)]
fn kind_of_sides(sides: [u8; 3]) -> Option<u8> {
    if (sides[0] | sides[1] | sides[2]) & BOTH == 0 {
        Some(LONE_KINDS[(sides[0] | sides[1] << 1 | sides[2] << 2) as usize % 8])
    } else {
        None
    }
}

/// A triangle's kind by its corners under the water (bit `i` for corner `i`), a cut one's
/// with its lone corner: one under, that corner; two under, the third ([`clip`]'s
/// rotation).
const LONE_KINDS: [u8; 8] = [
    DRY,
    CUT_ONE_AT_0,
    CUT_ONE_AT_1,
    CUT_TWO_AT_2,
    CUT_ONE_AT_2,
    CUT_TWO_AT_1,
    CUT_TWO_AT_0,
    WET,
];

/// Whether the water cut a group's bodies alike, from its triangles' `kinds`: no triangle
/// [`MIXED`] (dry in some lanes and wet or cut in others, or cut both ways), whose
/// general kernel computes every piece and the clipping's rotation. A batch groups its
/// bodies again when more of its groups are mixed than when it made them.
pub(crate) fn cut_alike(kinds: &[u8]) -> bool {
    !kinds.contains(&MIXED)
}

/// Whether every lane of `under` is `n` (every lane tested: no early exit).
#[inline(always)]
fn every(under: &[u8; LANES], n: u8) -> bool {
    under.iter().fold(true, |all, &u| all & (u == n))
}

/// The area the one-at-a-time clipping gives a missing piece (all corners on one point:
/// its scaled normal is +0), a zero whose sign is that of the lanes' [`MIXED`] code: kinds
/// that leave the piece out add it to a wetted area kept in the history, whose bits
/// would otherwise depend on the company when the other piece has no area either.
#[inline(always)]
fn missing_area(normal: [f64; 3]) -> f64 {
    0.5 * dot([0.0; 3], normal)
}

/// The area of a piece of a triangle of area `whole_area` and unit normal `normal`
/// (`whole`: the piece is the triangle).
#[inline(always)]
fn piece_area(whole: bool, whole_area: f64, scaled: [f64; 3], normal: [f64; 3]) -> f64 {
    if whole { whole_area } else { 0.5 * dot(scaled, normal) }
}
