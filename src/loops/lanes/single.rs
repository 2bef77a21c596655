//! A body stepped alone in the lanes: eight of its own triangles at a time, one in each
//! lane, through the functions a group uses, and their contributions added in triangle
//! order (the listed forms take a big hull's cut triangles); and the buffers a thread
//! keeps for a group's columns.

use super::pass_one::{one_constants, one_triangle_of_kind};
use super::pass_two::drag_triangle_of_kind;
use super::{
    CUT_ONE, CUT_TWO, DRY, DragLanes, HALF, LANES, LaneHistory, LaneMotion, LaneVectors, LaneVertex, Lanes,
    PassOneConstants, PassOneSums, WET, kind,
};
use crate::forces::drag::DragConstants;
use crate::hull::Hull;
use crate::loops::whole::{History, HistoryChunk, HistoryChunkMut, narrow};
use glam::DVec3;
use std::sync::{Arc, Weak};

/// A body stepped alone: its vertices relative to its origin (world axes), their heights
/// above the water, and the water's velocity at them when it moves.
#[derive(Clone, Copy)]
pub(crate) struct Single<'a> {
    pub vertices: &'a [DVec3],
    pub heights: &'a [f64],
    pub water: Option<&'a [DVec3]>,
}

/// Which of a lone body's triangles its lanes take, in the order they take them: a small
/// hull's rows sorted ([`LoneScratch`]), or a big hull's cut ones.
#[derive(Clone, Copy)]
struct Rows<'a>(&'a [u32]);

impl Rows<'_> {
    /// The hull row of the `i`-th triangle taken.
    #[inline(always)]
    fn row(self, i: usize) -> Option<usize> {
        self.0.get(i).map(|&j| j as usize)
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
    /// call), with the triangles of `rows` (at most [`LANES`]), but for its kind, which the
    /// caller sets: a sorted chunk's is its sort's ([`SORT_KINDS`]), a listed one's is
    /// found from its heights ([`kind`]).
    #[inline(always)]
    fn fill(&mut self, hull: &Hull, body: &Single<'_>, rows: &[u32]) {
        let n = rows.len().min(LANES);
        // (A chunk of at most HALF triangles is computed in HALF lanes: the others are not
        // read, but for their heights, which repeat the last triangle's for its kind.)
        let width = if n <= HALF { HALF } else { LANES };
        let (vertices, heights) = (body.vertices, body.heights);
        for l in 0..width {
            // (The spare lanes repeat the last triangle; `usize::MAX` finds nothing.)
            let j = rows.get(l.min(n.saturating_sub(1))).map_or(usize::MAX, |&j| j as usize);
            let (Some(tri), Some(&area)) = (hull.triangles.get(j), hull.areas.get(j)) else {
                // (Not for a hull's own rows: a lane of zeros, as the lanes start.)
                for corner in &mut self.corners {
                    for axis in corner {
                        axis[l] = 0.0;
                    }
                }
                self.areas[l] = 0.0;
                self.to_unit[l] = f64::INFINITY; // 1 / (2 * 0)
                continue;
            };
            self.areas[l] = area;
            // (Once for both passes.)
            self.to_unit[l] = 1.0 / (2.0 * area);
            // Corner by corner, written out: a loop over the three with each index's
            // `Option`s cost about fifty instructions a triangle (a box's sixteen lanes,
            // a seventh of a lone step).
            let [a, b, c] = *tri;
            let [ca, cb, cc] = &mut self.corners;
            corner_into(ca, l, vertices, heights, a);
            corner_into(cb, l, vertices, heights, b);
            corner_into(cc, l, vertices, heights, c);
        }
        // The water's velocity averaged over the corners (still water needs no sum:
        // (0 + 0 + 0) / 3 is +0, in every lane).
        match body.water {
            Some(w) => {
                for l in 0..width {
                    let j = rows.get(l.min(n.saturating_sub(1))).map_or(usize::MAX, |&j| j as usize);
                    let tri = hull.triangles.get(j).filter(|_| hull.areas.get(j).is_some());
                    let at = |c: usize| tri.and_then(|t| w.get(t[c] as usize)).copied().unwrap_or_default();
                    let (a, b, c) = (at(0), at(1), at(2));
                    for axis in 0..3 {
                        // (A missing triangle's lane: (0 + 0 + 0) / 3, +0 as before.)
                        self.water[axis][l] = (a[axis] + b[axis] + c[axis]) / 3.0;
                    }
                }
            }
            None => self.water = [[0.0; LANES]; 3],
        }
        for l in width..LANES {
            for c in 0..3 {
                self.corners[c][3][l] = self.corners[c][3][width - 1];
            }
        }
    }

    /// Fills the chunk's corners and water again, lane by lane from `at` (each lane's
    /// three corner indices, the spare lanes' those of the last triangle, `u32::MAX` for
    /// none), as [`fill`](Self::fill) found them for the same rows of the same hull: its
    /// areas, `1 / (2 A)` and kind are kept, and the rows are not looked up again.
    #[inline(always)]
    fn refill(&mut self, body: &Single<'_>, at: &[[u32; LANES]; 3], n: usize) {
        let width = if n <= HALF { HALF } else { LANES };
        let (vertices, heights) = (body.vertices, body.heights);
        let [ia, ib, ic] = at;
        let [ca, cb, cc] = &mut self.corners;
        for l in 0..width {
            corner_into(ca, l, vertices, heights, ia[l]);
            corner_into(cb, l, vertices, heights, ib[l]);
            corner_into(cc, l, vertices, heights, ic[l]);
        }
        match body.water {
            Some(w) => {
                for l in 0..width {
                    let at = |i: u32| w.get(i as usize).copied().unwrap_or_default();
                    let (a, b, c) = (at(ia[l]), at(ib[l]), at(ic[l]));
                    for axis in 0..3 {
                        self.water[axis][l] = (a[axis] + b[axis] + c[axis]) / 3.0;
                    }
                }
            }
            None => self.water = [[0.0; LANES]; 3],
        }
        for l in width..LANES {
            for c in 0..3 {
                self.corners[c][3][l] = self.corners[c][3][width - 1];
            }
        }
    }

    #[inline(always)]
    fn corners(&self) -> [&LaneVertex; 3] {
        [&self.corners[0], &self.corners[1], &self.corners[2]]
    }
}

/// Corner `i`'s position and height into lane `l` of `corner` (zeros for an index out of
/// range, which a hull's own triangles never have).
#[inline(always)]
fn corner_into(corner: &mut LaneVertex, l: usize, vertices: &[DVec3], heights: &[f64], i: u32) {
    let i = i as usize;
    let v = match vertices.get(i) {
        Some(v) => *v,
        None => DVec3::ZERO,
    };
    corner[0][l] = v.x;
    corner[1][l] = v.y;
    corner[2][l] = v.z;
    corner[3][l] = match heights.get(i) {
        Some(&h) => h,
        None => 0.0,
    };
}

/// A sorted chunk's [`kind`], by its sort (how many corners of each of its triangles are
/// under the water, the spare lanes repeating one of them): the kind found from its
/// heights, without testing them again.
const SORT_KINDS: [u8; 4] = [DRY, CUT_ONE, CUT_TWO, WET];

/// A big hull's cut rows, gathered into chunks as a lone body's loops go.
#[derive(Clone, Copy)]
struct Chunks<'a> {
    hull: &'a Hull,
    body: &'a Single<'a>,
    list: &'a [u32],
}

impl<'a> Chunks<'a> {
    /// How many triangles.
    #[inline(always)]
    fn len(self) -> usize {
        self.list.len()
    }

    /// The rows the chunks take.
    #[inline(always)]
    fn rows(self) -> Rows<'a> {
        Rows(self.list)
    }

    /// The chunk of triangles `first..first + n`, gathered into `spare`.
    #[inline(always)]
    fn get<'s>(self, spare: &'s mut LoneChunk, first: usize, n: usize) -> &'s LoneChunk
    where
        'a: 's,
    {
        spare.fill(self.hull, self.body, self.list.get(first..first + n).unwrap_or(&[]));
        spare.kind = kind(&spare.corners());
        spare
    }
}

/// A body stepped alone, as both passes read it: its triangles sorted by how the water
/// cuts them (wholly above, wholly under, one corner under, two) and in chunks of at most
/// eight of one sort, so that each chunk takes the kernel of its [`kind`] rather than
/// [`MIXED`](super::MIXED)'s (a box in two chunks of every sort took the general kernel
/// twice; in four of one sort each, it takes four cheaper ones of half the lanes); and
/// where each triangle went, for its contributions to be added in triangle order.
#[derive(Default)]
pub(crate) struct LoneScratch {
    /// Each row's sort at the last call (the order below is that of these).
    sorts: Vec<u8>,
    /// Each vertex of `hull`: 1 if it was under the water at the last call.
    unders: Vec<u8>,
    chunks: Vec<LoneChunk>,
    /// The hull's rows, by sort; chunk `c` takes `rows[firsts[c]..][..counts[c]]`.
    rows: Vec<u32>,
    firsts: Vec<u32>,
    counts: Vec<u32>,
    /// Each chunk's kind, that of its sort ([`SORT_KINDS`]).
    kinds: Vec<u8>,
    /// The hull the chunks were last filled from (a `Weak`: while it is held, no other
    /// hull can take its address, so equal addresses are the same hull), and each
    /// chunk's lanes' corner indices in it ([`LoneChunk::refill`]).
    hull: Weak<Hull>,
    at: Vec<[[u32; LANES]; 3]>,
    /// Row `j`'s chunk and lane, `chunk * LANES + lane`.
    slots: Vec<u32>,
    /// Each chunk's sums, per lane (its triangles' contributions) ...
    one: Vec<PassOneSums>,
    drag: Vec<DragLanes>,
}

impl LoneScratch {
    /// Sorts a small hull's triangles and gathers them into chunks (no allocation once
    /// grown to the hull). The order depends on the sorts alone: when every triangle has
    /// the sort it had at the last call (a box floating about level, step after step), the
    /// rows, chunks and slots are kept and only the chunks' numbers gathered again.
    #[inline(always)]
    fn keep(&mut self, hull_arc: &Arc<Hull>, body: &Single<'_>) {
        let hull: &Hull = hull_arc;
        let count = hull.triangles.len();
        let same_hull = Weak::as_ptr(&self.hull) == Arc::as_ptr(hull_arc);
        // Which vertices are under the water: when none has changed since the last call,
        // on the same hull, no triangle's sort has either (testing the vertices once, not
        // each triangle's three corners with their look-ups, about 200 instructions a
        // box's step).
        let mut same_vertices = same_hull && self.unders.len() == body.heights.len() && self.sorts.len() == count;
        self.unders.resize(body.heights.len(), 0);
        for (under, &h) in self.unders.iter_mut().zip(body.heights) {
            let now = (h < 0.0) as u8;
            same_vertices &= *under == now;
            *under = now;
        }
        if same_vertices {
            self.refill(body);
            return;
        }
        // How many corners of each triangle are under the water: the sort.
        let under = |i: u32| (body.heights.get(i as usize).copied().unwrap_or_default() < 0.0) as u8;
        let mut same = self.sorts.len() == count;
        self.sorts.resize(count, 0);
        for (sort, tri) in self.sorts.iter_mut().zip(&hull.triangles) {
            let now = under(tri[0]) + under(tri[1]) + under(tri[2]);
            same &= *sort == now;
            *sort = now;
        }
        if !same {
            self.order();
        }
        if same && same_hull {
            self.refill(body);
            return;
        }
        self.hull = Arc::downgrade(hull_arc);
        self.at.resize(self.chunks.len(), [[u32::MAX; LANES]; 3]);
        let firsts = self.firsts.iter().zip(&self.counts);
        let chunks = self.chunks.iter_mut().zip(&mut self.at);
        for (((chunk, at), (&first, &n)), &kind) in chunks.zip(firsts).zip(&self.kinds) {
            let (first, n) = (first as usize, n as usize);
            let rows = self.rows.get(first..first + n).unwrap_or(&[]);
            chunk.fill(hull, body, rows);
            chunk.kind = kind;
            debug_assert_eq!(kind, super::kind(&chunk.corners()), "a sorted chunk's kind");
            // Each lane's corners, as `fill` took them: the spare lanes the last row's.
            for (l, lane) in (0..LANES).map(|l| (l, rows.get(l.min(n.saturating_sub(1))))) {
                let tri = lane.and_then(|&j| {
                    hull.triangles
                        .get(j as usize)
                        .filter(|_| hull.areas.get(j as usize).is_some())
                });
                for (c, corner) in at.iter_mut().enumerate() {
                    corner[l] = tri.map_or(u32::MAX, |t| t[c]);
                }
            }
        }
    }

    /// The same rows of the same hull as at the last call: only the corners (and the
    /// water) change (the rows' look-ups, the areas and their `1 / (2 A)` cost about a
    /// fifth of the gathering).
    #[inline(always)]
    fn refill(&mut self, body: &Single<'_>) {
        for ((chunk, at), &n) in self.chunks.iter_mut().zip(&self.at).zip(&self.counts) {
            chunk.refill(body, at, n as usize);
            debug_assert_eq!(chunk.kind, super::kind(&chunk.corners()), "a kept chunk's kind");
        }
    }

    /// The rows in order of their sorts, the chunks they make and each row's slot.
    fn order(&mut self) {
        let count = self.sorts.len();
        let mut by_sort = [0usize; 4];
        for &sort in &self.sorts {
            by_sort[sort as usize & 3] += 1;
        }
        let mut start = [0usize; 4];
        for sort in 1..4 {
            start[sort] = start[sort - 1] + by_sort[sort - 1];
        }
        self.rows.resize(count, 0);
        let mut next = start;
        for (j, &sort) in self.sorts.iter().enumerate() {
            let sort = sort as usize & 3;
            if let Some(row) = self.rows.get_mut(next[sort]) {
                *row = j as u32;
            }
            next[sort] += 1;
        }
        self.firsts.clear();
        self.counts.clear();
        self.kinds.clear();
        for sort in 0..4 {
            let mut first = start[sort];
            while first < start[sort] + by_sort[sort] {
                let n = LANES.min(start[sort] + by_sort[sort] - first);
                self.firsts.push(first as u32);
                self.counts.push(n as u32);
                self.kinds.push(SORT_KINDS[sort]);
                first += n;
            }
        }
        let chunk_count = self.firsts.len();
        self.chunks.resize(chunk_count, LoneChunk::EMPTY);
        self.one.resize(chunk_count, PassOneSums::default());
        self.drag.resize(chunk_count, DragLanes::default());
        self.slots.resize(count, 0);
        for c in 0..chunk_count {
            let (first, n) = (self.firsts[c] as usize, self.counts[c] as usize);
            for l in 0..n {
                if let Some(&row) = self.rows.get(first + l)
                    && let Some(slot) = self.slots.get_mut(row as usize)
                {
                    *slot = (c * LANES + l) as u32;
                }
            }
        }
    }
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

/// A chunk's sums, each lane array by reference, in a fixed order.
trait Fields<const N: usize> {
    fn fields(&self) -> [&Lanes; N];
}

impl Fields<27> for PassOneSums {
    #[inline(always)]
    fn fields(&self) -> [&Lanes; 27] {
        let [a, b, c] = &self.buoyancy_force;
        let [d, e, f] = &self.buoyancy_torque;
        let [g, h, i] = &self.slamming_force;
        let [j, k, l] = &self.slamming_torque;
        let [m, n, o] = &self.air_force;
        let [p, q, r] = &self.air_torque;
        let [s, u, w] = &self.volume_moment;
        let [x, y, z] = &self.area_moment;
        [
            a,
            b,
            c,
            d,
            e,
            f,
            g,
            h,
            i,
            j,
            k,
            l,
            m,
            n,
            o,
            p,
            q,
            r,
            s,
            u,
            w,
            x,
            y,
            z,
            &self.volume,
            &self.area,
            &self.pieces,
        ]
    }
}

impl PassOneSums {
    /// Lane 0 of every sum set to `totals` ([`Fields`]' order). The other lanes are left
    /// as they were (a body alone's are never read; zeroing them, 1.7 kB, cost about 150
    /// instructions a step).
    #[inline(always)]
    fn set_totals(&mut self, totals: [f64; 27]) {
        let vectors = [
            &mut self.buoyancy_force,
            &mut self.buoyancy_torque,
            &mut self.slamming_force,
            &mut self.slamming_torque,
            &mut self.air_force,
            &mut self.air_torque,
            &mut self.volume_moment,
            &mut self.area_moment,
        ];
        for (v, t) in vectors.into_iter().zip(totals.chunks_exact(3)) {
            for (axis, &t) in v.iter_mut().zip(t) {
                axis[0] = t;
            }
        }
        self.volume[0] = totals[24];
        self.area[0] = totals[25];
        self.pieces[0] = totals[26];
    }
}

impl Fields<9> for DragLanes {
    #[inline(always)]
    fn fields(&self) -> [&Lanes; 9] {
        let [a, b, c] = &self.viscous;
        let [d, e, f] = &self.pressure;
        let [g, h, i] = &self.torque;
        [a, b, c, d, e, f, g, h, i]
    }
}

/// Adds, to `sums[FIRST..FIRST + K]`, each row's lane of those sums of its chunk, in row
/// order (`slots`: row `j`'s chunk and lane, `chunk * LANES + lane`); with `skip_dry`,
/// rows in a chunk of [`DRY`] triangles add nothing. `K` sums at a time (at most 27):
/// their running totals stay in registers through the rows (each of the 27 adds of a row
/// was a load, an add and a store to the sums); pass one's 27 in one call, paired two by
/// two in 14 of the baseline's 16 registers, decode each row's slot once rather than
/// twice (two calls of 14 and 13 sums cost ~150 instructions more a box's step). Out of
/// line: inlined in the step, whose other numbers hold most registers, eight of twelve
/// totals went to the stack and back at every row, more or fewer as the step's code
/// moved. (Compiled for the baseline
/// processor, then: the same adds, paired two by two, the same bits.)
#[inline(never)]
fn add_rows_in_order<T: Fields<N>, const FIRST: usize, const K: usize, const N: usize>(
    sums: &mut [f64; N],
    slots: &[u32],
    (sorted, chunks): (&[T], &[LoneChunk]),
    skip_dry: bool,
) {
    const { assert!(FIRST + K <= N) };
    let mut total = [0.0; K];
    total.copy_from_slice(&sums[FIRST..FIRST + K]);
    for &slot in slots {
        let (ch, l) = (slot as usize / LANES, slot as usize % LANES);
        let dry = match chunks.get(ch) {
            Some(chunk) => chunk.kind == DRY,
            None => true,
        };
        if let Some(t) = sorted.get(ch)
            && !(skip_dry && dry)
        {
            let f = t.fields();
            for k in 0..K {
                total[k] += f[FIRST + k][l];
            }
        }
    }
    sums[FIRST..FIRST + K].copy_from_slice(&total);
}

impl PassOneSums {
    /// Adds lanes `0..n` of `t`, in order, to lane 0 ([`add_in_order`]).
    #[inline(always)]
    fn add_in_order(&mut self, t: &PassOneSums, n: usize) {
        with_count!(n, add_one_sums(self, t))
    }

    /// Sets lanes `0..W` to zero.
    #[inline(always)]
    fn clear<const W: usize>(&mut self) {
        for v in [
            &mut self.buoyancy_force,
            &mut self.buoyancy_torque,
            &mut self.slamming_force,
            &mut self.slamming_torque,
            &mut self.air_force,
            &mut self.air_torque,
            &mut self.volume_moment,
            &mut self.area_moment,
        ] {
            for axis in v {
                axis[..W].fill(0.0);
            }
        }
        for x in [&mut self.volume, &mut self.area, &mut self.pieces] {
            x[..W].fill(0.0);
        }
    }
}

impl DragLanes {
    /// Adds lanes `0..n` of `t`, in order, to lane 0 ([`add_in_order`]).
    #[inline(always)]
    fn add_in_order(&mut self, t: &DragLanes, n: usize) {
        with_count!(n, add_drag_sums(self, t))
    }

    /// Sets lanes `0..W` to zero.
    #[inline(always)]
    fn clear<const W: usize>(&mut self) {
        for v in [&mut self.viscous, &mut self.pressure, &mut self.torque] {
            for axis in v {
                axis[..W].fill(0.0);
            }
        }
    }
}

/// Where a big hull's cut rows' slamming history is read (by row) and written (the new
/// rates pushed to a list).
struct LoneHistory<'p> {
    prior: &'p History,
    history: &'p mut Vec<(u32, DVec3)>,
}

impl LoneHistory<'_> {
    /// Row `j`'s last swept volume rate.
    #[inline(always)]
    fn prior(&self, j: usize) -> [f64; 3] {
        self.prior.get(j).to_array()
    }

    /// Keeps row `j`'s new swept volume rate.
    #[inline(always)]
    fn keep(&mut self, j: usize, now: [f64; 3]) {
        self.history.push((j as u32, DVec3::from_array(now)));
    }
}

/// [`pass_one`](fn@super::pass_one) for a body stepped alone: its triangles sorted by how
/// the water cuts them and eight (or fewer) of one sort at a time, one in each lane, by the
/// functions a group uses ([`LoneScratch`]), and each triangle's contribution added to the
/// body's sums in triangle order as a group adds it: the same numbers, to the bit, as the
/// body would get in any group. The sums are in lane 0 of `sums` (its other lanes are left
/// as they were); `motion` and `mass` in every lane.
/// The triangles are gathered into `lone`, which [`pass_two_single`] reads.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn pass_one_single<'h>(
    hull: &Arc<Hull>,
    body: &Single<'_>,
    motion: &LaneMotion,
    mass: &Lanes,
    k: &PassOneConstants,
    prior: &HistoryChunk<'h>,
    history: &mut HistoryChunkMut<'h>,
    lone: &mut LoneScratch,
    sums: &mut PassOneSums,
) {
    lone.keep(hull, body);
    let history = (prior, history);
    let totals = match (k.slamming.is_some(), k.air.is_some()) {
        (true, true) => sorted_one_loop::<true, true>(lone, motion, mass, k, history),
        (false, true) => sorted_one_loop::<false, true>(lone, motion, mass, k, history),
        (true, false) => sorted_one_loop::<true, false>(lone, motion, mass, k, history),
        (false, false) => sorted_one_loop::<false, false>(lone, motion, mass, k, history),
    };
    // (In place: a returned 1.7 kB was copied, about 90 instructions a step.)
    sums.set_totals(totals);
}

#[inline(always)]
fn sorted_one_loop<const SLAM: bool, const AIR: bool>(
    lone: &mut LoneScratch,
    motion: &LaneMotion,
    mass: &Lanes,
    k: &PassOneConstants,
    (prior, history): (&HistoryChunk<'_>, &mut HistoryChunkMut<'_>),
) -> [f64; 27] {
    let c = one_constants(k);
    let stop = c.stop_per_area(mass);
    let [px, py, pz] = prior.swept;
    let [hx, hy, hz] = &mut history.swept;
    let LoneScratch {
        chunks,
        one,
        rows: all_rows,
        firsts,
        counts,
        slots,
        ..
    } = lone;
    // (Each chunk's rows sliced once for both its history loops: sliced twice, each took its bounds checks again.)
    let spans = firsts.iter().zip(counts.iter());
    for ((chunk, t), (&first, &n)) in chunks.iter().zip(one.iter_mut()).zip(spans) {
        let (first, n) = (first as usize, n as usize);
        let rows = all_rows.get(first..first + n).unwrap_or(&[]);
        let mut before = [[0.0; LANES]; 3];
        for (l, &j) in rows.iter().enumerate().take(LANES) {
            let j = j as usize;
            if let (Some(&x), Some(&y), Some(&z)) = (px.get(j), py.get(j), pz.get(j)) {
                before[0][l] = f64::from(x);
                before[1][l] = f64::from(y);
                before[2][l] = f64::from(z);
            }
        }
        let mut now = [[0.0; LANES]; 3];
        // (The lanes the kernel writes, and the sums below read.)
        if n <= HALF {
            t.clear::<HALF>();
        } else {
            t.clear::<LANES>();
        }
        let corners = chunk.corners();
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
        one_triangle_of_kind::<SLAM, AIR>(chunk.kind, n <= HALF, args, &c, t);
        for (l, &j) in rows.iter().enumerate().take(LANES) {
            let j = j as usize;
            if let (Some(x), Some(y), Some(z)) = (hx.get_mut(j), hy.get_mut(j), hz.get_mut(j)) {
                *x = narrow(now[0][l]);
                *y = narrow(now[1][l]);
                *z = narrow(now[2][l]);
            }
        }
    }
    // Each triangle's contribution, in triangle order, the 27 sums at once.
    let mut totals = [0.0; 27];
    let sorted = (&one[..], &chunks[..]);
    add_rows_in_order::<_, 0, 27, 27>(&mut totals, slots, sorted, false);
    totals
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
    let history = LoneHistory { prior, history };
    lone_pass_one(Chunks { hull, body, list }, motion, mass, k, history)
}

#[inline(always)]
fn lone_pass_one(
    chunks: Chunks<'_>,
    motion: &LaneMotion,
    mass: &Lanes,
    k: &PassOneConstants,
    history: LoneHistory<'_>,
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
    mut history: LoneHistory<'_>,
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
/// the first pass, on the triangles it gathered into `lone` (the body's samples have
/// not changed in between).
#[inline(always)]
pub(crate) fn pass_two_single(
    lone: &mut LoneScratch,
    motion: &LaneMotion,
    viscous_factor: &Lanes,
    k: &DragConstants,
    s: &mut DragLanes,
) {
    let LoneScratch {
        chunks,
        counts,
        slots,
        drag,
        ..
    } = lone;
    for ((chunk, t), &n) in chunks.iter().zip(drag.iter_mut()).zip(counts.iter()) {
        // (No drag above the water.)
        if chunk.kind == DRY {
            continue;
        }
        if n as usize <= HALF {
            t.clear::<HALF>();
        } else {
            t.clear::<LANES>();
        }
        let corners = chunk.corners();
        let args = (
            &corners,
            &chunk.water,
            &chunk.areas,
            &chunk.to_unit,
            motion,
            viscous_factor,
            k,
        );
        drag_triangle_of_kind(chunk.kind, n as usize <= HALF, args, t);
    }
    // Each triangle's contribution, in triangle order (a triangle above the water has none).
    let mut totals = [0.0; 9];
    add_rows_in_order::<_, 0, 9, 9>(&mut totals, slots, (&drag[..], &chunks[..]), true);
    // Lane 0 written: the other lanes are never read for a body alone (returned, the
    // 576 bytes were zeroed and copied twice).
    for (sum, total) in [&mut s.viscous, &mut s.pressure, &mut s.torque]
        .into_iter()
        .flatten()
        .zip(totals)
    {
        sum[0] = total;
    }
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
    lone_pass_two(Chunks { hull, body, list }, motion, viscous_factor, k)
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

/// A triangle's [`LaneHistory`] as the bodies keep it ([`narrow`]ed to `f32`).
pub(crate) type NarrowHistory = [[f32; LANES]; 3];

/// A thread's buffers for a group's columns, kept from one group to the next (no
/// allocation once they have grown to the hull; the step keeps them in a thread-local).
#[derive(Default)]
pub(crate) struct LaneScratch {
    pub vertices: Vec<LaneVertex>,
    pub water: Vec<LaneVectors>,
    pub prior: Vec<LaneHistory>,
    pub history: Vec<LaneHistory>,
    /// `history` narrowed to what the bodies keep, before it is copied to them.
    pub narrowed: Vec<NarrowHistory>,
    /// Each triangle's kind, found in pass one for pass two.
    pub kinds: Vec<u8>,
    /// A body stepped alone: its triangles in chunks, for both passes.
    pub lone: LoneScratch,
}
