//! The step's hot loops: forces on the triangles wholly under or wholly above the water.
//!
//! Most of a hull is not cut by the water: on the Stanford bunny floating at half
//! height 97 % of the triangles (3554 of 3674) are wholly wet or wholly dry. Those need
//! no clipping, and their forces are the same formulas as for a clipped piece
//! ([`crate::forces`]) with the piece being the triangle.
//!
//! The hull keeps its triangles as columns of numbers ([`crate::hull::TriangleColumns`]);
//! the loops here run over them one triangle per iteration with no branches, so that
//! the compiler vectorises them (four triangles per AVX2 instruction, eight per AVX-512
//! one: the loops are compiled with `multiversion` for the x86-64 baseline, AVX2 and
//! AVX-512, whose 32 vector registers also spill less). A triangle cut by the water is
//! marked and left to the step (`crate::lanes` eight at a time, or the clipping code one
//! at a time); a triangle not wholly wet (dry) gives zero wet (dry) forces. The loops
//! keep their sums in eight lanes, one triangle (or drag point) in each, read as groups
//! of eight rows copied out of the columns: the loop then has nothing to check or alias,
//! and the sums stay in vector registers (a column per number, stored and read back by a
//! second loop, bound the drag loops by their stores: 8-10 % of a bunny's step). The
//! order is fixed: the result does not depend on threads or on the CPU (Rust never fuses
//! `a * b + c`). The clipping code is also the
//! reference: `Body`'s tests check that the two ways agree.
//!
//! The loops work in the body's axes: the hull's corners, centroids and normals are read
//! as stored and never turned; the body's motion, the wind and world up are turned into
//! body axes once per step and the sums back into world axes at the end. A flat water's
//! heights are `up . p` per corner, the same arithmetic as the vertex heights to the bit;
//! other water is sampled once per vertex and gathered. Under flat water, a block (32
//! rows) whose bounding box is above the water is dry without heights, and one below it
//! wet: its hydrostatics come from the block's moments ([`crate::flat_moments`]), and
//! its loop only does slamming and what the step keeps per row.
//!
//! Drag is integrated over a piece with one point, its centroid, when the rotation adds
//! little to the velocity across it (`|omega| r < |u_c| / 10`, `r` the farthest vertex
//! from the centroid), and with the three edge midpoints otherwise, a rule exact for
//! fields quadratic over the piece, which keeps a face turning about its own centroid (a
//! box rocking about a face diagonal) braked. Against a fine quadrature on random
//! triangles at the switching spread (`Body`'s tests), the one-point rule errs by 0.2 %
//! of the drag scale `A (C_PD1 |u| + C_PD2 |u|^2)` on average and 5.7 % at worst, where
//! the face is nearly tangent to the flow and `cos^(1/2)` has no derivative (the
//! three-point rule: 0.07 % and 3.5 %); at a spread of 3 it misses most of the drag.
//! The drag loop does the one-point rule for every wet triangle, then packs the rows
//! that need three points into full groups of eight ([`crate::pack`]) and evaluates their
//! edge midpoints. The cut triangles' pieces come in blocks from the step (`drag_pieces`), where
//! each piece's rule is chosen in the loop and both rules' points are evaluated, the
//! one not taken with zero area: four evaluations per piece in vector code cost less
//! than choosing and gathering points one at a time.
//!
//! Where a formula has a division or a root, it is multiplied out (the loops are bound by
//! the divider otherwise), and the loops are specialised for the default powers
//! (slamming 2, drag falloff 1/2), since in vector code both sides of a choice run.

use glam::{DMat3, DVec3};
use multiversion::multiversion;
use multiversion::target::match_target;

use crate::flat_moments::FlatPose;
use crate::forces::pressure_drag::DragCoefficients;
use crate::forces::slamming::{SlammingBlock, SlammingParams};
use crate::hull::TriangleColumns;
use crate::pack::{self, PackColumn, PackColumn32};

/// `|omega| r` above this fraction of the centroid's speed takes a piece's drag to three
/// points.
pub(crate) const ONE_POINT_SPREAD: f64 = 0.1;

/// Whether a piece whose vertices are at most `radius_squared.sqrt()` from its centroid
/// needs the three-point drag rule (squared quantities: no square root).
#[inline(always)]
pub(crate) fn needs_three_points(omega_squared: f64, radius_squared: f64, speed_squared: f64) -> bool {
    omega_squared * radius_squared > ONE_POINT_SPREAD * ONE_POINT_SPREAD * speed_squared
}

/// Triangles per block: the block's per-triangle results (a few kB) stay in L1.
pub(crate) const BLOCK: usize = 32;

/// The hull, turned, and the water under it.
#[derive(Clone, Copy)]
pub(crate) struct Mesh<'a> {
    pub columns: &'a TriangleColumns,
    /// Body-local to world rotation.
    pub rotation: DMat3,
    /// Height of each vertex above the water.
    pub heights: &'a [f64],
    /// For flat water, the body origin's height and the water level: the heights are
    /// then computed from the corners (the same arithmetic as `heights`, to the bit).
    pub flat: Option<(f64, f64)>,
    /// Water velocity at each vertex, when it matters.
    pub water_velocities: Option<&'a [DVec3]>,
}

/// A rigid motion: `velocity + angular_velocity x (r - com)` at `r`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Motion {
    pub com: DVec3,
    pub velocity: DVec3,
    pub angular_velocity: DVec3,
}

/// How hydrostatic pressure is summed on the wet triangles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pressure {
    /// At the exact centre of pressure.
    Exact,
    /// At the centroid.
    Centroid,
    /// Not per triangle (volume models, none).
    Off,
}

/// What the pass over whole triangles computes besides geometry.
#[derive(Clone, Copy, Debug)]
pub(crate) struct WholeParams {
    pub rho_g: f64,
    pub pressure: Pressure,
    pub vertical_only: bool,
    /// Slamming and the step length, when slamming is on and has a last step to compare.
    pub slamming: Option<(SlammingParams, f64)>,
    /// Air density, drag coefficient and wind, when per-triangle air resistance is on.
    pub air: Option<(f64, f64, DVec3)>,
    /// The body's velocity relative to the air, when the lumped resistance is on.
    pub lumped_air: Option<DVec3>,
}

/// Whether the loops can take this power: the ones they compute without `powf` (which
/// would keep them from being vectorised). Bodies with others go one triangle at a time.
pub(crate) fn is_fast_power(p: f64) -> bool {
    p == 0.0 || p == 0.5 || p == 1.0 || p == 2.0
}

/// `x^p` for the powers of [`is_fast_power`], without branches.
#[inline(always)]
fn fast_power(x: f64, p: f64) -> f64 {
    let r = if p == 0.5 { x.sqrt() } else { x };
    let r = if p == 2.0 { x * x } else { r };
    if p == 0.0 { 1.0 } else { r }
}

/// Sums of the pass over whole triangles.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct WholeSums {
    pub buoyancy_force: DVec3,
    pub buoyancy_torque: DVec3,
    pub slamming_force: DVec3,
    pub slamming_torque: DVec3,
    pub volume: f64,
    pub volume_moment: DVec3,
    pub area: f64,
    pub area_moment: DVec3,
    pub air_force: DVec3,
    pub air_torque: DVec3,
    pub projected_area: f64,
    pub emerged_area: f64,
    pub emerged_moment: DVec3,
    /// Wholly wet triangles.
    pub wet_count: usize,
}

/// Rows per chunk: a hull with more rows is worked on a chunk at a time, the chunks in
/// parallel when the step runs on a world's thread pool and the hull has more than
/// [`PARALLEL_ROWS`]. The sums of the chunks are added in order, so the forces do not
/// depend on how many threads took part. Small chunks balance the threads' shares (the
/// rows are ordered by height, so the lowest chunks are wholly wet and cost several
/// times the highest, wholly dry ones); each chunk costs its own sums and its own last,
/// partly filled group of three-point drag rows. One bunny, flat water, one thread:
/// 34.8 us with 256-row chunks, 32.9 with 512, 32.5 with 1024; in waves on two threads
/// 44.4, 45.9 and 45.6 us (`benches/ab.sh`, min of tenth-fastest steps).
pub(crate) const CHUNK_ROWS: usize = 16 * BLOCK;

/// Hulls of more rows than this share their chunks among threads; below it a step's
/// loops take a few microseconds, not much more than handing them to another thread.
pub(crate) const PARALLEL_ROWS: usize = 2 * CHUNK_ROWS;

/// Hulls of at most this many rows can be stepped in lanes, eight bodies at a time
/// ([`crate::lanes`]): their slamming history is one chunk.
pub(crate) const LANES_MAX_ROWS: usize = 8 * BLOCK;
const _: () = assert!(LANES_MAX_ROWS <= CHUNK_ROWS);

/// The row ranges of the chunks of `rows` rows.
pub(crate) fn chunk_ranges(rows: usize) -> impl DoubleEndedIterator<Item = std::ops::Range<usize>> + ExactSizeIterator {
    (0..rows)
        .step_by(CHUNK_ROWS)
        .map(move |s| s..(s + CHUNK_ROWS).min(rows))
}

/// What slamming remembers of a chunk of triangles: each one's swept volume rate
/// `A v` ([`SlammingHistory::swept`](crate::forces::slamming::SlammingHistory::swept)), one column per axis.
#[derive(Clone, Copy, Debug)]
pub(crate) struct HistoryChunk<'h> {
    pub swept: [&'h [f32]; 3],
}

/// [`HistoryChunk`], to write.
#[derive(Debug)]
pub(crate) struct HistoryChunkMut<'h> {
    pub swept: [&'h mut [f32]; 3],
}

/// Numbers a row of the history keeps: the swept volume rate's x, y and z. (Slamming
/// compares this step's `A v` with the last one's, never the area or velocity alone:
/// keeping the product, as the last step computed it, gives the same bits as keeping both
/// and multiplying them again, in three quarters of the memory.)
const HISTORY_COLUMNS: usize = 3;

/// What slamming remembers of every triangle, in one allocation: the swept volume rates'
/// x of every row, then y, then z; a chunk's rows ([`CHUNK_ROWS`]) are a range of each.
/// (As separate allocations, a box's history was its step's costliest cache misses among
/// 10000 bodies: a chunk's list, then each of its columns. Chunk after chunk, each with
/// its own three columns, a big hull's passes restarted six streams at every chunk: 64
/// bunnies in a batch were 10 % slower, with [`WetTriangles`] by chunks too.)
///
/// In single precision ([`narrow`]): slamming compares this step's `A v` with the last
/// one's, and the rounding, 6e-8 of `|A v|`, is a ratio `|d(A v)/dt| / (A r)` of 6e-8,
/// which the default power 2 makes 4e-15 of the slamming's scale. Every path reads the
/// same stored numbers, so batch and single steps, loops and replays still agree to the
/// bit. Half the bytes: the histories were the biggest share of what 10000 small bodies
/// or a batch of big ones move through memory at each step.
#[derive(Clone, Debug, Default)]
pub(crate) struct History {
    /// (A boxed slice: sized once with the hull, and 8 bytes fewer than a `Vec` in each
    /// of a body's three histories, among the fields every step reads.)
    columns: Box<[f32]>,
}

/// A swept volume rate as the history keeps it: rounded to single precision, clamped to
/// its range (a body no step could compute with stays finite in the history; its step
/// fails on its forces).
#[inline(always)]
pub(crate) fn narrow(x: f64) -> f32 {
    x.clamp(-f64::from(f32::MAX), f64::from(f32::MAX)) as f32
}

impl History {
    /// A blank history of `rows` rows.
    pub fn sized(rows: usize) -> Self {
        Self {
            columns: vec![0.0f32; HISTORY_COLUMNS * rows].into_boxed_slice(),
        }
    }

    /// The three columns, each of every row.
    fn columns(&self) -> [&[f32]; 3] {
        let n = self.columns.len() / HISTORY_COLUMNS;
        [&self.columns[..n], &self.columns[n..2 * n], &self.columns[2 * n..]]
    }

    /// Every chunk's history.
    pub fn chunks(&self) -> impl DoubleEndedIterator<Item = HistoryChunk<'_>> + ExactSizeIterator {
        let [x, y, z] = self.columns();
        x.chunks(CHUNK_ROWS)
            .zip(y.chunks(CHUNK_ROWS))
            .zip(z.chunks(CHUNK_ROWS))
            .map(|((x, y), z)| HistoryChunk { swept: [x, y, z] })
    }

    /// Every chunk's history, to write.
    pub fn chunks_mut(&mut self) -> impl DoubleEndedIterator<Item = HistoryChunkMut<'_>> + ExactSizeIterator {
        let n = self.columns.len() / HISTORY_COLUMNS;
        let (x, rest) = self.columns.split_at_mut(n);
        let (y, z) = rest.split_at_mut(n);
        x.chunks_mut(CHUNK_ROWS)
            .zip(y.chunks_mut(CHUNK_ROWS))
            .zip(z.chunks_mut(CHUNK_ROWS))
            .map(|((x, y), z)| HistoryChunkMut { swept: [x, y, z] })
    }

    /// The first chunk's history (a small hull's whole history).
    pub fn first(&self) -> HistoryChunk<'_> {
        let [x, y, z] = self.columns();
        let m = x.len().min(CHUNK_ROWS);
        HistoryChunk {
            swept: [&x[..m], &y[..m], &z[..m]],
        }
    }

    /// The first chunk's history, to write.
    pub fn first_mut(&mut self) -> HistoryChunkMut<'_> {
        let n = self.columns.len() / HISTORY_COLUMNS;
        let m = n.min(CHUNK_ROWS);
        let (x, rest) = self.columns.split_at_mut(n);
        let (y, z) = rest.split_at_mut(n);
        HistoryChunkMut {
            swept: [&mut x[..m], &mut y[..m], &mut z[..m]],
        }
    }

    /// The whole history's memory (to prefetch it).
    pub fn as_slice(&self) -> &[f32] {
        &self.columns
    }

    /// The whole history's memory, to write (a snapshot's restore).
    pub fn as_mut_slice(&mut self) -> &mut [f32] {
        &mut self.columns
    }

    /// Row `j`'s swept volume rate.
    #[inline]
    pub fn get(&self, j: usize) -> DVec3 {
        let n = self.columns.len() / HISTORY_COLUMNS;
        let c = &self.columns;
        DVec3::new(f64::from(c[j]), f64::from(c[n + j]), f64::from(c[2 * n + j]))
    }

    /// Keeps row `j`'s swept volume rate.
    #[inline]
    pub fn set(&mut self, j: usize, swept: DVec3) {
        let n = self.columns.len() / HISTORY_COLUMNS;
        let c = &mut self.columns;
        c[j] = narrow(swept.x);
        c[n + j] = narrow(swept.y);
        c[2 * n + j] = narrow(swept.z);
    }
}

/// What the drag pass needs of the triangles besides the hull: the wetted area of each
/// (zero where not wholly wet) and the water's velocity averaged over each, in body axes
/// (when it moves). One column per number over every row, the chunks' rows after one
/// another (a single thread's passes over the chunks then read and write each column as
/// one stream), in one allocation: the area, then the water's x, y and z. (A body's slot
/// keeps its size: 10000 boxes, which never use this, feel every byte of it.)
#[derive(Clone, Debug, Default)]
pub(crate) struct WetTriangles {
    columns: Box<[f64]>,
}

/// A chunk's rows of [`WetTriangles`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct WetRows<'a> {
    pub area: &'a [f64],
    pub water: [&'a [f64]; 3],
}

/// A chunk's rows of [`WetTriangles`], to write.
#[derive(Debug)]
pub(crate) struct WetRowsMut<'a> {
    pub area: &'a mut [f64],
    pub water: [&'a mut [f64]; 3],
}

impl WetTriangles {
    /// Room for `rows` rows.
    pub fn sized(rows: usize) -> Self {
        Self {
            columns: vec![0.0; 4 * rows].into_boxed_slice(),
        }
    }

    /// The wetted areas of every row.
    pub fn area(&self) -> &[f64] {
        &self.columns[..self.columns.len() / 4]
    }

    /// Every chunk's rows ([`CHUNK_ROWS`]).
    pub fn chunks(&self) -> impl DoubleEndedIterator<Item = WetRows<'_>> + ExactSizeIterator {
        let n = self.columns.len() / 4;
        let column = |k: usize| self.columns[k * n..(k + 1) * n].chunks(CHUNK_ROWS);
        column(0)
            .zip(column(1).zip(column(2)).zip(column(3)))
            .map(|(area, ((x, y), z))| WetRows { area, water: [x, y, z] })
    }

    /// Every chunk's rows, to write.
    pub fn chunks_mut(&mut self) -> impl DoubleEndedIterator<Item = WetRowsMut<'_>> + ExactSizeIterator {
        let n = self.columns.len() / 4;
        let (area, rest) = self.columns.split_at_mut(n);
        let (x, rest) = rest.split_at_mut(n);
        let (y, z) = rest.split_at_mut(n);
        area.chunks_mut(CHUNK_ROWS)
            .zip(
                x.chunks_mut(CHUNK_ROWS)
                    .zip(y.chunks_mut(CHUNK_ROWS))
                    .zip(z.chunks_mut(CHUNK_ROWS)),
            )
            .map(|(area, ((x, y), z))| WetRowsMut { area, water: [x, y, z] })
    }
}

/// Rows `range` of three columns.
#[inline(always)]
fn rows<'c, T, C: AsRef<[T]>>(c: &'c [C; 3], range: &std::ops::Range<usize>) -> [&'c [T]; 3] {
    [
        &c[0].as_ref()[range.clone()],
        &c[1].as_ref()[range.clone()],
        &c[2].as_ref()[range.clone()],
    ]
}

#[inline(always)]
fn rows_mut<'c, T, C: AsMut<[T]>>(c: &'c mut [C; 3], range: &std::ops::Range<usize>) -> [&'c mut [T]; 3] {
    let [x, y, z] = c;
    [
        &mut x.as_mut()[range.clone()],
        &mut y.as_mut()[range.clone()],
        &mut z.as_mut()[range.clone()],
    ]
}

#[inline(always)]
pub(crate) fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - b[1] * a[2],
        a[2] * b[0] - b[2] * a[0],
        a[0] * b[1] - b[0] * a[1],
    ]
}

#[inline(always)]
pub(crate) fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

#[inline(always)]
pub(crate) fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

#[inline(always)]
pub(crate) fn scale(a: [f64; 3], s: f64) -> [f64; 3] {
    [a[0] * s, a[1] * s, a[2] * s]
}

/// The wet forces [`whole_pass`] sums (hydrostatics, volume, wetted area, slamming, the
/// volume moment's vertical part) ...
const WET_SUMMED: usize = 21;
/// ... and what it writes per triangle that can be wet: the wetted area, the swept volume
/// rate `A v` for slamming (world axes), whether the water cuts the triangle, and the water's velocity
/// (body axes).
const WET_COPIED: usize = 8;
/// The dry forces (air, the lumped resistance's areas), all summed.
const DRY_OUT: usize = 11;

/// The loops' sums run in this many lanes, one row in each, added together at the end
/// in a fixed order: the same numbers on every CPU, and the sums stay in vector
/// registers rather than going through a column per number (the loop was bound by those
/// stores and the second pass that read them back).
const LANES: usize = 8;
const _: () = assert!(BLOCK.is_multiple_of(LANES) && TriangleColumns::PADDING.is_multiple_of(LANES));

/// What the loop keeps of each row, by groups of [`LANES`] rows.
type Copied = [[[f64; LANES]; WET_COPIED]; BLOCK / LANES];

/// Running sums, one per lane.
type LaneSums<const K: usize> = [[f64; LANES]; K];

/// The sum of a running sum's lanes, in a fixed order.
#[inline(always)]
fn total_lanes(sum: [f64; LANES]) -> f64 {
    ((sum[0] + sum[1]) + (sum[2] + sum[3])) + ((sum[4] + sum[5]) + (sum[6] + sum[7]))
}

/// Rows `LANES g` to `LANES (g + 1)` of a column, one per lane, copied out (zeros past
/// its end, which a block never reaches). A loop over lanes that reads such copies has
/// no bounds to check and no memory that its stores could overlap, and the compiler
/// turns it into vector instructions.
#[inline(always)]
fn lane_group(column: &[f64], g: usize) -> [f64; LANES] {
    column
        .get(g * LANES..(g + 1) * LANES)
        .and_then(|rows| rows.try_into().ok())
        .unwrap_or([0.0; LANES])
}

/// A column the loops read in double precision: kept in double, or in single (the hull's
/// corners, the slamming history), widened exactly.
trait Column: Copy {
    /// [`lane_group`] of such a column, in double precision.
    fn lane_group(column: &[Self], g: usize) -> [f64; LANES];
}

impl Column for f64 {
    #[inline(always)]
    fn lane_group(column: &[f64], g: usize) -> [f64; LANES] {
        lane_group(column, g)
    }
}

/// [`lane_group`] of a single-precision column, as it is (zeros past its end).
#[inline(always)]
fn single_lane_group(column: &[f32], g: usize) -> [f32; LANES] {
    column
        .get(g * LANES..(g + 1) * LANES)
        .and_then(|rows| rows.try_into().ok())
        .unwrap_or([0.0; LANES])
}

impl Column for f32 {
    /// Widened, which is exact.
    #[inline(always)]
    fn lane_group(column: &[f32], g: usize) -> [f64; LANES] {
        column
            .get(g * LANES..(g + 1) * LANES)
            .and_then(|rows| <[f32; LANES]>::try_from(rows).ok())
            .map_or([0.0; LANES], |rows| rows.map(f64::from))
    }
}

/// Forces on every triangle wholly under or above the water. Writes the slamming history
/// of every triangle (the step then overwrites that of the cut ones), the triangles for
/// [`drag_pass`], and the cut triangles to `cut`.
///
/// The loop works in the body's axes: the hull's corners, centroids and normals are
/// read as stored, the body's motion, the wind and the up direction are turned into
/// body axes once, and the sums are turned back into world axes at the end. Only the
/// slamming history (which must compare with the last step's, in other axes) and the
/// water's velocity are turned per triangle.
#[multiversion(targets("x86_64+avx512f+avx512vl+avx512dq+avx512bw+avx2", "x86_64+avx2"))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn whole_pass<'a, 'h>(
    mesh: &Mesh<'a>,
    motion: &Motion,
    params: &WholeParams,
    rows_of: std::ops::Range<usize>,
    prior: &HistoryChunk<'h>,
    history: &mut HistoryChunkMut<'h>,
    wet: &mut WetRowsMut<'h>,
    cut: &mut Vec<u32>,
    scratch: &mut Scratch,
) -> WholeSums {
    // A slamming power of 2 (the default) needs neither |swept| nor the power's square
    // root, and still water needs no water velocity: the loop is specialised for both
    // (in vector code both sides of a choice run).
    let square = params.slamming.is_none_or(|(s, _)| s.power == 2.0);
    let args = (mesh, motion, params, rows_of, prior, history, wet, cut, scratch);
    match (square, mesh.water_velocities.is_some()) {
        (true, false) => whole_loop::<true, false>(args),
        (true, true) => whole_loop::<true, true>(args),
        (false, false) => whole_loop::<false, false>(args),
        (false, true) => whole_loop::<false, true>(args),
    }
}

type WholeArgs<'m, 'a, 'h> = (
    &'m Mesh<'a>,
    &'m Motion,
    &'m WholeParams,
    std::ops::Range<usize>,
    &'m HistoryChunk<'h>,
    &'m mut HistoryChunkMut<'h>,
    &'m mut WetRowsMut<'h>,
    &'m mut Vec<u32>,
    &'m mut Scratch,
);

/// The body's motion and the step's constants, in body axes, as the loop reads them.
#[derive(Clone, Copy)]
struct WholeConstants {
    /// Body to world, and world to body (column-major).
    r: [f64; 9],
    to_body: [f64; 9],
    com: [f64; 3],
    velocity: [f64; 3],
    omega: [f64; 3],
    /// The body's velocity in world axes.
    world_velocity: [f64; 3],
    /// World up in body axes.
    up: [f64; 3],
    exact: bool,
    vertical_only: bool,
    /// `-rho g / 6`, zero when pressure is not summed per triangle.
    k: f64,
    slam_on: bool,
    slam: SlammingParams,
    stop_per_area: f64,
    fixed_cap: bool,
    cap: f64,
    air_on: bool,
    air_factor: f64,
    wind: [f64; 3],
    lumped_on: bool,
    facing_direction: [f64; 3],
}

impl WholeConstants {
    /// The step's constants for a body turned by `turn` (body to world).
    fn new(turn: DMat3, motion: &Motion, params: &WholeParams) -> Self {
        let r = turn.to_cols_array();
        let to_body = turn.transpose();
        let local = |v: DVec3| (to_body * v).to_array();
        let (slam_on, slam, dt) = match params.slamming {
            Some((s, dt)) => (true, s, dt),
            None => (
                false,
                SlammingParams {
                    power: 1.0,
                    max_acceleration: 1.0,
                    fade_speed: 0.0,
                    multiplier: 0.0,
                    mass: 0.0,
                    hull_area: 1.0,
                },
                1.0,
            ),
        };
        let (air_on, air_factor, wind) = match params.air {
            Some((density, coefficient, w)) => (true, -0.5 * density * coefficient, local(w)),
            None => (false, 0.0, [0.0; 3]),
        };
        let (lumped_on, facing_direction) = match params.lumped_air {
            Some(v) if v.length() > 0.0 => (true, local(v / v.length())),
            Some(_) => (true, [0.0; 3]),
            None => (false, [0.0; 3]),
        };
        WholeConstants {
            r,
            to_body: to_body.to_cols_array(),
            com: local(motion.com),
            velocity: local(motion.velocity),
            omega: local(motion.angular_velocity),
            world_velocity: motion.velocity.to_array(),
            up: [r[1], r[4], r[7]],
            exact: params.pressure == Pressure::Exact,
            vertical_only: params.vertical_only,
            k: if params.pressure != Pressure::Off {
                -params.rho_g / 6.0
            } else {
                0.0
            },
            slam_on,
            slam,
            stop_per_area: 2.0 * slam.mass / slam.hull_area / dt,
            fixed_cap: slam.max_acceleration > 0.0,
            cap: slam.max_acceleration * dt,
            air_on,
            air_factor,
            wind,
            lumped_on,
            facing_direction,
        }
    }
}

/// A block of rows: the hull's, the last step's history, the corners' heights and the
/// water's velocity averaged over the corners.
struct WholeRows<'a, C> {
    corners: [[&'a [C]; 3]; 3],
    centroids: [&'a [f64]; 3],
    normals: [&'a [f64]; 3],
    areas: &'a [f64],
    prior_swept: [&'a [f32]; 3],
    heights: &'a [[f64; BLOCK]; 3],
    water: &'a [[f64; BLOCK]; 3],
}

#[inline(always)]
fn whole_loop<const SQUARE: bool, const MOVING: bool>(
    (mesh, motion, params, rows_of, prior, history, wet, cut, scratch): WholeArgs<'_, '_, '_>,
) -> WholeSums {
    let cols = mesh.columns;
    let (first, t) = (rows_of.start, rows_of.end);
    let turn = mesh.rotation;
    let constants = WholeConstants::new(turn, motion, params);
    let r = constants.r;
    let moving = mesh.water_velocities.unwrap_or(&[]);

    // The thread's (not zeroed at every call): the loop reads only its copies of a lane
    // group's rows, so its stores here need no run-time alias checks.
    let copied = &mut scratch.copied;
    // Zeroed once per call (1.5 kB): rows past a short block's end are never read. (On the
    // stack: written by gathers from the heap, which a heap buffer would have to be
    // checked against at run time.)
    let mut heights = [[0.0f64; BLOCK]; 3];
    let mut water = [[0.0f64; BLOCK]; 3];
    let mut wet_sums = [[0.0f64; LANES]; WET_SUMMED];
    let mut dry_sums = [[0.0f64; LANES]; DRY_OUT];
    let mut wet_count = 0usize;
    // Flat water: the pose for the wholly wet blocks' moments (not for the pressure's
    // centroid lever, which they do not cover).
    let flat_pose = mesh
        .flat
        .filter(|_| params.pressure != Pressure::Centroid)
        .map(|(origin_y, level)| FlatPose {
            up: DVec3::new(r[1], r[4], r[7]),
            height: origin_y - level,
            com: DVec3::from_array(constants.com),
            k: constants.k,
            vertical_only: constants.vertical_only,
        });
    cut.clear();
    for start in (first..t).step_by(BLOCK) {
        let n = BLOCK.min(t - start);
        let range = start..start + n;
        // The same rows in the chunk's own columns.
        let chunk = start - first..start - first + n;
        let indices = cols.indices.each_ref().map(|c| &c[range.clone()]);
        let corners = cols
            .corners
            .each_ref()
            .map(|c| c.each_ref().map(|axis| &axis[range.clone()]));
        // Over flat water, a block whose box is above the water by more than rounding
        // is dry without its corners' heights (half of a floating hull's blocks), and
        // one below it wholly wet (when its moments give its hydrostatics, which need no
        // heights either).
        let (above, below) = match mesh.flat {
            Some((origin_y, level)) => {
                let [centre, half] = cols.block_bounds[start / BLOCK];
                let height = ((r[1] * centre.x + r[4] * centre.y + r[7] * centre.z) + origin_y) - level;
                let reach = r[1].abs() * half.x + r[4].abs() * half.y + r[7].abs() * half.z;
                let rounding = 1e-9 * (centre.abs().element_sum() + half.element_sum() + origin_y.abs() + level.abs());
                (
                    height - reach > rounding,
                    flat_pose.is_some() && height + reach < -rounding,
                )
            }
            None => (false, false),
        };
        match mesh.flat {
            _ if above || below => {}
            // The same arithmetic as the vertex heights (`Body::sample_water`), to the
            // bit, so that this loop and the clipping code agree on which triangles are
            // cut.
            Some((origin_y, level)) => {
                for (h, [x, y, z]) in heights.iter_mut().zip(corners) {
                    for i in 0..n {
                        let (x, y, z) = (f64::from(x[i]), f64::from(y[i]), f64::from(z[i]));
                        h[i] = ((r[1] * x + r[4] * y + r[7] * z) + origin_y) - level;
                    }
                }
            }
            // (Indices clamped to the last vertex, which they never pass: the compiler
            // then knows every read is in bounds and gathers a vector of them at once.)
            None => {
                let last = mesh.heights.len().saturating_sub(1);
                let all = &mesh.heights[..=last];
                for (h, ids) in heights.iter_mut().zip(indices) {
                    for (h, &v) in h[..n].iter_mut().zip(ids) {
                        *h = all[(v as usize).min(last)];
                    }
                }
            }
        }
        // A block wholly under or wholly above the water (most of them: the hull's
        // triangles are ordered by height) skips the other side's forces.
        let count = |wet: bool| -> usize {
            heights
                .iter()
                .map(|h| h[..n].iter().filter(|&&h| if wet { h < 0.0 } else { h >= 0.0 }).count())
                .sum()
        };
        let kind = if above || (!below && count(false) == 3 * n) {
            Kind::Dry
        } else if below || count(true) == 3 * n {
            Kind::Wet
        } else {
            Kind::Mixed
        };
        if MOVING && kind != Kind::Dry {
            // The water's velocity averaged over the corners (world axes), three columns
            // for the loop to read rather than nine; dry blocks never read it (its
            // gathers were a quarter of the pass on a bunny in waves).
            let last = moving.len().saturating_sub(1);
            let all = &moving[..=last];
            let third = 1.0 / 3.0;
            for i in 0..n {
                let [a, b, c] = indices.map(|ids| all[(ids[i] as usize).min(last)]);
                water[0][i] = (a.x + b.x + c.x) * third;
                water[1][i] = (a.y + b.y + c.y) * third;
                water[2][i] = (a.z + b.z + c.z) * third;
            }
        }
        let rows = WholeRows {
            corners,
            centroids: rows(&cols.centroid, &range),
            normals: rows(&cols.normal, &range),
            areas: &cols.area[range.clone()],
            prior_swept: rows(&prior.swept, &chunk),
            heights: &heights,
            water: &water,
        };
        let out = (&mut *copied, &mut wet_sums, &mut dry_sums);
        match (kind, flat_pose) {
            (Kind::Dry, _) => whole_block::<_, true, false, false, true, true>(&constants, &rows, n, out),
            // Under flat water, a wholly wet block's hydrostatics come from its moments;
            // the loop does the rest.
            (Kind::Wet, Some(pose)) => {
                let block = cols.block_moments[start / BLOCK].sums(&pose);
                let lane_0 = [
                    (0, block.force.x),
                    (1, block.force.y),
                    (2, block.force.z),
                    (3, block.torque.x),
                    (4, block.torque.y),
                    (5, block.torque.z),
                    (6, block.volume),
                    (7, block.volume_moment.x),
                    (8, block.volume_moment.y),
                    (9, block.volume_moment.z),
                    (10, block.wetted),
                    (11, block.wetted_moment.x),
                    (12, block.wetted_moment.y),
                    (13, block.wetted_moment.z),
                    (20, block.depth_moment),
                ];
                for (k, value) in lane_0 {
                    out.1[k][0] += value;
                }
                whole_block::<_, SQUARE, MOVING, true, false, false>(&constants, &rows, n, out)
            }
            (Kind::Wet, None) => whole_block::<_, SQUARE, MOVING, true, false, true>(&constants, &rows, n, out),
            (Kind::Mixed, _) => whole_block::<_, SQUARE, MOVING, true, true, true>(&constants, &rows, n, out),
        }
        let groups = &copied[..n / LANES];
        let column = |k: usize| groups.iter().flat_map(move |g| g[k]);
        // A lane group at a time, as fixed-size copies (vector moves, not a call or a
        // loop of single numbers).
        let copy = |to: &mut [f64], k: usize| {
            for (to, group) in to.chunks_exact_mut(LANES).zip(groups) {
                if let Ok(to) = <&mut [f64; LANES]>::try_from(to) {
                    *to = group[k];
                }
            }
        };
        let history_swept = rows_mut(&mut history.swept, &chunk);
        if kind == Kind::Dry {
            zero_rows(&mut wet.area[chunk.clone()]);
            for swept in history_swept {
                swept.fill(0.0);
            }
            continue;
        }
        copy(&mut wet.area[chunk.clone()], 0);
        for (k, swept) in history_swept.into_iter().enumerate() {
            for (to, group) in swept.chunks_exact_mut(LANES).zip(groups) {
                if let Ok(to) = <&mut [f32; LANES]>::try_from(to) {
                    *to = group[1 + k].map(narrow);
                }
            }
        }
        if MOVING {
            for (k, water) in wet.water.iter_mut().enumerate() {
                copy(&mut water[chunk.clone()], 5 + k);
            }
        }
        wet_count += groups
            .iter()
            .map(|g| g[0].iter().filter(|&&a| a > 0.0).count())
            .sum::<usize>();
        if kind == Kind::Wet {
            continue;
        }
        for (i, is_cut) in column(4).enumerate() {
            if is_cut != 0.0 {
                cut.push((start + i) as u32);
            }
        }
    }
    whole_sums(turn, params.vertical_only, &wet_sums, &dry_sums, wet_count)
}

/// Zeroes a block's rows: a whole block as a fixed-size array (vector moves rather than
/// a call to `memset`).
#[inline(always)]
fn zero_rows(to: &mut [f64]) {
    match <&mut [f64; BLOCK]>::try_from(&mut *to) {
        Ok(whole) => *whole = [0.0; BLOCK],
        Err(_) => to.fill(0.0),
    }
}

/// Running sums `k` to `k + 2` as a vector, turned into world axes by `turn`.
#[inline(always)]
fn turned(turn: DMat3, sums: &[[f64; LANES]], k: usize) -> DVec3 {
    turn * DVec3::new(total_lanes(sums[k]), total_lanes(sums[k + 1]), total_lanes(sums[k + 2]))
}

/// The sums of the loop's columns, turned into world axes by `turn`. (By reference:
/// passed by value, its 2 kB of sums were copied at every call. Not inlined: in the loop's
/// function it made the loop itself 9 % slower, flat bunny.)
#[inline(never)]
fn whole_sums(
    turn: DMat3,
    vertical_only: bool,
    wet_sums: &LaneSums<WET_SUMMED>,
    dry_sums: &LaneSums<DRY_OUT>,
    wet_count: usize,
) -> WholeSums {
    let total = total_lanes;
    let (world, world_dry) = (
        |k: usize| turned(turn, wet_sums, k),
        |k: usize| turned(turn, dry_sums, k),
    );
    let sums = wet_sums;
    let mut buoyancy_force = world(0);
    if vertical_only {
        // Along world up by construction; exactly, not to rounding.
        buoyancy_force.x = 0.0;
        buoyancy_force.z = 0.0;
    }
    WholeSums {
        buoyancy_force,
        buoyancy_torque: world(3),
        volume: total(sums[6]),
        volume_moment: -world(7) - DVec3::new(0.0, total(sums[20]), 0.0),
        area: total(sums[10]),
        area_moment: world(11),
        slamming_force: world(14),
        slamming_torque: world(17),
        air_force: world_dry(0),
        air_torque: world_dry(3),
        projected_area: total(dry_sums[6]),
        emerged_area: total(dry_sums[7]),
        emerged_moment: world_dry(8),
        wet_count,
    }
}

/// The forces on the `n` rows of a block (a multiple of [`LANES`]), added into the
/// running sums, and what the step keeps per row into `copied`.
/// `WET`/`DRY`: whether the block may hold wholly wet / wholly dry triangles (a block
/// with only one kind skips the other's forces; one with both also finds the cut ones).
/// `HYDRO`: whether the loop sums the wet rows' hydrostatics and wetted area (not when
/// the block's moments gave them, [`crate::flat_moments`]).
#[inline(always)]
fn whole_block<
    C: Column,
    const SQUARE: bool,
    const MOVING: bool,
    const WET: bool,
    const DRY: bool,
    const HYDRO: bool,
>(
    c: &WholeConstants,
    rows: &WholeRows<'_, C>,
    n: usize,
    (copied, wet_sums, dry_sums): (&mut Copied, &mut LaneSums<WET_SUMMED>, &mut LaneSums<DRY_OUT>),
) {
    debug_assert!(n.is_multiple_of(LANES) && n <= BLOCK);
    let third = 1.0 / 3.0;
    let (r, com, omega, up) = (c.r, c.com, c.omega, c.up);
    let WholeRows {
        corners,
        centroids,
        normals,
        areas,
        prior_swept,
        heights,
        water: gathered_water,
    } = rows;
    for g in 0..n.min(BLOCK) / LANES {
        // This group's rows, copied out (written element by element: `array::map` over
        // arrays this size became calls to `memcpy`).
        let group = |column: &[f64]| lane_group(column, g);
        let three = |[x, y, z]: &[&[f64]; 3]| [group(x), group(y), group(z)];
        let areas = group(areas);
        let (normals, centroids) = (three(normals), three(centroids));
        let prior_swept = [
            f32::lane_group(prior_swept[0], g),
            f32::lane_group(prior_swept[1], g),
            f32::lane_group(prior_swept[2], g),
        ];
        let widened = |[x, y, z]: &[&[C]; 3]| [C::lane_group(x, g), C::lane_group(y, g), C::lane_group(z, g)];
        let corners = [widened(&corners[0]), widened(&corners[1]), widened(&corners[2])];
        let heights = [group(&heights[0]), group(&heights[1]), group(&heights[2])];
        let gathered_water = [
            group(&gathered_water[0]),
            group(&gathered_water[1]),
            group(&gathered_water[2]),
        ];
        // (One pointer for every kept column: through one per column, the compiler would
        // check at run time that no two overlap, and deem eight lanes not worth it.)
        let copied = &mut copied[g];
        for l in 0..LANES {
            let (ha, hb, hc) = (heights[0][l], heights[1][l], heights[2][l]);
            let is_wet = match (WET, DRY) {
                (true, true) => ha < 0.0 && hb < 0.0 && hc < 0.0,
                _ => WET,
            };
            let is_dry = match (WET, DRY) {
                (true, true) => ha >= 0.0 && hb >= 0.0 && hc >= 0.0,
                _ => DRY,
            };
            let area = areas[l];
            let normal = [normals[0][l], normals[1][l], normals[2][l]];
            let centroid = [centroids[0][l], centroids[1][l], centroids[2][l]];
            let arm = sub(centroid, com);
            let spin = cross(omega, arm);
            let is_cut = if !is_wet && !is_dry { 1.0 } else { 0.0 };
            let zero = [0.0; 3];

            let wet_out = if WET {
                let corner = |k: usize| [corners[k][0][l], corners[k][1][l], corners[k][2][l]];
                let (a, b, cc) = (corner(0), corner(1), corner(2));
                // cross(b - a, c - a), as stored.
                let s = scale(normal, area * 2.0);
                let s_up = dot(up, s);
                let world_water = if MOVING {
                    let w = &gathered_water;
                    [w[0][l], w[1][l], w[2][l]]
                } else {
                    [0.0; 3]
                };
                let water = if MOVING {
                    let (m, w) = (c.to_body, world_water);
                    [
                        m[0] * w[0] + m[3] * w[1] + m[6] * w[2],
                        m[1] * w[0] + m[4] * w[1] + m[7] * w[2],
                        m[2] * w[0] + m[5] * w[1] + m[8] * w[2],
                    ]
                } else {
                    [0.0; 3]
                };
                let velocity = [
                    c.velocity[0] + spin[0] - water[0],
                    c.velocity[1] + spin[1] - water[1],
                    c.velocity[2] + spin[2] - water[2],
                ];
                let wetted = if is_wet { area } else { 0.0 };

                // Hydrostatic pressure (forces::buoyancy::pressure). Its moment about the
                // centre of mass is `(P / (4 D) - com) x s k D` with `P` the depth-weighted
                // edge midpoints, `D` the depth sum and `k = -rho g / 6`: written as
                // `(P / 4 - com D) x s k`, with no division. Vertical buoyancy keeps the part
                // of `s` along world up.
                // (Depths are zero where not wholly wet: a vertex with no water under it has
                // an infinite height, and an infinite depth times a zero weight is NaN.)
                let (da, db, dc) = if is_wet { (-ha, -hb, -hc) } else { (0.0, 0.0, 0.0) };
                let depth_sum = da + db + dc;
                let pushed = if c.vertical_only { scale(up, s_up) } else { s };
                let pushed_k = scale(pushed, c.k);
                let force = scale(pushed_k, depth_sum);
                // (Both levers computed and one chosen: a branch here keeps the compiler
                // from vectorising the loop.)
                // `P / 4`: the edge midpoints weighted by their mean depths, which is also the
                // submerged volume's moment below.
                let (ab, bc, ca) = (da + db, db + dc, dc + da);
                let weighted: [f64; 3] =
                    std::array::from_fn(|x| ((a[x] + b[x]) * ab + (b[x] + cc[x]) * bc + (cc[x] + a[x]) * ca) * 0.25);
                let exact_lever: [f64; 3] = std::array::from_fn(|x| weighted[x] - com[x] * depth_sum);
                let centroid_lever = scale(arm, depth_sum);
                let lever: [f64; 3] = std::array::from_fn(|x| if c.exact { exact_lever[x] } else { centroid_lever[x] });
                let torque = cross(lever, pushed_k);

                // Submerged volume (forces::buoyancy::SubmergedVolume::add): the volume under
                // the triangle down to the water, and its moment: the edge midpoints weighted
                // by their mean depths (`weighted`, above), and the depths' own part along
                // world up, `(ab^2 + bc^2 + ca^2) / 8`. (Halving a midpoint and a depth before
                // multiplying them, and quartering the product, give the same bits: scaling by
                // a power of two is exact.)
                let area_y = if is_wet { s_up * 0.5 } else { 0.0 };
                let volume = -(area_y * depth_sum * third);
                let depth_squares = (ab * ab + bc * bc + ca * ca) * 0.125;
                let w = area_y * third;

                // Slamming (forces::slamming::slamming_force; the wetted area is the
                // triangle's). ratio = |swept| / (A r) with r = |v| (or dt Gamma_max when set)
                // and cos = v.n / |v|: one division for both, and for the power 2
                // ratio^2 = |swept|^2 |v| / (A^2 r^2 |v|), no root of |swept|^2. The swept
                // volume rate compares with the last step's, kept in world axes.
                let speed = dot(velocity, velocity).sqrt();
                let along = dot(velocity, normal);
                let acts = c.slam_on && is_wet && along > 0.0;
                // In world axes, the water's velocity taken away last, as the one-at-a-time
                // code does: turning a velocity whose world components differ by many orders
                // (a body in a 1e30 m/s current) would bury its small components under the
                // big one's rounding, and the swept volume is a difference of two such
                // velocities, which the mass times |v| then multiplies back up.
                // (The spin turned into world axes, rather than the arm turned and crossed
                // with the world's omega: the same vector, fewer operations, and the spin
                // is small beside the body's own velocity, which stays as the host gave it.)
                let world_spin = [
                    r[0] * spin[0] + r[3] * spin[1] + r[6] * spin[2],
                    r[1] * spin[0] + r[4] * spin[1] + r[7] * spin[2],
                    r[2] * spin[0] + r[5] * spin[1] + r[8] * spin[2],
                ];
                let world_velocity = [
                    c.world_velocity[0] + world_spin[0] - world_water[0],
                    c.world_velocity[1] + world_spin[1] - world_water[1],
                    c.world_velocity[2] + world_spin[2] - world_water[2],
                ];
                let swept = [
                    world_velocity[0] * wetted - prior_swept[0][l],
                    world_velocity[1] * wetted - prior_swept[1][l],
                    world_velocity[2] * wetted - prior_swept[2][l],
                ];
                let swept_squared = dot(swept, swept);
                // Gamma_max dt: the fixed cap, or the speed but no less than the fade speed.
                let reach = if c.fixed_cap {
                    c.cap
                } else {
                    speed.max(c.slam.fade_speed)
                };
                let (ratio_power, cos) = if SQUARE {
                    let scale = wetted * reach;
                    let scale_squared = scale * scale;
                    let inverse = 1.0 / if acts { scale_squared * speed } else { 1.0 };
                    (
                        (swept_squared * speed * inverse).min(1.0),
                        along * scale_squared * inverse,
                    )
                } else {
                    let inverse = 1.0 / if acts { wetted * reach * speed } else { 1.0 };
                    let ratio = (swept_squared.sqrt() * speed * inverse).clamp(0.0, 1.0);
                    (fast_power(ratio, c.slam.power), along * wetted * reach * inverse)
                };
                let acting = -(ratio_power * cos * c.slam.multiplier * (wetted * c.stop_per_area));
                let magnitude = if acts { acting } else { 0.0 };
                let slam_force = scale(velocity, magnitude);
                let slam_torque = cross(arm, slam_force);

                (
                    force,
                    torque,
                    volume,
                    scale(weighted, w),
                    wetted,
                    scale(centroid, wetted),
                    slam_force,
                    slam_torque,
                    w * depth_squares,
                    world_velocity,
                    water,
                )
            } else {
                (zero, zero, 0.0, zero, 0.0, zero, zero, zero, 0.0, zero, zero)
            };
            let (
                force,
                torque,
                volume,
                volume_moment,
                wetted,
                wetted_moment,
                slam_force,
                slam_torque,
                depth_moment,
                world_velocity,
                water,
            ) = wet_out;
            // (A wholly dry block keeps a swept volume rate of zero: no wetted area.)

            let dry_out = if DRY {
                // Air resistance (forces::air::air_force) and the lumped resistance's areas.
                let dry_area = if is_dry { area } else { 0.0 };
                let relative = [
                    c.velocity[0] + spin[0] - c.wind[0],
                    c.velocity[1] + spin[1] - c.wind[1],
                    c.velocity[2] + spin[2] - c.wind[2],
                ];
                // |v| cos = v.n: no square root.
                let air_along = dot(relative, normal);
                let pushing = dry_area * c.air_factor * air_along;
                let air_magnitude = if c.air_on && is_dry && air_along > 0.0 {
                    pushing
                } else {
                    0.0
                };
                let air_force = scale(relative, air_magnitude);
                let air_torque = cross(arm, air_force);
                let lumped_area = if c.lumped_on { dry_area } else { 0.0 };
                let facing = dot(normal, c.facing_direction).max(0.0);
                (
                    air_force,
                    air_torque,
                    lumped_area * facing,
                    lumped_area,
                    scale(centroid, lumped_area),
                )
            } else {
                (zero, zero, 0.0, 0.0, zero)
            };
            let (air_force, air_torque, projected_area, lumped_area, lumped_moment) = dry_out;

            if WET {
                let summed = [
                    force[0],
                    force[1],
                    force[2],
                    torque[0],
                    torque[1],
                    torque[2],
                    volume,
                    volume_moment[0],
                    volume_moment[1],
                    volume_moment[2],
                    wetted,
                    wetted_moment[0],
                    wetted_moment[1],
                    wetted_moment[2],
                    slam_force[0],
                    slam_force[1],
                    slam_force[2],
                    slam_torque[0],
                    slam_torque[1],
                    slam_torque[2],
                    depth_moment,
                ];
                if HYDRO {
                    for (sum, value) in wet_sums.iter_mut().zip(summed) {
                        sum[l] += value;
                    }
                } else {
                    // (The block's moments gave the others.)
                    for (sum, value) in wet_sums[14..20].iter_mut().zip(&summed[14..20]) {
                        sum[l] += value;
                    }
                }
                // Copied out after the loop, so that the loop writes only to the stack
                // (writes to the heap would need run-time alias checks). Every column, even
                // those a wet block leaves at zero: a store that depends on the column keeps
                // the compiler from vectorising the loop.
                copied[0][l] = wetted;
                // (The swept volume rate, what the next step compares with.)
                copied[1][l] = world_velocity[0] * wetted;
                copied[2][l] = world_velocity[1] * wetted;
                copied[3][l] = world_velocity[2] * wetted;
                copied[4][l] = is_cut;
                copied[5][l] = water[0];
                copied[6][l] = water[1];
                copied[7][l] = water[2];
            }
            if DRY {
                let summed = [
                    air_force[0],
                    air_force[1],
                    air_force[2],
                    air_torque[0],
                    air_torque[1],
                    air_torque[2],
                    projected_area,
                    lumped_area,
                    lumped_moment[0],
                    lumped_moment[1],
                    lumped_moment[2],
                ];
                for (sum, value) in dry_sums.iter_mut().zip(summed) {
                    sum[l] += value;
                }
            }
        }
    }
}

/// What a block of triangles holds: only wholly dry ones, only wholly wet ones, or any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Dry,
    Wet,
    Mixed,
}

impl std::ops::AddAssign for WholeSums {
    fn add_assign(&mut self, o: Self) {
        self.buoyancy_force += o.buoyancy_force;
        self.buoyancy_torque += o.buoyancy_torque;
        self.slamming_force += o.slamming_force;
        self.slamming_torque += o.slamming_torque;
        self.volume += o.volume;
        self.volume_moment += o.volume_moment;
        self.area += o.area;
        self.area_moment += o.area_moment;
        self.air_force += o.air_force;
        self.air_torque += o.air_torque;
        self.projected_area += o.projected_area;
        self.emerged_area += o.emerged_area;
        self.emerged_moment += o.emerged_moment;
        self.wet_count += o.wet_count;
    }
}

/// What the drag pass computes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DragParams {
    /// Water density and friction coefficient, when viscous resistance is on.
    pub viscous: Option<(f64, f64)>,
    /// Pressure drag coefficients, when pressure drag is on.
    pub pressure: Option<DragCoefficients>,
}

/// Sums of the drag pass.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct DragSums {
    pub viscous: DVec3,
    pub pressure: DVec3,
    pub torque: DVec3,
}

impl std::ops::AddAssign for DragSums {
    fn add_assign(&mut self, o: Self) {
        self.viscous += o.viscous;
        self.pressure += o.pressure;
        self.torque += o.torque;
    }
}

/// What the loops leave of one chunk of rows ([`CHUNK_ROWS`]) in one step.
#[derive(Clone, Debug, Default)]
pub(crate) struct ChunkOutput {
    pub sums: WholeSums,
    pub drag: DragSums,
    /// The chunk's triangles cut by the water (hull rows).
    pub cut: Vec<u32>,
    /// The drag pass's buffer (kept: 2 kB to clear otherwise at every call).
    pub packed: ThreePointRows,
}

impl ChunkOutput {
    /// One per chunk of `rows` rows, each able to list every row as cut.
    pub fn chunks(rows: usize) -> Vec<Self> {
        chunk_ranges(rows)
            .map(|r| Self {
                cut: Vec::with_capacity(r.len()),
                ..Self::default()
            })
            .collect()
    }
}

/// The numbers [`drag_pass`] sums per point: viscous force, pressure drag, moment.
const DRAG_SUMMED: usize = 9;

/// Rows of drag points: where, on what face, in what water, with how much area, and
/// how far the face reaches from the point (zero: never the three-point rule).
struct DragRows<'a> {
    point: [&'a [f64]; 3],
    normal: [&'a [f64]; 3],
    water: [&'a [f64]; 3],
    area: &'a [f64],
    radius_squared: &'a [f64],
}

/// The constants of a drag evaluation.
#[derive(Clone, Copy)]
pub(crate) struct DragConstants {
    pub(crate) com: [f64; 3],
    pub(crate) velocity: [f64; 3],
    pub(crate) omega: [f64; 3],
    pub(crate) omega_squared: f64,
    pub(crate) viscous_on: bool,
    pub(crate) viscous_factor: f64,
    pub(crate) pressure_on: bool,
    pub(crate) c: DragCoefficients,
    pub(crate) inverse_reference: f64,
    pub(crate) general_falloff: bool,
}

impl DragConstants {
    pub(crate) fn new(motion: &Motion, params: &DragParams) -> Self {
        let (viscous_on, viscous_factor) = match params.viscous {
            Some((density, cf)) => (true, -0.5 * density * cf),
            None => (false, 0.0),
        };
        let c = params.pressure.unwrap_or(DragCoefficients {
            pressure_linear: 0.0,
            pressure_quadratic: 0.0,
            suction_linear: 0.0,
            suction_quadratic: 0.0,
            pressure_falloff: 1.0,
            suction_falloff: 1.0,
            reference_speed: 1.0,
        });
        Self {
            com: motion.com.to_array(),
            velocity: motion.velocity.to_array(),
            omega: motion.angular_velocity.to_array(),
            omega_squared: motion.angular_velocity.length_squared(),
            viscous_on,
            viscous_factor,
            pressure_on: params.pressure.is_some(),
            c,
            inverse_reference: 1.0 / c.reference_speed,
            // Whether a falloff of 2 needs a division (1/2, 1 and 0 do not).
            general_falloff: c.pressure_falloff == 2.0 || c.suction_falloff == 2.0,
        }
    }
}

/// Drag at `n` rows (a multiple of [`LANES`]), by the one-point rule, added into the
/// running sums; rows that need the three-point rule are marked in `three` (1) and left
/// out.
#[inline(always)]
fn drag_rows(rows: &DragRows<'_>, n: usize, k: &DragConstants, three: &mut [f64; BLOCK], sums: &mut DragLaneSums) {
    // Falloffs of 1/2 (the default) need one square root and no division: the loop is
    // specialised for them (in vector code both sides of a choice run).
    if k.c.pressure_falloff == 0.5 && k.c.suction_falloff == 0.5 {
        drag_loop::<true>(rows, n, k, three, sums)
    } else {
        drag_loop::<false>(rows, n, k, three, sums)
    }
}

/// Viscous and pressure drag on `area` of a face with unit `normal` at a point `arm`
/// from the centre of mass, where the water's velocity relative to the face is `u`:
/// the forces and their moment about the centre of mass.
#[inline(always)]
pub(crate) fn drag_at<const HALF: bool>(
    k: &DragConstants,
    arm: [f64; 3],
    u: [f64; 3],
    normal: [f64; 3],
    area: f64,
) -> ([f64; 3], [f64; 3], [f64; 3]) {
    let c = k.c;
    let speed_squared = dot(u, u);
    let speed = speed_squared.sqrt();
    let along = dot(u, normal);
    // forces::viscous::viscous_force.
    let friction = if k.viscous_on {
        area * k.viscous_factor * speed
    } else {
        0.0
    };
    let fv = scale(sub(u, scale(normal, along)), friction);
    // forces::pressure_drag::pressure_drag_force, with u = |v| / v_r and
    // cos = v.n / |v| multiplied out: (C1 u + C2 u^2) cos^f = (C1 + C2 u) / v_r
    // |v|^(1 - f) |v.n|^f, which for f = 1/2 is one square root and no division.
    let leading = along > 0.0;
    let x = along.abs();
    let f = if leading { c.pressure_falloff } else { c.suction_falloff };
    let spread_power = if HALF || f == 0.5 {
        (x * speed).sqrt()
    } else if f == 1.0 {
        x
    } else if f == 0.0 {
        speed
    } else if k.general_falloff {
        x * x / if speed > 0.0 { speed } else { 1.0 }
    } else {
        0.0
    };
    let q = speed * k.inverse_reference;
    let magnitude = if leading {
        -(c.pressure_linear + c.pressure_quadratic * q)
    } else {
        c.suction_linear + c.suction_quadratic * q
    } * k.inverse_reference
        * spread_power;
    let magnitude = if along != 0.0 { magnitude } else { 0.0 };
    let magnitude = if k.pressure_on { magnitude * area } else { 0.0 };
    let fd = scale(normal, magnitude);
    let torque = cross(arm, [fv[0] + fd[0], fv[1] + fd[1], fv[2] + fd[2]]);
    (fv, fd, torque)
}

#[inline(always)]
fn drag_loop<const HALF: bool>(
    rows: &DragRows<'_>,
    n: usize,
    k: &DragConstants,
    three: &mut [f64; BLOCK],
    sums: &mut DragLaneSums,
) {
    debug_assert!(n.is_multiple_of(LANES) && n <= BLOCK);
    // A copy the loop's stores cannot reach: read through the reference, every constant
    // would be reloaded after each store (the AVX2 build then stops vectorising).
    let k = &{ *k };
    let (com, v, omega) = (k.com, k.velocity, k.omega);
    let spread = ONE_POINT_SPREAD * ONE_POINT_SPREAD;
    // The sums in a local copy, written back once: through the reference they were
    // stored at every lane group (2-4 % of a bunny's step).
    let outer = sums;
    let mut local = *outer;
    let sums = &mut local;
    for g in 0..n.min(BLOCK) / LANES {
        // This group's rows, copied out (as in `whole_block`: the sums then stay in vector
        // registers, where a column per number was stored and read back).
        let group = |column: &[f64]| lane_group(column, g);
        let three_of = |[x, y, z]: &[&[f64]; 3]| [group(x), group(y), group(z)];
        let (point, normal, water) = (three_of(&rows.point), three_of(&rows.normal), three_of(&rows.water));
        let (areas, radius) = (group(rows.area), group(rows.radius_squared));
        let mut flags = [0.0; LANES];
        for l in 0..LANES {
            let arm = [point[0][l] - com[0], point[1][l] - com[1], point[2][l] - com[2]];
            let spin = cross(omega, arm);
            let u = [
                v[0] + spin[0] - water[0][l],
                v[1] + spin[1] - water[1][l],
                v[2] + spin[2] - water[2][l],
            ];
            let normal = [normal[0][l], normal[1][l], normal[2][l]];
            let speed_squared = dot(u, u);
            let needs_three = areas[l] > 0.0 && radius[l] * k.omega_squared > speed_squared * spread;
            let area = if needs_three { 0.0 } else { areas[l] };
            let (fv, fd, torque) = drag_at::<HALF>(k, arm, u, normal, area);
            let out = [
                fv[0], fv[1], fv[2], fd[0], fd[1], fd[2], torque[0], torque[1], torque[2],
            ];
            for (sum, value) in sums.iter_mut().zip(out) {
                sum[l] += value;
            }
            flags[l] = if needs_three { 1.0 } else { 0.0 };
        }
        if let Some(to) = three.get_mut(g * LANES..(g + 1) * LANES) {
            to.copy_from_slice(&flags);
        }
    }
    *outer = local;
}

/// Running drag sums, one per lane.
type DragLaneSums = LaneSums<DRAG_SUMMED>;

fn drag_lane_sums(sums: &DragLaneSums) -> DragSums {
    let vector = |k: usize| DVec3::new(total_lanes(sums[k]), total_lanes(sums[k + 1]), total_lanes(sums[k + 2]));
    DragSums {
        viscous: vector(0),
        pressure: vector(3),
        torque: vector(6),
    }
}

/// Viscous and pressure drag on the wet triangles at `motion`, by the one-point rule or,
/// where the rotation spreads the velocity across a triangle, the three-point rule.
/// Works in body axes, like [`whole_pass`]: the hull's centroids and normals are read as
/// stored.
#[multiversion(targets("x86_64+avx512f+avx512vl+avx512dq+avx512bw+avx2", "x86_64+avx2"))]
pub(crate) fn drag_pass<'a, 'w>(
    mesh: &Mesh<'a>,
    rows_of: std::ops::Range<usize>,
    wet: &WetRows<'w>,
    motion: &Motion,
    params: &DragParams,
    packed: &mut ThreePointRows,
) -> DragSums {
    let cols = mesh.columns;
    let (first, t) = (rows_of.start, rows_of.end);
    let turn = mesh.rotation;
    let to_body = turn.transpose();
    let local = Motion {
        com: to_body * motion.com,
        velocity: to_body * motion.velocity,
        angular_velocity: to_body * motion.angular_velocity,
    };
    let k = DragConstants::new(&local, params);
    let moving = mesh.water_velocities.is_some();
    let mut sums = [[0.0f64; LANES]; DRAG_SUMMED];
    let mut three = [0.0f64; BLOCK];
    let still = [[0.0; BLOCK]; 3];
    packed.len = 0;
    for start in (first..t).step_by(BLOCK) {
        let n = BLOCK.min(t - start);
        let range = start..start + n;
        // The same rows in the chunk's own columns.
        let chunk = start - first..start - first + n;
        // Blocks wholly out of the water (about half of a floating hull, its triangles
        // being ordered by height: `Hull::new`) have no drag.
        if wet.area[chunk.clone()].iter().all(|&a| a == 0.0) {
            continue;
        }
        let (normal, water) = (rows(&cols.normal, &range), rows(&wet.water, &chunk));
        let still = still.each_ref().map(|c| &c[..n]);
        let centroids = DragRows {
            point: rows(&cols.centroid, &range),
            normal,
            water: if moving { water } else { still },
            area: &wet.area[chunk.clone()],
            radius_squared: &cols.radius_squared[range.clone()],
        };
        drag_rows(&centroids, n, &k, &mut three, &mut sums);
        // The triangles the rotation spreads (a third of a bunny's wet rows, in four
        // fifths of its lane groups): packed into full groups (`crate::pack`), whose
        // rows then take their three edge midpoints, a third of the area each.
        let corners = cols
            .corners
            .each_ref()
            .map(|c| c.each_ref().map(|axis| &axis[range.clone()]));
        for g in 0..n / LANES {
            let flags = lane_group(&three, g);
            let keep = flags
                .iter()
                .enumerate()
                .fold(0u8, |keep, (l, &f)| keep | (u8::from(f != 0.0) << l));
            if keep == 0 {
                continue;
            }
            let group = |column: &[f64]| lane_group(column, g);
            let corner = |c: usize, axis: usize| single_lane_group(corners[c][axis], g);
            let corner_columns = [
                corner(0, 0),
                corner(0, 1),
                corner(0, 2),
                corner(1, 0),
                corner(1, 1),
                corner(1, 2),
                corner(2, 0),
                corner(2, 1),
                corner(2, 2),
            ];
            let columns = [group(&wet.area[chunk.clone()])];
            let at = packed.len;
            // SAFETY (the three AVX-512 packing calls): `match_target!` compiles those arms
            // only into the AVX-512 version of this function (F, VL and the rest), which runs
            // only on processors with it.
            match_target! {
                "x86_64+avx512f+avx512vl" => unsafe { pack::pack_avx512_f32(keep, &corner_columns, &mut packed.corners, at) },
                _ => pack::pack_portable(keep, &corner_columns, &mut packed.corners, at),
            };
            packed.len = match_target! {
                "x86_64+avx512f" => unsafe { pack::pack_avx512(keep, &columns, &mut packed.columns, at) },
                _ => pack::pack_portable(keep, &columns, &mut packed.columns, at),
            };
            if moving {
                let water = [group(water[0]), group(water[1]), group(water[2])];
                match_target! {
                    "x86_64+avx512f" => unsafe { pack::pack_avx512(keep, &water, &mut packed.water, at) },
                    _ => pack::pack_portable(keep, &water, &mut packed.water, at),
                };
            }
            if packed.len >= LANES {
                midpoints(&k, &packed.first_group(LANES, moving), &mut sums);
                packed.drop_first_group();
            }
        }
    }
    if packed.len > 0 {
        midpoints(&k, &packed.first_group(packed.len, moving), &mut sums);
    }
    let sums = drag_lane_sums(&sums);
    DragSums {
        viscous: turn * sums.viscous,
        pressure: turn * sums.pressure,
        torque: turn * sums.torque,
    }
}

/// A lane group of rows for the three-point rule: their corners, water velocities and
/// wetted areas, and whether each takes the rule (1) or not (0). (Their unit normals are
/// computed again from the corners and the area, as the hull did.)
struct MidpointRows {
    corners: [LaneVectors; 3],
    water: LaneVectors,
    area: [f64; LANES],
    flags: [f64; LANES],
}

type LaneVectors = [[f64; LANES]; 3];

/// The double-precision columns [`ThreePointRows`] packs, but for the water: the wetted
/// area.
const PACKED_COLUMNS: usize = 1;

/// The rows that take the three-point rule, packed (`crate::pack`) until they fill a
/// lane group: their corners (`3 c + axis`) in single precision as the hull keeps them
/// (widened when read: 64-byte columns, whose packing writes never straddle two cache
/// lines, and no widening of rows that are not packed), the wetted area (the whole
/// triangle's, from which and the corners the unit normal is computed again), and the
/// water's velocity (still water: zeros).
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub(crate) struct ThreePointRows {
    corners: [PackColumn32; 9],
    columns: [PackColumn; PACKED_COLUMNS],
    water: [PackColumn; 3],
    len: usize,
}

impl Default for ThreePointRows {
    fn default() -> Self {
        Self {
            corners: [[0.0; 2 * LANES]; 9],
            columns: [[0.0; 2 * LANES]; PACKED_COLUMNS],
            water: [[0.0; 2 * LANES]; 3],
            len: 0,
        }
    }
}

impl ThreePointRows {
    /// The first `len` packed rows as a lane group, the lanes after them zero (whatever
    /// packing left there: both ways of packing then give the same group), in still water
    /// when not `moving`.
    #[inline(always)]
    fn first_group(&self, len: usize, moving: bool) -> MidpointRows {
        let (corners, c) = (&self.corners, &self.columns);
        let corner = |k: usize| packed_lanes(&corners[k].map(f64::from), len);
        // (Still water packs no water velocities: the buffer's are an earlier step's.)
        let w = &self.water;
        let water = if moving {
            [
                packed_lanes(&w[0], len),
                packed_lanes(&w[1], len),
                packed_lanes(&w[2], len),
            ]
        } else {
            [[0.0; LANES]; 3]
        };
        MidpointRows {
            corners: [
                [corner(0), corner(1), corner(2)],
                [corner(3), corner(4), corner(5)],
                [corner(6), corner(7), corner(8)],
            ],
            water,
            area: packed_lanes(&c[0], len),
            flags: std::array::from_fn(|l| if l < len { 1.0 } else { 0.0 }),
        }
    }

    /// Drops the first lane group of packed rows (which must be full).
    #[inline(always)]
    fn drop_first_group(&mut self) {
        debug_assert!(self.len >= LANES);
        for column in &mut self.corners {
            let (first, second) = column.split_at_mut(LANES);
            first.copy_from_slice(second);
        }
        for column in self.columns.iter_mut().chain(self.water.iter_mut()) {
            let (first, second) = column.split_at_mut(LANES);
            first.copy_from_slice(second);
        }
        self.len -= LANES;
    }
}

/// The first `len` rows of a packed column as a lane group, zeros after them.
#[inline(always)]
fn packed_lanes(column: &PackColumn, len: usize) -> [f64; LANES] {
    let mut lanes = [0.0; LANES];
    for (l, (lane, &value)) in lanes.iter_mut().zip(column).enumerate() {
        *lane = if l < len { value } else { 0.0 };
    }
    lanes
}

/// [`midpoint_group`] with the falloffs the constants hold.
#[inline(always)]
fn midpoints(k: &DragConstants, rows: &MidpointRows, sums: &mut DragLaneSums) {
    if k.c.pressure_falloff == 0.5 && k.c.suction_falloff == 0.5 {
        midpoint_group::<true>(k, rows, sums);
    } else {
        midpoint_group::<false>(k, rows, sums);
    }
}

/// Drag at the three edge midpoints of each row of `rows` that takes the three-point
/// rule, a third of its area at each, added into the running sums (a row that does not
/// take it adds zeros).
#[inline(always)]
fn midpoint_group<const HALF: bool>(k: &DragConstants, rows: &MidpointRows, sums: &mut DragLaneSums) {
    let (com, v, omega) = (k.com, k.velocity, k.omega);
    for l in 0..LANES {
        let share = if rows.flags[l] != 0.0 { rows.area[l] / 3.0 } else { 0.0 };
        let corner = |c: usize| [rows.corners[c][0][l], rows.corners[c][1][l], rows.corners[c][2][l]];
        let (a, b, c) = (corner(0), corner(1), corner(2));
        // The hull's unit normal, as `Hull::new` computes it from the same corners and
        // area (fewer columns to pack than reading it).
        let area = rows.area[l];
        let twice = cross(sub(b, a), sub(c, a));
        let normal = if area > 0.0 {
            [
                twice[0] / (2.0 * area),
                twice[1] / (2.0 * area),
                twice[2] / (2.0 * area),
            ]
        } else {
            [0.0; 3]
        };
        let water = [rows.water[0][l], rows.water[1][l], rows.water[2][l]];
        let mut out = [0.0; DRAG_SUMMED];
        for (p, q) in [(a, b), (b, c), (c, a)] {
            let middle = [(p[0] + q[0]) * 0.5, (p[1] + q[1]) * 0.5, (p[2] + q[2]) * 0.5];
            let arm = sub(middle, com);
            let spin = cross(omega, arm);
            let u = [
                v[0] + spin[0] - water[0],
                v[1] + spin[1] - water[1],
                v[2] + spin[2] - water[2],
            ];
            let (fv, fd, torque) = drag_at::<HALF>(k, arm, u, normal, share);
            let row = [
                fv[0], fv[1], fv[2], fd[0], fd[1], fd[2], torque[0], torque[1], torque[2],
            ];
            for (total, value) in out.iter_mut().zip(row) {
                *total += value;
            }
        }
        for (sum, value) in sums.iter_mut().zip(out) {
            sum[l] += value;
        }
    }
}

/// Zeroes the rows of a block's column from `len` to the end of its lane group (the
/// rows after are never read): a select over one fixed-size group, where `fill` on a
/// range of a few rows was a loop (or a call) for every column, 4 % of a bunny's step.
#[inline(always)]
fn clear_tail(column: &mut [f64; BLOCK], len: usize) {
    let end = len.div_ceil(LANES) * LANES;
    let Some(start) = end.checked_sub(LANES) else {
        return;
    };
    if let Some(group) = column
        .get_mut(start..end)
        .and_then(|g| <&mut [f64; LANES]>::try_from(g).ok())
    {
        *group = std::array::from_fn(|l| if start + l < len { group[l] } else { 0.0 });
    }
}

/// Up to [`BLOCK`] pieces of cut triangles gathered one at a time for their drag, with
/// their triangle's unit normal and water velocity, evaluated together by
/// [`drag_pieces`].
#[derive(Clone, Debug)]
pub(crate) struct PieceBlock {
    corners: [[[f64; BLOCK]; 3]; 3],
    normal: [[f64; BLOCK]; 3],
    water: [[f64; BLOCK]; 3],
    len: usize,
}

impl Default for PieceBlock {
    fn default() -> Self {
        Self {
            corners: [[[0.0; BLOCK]; 3]; 3],
            normal: [[0.0; BLOCK]; 3],
            water: [[0.0; BLOCK]; 3],
            len: 0,
        }
    }
}

impl PieceBlock {
    /// Adds a piece; true when the block is full (then evaluate and clear it).
    pub fn push(&mut self, piece: [DVec3; 3], normal: DVec3, water: DVec3) -> bool {
        let i = self.len;
        for (corner, p) in self.corners.iter_mut().zip(piece) {
            for (axis, value) in corner.iter_mut().zip(p.to_array()) {
                axis[i] = value;
            }
        }
        for (k, (n, w)) in normal.to_array().into_iter().zip(water.to_array()).enumerate() {
            self.normal[k][i] = n;
            self.water[k][i] = w;
        }
        self.len += 1;
        self.len == BLOCK
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Viscous and pressure drag on the pieces of `scratch.pieces` at `motion` (in the axes
/// the pieces are in), each by the one-point or the three-point rule as its spread asks
/// (`Body`'s `drag_rule`, which the one-at-a-time code uses): the rule's choice and
/// both rules' points in vector code, the rule not taken weighted by zero. Empties the
/// block.
#[multiversion(targets("x86_64+avx512f+avx512vl+avx512dq+avx512bw+avx2", "x86_64+avx2"))]
pub(crate) fn drag_pieces(scratch: &mut Scratch, motion: &Motion, params: &DragParams) -> DragSums {
    let k = DragConstants::new(motion, params);
    let mut sums = [[0.0f64; LANES]; DRAG_SUMMED];
    let Scratch { pieces, .. } = scratch;
    // Most blocks need no three-point rule at all (none on moving water in the
    // benchmarks): they skip the three midpoints' drag, three quarters of the loop.
    let three = any_needs_three_points(pieces, &k);
    match (k.c.pressure_falloff == 0.5 && k.c.suction_falloff == 0.5, three) {
        (true, true) => piece_loop::<true, true>(pieces, &k, &mut sums),
        (true, false) => piece_loop::<true, false>(pieces, &k, &mut sums),
        (false, true) => piece_loop::<false, true>(pieces, &k, &mut sums),
        (false, false) => piece_loop::<false, false>(pieces, &k, &mut sums),
    }
    pieces.len = 0;
    drag_lane_sums(&sums)
}

/// A piece's centroid, its arm from the centre of mass, the water's velocity relative
/// to it, and the square of its farthest corner's distance from the centroid.
#[inline(always)]
fn centre_of(k: &DragConstants, [a, b, c]: [[f64; 3]; 3], water: [f64; 3]) -> ([f64; 3], [f64; 3], [f64; 3], f64) {
    let centroid: [f64; 3] = std::array::from_fn(|x| (a[x] + b[x] + c[x]) * (1.0 / 3.0));
    let arm = sub(centroid, k.com);
    let spin = cross(k.omega, arm);
    let u = [
        k.velocity[0] + spin[0] - water[0],
        k.velocity[1] + spin[1] - water[1],
        k.velocity[2] + spin[2] - water[2],
    ];
    let distance = |p: [f64; 3]| {
        let d = sub(p, centroid);
        dot(d, d)
    };
    (centroid, arm, u, distance(a).max(distance(b)).max(distance(c)))
}

/// Whether any piece of the block needs the three-point rule.
#[inline(always)]
fn any_needs_three_points(block: &PieceBlock, k: &DragConstants) -> bool {
    let k = &{ *k };
    let mut any = false;
    for i in 0..block.len {
        let corner = |c: usize| std::array::from_fn::<f64, 3, _>(|axis| block.corners[c][axis][i]);
        let water = [block.water[0][i], block.water[1][i], block.water[2][i]];
        let (_, _, u, radius_squared) = centre_of(k, [corner(0), corner(1), corner(2)], water);
        any |= needs_three_points(k.omega_squared, radius_squared, dot(u, u));
    }
    any
}

/// `THREE`: whether a piece of the block may need the three-point rule (without it,
/// every piece takes the one-point rule, as `needs_three_points` then says).
#[inline(always)]
fn piece_loop<const HALF: bool, const THREE: bool>(block: &mut PieceBlock, k: &DragConstants, sums: &mut DragLaneSums) {
    // Whole lane groups: the rows past the last piece, left from earlier blocks, are
    // cleared (a piece with no corners has no area, and adds zeros).
    let n = block.len.div_ceil(LANES) * LANES;
    for column in block
        .corners
        .iter_mut()
        .flatten()
        .chain(&mut block.normal)
        .chain(&mut block.water)
    {
        clear_tail(column, block.len);
    }
    let block = &*block;
    // A copy the loop's stores cannot reach: read through the reference, every constant
    // would be reloaded after each store (the AVX2 build then stops vectorising).
    let k = &{ *k };
    let (com, v, omega) = (k.com, k.velocity, k.omega);
    for g in 0..n.min(BLOCK) / LANES {
        // This group's rows, copied out, the sums in lanes (as in `drag_loop`).
        let group = |column: &[f64]| lane_group(column, g);
        let three_of = |[x, y, z]: &[[f64; BLOCK]; 3]| [group(x), group(y), group(z)];
        let corners = [
            three_of(&block.corners[0]),
            three_of(&block.corners[1]),
            three_of(&block.corners[2]),
        ];
        let (normals, waters) = (three_of(&block.normal), three_of(&block.water));
        for l in 0..LANES {
            let corner = |c: usize| [corners[c][0][l], corners[c][1][l], corners[c][2][l]];
            let (a, b, c) = (corner(0), corner(1), corner(2));
            let normal = [normals[0][l], normals[1][l], normals[2][l]];
            let water = [waters[0][l], waters[1][l], waters[2][l]];
            let area = 0.5 * dot(cross(sub(b, a), sub(c, a)), normal);
            let (_, arm, u, radius_squared) = centre_of(k, [a, b, c], water);
            let three = THREE && needs_three_points(k.omega_squared, radius_squared, dot(u, u));
            let (one_area, share) = if three { (0.0, area / 3.0) } else { (area, 0.0) };
            let mut out = drag_at::<HALF>(k, arm, u, normal, one_area);
            if THREE {
                for (p, q) in [(a, b), (b, c), (c, a)] {
                    let middle = std::array::from_fn(|x| 0.5 * (p[x] + q[x]));
                    let arm = sub(middle, com);
                    let spin = cross(omega, arm);
                    let u = [
                        v[0] + spin[0] - water[0],
                        v[1] + spin[1] - water[1],
                        v[2] + spin[2] - water[2],
                    ];
                    let (fv, fd, torque) = drag_at::<HALF>(k, arm, u, normal, share);
                    for x in 0..3 {
                        out.0[x] += fv[x];
                        out.1[x] += fd[x];
                        out.2[x] += torque[x];
                    }
                }
            }
            let (fv, fd, torque) = out;
            let row = [
                fv[0], fv[1], fv[2], fd[0], fd[1], fd[2], torque[0], torque[1], torque[2],
            ];
            for (sum, value) in sums.iter_mut().zip(row) {
                sum[l] += value;
            }
        }
    }
}

/// Pieces of cut triangles, gathered one at a time for [`PiecePass`]: each wholly under
/// or wholly above the water by construction.
#[derive(Clone, Debug)]
pub(crate) struct FacePieces {
    corners: [[[f64; BLOCK]; 3]; 3],
    centroid: [[f64; BLOCK]; 3],
    normal: [[f64; BLOCK]; 3],
    area: [f64; BLOCK],
    heights: [[f64; BLOCK]; 3],
    len: usize,
}

impl Default for FacePieces {
    fn default() -> Self {
        Self {
            corners: [[[0.0; BLOCK]; 3]; 3],
            centroid: [[0.0; BLOCK]; 3],
            normal: [[0.0; BLOCK]; 3],
            area: [0.0; BLOCK],
            heights: [[0.0; BLOCK]; 3],
            len: 0,
        }
    }
}

impl FacePieces {
    /// Adds a piece; true when the block is full.
    fn push(&mut self, piece: &crate::clip::Tri, normal: DVec3, area: f64, centroid: DVec3) -> bool {
        let i = self.len;
        for (corner, p) in self.corners.iter_mut().zip(piece.v) {
            for (axis, value) in corner.iter_mut().zip(p.to_array()) {
                axis[i] = value;
            }
        }
        for (k, h) in piece.height.into_iter().enumerate() {
            self.heights[k][i] = h;
        }
        for (k, (n, c)) in normal.to_array().into_iter().zip(centroid.to_array()).enumerate() {
            self.normal[k][i] = n;
            self.centroid[k][i] = c;
        }
        self.area[i] = area;
        self.len += 1;
        self.len == BLOCK
    }
}

/// The hydrostatic forces, the submerged volume and the air's forces on the pieces of
/// the cut triangles, by the same loop as whole triangles ([`whole_block`]): a piece
/// under water is a wholly wet triangle whose corners on the waterline have depth zero,
/// one above it a wholly dry triangle. The pieces are in world axes relative to the body
/// origin, as the clipping code makes them, so the loop runs with an unturned body.
/// Slamming is left out: it acts on a cut triangle as a whole (the step's own code).
pub(crate) struct PiecePass {
    constants: WholeConstants,
    vertical_only: bool,
    wet: LaneSums<WET_SUMMED>,
    dry: LaneSums<DRY_OUT>,
}

impl PiecePass {
    /// For a step at `motion` (world axes) with `params`.
    pub fn new(motion: &Motion, params: &WholeParams) -> Self {
        let params = WholeParams {
            slamming: None,
            ..*params
        };
        Self {
            constants: WholeConstants::new(DMat3::IDENTITY, motion, &params),
            vertical_only: params.vertical_only,
            wet: [[0.0; LANES]; WET_SUMMED],
            dry: [[0.0; LANES]; DRY_OUT],
        }
    }

    /// Adds a piece under the water, with its triangle's unit normal, its area and its
    /// centroid.
    pub fn add_wet(
        &mut self,
        scratch: &mut Scratch,
        piece: &crate::clip::Tri,
        normal: DVec3,
        area: f64,
        centroid: DVec3,
    ) {
        if scratch.wet_pieces.push(piece, normal, area, centroid) {
            self.flush(scratch);
        }
    }

    /// Adds a piece above the water.
    pub fn add_dry(
        &mut self,
        scratch: &mut Scratch,
        piece: &crate::clip::Tri,
        normal: DVec3,
        area: f64,
        centroid: DVec3,
    ) {
        if scratch.dry_pieces.push(piece, normal, area, centroid) {
            self.flush(scratch);
        }
    }

    fn flush(&mut self, scratch: &mut Scratch) {
        piece_blocks(&self.constants, scratch, &mut self.wet, &mut self.dry);
    }

    /// The sums of every piece added (world axes; no slamming, no wet count).
    pub fn finish(mut self, scratch: &mut Scratch) -> WholeSums {
        self.flush(scratch);
        whole_sums(DMat3::IDENTITY, self.vertical_only, &self.wet, &self.dry, 0)
    }
}

/// Runs the blocks of pieces gathered so far through [`whole_block`] and empties them.
#[multiversion(targets("x86_64+avx512f+avx512vl+avx512dq+avx512bw+avx2", "x86_64+avx2"))]
fn piece_blocks(
    constants: &WholeConstants,
    scratch: &mut Scratch,
    wet_sums: &mut LaneSums<WET_SUMMED>,
    dry_sums: &mut LaneSums<DRY_OUT>,
) {
    const NONE: [f64; BLOCK] = [0.0; BLOCK];
    const NONE3: [[f64; BLOCK]; 3] = [NONE; 3];
    const NO_HISTORY: [f32; BLOCK] = [0.0; BLOCK];
    let Scratch {
        copied,
        wet_pieces,
        dry_pieces,
        ..
    } = scratch;
    for (pieces, is_wet) in [(&mut *wet_pieces, true), (&mut *dry_pieces, false)] {
        if pieces.len == 0 {
            continue;
        }
        // Padded to whole lane groups with pieces of no area at the origin, on the
        // waterline, which add exactly nothing (whatever an earlier block left there
        // could: an infinite height times no area is NaN).
        let n = pieces.len.next_multiple_of(LANES).min(BLOCK);
        let padding = pieces.len..n;
        let columns = pieces.corners.iter_mut().flatten();
        let columns = columns
            .chain(&mut pieces.centroid)
            .chain(&mut pieces.normal)
            .chain(&mut pieces.heights);
        for column in columns {
            column[padding.clone()].fill(0.0);
        }
        pieces.area[padding].fill(0.0);
        let rows = WholeRows {
            corners: pieces.corners.each_ref().map(|c| c.each_ref().map(|axis| &axis[..n])),
            centroids: pieces.centroid.each_ref().map(|c| &c[..n]),
            normals: pieces.normal.each_ref().map(|c| &c[..n]),
            areas: &pieces.area[..n],
            prior_swept: [&NO_HISTORY[..n], &NO_HISTORY[..n], &NO_HISTORY[..n]],
            heights: &pieces.heights,
            water: &NONE3,
        };
        let out = (&mut *copied, &mut *wet_sums, &mut *dry_sums);
        if is_wet {
            whole_block::<_, true, false, true, false, true>(constants, &rows, n, out);
        } else {
            whole_block::<_, true, false, false, true, true>(constants, &rows, n, out);
        }
        pieces.len = 0;
    }
}

/// The per-block buffers of the loops: big enough (about 20 kB) that zeroing them on the
/// stack at every step would cost a small hull more than its forces, so each thread
/// keeps one and lends it to its steps.
pub(crate) struct Scratch {
    /// What the pass over whole triangles keeps of each row of a block.
    copied: Copied,
    /// Pieces of cut triangles gathered one at a time: for their drag ...
    pub pieces: PieceBlock,
    /// ... and, under and above the water, for the other forces ([`PiecePass`]).
    wet_pieces: FacePieces,
    dry_pieces: FacePieces,
    /// The cut triangles' slamming inputs, gathered one at a time by the step.
    pub slams: SlammingBlock,
}

thread_local! {
    static SCRATCH: std::cell::Cell<Option<Box<Scratch>>> = const { std::cell::Cell::new(None) };
}

impl Scratch {
    /// This thread's buffers (new ones the first time, or when a step is already using
    /// them: a host's water callback that steps another world).
    pub fn take() -> Box<Scratch> {
        SCRATCH.with(|s| s.take()).unwrap_or_else(|| {
            Box::new(Scratch {
                copied: [[[0.0; LANES]; WET_COPIED]; BLOCK / LANES],
                pieces: PieceBlock::default(),
                wet_pieces: FacePieces::default(),
                dry_pieces: FacePieces::default(),
                slams: SlammingBlock::default(),
            })
        })
    }

    /// Gives the buffers back to the thread.
    pub fn give_back(scratch: Box<Scratch>) {
        SCRATCH.with(|s| s.set(Some(scratch)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Row `j`'s numbers, distinct for every row and column.
    fn row(j: usize) -> DVec3 {
        let j = j as f64;
        DVec3::new(1e4 + j, 2e4 + j, 3e4 + j)
    }

    #[test]
    fn a_history_reads_back_what_was_set_by_row_and_by_chunk() {
        for rows in [0, 1, 12, CHUNK_ROWS, CHUNK_ROWS + 1, 2 * CHUNK_ROWS + 5] {
            let mut history = History::sized(rows);
            for j in 0..rows {
                history.set(j, row(j));
            }
            for j in 0..rows {
                assert_eq!(history.get(j), row(j), "{rows} rows, row {j}");
            }
            let ranges: Vec<_> = chunk_ranges(rows).collect();
            assert_eq!(history.chunks().count(), ranges.len(), "{rows} rows");
            for (chunk, range) in history.chunks().zip(&ranges) {
                for axis in 0..3 {
                    assert_eq!(chunk.swept[axis].len(), range.len());
                }
                for (k, j) in range.clone().enumerate() {
                    for axis in 0..3 {
                        assert_eq!(f64::from(chunk.swept[axis][k]), row(j)[axis], "{rows} rows, row {j}");
                    }
                }
            }
            // Written by chunk, read by row.
            for (chunk, range) in history.chunks_mut().zip(&ranges) {
                for (k, j) in range.clone().enumerate() {
                    chunk.swept[0][k] = -(j as f32);
                    chunk.swept[2][k] = 7.0 * j as f32;
                }
            }
            for j in 0..rows {
                let h = history.get(j);
                assert_eq!((h.x, h.y, h.z), (-(j as f64), row(j).y, 7.0 * j as f64));
            }
            assert_eq!(history.first().swept[1].len(), rows.min(CHUNK_ROWS));
        }
        // Kept in single precision: rounded to nearest, and clamped to its range.
        let mut history = History::sized(2);
        history.set(0, DVec3::new(0.1, 1e300, -1e300));
        history.set(1, DVec3::new(f64::from(f32::MAX), -1.0 / 3.0, 0.0));
        assert_eq!(
            history.get(0),
            DVec3::new(f64::from(0.1f32), f64::from(f32::MAX), -f64::from(f32::MAX))
        );
        assert_eq!(
            history.get(1),
            DVec3::new(f64::from(f32::MAX), f64::from(-1.0f32 / 3.0), 0.0)
        );
    }

    /// Pieces a block holds after a fuller one: the drag must be that of these pieces
    /// alone, to the bit, and that of a fresh block (the lanes past the last piece hold
    /// the earlier block's numbers until cleared).
    #[test]
    fn a_block_of_pieces_after_a_fuller_one_has_only_its_own_drag() {
        let motion = Motion {
            com: DVec3::new(0.1, -0.2, 0.05),
            velocity: DVec3::new(1.5, -0.3, 0.4),
            angular_velocity: DVec3::new(0.3, 2.0, -0.7),
        };
        let params = DragParams {
            viscous: Some((1000.0, 0.004)),
            pressure: Some(DragCoefficients {
                pressure_linear: 10.0,
                pressure_quadratic: 10.0,
                suction_linear: 10.0,
                suction_quadratic: 10.0,
                pressure_falloff: 0.5,
                suction_falloff: 0.5,
                reference_speed: 1.0,
            }),
        };
        let piece = |i: usize| {
            let t = i as f64;
            let a = DVec3::new(t * 0.3, -1.0, 0.2 * t);
            let b = a + DVec3::new(1.0 + 0.1 * t, 0.0, 0.3);
            let c = a + DVec3::new(0.2, 0.1, 1.0 + 0.05 * t);
            let normal = (b - a).cross(c - a).normalize();
            ([a, b, c], normal, DVec3::new(0.1 * t, 0.0, -0.2))
        };
        let drag_of = |scratch: &mut Scratch, count: usize, first: usize| {
            for i in first..first + count {
                let (p, n, w) = piece(i);
                assert!(!scratch.pieces.push(p, n, w));
            }
            drag_pieces(scratch, &motion, &params)
        };
        for later in [1, 3, 8, 13] {
            let mut used = Scratch::take();
            let full = drag_of(&mut used, BLOCK - 1, 100);
            assert!(full.viscous.length() > 0.0);
            let after = drag_of(&mut used, later, 0);
            let fresh = drag_of(&mut Scratch::take(), later, 0);
            assert!(fresh.viscous.length() > 0.0 && fresh.pressure.length() > 0.0);
            for (a, b) in [
                (after.viscous, fresh.viscous),
                (after.pressure, fresh.pressure),
                (after.torque, fresh.torque),
            ] {
                assert_eq!(
                    a.to_array().map(f64::to_bits),
                    b.to_array().map(f64::to_bits),
                    "{later} pieces"
                );
            }
        }
    }
}
