//! A body stepped alone in the lanes: eight of its own triangles at a time, one in each
//! lane, through the functions a group uses, and their contributions added in triangle
//! order (the listed forms take a big hull's cut triangles); and the buffers a thread
//! keeps for a group's columns.

use super::pass_one::{one_constants, one_triangle_of_kind};
use super::pass_two::drag_triangle_of_kind;
use super::{
    DRY, DragLanes, HALF, LANES, LaneHistory, LaneMotion, LaneVectors, LaneVertex, Lanes, PassOneConstants,
    PassOneSums, kind,
};
use crate::forces::drag::DragConstants;
use crate::hull::Hull;
use crate::loops::whole::{History, HistoryChunk, HistoryChunkMut, narrow};
use glam::DVec3;

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
    /// The hull row of the `i`-th triangle taken.
    #[inline(always)]
    fn row(self, i: usize) -> Option<usize> {
        match self {
            Rows::All => Some(i),
            Rows::Listed(list) => list.get(i).map(|&j| j as usize),
        }
    }
}

/// Eight triangles of a body stepped alone, one in each lane (the spare lanes repeat the
/// last), as both passes read them: corners, heights, the water's velocity averaged over
/// the corners, and each triangle's area and `1 / (2 area)`, as [`corners`](super::corners)
/// gives a group's (the same arithmetic); and the chunk's [`kind`].
#[derive(Clone, Copy)]
pub(crate) struct LoneChunk {
    corners: [LaneVertex; 3],
    water: LaneVectors,
    areas: Lanes,
    to_unit: Lanes,
    kind: u8,
}

impl LoneChunk {
    const EMPTY: LoneChunk = LoneChunk {
        corners: [[[0.0; LANES]; 4]; 3],
        water: [[0.0; LANES]; 3],
        areas: [0.0; LANES],
        to_unit: [f64::INFINITY; LANES],
        kind: DRY,
    };

    /// Fills the chunk, in place (returned by value, its kilobyte was copied at each
    /// call), with the triangles `first..first + n` of `rows`.
    #[inline(always)]
    fn fill(&mut self, hull: &Hull, body: &Single<'_>, rows: Rows<'_>, first: usize, n: usize) {
        for l in 0..LANES {
            let found = rows
                .row(first + l.min(n - 1))
                .and_then(|j| Some((hull.triangles.get(j)?, *hull.areas.get(j)?)));
            let Some((tri, area)) = found else {
                // (Not for a hull's own rows: a lane of zeros, as the lanes start.)
                for c in 0..3 {
                    for axis in 0..4 {
                        self.corners[c][axis][l] = 0.0;
                    }
                }
                for axis in 0..3 {
                    self.water[axis][l] = 0.0;
                }
                self.areas[l] = 0.0;
                self.to_unit[l] = f64::INFINITY; // 1 / (2 * 0)
                continue;
            };
            self.areas[l] = area;
            // (Once for both passes.)
            self.to_unit[l] = 1.0 / (2.0 * area);
            for (c, &i) in tri.iter().enumerate() {
                let i = i as usize;
                let v = body.vertices.get(i).copied().unwrap_or_default();
                self.corners[c][0][l] = v.x;
                self.corners[c][1][l] = v.y;
                self.corners[c][2][l] = v.z;
                self.corners[c][3][l] = body.heights.get(i).copied().unwrap_or_default();
            }
            match body.water {
                Some(w) => {
                    let at = |c: usize| w.get(tri[c] as usize).copied().unwrap_or_default();
                    let (a, b, c) = (at(0), at(1), at(2));
                    for axis in 0..3 {
                        self.water[axis][l] = (a[axis] + b[axis] + c[axis]) / 3.0;
                    }
                }
                // ((0 + 0 + 0) / 3 is +0: still water needs no sum.)
                None => {
                    for axis in 0..3 {
                        self.water[axis][l] = 0.0;
                    }
                }
            }
        }
        self.kind = kind(&self.corners());
    }

    #[inline(always)]
    fn corners(&self) -> [&LaneVertex; 3] {
        [&self.corners[0], &self.corners[1], &self.corners[2]]
    }
}

/// Where a lone body's loops find their chunks: gathered once for both passes (all of a
/// small hull's rows), or gathered as they go (a big hull's cut rows).
#[derive(Clone, Copy)]
enum Chunks<'a> {
    /// The chunks and the hull's triangle count.
    Kept(&'a [LoneChunk], usize),
    Listed(&'a Hull, &'a Single<'a>, &'a [u32]),
}

impl<'a> Chunks<'a> {
    /// How many triangles.
    #[inline(always)]
    fn len(self) -> usize {
        match self {
            Chunks::Kept(_, count) => count,
            Chunks::Listed(_, _, list) => list.len(),
        }
    }

    /// The rows the chunks take.
    #[inline(always)]
    fn rows(self) -> Rows<'a> {
        match self {
            Chunks::Kept(..) => Rows::All,
            Chunks::Listed(_, _, list) => Rows::Listed(list),
        }
    }

    /// The chunk of triangles `first..first + n`, gathered into `spare` when not kept.
    #[inline(always)]
    fn get<'s>(self, spare: &'s mut LoneChunk, first: usize, n: usize) -> &'s LoneChunk
    where
        'a: 's,
    {
        match self {
            Chunks::Kept(chunks, _) => chunks.get(first / LANES).unwrap_or(&LoneChunk::EMPTY),
            Chunks::Listed(hull, body, list) => {
                spare.fill(hull, body, Rows::Listed(list), first, n);
                spare
            }
        }
    }
}

/// A small hull's triangles in chunks of eight, for both passes of a body stepped alone.
#[inline(always)]
fn keep_chunks<'c>(hull: &Hull, body: &Single<'_>, chunks: &'c mut Vec<LoneChunk>) -> &'c [LoneChunk] {
    let count = hull.triangles.len();
    // (No allocation once grown to the hull.)
    chunks.resize(count.div_ceil(LANES), LoneChunk::EMPTY);
    for (i, chunk) in chunks.iter_mut().enumerate() {
        let first = i * LANES;
        chunk.fill(hull, body, Rows::All, first, LANES.min(count - first));
    }
    chunks
}

/// Adds lanes `0..N` of `from` (`0..n` when `N` is 0), in order, to lane 0 of `to`: a
/// lone body's triangles' contributions, in the order a group adds them to each body's
/// sums. (`N` a constant for the usual counts, a full chunk and half of one: with a count
/// known at run time, each of the sums was a loop of its own.)
#[inline(always)]
fn add_in_order<const N: usize>(to: &mut Lanes, from: &Lanes, n: usize) {
    let count = if N == 0 { n } else { N };
    for value in &from[..count] {
        to[0] += value;
    }
}

#[inline(always)]
fn add_vectors_in_order<const N: usize>(to: &mut LaneVectors, from: &LaneVectors, n: usize) {
    for axis in 0..3 {
        add_in_order::<N>(&mut to[axis], &from[axis], n);
    }
}

/// Calls `$add::<N>($($arg),*, $n)` with `N` the count `$n` when it is [`LANES`] or
/// [`HALF`], 0 (the count read at run time) otherwise. (Not every count: the step's code
/// grew by half.)
macro_rules! with_count {
    ($n:expr, $add:ident($($arg:expr),*)) => {
        match $n {
            LANES => $add::<LANES>($($arg),*, $n),
            HALF => $add::<HALF>($($arg),*, $n),
            _ => $add::<0>($($arg),*, $n),
        }
    };
}

/// Adds lanes `0..N` of `t`, in order, to lane 0 of `s` ([`add_in_order`]).
#[inline(always)]
fn add_one_sums<const N: usize>(s: &mut PassOneSums, t: &PassOneSums, n: usize) {
    add_vectors_in_order::<N>(&mut s.buoyancy_force, &t.buoyancy_force, n);
    add_vectors_in_order::<N>(&mut s.buoyancy_torque, &t.buoyancy_torque, n);
    add_vectors_in_order::<N>(&mut s.slamming_force, &t.slamming_force, n);
    add_vectors_in_order::<N>(&mut s.slamming_torque, &t.slamming_torque, n);
    add_vectors_in_order::<N>(&mut s.air_force, &t.air_force, n);
    add_vectors_in_order::<N>(&mut s.air_torque, &t.air_torque, n);
    add_in_order::<N>(&mut s.volume, &t.volume, n);
    add_vectors_in_order::<N>(&mut s.volume_moment, &t.volume_moment, n);
    add_in_order::<N>(&mut s.area, &t.area, n);
    add_vectors_in_order::<N>(&mut s.area_moment, &t.area_moment, n);
    add_in_order::<N>(&mut s.pieces, &t.pieces, n);
}

/// Adds lanes `0..N` of `t`, in order, to lane 0 of `s` ([`add_in_order`]).
#[inline(always)]
fn add_drag_sums<const N: usize>(s: &mut DragLanes, t: &DragLanes, n: usize) {
    add_vectors_in_order::<N>(&mut s.viscous, &t.viscous, n);
    add_vectors_in_order::<N>(&mut s.pressure, &t.pressure, n);
    add_vectors_in_order::<N>(&mut s.torque, &t.torque, n);
}

impl PassOneSums {
    /// Adds lanes `0..n` of `t`, in order, to lane 0 ([`add_in_order`]).
    #[inline(always)]
    fn add_in_order(&mut self, t: &PassOneSums, n: usize) {
        with_count!(n, add_one_sums(self, t))
    }
}

impl DragLanes {
    /// Adds lanes `0..n` of `t`, in order, to lane 0 ([`add_in_order`]).
    #[inline(always)]
    fn add_in_order(&mut self, t: &DragLanes, n: usize) {
        with_count!(n, add_drag_sums(self, t))
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

/// [`pass_one`](fn@super::pass_one) for a body stepped alone: its triangles eight at a
/// time, one in each lane, by the functions a group uses, and each triangle's contribution
/// added to the body's sums in triangle order as a group adds it: the same numbers, to the
/// bit, as the body would get in any group. The sums are in lane 0; `motion` and `mass` in
/// every lane. The triangles are gathered into `chunks`, which [`pass_two_single`] reads.
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
    chunks: &mut Vec<LoneChunk>,
) -> PassOneSums {
    let history = LoneHistory::Chunk(prior, history);
    let chunks = Chunks::Kept(keep_chunks(hull, body, chunks), hull.triangles.len());
    lone_pass_one(chunks, motion, mass, k, history)
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
    lone_pass_one(Chunks::Listed(hull, body, list), motion, mass, k, history)
}

#[inline(always)]
fn lone_pass_one(
    chunks: Chunks<'_>,
    motion: &LaneMotion,
    mass: &Lanes,
    k: &PassOneConstants,
    history: LoneHistory<'_, '_>,
) -> PassOneSums {
    match (k.slamming.is_some(), k.air.is_some()) {
        (true, true) => lone_one_loop::<true, true>(chunks, motion, mass, k, history),
        (false, true) => lone_one_loop::<false, true>(chunks, motion, mass, k, history),
        (true, false) => lone_one_loop::<true, false>(chunks, motion, mass, k, history),
        (false, false) => lone_one_loop::<false, false>(chunks, motion, mass, k, history),
    }
}

#[inline(always)]
fn lone_one_loop<const SLAM: bool, const AIR: bool>(
    chunks: Chunks<'_>,
    motion: &LaneMotion,
    mass: &Lanes,
    k: &PassOneConstants,
    mut history: LoneHistory<'_, '_>,
) -> PassOneSums {
    let mut s = PassOneSums::default();
    let c = one_constants(k);
    let stop = c.stop_per_area(mass);
    let (count, rows) = (chunks.len(), chunks.rows());
    let mut spare = LoneChunk::EMPTY;
    for first in (0..count).step_by(LANES) {
        let n = LANES.min(count - first);
        let chunk = chunks.get(&mut spare, first, n);
        let corners = chunk.corners();
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
        let args = (
            &corners,
            &chunk.water,
            &chunk.areas,
            &chunk.to_unit,
            motion,
            &stop,
            &before,
            &mut now,
        );
        // (The last few triangles in half the lanes: the others would repeat one.)
        one_triangle_of_kind::<SLAM, AIR>(chunk.kind, n <= HALF, args, &c, &mut t);
        for l in 0..n {
            if let Some(j) = rows.row(first + l) {
                history.keep(j, [now[0][l], now[1][l], now[2][l]]);
            }
        }
        s.add_in_order(&t, n);
    }
    s
}

/// [`pass_two`](fn@super::pass_two) for a body stepped alone, as [`pass_one_single`] does
/// the first pass, on the triangles it gathered into `chunks` (the body's samples have
/// not changed in between).
#[inline(always)]
pub(crate) fn pass_two_single(
    hull: &Hull,
    chunks: &[LoneChunk],
    motion: &LaneMotion,
    viscous_factor: &Lanes,
    k: &DragConstants,
) -> DragLanes {
    lone_pass_two(Chunks::Kept(chunks, hull.triangles.len()), motion, viscous_factor, k)
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
    lone_pass_two(Chunks::Listed(hull, body, list), motion, viscous_factor, k)
}

#[inline(always)]
fn lone_pass_two(chunks: Chunks<'_>, motion: &LaneMotion, viscous_factor: &Lanes, k: &DragConstants) -> DragLanes {
    let mut s = DragLanes::default();
    let count = chunks.len();
    let mut spare = LoneChunk::EMPTY;
    for first in (0..count).step_by(LANES) {
        let n = LANES.min(count - first);
        let chunk = chunks.get(&mut spare, first, n);
        let corners = chunk.corners();
        let mut t = DragLanes::default();
        // (No drag above the water.)
        if chunk.kind == DRY {
            continue;
        }
        let args = (
            &corners,
            &chunk.water,
            &chunk.areas,
            &chunk.to_unit,
            motion,
            viscous_factor,
            k,
        );
        drag_triangle_of_kind(chunk.kind, n <= HALF, args, &mut t);
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
    /// A body stepped alone: its triangles in chunks of eight, for both passes.
    pub lone: Vec<LoneChunk>,
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
