//! The step's hot loops: forces on the triangles wholly under or wholly above the water.
//!
//! Most of a hull is not cut by the water: on the Stanford bunny floating at half
//! height 97 % of the triangles (3554 of 3674) are wholly wet or wholly dry. Those need
//! no clipping, and their forces are the same formulas as for a clipped piece with the
//! piece being the triangle: the row functions of [`crate::forces`] (`drag_at`,
//! `air_row`, `depth_weighted_midpoints`, `slamming_row`, `fast_power`), which the
//! lanes, the cut pieces and the one-at-a-time code call too.
//!
//! Files: `block.rs` the pass over whole triangles (hydrostatics, volume, slamming, air;
//! [`whole_pass`]), `drag.rs` the drag pass ([`drag_pass`]), `pieces.rs` the cut
//! triangles' pieces gathered into blocks for the same loops ([`PiecePass`],
//! [`drag_pieces`]); this file the columns they share (history, wetted rows, chunks).
//!
//! The hull keeps its triangles as columns of numbers ([`crate::hull::TriangleColumns`]);
//! the loops here run over them one triangle per iteration with no branches, so that
//! the compiler vectorises them (four triangles per AVX2 instruction, eight per AVX-512
//! one: the loops are compiled with `multiversion` for the x86-64 baseline, AVX2 and
//! AVX-512, whose 32 vector registers also spill less). A triangle cut by the water is
//! marked and left to the step (`crate::loops::lanes` eight at a time, or the clipping code one
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
//! wet: its hydrostatics come from the block's moments ([`crate::hull::flat_moments`]), and
//! its loop only does slamming and what the step keeps per row.
//!
//! Drag is integrated over a piece by the one-point or the three-point rule
//! ([`crate::forces::drag`], which gives their accuracy).
//! The drag loop does the one-point rule for every wet triangle, then packs the rows
//! that need three points into full groups of eight ([`crate::loops::pack`]) and evaluates their
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

#[cfg(test)]
pub(crate) use crate::forces::drag::ONE_POINT_SPREAD;
pub(crate) use crate::forces::drag::{DragConstants, drag_at, needs_three_points};
pub(crate) use crate::forces::motion::{DragParams, Motion};
pub(crate) use crate::forces::pressure_drag::is_fast_power;
pub(crate) use crate::forces::row::{cross, dot, scale, sub};
use crate::forces::slamming::{SlammingBlock, SlammingParams};
use crate::hull::TriangleColumns;
use crate::hull::flat_moments::FlatPose;
use crate::loops::pack::{self, PackColumn, PackColumn32};

pub(crate) use crate::hull::BLOCK;

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
/// ([`crate::loops::lanes`]): their slamming history is one chunk.
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

/// The columns of the wet sums of [`whole_pass`] (running sums over the rows, one per
/// lane), by what they hold; a vector takes three columns from its name on (x, y, z).
mod wet_sum {
    /// Hydrostatic force and its moment about the centre of mass (body axes).
    pub const FORCE: usize = 0;
    pub const TORQUE: usize = 3;
    /// Submerged volume, and its moment but for the depths' own part along world up ...
    pub const VOLUME: usize = 6;
    pub const VOLUME_MOMENT: usize = 7;
    /// Wetted area and its moment.
    pub const WETTED: usize = 10;
    pub const WETTED_MOMENT: usize = 11;
    /// Slamming force and moment.
    pub const SLAMMING_FORCE: usize = 14;
    pub const SLAMMING_TORQUE: usize = 17;
    /// ... which is this one (`forces::buoyancy`'s `h^2 / 2` term).
    pub const DEPTH_MOMENT: usize = 20;
}
const WET_SUMMED: usize = wet_sum::DEPTH_MOMENT + 1;

/// What the pass keeps of each row that can be wet, for the step and the drag pass.
mod kept {
    /// Wetted area (zero where not wholly wet).
    pub const WETTED: usize = 0;
    /// The swept volume rate `A v` (world axes), what the next step's slamming compares.
    pub const SWEPT: usize = 1;
    /// 1 where the water cuts the triangle.
    pub const CUT: usize = 4;
    /// The water's velocity (body axes).
    pub const WATER: usize = 5;
}
const WET_COPIED: usize = kept::WATER + 3;

/// The columns of the dry sums: air resistance, the lumped resistance's areas.
mod dry_sum {
    pub const AIR_FORCE: usize = 0;
    pub const AIR_TORQUE: usize = 3;
    /// The emerged area projected across the relative wind ...
    pub const PROJECTED_AREA: usize = 6;
    /// ... the emerged area and its moment.
    pub const EMERGED_AREA: usize = 7;
    pub const EMERGED_MOMENT: usize = 8;
}
const DRY_OUT: usize = dry_sum::EMERGED_MOMENT + 3;

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

mod block;
mod drag;
mod pieces;

pub(crate) use block::whole_pass;
pub(crate) use drag::{ThreePointRows, drag_pass};
pub(crate) use pieces::{PiecePass, Scratch, drag_pieces};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::forces::pressure_drag::DragCoefficients;

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
