//! The cut triangles' pieces, gathered one at a time by the step and evaluated in
//! blocks by the same loops as whole triangles.

use super::block::{WholeConstants, WholeRows, whole_block, whole_sums};
use super::drag::{DRAG_SUMMED, DragLaneSums, clear_tail, drag_lane_sums};
use super::*;
use crate::forces::drag::{centroid_and_radius, edge_midpoint, midpoint_share};
use crate::forces::row::point_velocity;

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
fn centre_of(k: &DragConstants, corners: [[f64; 3]; 3], water: [f64; 3]) -> ([f64; 3], [f64; 3], [f64; 3], f64) {
    let (centroid, radius_squared) = centroid_and_radius(corners);
    let arm = sub(centroid, k.com);
    (
        centroid,
        arm,
        point_velocity(k.velocity, k.omega, arm, water),
        radius_squared,
    )
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
            let (one_area, share) = if three {
                (0.0, midpoint_share(area))
            } else {
                (area, 0.0)
            };
            let mut out = drag_at::<HALF>(k, arm, u, normal, one_area);
            if THREE {
                // (Edge by edge, as in `midpoint_group`: iterating `edge_midpoints`' array
                // is not vectorised.)
                for (p, q) in [(a, b), (b, c), (c, a)] {
                    let arm = sub(edge_midpoint(p, q), com);
                    let u = point_velocity(v, omega, arm, water);
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
    fn push(&mut self, piece: &crate::hull::clip::Tri, normal: DVec3, area: f64, centroid: DVec3) -> bool {
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
        piece: &crate::hull::clip::Tri,
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
        piece: &crate::hull::clip::Tri,
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
    pub(super) copied: Copied,
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
