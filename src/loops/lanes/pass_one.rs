//! Pass one in the lanes: hydrostatic pressure, volume, wetted area, slamming and air on
//! every triangle of a group's bodies, each triangle clipped in every lane.

use super::{
    BOTH, CUT_ONE, CUT_ONE_AT_0, CUT_ONE_AT_1, CUT_ONE_AT_2, CUT_TWO, CUT_TWO_AT_0, CUT_TWO_AT_1, CUT_TWO_AT_2, DRY,
    Group, HALF, LANES, LaneHistory, LaneMotion, LaneVectors, LaneVertex, Lanes, MIXED, Piece, WET, add_lane,
    base_kind, clipped, corners, corners_of, kind, kind_of_sides, lane, missing_area, piece_area, second_dry,
    second_wet, vertex_side,
};
use crate::forces::air::air_row;
use crate::forces::buoyancy::{pressure_row, volume_row};
use crate::forces::row::{add, cross, pick, point_velocity, scale, sub};
use crate::forces::slamming::{SlammingConstants, SlammingParams, slamming_row};
use crate::hull::Hull;
use crate::loops::whole::LANES_MAX_ROWS;

/// The most vertices a hull stepped in lanes can have: three a triangle.
const MAX_VERTICES: usize = 3 * LANES_MAX_ROWS;

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
/// entry per triangle, `prior` the last step's) and each triangle's [`kind`] to `kinds`,
/// for [`pass_two`](super::pass_two()) (the heights do not change in between); the sums
/// into `sums`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn pass_one(
    hull: &Hull,
    group: &Group<'_>,
    motion: &LaneMotion,
    mass: &Lanes,
    k: &PassOneConstants,
    prior: &[LaneHistory],
    history: &mut [LaneHistory],
    kinds: &mut [u8],
    sums: &mut PassOneSums,
) {
    let out = (prior, history, kinds, sums);
    // (Full groups and half groups apart: the lone corner's test, in the same loop as the
    // kinds' for half groups too, changed how those were compiled and cost them more.)
    if group.half {
        pass_one_of::<false>(hull, group, motion, mass, k, out)
    } else {
        pass_one_of::<true>(hull, group, motion, mass, k, out)
    }
}

/// [`pass_one`] for a full group (`FULL`) or a half one.
#[inline(always)]
fn pass_one_of<const FULL: bool>(
    hull: &Hull,
    group: &Group<'_>,
    motion: &LaneMotion,
    mass: &Lanes,
    k: &PassOneConstants,
    out: (&[LaneHistory], &mut [LaneHistory], &mut [u8], &mut PassOneSums),
) {
    match (k.slamming.is_some(), k.air.is_some(), group.water.is_some()) {
        (true, true, false) => pass_one_loop::<true, true, false, FULL>(hull, group, motion, mass, k, out),
        (true, true, true) => pass_one_loop::<true, true, true, FULL>(hull, group, motion, mass, k, out),
        (false, true, false) => pass_one_loop::<false, true, false, FULL>(hull, group, motion, mass, k, out),
        (false, true, true) => pass_one_loop::<false, true, true, FULL>(hull, group, motion, mass, k, out),
        (true, false, false) => pass_one_loop::<true, false, false, FULL>(hull, group, motion, mass, k, out),
        (true, false, true) => pass_one_loop::<true, false, true, FULL>(hull, group, motion, mass, k, out),
        (false, false, false) => pass_one_loop::<false, false, false, FULL>(hull, group, motion, mass, k, out),
        (false, false, true) => pass_one_loop::<false, false, true, FULL>(hull, group, motion, mass, k, out),
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
fn pass_one_loop<const SLAM: bool, const AIR: bool, const MOVING: bool, const FULL: bool>(
    hull: &Hull,
    group: &Group<'_>,
    motion: &LaneMotion,
    mass: &Lanes,
    k: &PassOneConstants,
    (prior, history, kinds, s): (&[LaneHistory], &mut [LaneHistory], &mut [u8], &mut PassOneSums),
) {
    // (Written in place: a returned 1.7 kB was copied, about 90 instructions a group.)
    *s = PassOneSums::default();
    let c = one_constants(k);
    let stop = c.stop_per_area(mass);
    // A full group's vertices' sides of the water, once per vertex (a triangle's corners
    // looked up): each triangle's lone corner tested lane by lane cost more (~90 a box).
    let mut sides = [BOTH; MAX_VERTICES];
    if FULL {
        for (side, v) in sides.iter_mut().zip(group.vertices) {
            *side = vertex_side(v);
        }
    }
    let triangles = hull.triangles.iter().zip(&hull.areas);
    let rows = triangles.zip(prior).zip(history.iter_mut()).zip(kinds.iter_mut());
    for ((((tri, &whole_area), before), history), kind_out) in rows {
        let (corners, water) = corners::<MOVING>(group, *tri);
        // (A full group's cut triangles also with their lone corner: a half group, or a
        // body alone, takes the kinds without it, fewer kernels to compile.)
        let side = |i: u32| sides.get(i as usize).copied().unwrap_or(BOTH);
        let known = if FULL { kind_of_sides(tri.map(side)) } else { None };
        let kind = known.unwrap_or_else(|| kind(&corners));
        *kind_out = kind;
        // (The same in every lane: one division, not one per lane.)
        let to_unit = [1.0 / (2.0 * whole_area); LANES];
        let args = (
            &corners,
            &water,
            &[whole_area; LANES],
            &to_unit,
            motion,
            &stop,
            before,
            history,
        );
        one_triangle_of_kind::<SLAM, AIR>(kind, group.half, args, &c, s);
    }
}

/// [`one_triangle`] for a triangle of kind `kind`, in half the lanes when `half`.
#[inline(always)]
pub(super) fn one_triangle_of_kind<const SLAM: bool, const AIR: bool>(
    kind: u8,
    half: bool,
    args: OneArgs<'_>,
    c: &OneConstants,
    s: &mut PassOneSums,
) {
    match (kind, half) {
        (CUT_ONE_AT_0, false) => one_triangle::<SLAM, AIR, CUT_ONE_AT_0, LANES>(args, c, s),
        (CUT_ONE_AT_1, false) => one_triangle::<SLAM, AIR, CUT_ONE_AT_1, LANES>(args, c, s),
        (CUT_ONE_AT_2, false) => one_triangle::<SLAM, AIR, CUT_ONE_AT_2, LANES>(args, c, s),
        (CUT_TWO_AT_0, false) => one_triangle::<SLAM, AIR, CUT_TWO_AT_0, LANES>(args, c, s),
        (CUT_TWO_AT_1, false) => one_triangle::<SLAM, AIR, CUT_TWO_AT_1, LANES>(args, c, s),
        (CUT_TWO_AT_2, false) => one_triangle::<SLAM, AIR, CUT_TWO_AT_2, LANES>(args, c, s),
        (DRY, false) => one_triangle::<SLAM, AIR, DRY, LANES>(args, c, s),
        (WET, false) => one_triangle::<SLAM, AIR, WET, LANES>(args, c, s),
        (CUT_ONE, false) => one_triangle::<SLAM, AIR, CUT_ONE, LANES>(args, c, s),
        (CUT_TWO, false) => one_triangle::<SLAM, AIR, CUT_TWO, LANES>(args, c, s),
        (_, false) => one_triangle::<SLAM, AIR, MIXED, LANES>(args, c, s),
        // (Half groups never have the lone corner's kinds.)
        (DRY, true) => one_triangle::<SLAM, AIR, DRY, HALF>(args, c, s),
        (WET, true) => one_triangle::<SLAM, AIR, WET, HALF>(args, c, s),
        (CUT_ONE, true) => one_triangle::<SLAM, AIR, CUT_ONE, HALF>(args, c, s),
        (CUT_TWO, true) => one_triangle::<SLAM, AIR, CUT_TWO, HALF>(args, c, s),
        (_, true) => one_triangle::<SLAM, AIR, MIXED, HALF>(args, c, s),
    }
}

/// The first pass's constants, as one triangle's loop reads them.
#[derive(Clone, Copy)]
pub(super) struct OneConstants {
    k6: f64,
    keep_horizontal: f64,
    /// The bodies' slamming parameters (the mass not read) and time step ...
    slam_params: SlammingParams,
    dt: f64,
    /// ... and the constants they share (`stop_per_area` is each body's).
    slam: SlammingConstants,
    air_factor: f64,
    wind: [f64; 3],
}

impl OneConstants {
    /// Each body's `stop_per_area` ([`SlammingConstants`]) from its mass: once per step,
    /// not once per triangle (two divisions).
    #[inline(always)]
    pub(super) fn stop_per_area(&self, mass: &Lanes) -> Lanes {
        std::array::from_fn(|l| {
            SlammingConstants::new(
                &SlammingParams {
                    mass: mass[l],
                    ..self.slam_params
                },
                self.dt,
            )
            .stop_per_area
        })
    }
}

/// The first pass's constants from `k`.
#[inline(always)]
pub(super) fn one_constants(k: &PassOneConstants) -> OneConstants {
    let (slam_params, dt) = k.slamming.unwrap_or((SlammingParams::OFF, 1.0));
    let (air_factor, wind) = k.air.unwrap_or((0.0, [0.0; 3]));
    OneConstants {
        k6: -k.rho_g / 6.0,
        keep_horizontal: if k.vertical_only { 0.0 } else { 1.0 },
        slam_params,
        dt,
        slam: SlammingConstants::new(&slam_params, dt),
        air_factor,
        wind,
    }
}

/// One triangle's corners, the water's velocity, the triangle's area and `1 / (2 area)`
/// in each lane; the bodies' motion and `stop_per_area` ([`OneConstants::stop_per_area`]);
/// the last slamming history and the new one.
pub(super) type OneArgs<'a> = (
    &'a [&'a LaneVertex; 3],
    &'a LaneVectors,
    &'a Lanes,
    &'a Lanes,
    &'a LaneMotion,
    &'a Lanes,
    &'a LaneHistory,
    &'a mut LaneHistory,
);

/// One triangle of the first pass in lanes `0..WIDTH`, of kind `KIND` ([`kind`]): every
/// lane, or the first [`HALF`] for a group of at most that many bodies or a lone body's
/// last few triangles (the other lanes would only repeat a body or a triangle, and no
/// arithmetic crosses lanes; their sums and history are left zero). A function of its own for each processor (not inlined into the
/// step: in one function that big, the compiler left most loops unvectorised).
#[multiversion::multiversion(targets("x86_64+avx512f+avx512vl+avx512dq+avx512bw+avx2", "x86_64+avx2"))]
pub(super) fn one_triangle<'a, const SLAM: bool, const AIR: bool, const KIND: u8, const WIDTH: usize>(
    (corners, water, whole_area, to_unit, motion, stop_per_area, before, history): OneArgs<'a>,
    c: &OneConstants,
    s: &mut PassOneSums,
) {
    let OneConstants {
        k6,
        keep_horizontal,
        slam,
        air_factor,
        wind,
        ..
    } = *c;
    const { assert!(WIDTH <= LANES) };
    let before = *before;
    let mut now = [[0.0; LANES]; 3];
    // One body (or triangle) in each lane; no loop inside (the compiler vectorises
    // innermost loops).
    for l in 0..WIDTH {
        let (whole_area, to_unit) = (whole_area[l], to_unit[l]);
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
            let w1 = if second_wet(KIND) {
                wet_piece(&clipped.wet[1], false, whole_area, normal, com, k6, keep_horizontal)
            } else {
                WetPiece::ZERO
            };
            area = w0.area
                + match base_kind(KIND) {
                    // (The missing piece's zero, as MIXED adds it: the area goes to the
                    // history.)
                    CUT_ONE => missing_area(normal),
                    _ => w1.area,
                };
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
            let k = SlammingConstants {
                stop_per_area: stop_per_area[l],
                ..slam
            };
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
            let (f1, t1) = if second_dry(KIND) {
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
