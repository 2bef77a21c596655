//! The drag kernel: viscous ([`super::viscous`]) and pressure drag
//! ([`super::pressure_drag`]) at one point of a submerged face, and the rule that picks
//! the points a piece's drag is integrated at. Every path calls these: the whole
//! triangles' loops, the cut pieces' blocks, the lanes and (through
//! [`viscous_row`], [`drag_points`] and [`centroid_and_radius`]) the one-at-a-time code.
//!
//! **The kernel** ([`drag_at`]). With `u` the water's velocity relative to the point,
//! `n` the face's unit normal and `S` the area the point stands for:
//!
//! ```text
//! F_v = -1/2 rho C_F S |u| (u - (u.n) n)                      (viscous.rs, as written)
//! F_d = -(C_PD1 + C_PD2 q) / v_r  |u|^(1-f_P) (u.n)^f_P  S n   (u.n > 0)
//!     = +(C_SD1 + C_SD2 q) / v_r  |u|^(1-f_S) |u.n|^f_S  S n   (u.n < 0),  q = |u| / v_r
//! ```
//!
//! The second line is pressure_drag.rs's `(C1 q + C2 q^2) cos^f S n` with
//! `cos = u.n / |u|` multiplied out: `q cos^f = |u|^(1-f) |u.n|^f / v_r`. For the default
//! falloff `f = 1/2` that is one square root, `sqrt(|u| |u.n|)`, and no division: a
//! vector loop is bound by its divider otherwise. `f = 1` is `|u.n|`, `f = 0` is `|u|`,
//! `f = 2` is `(u.n)^2 / |u|`; the loops take no other falloff (`is_fast_power`). Both
//! parts are the scalar functions' rows, [`viscous_row`] and
//! [`pressure_drag_row`], so the kernel gives
//! the one-at-a-time code's bits (the test `the_drag_kernel_gives_the_scalar_drag_formulas`
//! in `kernel_tests`, which also checks both against the formulas written plainly).
//!
//! **The rule** ([`needs_three_points`], [`drag_points`]). A piece's drag is taken at its
//! centroid with all its area when the rotation adds little to the velocity across it
//! (`|omega| r < |u_c| / 10`, `r` the farthest vertex from the centroid), and at the
//! three edge midpoints with a third of the area each otherwise: the midpoint rule is
//! exact for fields quadratic over the triangle, and keeps a face turning about its own
//! centroid braked (one point would see it at rest; a box rocking about a face
//! diagonal). The comparison is made on squares: no square root. Against a fine
//! quadrature on random triangles at the switching spread (`Body`'s tests), the
//! one-point rule errs by 0.2 % of the drag scale `A (C_PD1 |u| + C_PD2 |u|^2)` on
//! average and 5.7 % at worst, where the face is nearly tangent to the flow and
//! `cos^(1/2)` has no derivative (the three-point rule: 0.07 % and 3.5 %); at a spread of
//! 3 it misses most of the drag.

use super::motion::{DragParams, Motion};
use super::pressure_drag::{DragCoefficients, pressure_drag_row, spread_power};
use super::row::{add, cross, dot, pick, scale, sub};

/// `|omega| r` above this fraction of the centroid's speed takes a piece's drag to three
/// points.
pub(crate) const ONE_POINT_SPREAD: f64 = 0.1;

/// Whether a piece whose vertices are at most `radius_squared.sqrt()` from its centroid
/// needs the three-point drag rule (squared quantities: no square root).
#[inline(always)]
pub(crate) fn needs_three_points(omega_squared: f64, radius_squared: f64, speed_squared: f64) -> bool {
    omega_squared * radius_squared > ONE_POINT_SPREAD * ONE_POINT_SPREAD * speed_squared
}

/// A piece's centroid and the squared distance of its farthest corner from it (the `r^2`
/// of [`needs_three_points`]).
#[inline(always)]
pub(crate) fn centroid_and_radius([a, b, c]: [[f64; 3]; 3]) -> ([f64; 3], f64) {
    let centroid = scale(add(add(a, b), c), 1.0 / 3.0);
    let distance = |p: [f64; 3]| {
        let d = sub(p, centroid);
        dot(d, d)
    };
    (centroid, distance(a).max(distance(b)).max(distance(c)))
}

/// The edge midpoints `(a + b) / 2`, `(b + c) / 2`, `(c + a) / 2`: the three-point rule's
/// points, each standing for [`midpoint_share`] of the area.
#[inline(always)]
pub(crate) fn edge_midpoints([a, b, c]: [[f64; 3]; 3]) -> [[f64; 3]; 3] {
    [edge_midpoint(a, b), edge_midpoint(b, c), edge_midpoint(c, a)]
}

/// The midpoint `(p + q) / 2` of one edge (what loops that go edge by edge call).
#[inline(always)]
pub(crate) fn edge_midpoint(p: [f64; 3], q: [f64; 3]) -> [f64; 3] {
    scale(add(p, q), 0.5)
}

/// The area each edge midpoint stands for.
#[inline(always)]
pub(crate) fn midpoint_share(area: f64) -> f64 {
    area / 3.0
}

/// The rule's points and their areas, always three (no branch): the edge midpoints with
/// a third each when `three`, else the centroid with all the area and twice with none
/// (which add exact zeros).
#[inline(always)]
pub(crate) fn drag_points(corners: [[f64; 3]; 3], centroid: [f64; 3], area: f64, three: bool) -> [([f64; 3], f64); 3] {
    let middles = edge_midpoints(corners);
    let share = midpoint_share(area);
    [
        (pick(three, middles[0], centroid), if three { share } else { area }),
        (pick(three, middles[1], centroid), if three { share } else { 0.0 }),
        (pick(three, middles[2], centroid), if three { share } else { 0.0 }),
    ]
}

/// Viscous friction ([`super::viscous`]) on `area` of a face of unit `normal` meeting the
/// water at `u`, `factor` being `-rho C_F / 2`: `factor S |u| (u - (u.n) n)`.
/// (`on` false: zero, by a select rather than a zero factor, which would give NaN at an
/// infinite speed.)
#[inline(always)]
pub(crate) fn viscous_row(u: [f64; 3], normal: [f64; 3], area: f64, factor: f64, on: bool) -> [f64; 3] {
    let speed = dot(u, u).sqrt();
    let along = dot(u, normal);
    let friction = if on { area * factor * speed } else { 0.0 };
    scale(sub(u, scale(normal, along)), friction)
}

/// The constants of a drag evaluation.
#[derive(Clone, Copy)]
pub(crate) struct DragConstants {
    pub com: [f64; 3],
    pub velocity: [f64; 3],
    pub omega: [f64; 3],
    pub omega_squared: f64,
    pub viscous_on: bool,
    pub viscous_factor: f64,
    pub pressure_on: bool,
    pub c: DragCoefficients,
    pub inverse_reference: f64,
    pub general_falloff: bool,
}

impl DragConstants {
    pub fn new(motion: &Motion, params: &DragParams) -> Self {
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
    let fv = viscous_row(u, normal, area, k.viscous_factor, k.viscous_on);
    // Pressure drag multiplied out (module docs).
    let leading = along > 0.0;
    let x = along.abs();
    let f = if leading { c.pressure_falloff } else { c.suction_falloff };
    let spread = if HALF {
        (x * speed).sqrt()
    } else {
        spread_power(x, speed, f, k.general_falloff)
    };
    let fd = pressure_drag_row(
        &k.c,
        k.inverse_reference,
        speed,
        along,
        spread,
        normal,
        area,
        k.pressure_on,
    );
    let torque = cross(arm, [fv[0] + fd[0], fv[1] + fd[1], fv[2] + fd[2]]);
    (fv, fd, torque)
}
