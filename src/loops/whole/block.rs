//! The pass over the triangles wholly under or wholly above the water.

use super::*;
use crate::forces::air::{air_factor, air_row};
use crate::forces::buoyancy::pressure_row;
use crate::forces::slamming::{SlammingConstants, slamming_row};
use crate::hull::flat_moments::HydrostaticSums;

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
pub(super) struct WholeConstants {
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
    slam: SlammingConstants,
    air_on: bool,
    air_factor: f64,
    wind: [f64; 3],
    lumped_on: bool,
    facing_direction: [f64; 3],
}

impl WholeConstants {
    /// The step's constants for a body turned by `turn` (body to world).
    pub(super) fn new(turn: DMat3, motion: &Motion, params: &WholeParams) -> Self {
        let r = turn.to_cols_array();
        let to_body = turn.transpose();
        let local = |v: DVec3| (to_body * v).to_array();
        let (slam_on, slam, dt) = match params.slamming {
            Some((s, dt)) => (true, s, dt),
            None => (false, SlammingParams::OFF, 1.0),
        };
        let (air_on, air_factor, wind) = match params.air {
            Some((density, coefficient, w)) => (true, air_factor(density, coefficient), local(w)),
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
            slam: SlammingConstants::new(&slam, dt),
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
pub(super) struct WholeRows<'a, C> {
    pub(super) corners: [[&'a [C]; 3]; 3],
    pub(super) centroids: [&'a [f64]; 3],
    pub(super) normals: [&'a [f64]; 3],
    pub(super) areas: &'a [f64],
    pub(super) prior_swept: [&'a [f32]; 3],
    pub(super) heights: &'a [[f64; BLOCK]; 3],
    pub(super) water: &'a [[f64; BLOCK]; 3],
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
        let (above, below) = match mesh.flat {
            Some(flat) => flat_block_side(cols, start, r, flat, flat_pose.is_some()),
            None => (false, false),
        };
        if !(above || below) {
            block_heights(mesh, corners, indices, n, r, &mut heights);
        }
        let kind = block_kind(&heights, n, above, below);
        if MOVING && kind != Kind::Dry {
            // Dry blocks never read it (its gathers were a quarter of the pass on a bunny
            // in waves).
            block_water(mesh.water_velocities.unwrap_or(&[]), indices, n, &mut water);
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
                add_block_moments(out.1, &cols.block_moments[start / BLOCK].sums(&pose));
                whole_block::<_, SQUARE, MOVING, true, false, false>(&constants, &rows, n, out)
            }
            (Kind::Wet, None) => whole_block::<_, SQUARE, MOVING, true, false, true>(&constants, &rows, n, out),
            (Kind::Mixed, _) => whole_block::<_, SQUARE, MOVING, true, true, true>(&constants, &rows, n, out),
        }
        let groups = &copied[..n / LANES];
        let history_swept = rows_mut(&mut history.swept, &chunk);
        if kind == Kind::Dry {
            zero_rows(&mut wet.area[chunk.clone()]);
            for swept in history_swept {
                swept.fill(0.0);
            }
            continue;
        }
        keep_rows::<MOVING>(groups, wet, history_swept, &chunk);
        wet_count += groups
            .iter()
            .map(|g| g[kept::WETTED].iter().filter(|&&a| a > 0.0).count())
            .sum::<usize>();
        if kind == Kind::Wet {
            continue;
        }
        let is_cut = groups.iter().flat_map(|g| g[kept::CUT]);
        for (i, is_cut) in is_cut.enumerate() {
            if is_cut != 0.0 {
                cut.push((start + i) as u32);
            }
        }
    }
    whole_sums(turn, params.vertical_only, &wet_sums, &dry_sums, wet_count)
}

/// Over flat water (`(origin_y, level)`), whether the block from row `start` is above
/// the water by more than rounding (dry without its corners' heights: half of a
/// floating hull's blocks), and whether it is below it and `moments` give its
/// hydrostatics (wholly wet: its moments need no heights either).
#[inline(always)]
fn flat_block_side(
    cols: &TriangleColumns,
    start: usize,
    r: [f64; 9],
    (origin_y, level): (f64, f64),
    moments: bool,
) -> (bool, bool) {
    let [centre, half] = cols.block_bounds[start / BLOCK];
    let height = ((r[1] * centre.x + r[4] * centre.y + r[7] * centre.z) + origin_y) - level;
    let reach = r[1].abs() * half.x + r[4].abs() * half.y + r[7].abs() * half.z;
    let rounding = 1e-9 * (centre.abs().element_sum() + half.element_sum() + origin_y.abs() + level.abs());
    (height - reach > rounding, moments && height + reach < -rounding)
}

/// The heights above the water of the `n` rows' corners.
#[inline(always)]
fn block_heights(
    mesh: &Mesh<'_>,
    corners: [[&[f32]; 3]; 3],
    indices: [&[u32]; 3],
    n: usize,
    r: [f64; 9],
    heights: &mut [[f64; BLOCK]; 3],
) {
    match mesh.flat {
        // The same arithmetic as the vertex heights (`Body::sample_water`), to the bit, so
        // that this loop and the clipping code agree on which triangles are cut.
        Some((origin_y, level)) => {
            for (h, [x, y, z]) in heights.iter_mut().zip(corners) {
                for i in 0..n {
                    let (x, y, z) = (f64::from(x[i]), f64::from(y[i]), f64::from(z[i]));
                    h[i] = ((r[1] * x + r[4] * y + r[7] * z) + origin_y) - level;
                }
            }
        }
        // (Indices clamped to the last vertex, which they never pass: the compiler then
        // knows every read is in bounds and gathers a vector of them at once.)
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
}

/// What a block of `n` rows holds: a block wholly under or wholly above the water (most
/// of them: the hull's triangles are ordered by height) skips the other side's forces.
#[inline(always)]
fn block_kind(heights: &[[f64; BLOCK]; 3], n: usize, above: bool, below: bool) -> Kind {
    let count = |wet: bool| -> usize {
        heights
            .iter()
            .map(|h| h[..n].iter().filter(|&&h| if wet { h < 0.0 } else { h >= 0.0 }).count())
            .sum()
    };
    if above || (!below && count(false) == 3 * n) {
        Kind::Dry
    } else if below || count(true) == 3 * n {
        Kind::Wet
    } else {
        Kind::Mixed
    }
}

/// The water's velocity averaged over the `n` rows' corners (world axes): three columns
/// for the loop to read rather than nine.
#[inline(always)]
fn block_water(moving: &[DVec3], indices: [&[u32]; 3], n: usize, water: &mut [[f64; BLOCK]; 3]) {
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

/// A wholly wet block's hydrostatics from its moments, added to lane 0 of the wet sums.
#[inline(always)]
fn add_block_moments(sums: &mut LaneSums<WET_SUMMED>, block: &HydrostaticSums) {
    let vectors = [
        (wet_sum::FORCE, block.force),
        (wet_sum::TORQUE, block.torque),
        (wet_sum::VOLUME_MOMENT, block.volume_moment),
        (wet_sum::WETTED_MOMENT, block.wetted_moment),
    ];
    let numbers = [
        (wet_sum::VOLUME, block.volume),
        (wet_sum::WETTED, block.wetted),
        (wet_sum::DEPTH_MOMENT, block.depth_moment),
    ];
    for (k, v) in vectors {
        for axis in 0..3 {
            sums[k + axis][0] += v[axis];
        }
    }
    for (k, value) in numbers {
        sums[k][0] += value;
    }
}

/// Copies out what the step keeps of a block's rows (`groups`, [`kept`]): the wetted
/// areas and, when the water moves, its velocities for the drag pass, and the swept
/// volume rates for the next step's slamming. A lane group at a time, as fixed-size
/// copies (vector moves, not a call or a loop of single numbers).
#[inline(always)]
fn keep_rows<const MOVING: bool>(
    groups: &[[[f64; LANES]; WET_COPIED]],
    wet: &mut WetRowsMut<'_>,
    history_swept: [&mut [f32]; 3],
    chunk: &std::ops::Range<usize>,
) {
    let copy = |to: &mut [f64], k: usize| {
        for (to, group) in to.chunks_exact_mut(LANES).zip(groups) {
            if let Ok(to) = <&mut [f64; LANES]>::try_from(to) {
                *to = group[k];
            }
        }
    };
    copy(&mut wet.area[chunk.clone()], kept::WETTED);
    for (k, swept) in history_swept.into_iter().enumerate() {
        for (to, group) in swept.chunks_exact_mut(LANES).zip(groups) {
            if let Ok(to) = <&mut [f32; LANES]>::try_from(to) {
                *to = group[kept::SWEPT + k].map(narrow);
            }
        }
    }
    if MOVING {
        for (k, water) in wet.water.iter_mut().enumerate() {
            copy(&mut water[chunk.clone()], kept::WATER + k);
        }
    }
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
pub(super) fn whole_sums(
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
    let mut buoyancy_force = world(wet_sum::FORCE);
    if vertical_only {
        // Along world up by construction; exactly, not to rounding.
        buoyancy_force.x = 0.0;
        buoyancy_force.z = 0.0;
    }
    WholeSums {
        buoyancy_force,
        buoyancy_torque: world(wet_sum::TORQUE),
        volume: total(sums[wet_sum::VOLUME]),
        volume_moment: -world(wet_sum::VOLUME_MOMENT) - DVec3::new(0.0, total(sums[wet_sum::DEPTH_MOMENT]), 0.0),
        area: total(sums[wet_sum::WETTED]),
        area_moment: world(wet_sum::WETTED_MOMENT),
        slamming_force: world(wet_sum::SLAMMING_FORCE),
        slamming_torque: world(wet_sum::SLAMMING_TORQUE),
        air_force: world_dry(dry_sum::AIR_FORCE),
        air_torque: world_dry(dry_sum::AIR_TORQUE),
        projected_area: total(dry_sums[dry_sum::PROJECTED_AREA]),
        emerged_area: total(dry_sums[dry_sum::EMERGED_AREA]),
        emerged_moment: world_dry(dry_sum::EMERGED_MOMENT),
        wet_count,
    }
}

/// The forces on the `n` rows of a block (a multiple of [`LANES`]), added into the
/// running sums, and what the step keeps per row into `copied`.
/// `WET`/`DRY`: whether the block may hold wholly wet / wholly dry triangles (a block
/// with only one kind skips the other's forces; one with both also finds the cut ones).
/// `HYDRO`: whether the loop sums the wet rows' hydrostatics and wetted area (not when
/// the block's moments gave them, [`crate::hull::flat_moments`]).
#[inline(always)]
pub(super) fn whole_block<
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
    let (com, omega) = (c.com, c.omega);
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
            let face = Face {
                area: areas[l],
                normal: [normals[0][l], normals[1][l], normals[2][l]],
                centroid: [centroids[0][l], centroids[1][l], centroids[2][l]],
            };
            let arm = sub(face.centroid, com);
            let spin = cross(omega, arm);
            if WET {
                let corner = |k: usize| [corners[k][0][l], corners[k][1][l], corners[k][2][l]];
                let row = wet_row::<SQUARE, MOVING>(
                    c,
                    &face,
                    WetInput {
                        corners: [corner(0), corner(1), corner(2)],
                        heights: [ha, hb, hc],
                        is_wet,
                        arm,
                        spin,
                        world_water: [gathered_water[0][l], gathered_water[1][l], gathered_water[2][l]],
                        prior_swept: [prior_swept[0][l], prior_swept[1][l], prior_swept[2][l]],
                    },
                );
                let summed = row.summed();
                if HYDRO {
                    for (sum, value) in wet_sums.iter_mut().zip(summed) {
                        sum[l] += value;
                    }
                } else {
                    // (The block's moments gave the others.)
                    let slamming = wet_sum::SLAMMING_FORCE..wet_sum::SLAMMING_TORQUE + 3;
                    for (sum, value) in wet_sums[slamming.clone()].iter_mut().zip(&summed[slamming]) {
                        sum[l] += value;
                    }
                }
                // Copied out after the loop, so that the loop writes only to the stack
                // (writes to the heap would need run-time alias checks). Every column, even
                // those a wet block leaves at zero: a store that depends on the column keeps
                // the compiler from vectorising the loop.
                copied[kept::WETTED][l] = row.wetted;
                // (The swept volume rate, what the next step compares with.)
                for axis in 0..3 {
                    copied[kept::SWEPT + axis][l] = row.swept[axis];
                    copied[kept::WATER + axis][l] = row.water[axis];
                }
                copied[kept::CUT][l] = if !is_wet && !is_dry { 1.0 } else { 0.0 };
            }
            // (A wholly dry block keeps a swept volume rate of zero: no wetted area.)
            if DRY {
                let row = dry_row(c, &face, is_dry, arm, spin);
                for (sum, value) in dry_sums.iter_mut().zip(row.summed()) {
                    sum[l] += value;
                }
            }
        }
    }
}

/// A row's face: the triangle's area, unit normal and centroid (body axes).
struct Face {
    area: f64,
    normal: [f64; 3],
    centroid: [f64; 3],
}

/// What [`wet_row`] reads of a row besides its face.
struct WetInput {
    corners: [[f64; 3]; 3],
    /// The corners' heights above the water.
    heights: [f64; 3],
    /// Whether the triangle is wholly under the water (else it adds nothing).
    is_wet: bool,
    /// The centroid's arm from the centre of mass, and `omega x arm`.
    arm: [f64; 3],
    spin: [f64; 3],
    /// The water's velocity at the triangle, world axes (zero in still water).
    world_water: [f64; 3],
    /// The last step's swept volume rate, world axes.
    prior_swept: [f64; 3],
}

/// A wet row's forces and what the step keeps of it.
struct WetRow {
    force: [f64; 3],
    torque: [f64; 3],
    volume: f64,
    volume_moment: [f64; 3],
    depth_moment: f64,
    wetted: f64,
    wetted_moment: [f64; 3],
    slamming_force: [f64; 3],
    slamming_torque: [f64; 3],
    /// The swept volume rate `A v` (world axes), for the next step's slamming.
    swept: [f64; 3],
    /// The water's velocity, body axes.
    water: [f64; 3],
}

/// Writes `v` into `columns[at..at + 3]`.
#[inline(always)]
fn put(columns: &mut [f64], at: usize, v: [f64; 3]) {
    columns[at] = v[0];
    columns[at + 1] = v[1];
    columns[at + 2] = v[2];
}

impl WetRow {
    /// The numbers summed, in the columns [`wet_sum`] names.
    #[inline(always)]
    fn summed(&self) -> [f64; WET_SUMMED] {
        let mut s = [0.0; WET_SUMMED];
        put(&mut s, wet_sum::FORCE, self.force);
        put(&mut s, wet_sum::TORQUE, self.torque);
        s[wet_sum::VOLUME] = self.volume;
        put(&mut s, wet_sum::VOLUME_MOMENT, self.volume_moment);
        s[wet_sum::WETTED] = self.wetted;
        put(&mut s, wet_sum::WETTED_MOMENT, self.wetted_moment);
        put(&mut s, wet_sum::SLAMMING_FORCE, self.slamming_force);
        put(&mut s, wet_sum::SLAMMING_TORQUE, self.slamming_torque);
        s[wet_sum::DEPTH_MOMENT] = self.depth_moment;
        s
    }
}

/// Hydrostatic pressure, the submerged volume and slamming on a row that may be wholly
/// wet (a row that is not adds zeros).
#[inline(always)]
fn wet_row<const SQUARE: bool, const MOVING: bool>(c: &WholeConstants, face: &Face, row: WetInput) -> WetRow {
    let third = 1.0 / 3.0;
    let (r, com, up) = (c.r, c.com, c.up);
    let WetInput {
        corners: [a, b, cc],
        heights: [ha, hb, hc],
        is_wet,
        arm,
        spin,
        world_water,
        prior_swept,
    } = row;
    let Face { area, normal, centroid } = *face;
    // cross(b - a, c - a), as stored.
    let s = scale(normal, area * 2.0);
    let s_up = dot(up, s);
    let world_water = if MOVING { world_water } else { [0.0; 3] };
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

    // Hydrostatic pressure (forces::buoyancy::pressure_row). Vertical buoyancy keeps
    // the part of `s` along world up.
    // (Depths are zero where not wholly wet: a vertex with no water under it has an
    // infinite height, and an infinite depth times a zero weight is NaN.)
    let (da, db, dc) = if is_wet { (-ha, -hb, -hc) } else { (0.0, 0.0, 0.0) };
    let depth_sum = da + db + dc;
    let pushed = if c.vertical_only { scale(up, s_up) } else { s };
    let pressure = pressure_row([a, b, cc], [da, db, dc], pushed, c.k, com, (c.exact, arm));
    // `P / 4` is also the submerged volume's moment below.
    let weighted = pressure.weighted;

    // Submerged volume (forces::buoyancy::volume_row): the volume under the triangle down
    // to the water, and its moment: the edge midpoints weighted by their mean depths
    // (`weighted`, above), and the depths' own part along world up,
    // `(ab^2 + bc^2 + ca^2) / 8`. (Halving a midpoint and a depth before multiplying
    // them, and quartering the product, give the same bits: scaling by a power of two is
    // exact.)
    let (ab, bc, ca) = (da + db, db + dc, dc + da);
    let area_y = if is_wet { s_up * 0.5 } else { 0.0 };
    let volume = -(area_y * depth_sum * third);
    let depth_squares = (ab * ab + bc * bc + ca * ca) * 0.125;
    let w = area_y * third;

    // Slamming (forces::slamming::slamming_row; the wetted area is the triangle's). The
    // swept volume rate compares with the last step's, kept in world axes, the water's
    // velocity taken away last, as the one-at-a-time code does: turning a velocity whose
    // world components differ by many orders (a body in a 1e30 m/s current) would bury
    // its small components under the big one's rounding, and the swept volume is a
    // difference of two such velocities, which the mass times |v| then multiplies back up.
    // (The spin turned into world axes, rather than the arm turned and crossed with the
    // world's omega: the same vector, fewer operations, and the spin is small beside the
    // body's own velocity, which stays as the host gave it.)
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
    let swept = scale(world_velocity, wetted);
    let change = sub(swept, prior_swept);
    let slamming_force =
        slamming_row::<SQUARE, false>(velocity, normal, wetted, wetted, change, c.slam_on && is_wet, &c.slam);

    WetRow {
        force: pressure.force,
        torque: pressure.torque,
        volume,
        volume_moment: scale(weighted, w),
        depth_moment: w * depth_squares,
        wetted,
        wetted_moment: scale(centroid, wetted),
        slamming_force,
        slamming_torque: cross(arm, slamming_force),
        swept,
        water,
    }
}

/// A dry row's air resistance and the lumped resistance's areas.
struct DryRow {
    air_force: [f64; 3],
    air_torque: [f64; 3],
    projected_area: f64,
    lumped_area: f64,
    lumped_moment: [f64; 3],
}

impl DryRow {
    /// The numbers summed, in the columns [`dry_sum`] names.
    #[inline(always)]
    fn summed(&self) -> [f64; DRY_OUT] {
        let mut s = [0.0; DRY_OUT];
        put(&mut s, dry_sum::AIR_FORCE, self.air_force);
        put(&mut s, dry_sum::AIR_TORQUE, self.air_torque);
        s[dry_sum::PROJECTED_AREA] = self.projected_area;
        s[dry_sum::EMERGED_AREA] = self.lumped_area;
        put(&mut s, dry_sum::EMERGED_MOMENT, self.lumped_moment);
        s
    }
}

/// Air resistance (forces::air::air_row) and the lumped resistance's areas on a row that
/// may be wholly dry (a row that is not adds zeros).
#[inline(always)]
fn dry_row(c: &WholeConstants, face: &Face, is_dry: bool, arm: [f64; 3], spin: [f64; 3]) -> DryRow {
    let dry_area = if is_dry { face.area } else { 0.0 };
    let relative = [
        c.velocity[0] + spin[0] - c.wind[0],
        c.velocity[1] + spin[1] - c.wind[1],
        c.velocity[2] + spin[2] - c.wind[2],
    ];
    let air_force = air_row(relative, face.normal, dry_area, c.air_factor, c.air_on && is_dry);
    let lumped_area = if c.lumped_on { dry_area } else { 0.0 };
    let facing = dot(face.normal, c.facing_direction).max(0.0);
    DryRow {
        air_force,
        air_torque: cross(arm, air_force),
        projected_area: lumped_area * facing,
        lumped_area,
        lumped_moment: scale(face.centroid, lumped_area),
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
