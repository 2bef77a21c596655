//! The drag pass over the wholly wet triangles: the one-point rule for every row, the
//! three-point rule for the rows packed into groups.

use super::*;
use crate::forces::drag::{edge_midpoint, midpoint_share};
use crate::forces::row::point_velocity;

/// The numbers [`drag_pass`] sums per point: viscous force, pressure drag, moment.
pub(super) const DRAG_SUMMED: usize = 9;

/// Rows of drag points: where, on what face, in what water, with how much area, and
/// how far the face reaches from the point (zero: never the three-point rule).
struct DragRows<'a> {
    point: [&'a [f64]; 3],
    normal: [&'a [f64]; 3],
    water: [&'a [f64]; 3],
    area: &'a [f64],
    radius_squared: &'a [f64],
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
            let u = point_velocity(v, omega, arm, [water[0][l], water[1][l], water[2][l]]);
            let normal = [normal[0][l], normal[1][l], normal[2][l]];
            let speed_squared = dot(u, u);
            let needs_three = areas[l] > 0.0 && needs_three_points(k.omega_squared, radius[l], speed_squared);
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
pub(super) type DragLaneSums = LaneSums<DRAG_SUMMED>;

pub(super) fn drag_lane_sums(sums: &DragLaneSums) -> DragSums {
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
        // fifths of its lane groups): packed into full groups (`crate::loops::pack`), whose
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

/// The rows that take the three-point rule, packed (`crate::loops::pack`) until they fill a
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
        let share = if rows.flags[l] != 0.0 {
            midpoint_share(rows.area[l])
        } else {
            0.0
        };
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
            // (Edge by edge: iterating `edge_midpoints`' array kept the AVX-512 build from
            // vectorising this loop, +35 % on a bunny nearly at rest in the Unity benchmark.)
            let arm = sub(edge_midpoint(p, q), com);
            let u = point_velocity(v, omega, arm, water);
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
pub(super) fn clear_tail(column: &mut [f64; BLOCK], len: usize) {
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
