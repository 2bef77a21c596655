//! Slamming: the stiffness of water against a fast entry (Kerner part 2; thesis 5.4,
//! eq. 5.13-5.19, function 5.6).
//!
//! Per original triangle `j` of area `S_j` the step keeps its submerged area `A_j` and the
//! velocity `v_j` of its centroid relative to the water, and compares them with the last
//! step's:
//!
//! ```text
//! dV_j    = A_j v_j                            (swept volume rate)
//! Gamma_j = |dV_j - dV_j_prev| / (S_j dt)      (how suddenly the triangle got wet)
//! Gamma_max = max(|v_j|, v_r) / dt unless set (a triangle that went from dry to wet at once)
//! F_stop  = m v_j (2 A_j / S_hull) / dt        (stops its share of the body's momentum)
//! F_j     = -clamp(Gamma_j / Gamma_max, 0, 1)^p cos(theta_j) F_stop * multiplier,
//!           only when cos(theta_j) = (v_j / |v_j|) . n_j > 0 (the face meets the water)
//! ```
//!
//! Kerner's `Gamma_max = |v_j| / dt` makes the ratio scale-free in the speed: a triangle
//! bobbing at 3 mm/s whose wetted area changes by half in a step is "slammed" as hard,
//! relative to its momentum, as one entering at 10 m/s, and a raft at rest shook with a
//! slamming force above its drag. Slamming is an impact: the water's impact pressure
//! `rho v^2` vanishes beside its hydrostatic pressure at walking speeds. So the cap is
//! taken at no less than the body's reference speed `v_r` (the speed at which its drag
//! coefficients are given, 1 m/s by default): below it the ratio falls as `|v_j| / v_r`
//! and the force as `(|v_j| / v_r)^p`, and a body at rest or nearly so feels none.
//!
//! As printed, Kerner's `F_stop` is a momentum; divided by `dt` it is the force that stops
//! the triangle's share within one step, whatever the step length. A flat face that goes
//! from dry to wet in one step gets the full `F_stop`; a wedge or a sphere, whose wetted
//! area grows step by step, gets a small fraction. The sum over the hull is further kept
//! from reversing the body's motion by the step's limiter (`limiter`): each triangle's
//! share is bounded (`2 A_j / S_hull` of `m v_j / dt`, times the multiplier) but their sum
//! over a flat bottom meeting the water is several times the body's momentum, and only
//! the limiter's bound on the whole step keeps it from throwing the body back.

use glam::DVec3;

use super::pressure_drag::fast_power;
use super::row::{dot, scale, sub};

/// A triangle's slamming state in one step: what [`slamming_force`] compares with the
/// last step's. (A body keeps only its [`SlammingHistory::swept`] from one step to the
/// next: the force depends on nothing else of the last step.)
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SlammingHistory {
    /// Submerged area, m^2.
    pub area: f64,
    /// Velocity of the triangle's centroid relative to the water, m/s.
    pub velocity: DVec3,
}

impl SlammingHistory {
    /// The swept volume rate `dV = A v`, m^3/s: all that the next step compares with.
    #[inline]
    pub fn swept(&self) -> DVec3 {
        self.area * self.velocity
    }
}

/// Slamming parameters of a body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlammingParams {
    /// `p`.
    pub power: f64,
    /// `Gamma_max`, m/s^2; 0 = `max(|v_j|, fade_speed) / dt`.
    pub max_acceleration: f64,
    /// The speed below which slamming fades, m/s (the body's reference speed `v_r`).
    pub fade_speed: f64,
    /// Multiplier of the force.
    pub multiplier: f64,
    /// Body mass, kg.
    pub mass: f64,
    /// Total hull area, m^2.
    pub hull_area: f64,
}

impl SlammingParams {
    /// The parameters the loops run with when slamming is off: a multiplier of zero, and
    /// finite numbers everywhere else (no division by zero in a lane that is never
    /// used).
    pub(crate) const OFF: SlammingParams = SlammingParams {
        power: 1.0,
        max_acceleration: 1.0,
        fade_speed: 0.0,
        multiplier: 0.0,
        mass: 0.0,
        hull_area: 1.0,
    };
}

/// Slamming force on triangle `j` of area `triangle_area` and unit normal `normal`, from
/// its state now and at the last step.
#[inline]
pub fn slamming_force(
    now: SlammingHistory,
    before: SlammingHistory,
    triangle_area: f64,
    normal: DVec3,
    dt: f64,
    params: &SlammingParams,
) -> DVec3 {
    slamming_force_from_swept(now, before.swept(), triangle_area, normal, dt, params)
}

/// [`slamming_force`] with the last step given by its swept volume rate
/// ([`SlammingHistory::swept`]), which is all of it that the force depends on.
#[inline]
pub fn slamming_force_from_swept(
    now: SlammingHistory,
    before_swept: DVec3,
    triangle_area: f64,
    normal: DVec3,
    dt: f64,
    params: &SlammingParams,
) -> DVec3 {
    let change = now.swept() - before_swept;
    let k = SlammingConstants::new(params, dt);
    DVec3::from_array(slamming_row::<false, true>(
        now.velocity.to_array(),
        normal.to_array(),
        now.area,
        triangle_area,
        change.to_array(),
        now.area > 0.0,
        &k,
    ))
}

/// Rows of a [`SlammingBlock`].
pub(crate) const SLAMMING_BLOCK: usize = 32;

/// The slamming inputs of up to [`SLAMMING_BLOCK`] triangles gathered one at a time (the
/// cut ones, which the step clips one by one), one column per number, so that
/// [`SlammingBlock::forces`] runs [`slamming_force`] on eight of them per vector
/// instruction: its square roots and divisions, one triangle at a time, waited on each
/// other.
#[derive(Clone, Debug)]
pub(crate) struct SlammingBlock {
    now_area: [f64; SLAMMING_BLOCK],
    now_velocity: [[f64; SLAMMING_BLOCK]; 3],
    /// The last step's swept volume rates ([`SlammingHistory::swept`]).
    before_swept: [[f64; SLAMMING_BLOCK]; 3],
    triangle_area: [f64; SLAMMING_BLOCK],
    normal: [[f64; SLAMMING_BLOCK]; 3],
    /// Where each force acts (not read by `forces`).
    pub point: [DVec3; SLAMMING_BLOCK],
    pub len: usize,
}

impl Default for SlammingBlock {
    fn default() -> Self {
        Self {
            now_area: [0.0; SLAMMING_BLOCK],
            now_velocity: [[0.0; SLAMMING_BLOCK]; 3],
            before_swept: [[0.0; SLAMMING_BLOCK]; 3],
            triangle_area: [0.0; SLAMMING_BLOCK],
            normal: [[0.0; SLAMMING_BLOCK]; 3],
            point: [DVec3::ZERO; SLAMMING_BLOCK],
            len: 0,
        }
    }
}

impl SlammingBlock {
    /// Adds one triangle (the arguments of [`slamming_force`], the last step's as its swept
    /// volume rate, and where its force acts); true when the block is full (then take its
    /// forces and clear it).
    pub fn push(
        &mut self,
        now: SlammingHistory,
        before_swept: DVec3,
        triangle_area: f64,
        normal: DVec3,
        point: DVec3,
    ) -> bool {
        let i = self.len.min(SLAMMING_BLOCK - 1);
        self.now_area[i] = now.area;
        self.triangle_area[i] = triangle_area;
        for axis in 0..3 {
            self.now_velocity[axis][i] = now.velocity[axis];
            self.before_swept[axis][i] = before_swept[axis];
            self.normal[axis][i] = normal[axis];
        }
        self.point[i] = point;
        self.len = i + 1;
        self.len == SLAMMING_BLOCK
    }

    /// [`slamming_force`] of every triangle in the block, in the same arithmetic (each
    /// lane's force is the one-at-a-time answer to the bit), as columns x, y, z. The
    /// power must be 0, 1/2, 1 or 2 (the step's loops are only used for those).
    #[inline(always)]
    pub fn forces(&self, dt: f64, params: &SlammingParams) -> [[f64; SLAMMING_BLOCK]; 3] {
        let mut out = [[0.0; SLAMMING_BLOCK]; 3];
        let k = SlammingConstants::new(params, dt);
        let [vx, vy, vz] = &self.now_velocity;
        let [bx, by, bz] = &self.before_swept;
        let [nx, ny, nz] = &self.normal;
        for i in 0..SLAMMING_BLOCK {
            let (area, v) = (self.now_area[i], [vx[i], vy[i], vz[i]]);
            let change = sub(scale(v, area), [bx[i], by[i], bz[i]]);
            let normal = [nx[i], ny[i], nz[i]];
            let force = slamming_row::<false, false>(v, normal, area, self.triangle_area[i], change, area > 0.0, &k);
            for axis in 0..3 {
                out[axis][i] = force[axis];
            }
        }
        out
    }
}

/// The constants of [`slamming_row`], from a body's [`SlammingParams`] and the step.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SlammingConstants {
    /// `p`, `v_r` and the multiplier, as in [`SlammingParams`].
    pub power: f64,
    pub fade_speed: f64,
    pub multiplier: f64,
    /// Whether `Gamma_max` is fixed, and then `Gamma_max dt`.
    pub fixed_cap: bool,
    pub cap: f64,
    /// `2 m / (S_hull dt)`: the stopping force per unit of wetted area and velocity.
    pub stop_per_area: f64,
}

impl SlammingConstants {
    pub fn new(params: &SlammingParams, dt: f64) -> Self {
        Self {
            power: params.power,
            fade_speed: params.fade_speed,
            multiplier: params.multiplier,
            fixed_cap: params.max_acceleration > 0.0,
            cap: params.max_acceleration * dt,
            stop_per_area: 2.0 * params.mass / params.hull_area / dt,
        }
    }
}

/// The module's formula on one triangle, written once for every path: the whole
/// triangles' loops, the lanes, the cut triangles' blocks ([`SlammingBlock`]) and the
/// one-at-a-time code ([`slamming_force`]). Multiplied out, because every division and
/// root costs a vector loop its speed: `velocity` relative to the water and `normal` in
/// the same axes, `wetted` the triangle's submerged area `A` and `triangle_area` its
/// whole area `S`, `change` the swept volume rate's change `A v - (A v)_prev` (in any
/// axes: only its length counts), `on` whether slamming acts on it at all (false for a
/// face with no wet area: callers fold that test into `on`, which the whole loops know
/// from their triangle being wet). No branches (selects): a face that is off, has no
/// speed or does not meet the water gets zero.
///
/// With `r = Gamma_max dt` (`max(|v|, v_r)` unless fixed), `ratio = |change| / (S r)` and
/// `cos = v.n / |v|` share one division, `1 / (S r |v|)`, and `F_stop / (A v)` is the
/// constant `2 m / (S_hull dt)`. The force is then `-ratio^p cos multiplier F_stop`, the
/// formula to rounding (the test `the_row_gives_the_formula_to_rounding`).
///
/// The power: with `ANY_POWER`, any (`powf` for uncommon ones:
/// [`power`](super::pressure_drag::power)); else one of
/// [`is_fast_power`](super::pressure_drag::is_fast_power) ([`fast_power`], the loops).
/// `SQUARE`: it is 2, and `ratio^2 = |change|^2 |v| / (S^2 r^2 |v|)` needs no root of
/// `|change|^2` (the whole loops, which choose it per body).
#[inline(always)]
pub(crate) fn slamming_row<const SQUARE: bool, const ANY_POWER: bool>(
    velocity: [f64; 3],
    normal: [f64; 3],
    wetted: f64,
    triangle_area: f64,
    change: [f64; 3],
    on: bool,
    k: &SlammingConstants,
) -> [f64; 3] {
    let speed = dot(velocity, velocity).sqrt();
    let along = dot(velocity, normal);
    let acts = on && along > 0.0;
    let change_squared = dot(change, change);
    let reach = if k.fixed_cap { k.cap } else { speed.max(k.fade_speed) };
    let (ratio_power, cos) = if SQUARE {
        let scale = triangle_area * reach;
        let scale_squared = scale * scale;
        let inverse = 1.0 / if acts { scale_squared * speed } else { 1.0 };
        (
            (change_squared * speed * inverse).min(1.0),
            along * scale_squared * inverse,
        )
    } else {
        let inverse = 1.0 / if acts { triangle_area * reach * speed } else { 1.0 };
        let ratio = (change_squared.sqrt() * speed * inverse).clamp(0.0, 1.0);
        let ratio_power = if ANY_POWER {
            super::pressure_drag::power(ratio, k.power)
        } else {
            fast_power(ratio, k.power)
        };
        (ratio_power, along * triangle_area * reach * inverse)
    };
    let acting = -(ratio_power * cos * k.multiplier * (wetted * k.stop_per_area));
    scale(velocity, if acts { acting } else { 0.0 })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PARAMS: SlammingParams = SlammingParams {
        power: 2.0,
        max_acceleration: 0.0,
        fade_speed: 1.0,
        multiplier: 1.0,
        mass: 600.0,
        hull_area: 6.0,
    };

    #[test]
    fn below_the_fade_speed_slamming_fades_as_the_speed_to_the_power() {
        // The same sudden wetting at 0.1 m/s instead of 5: Gamma / Gamma_max = 0.1 / 1
        // (fade speed 1 m/s), so the force is 0.1^2 of the stopping force m v (2A/S)/dt.
        let v = DVec3::new(0.0, -0.1, 0.0);
        let now = SlammingHistory { area: 1.0, velocity: v };
        let before = SlammingHistory { area: 0.0, velocity: v };
        let f = slamming_force(now, before, 1.0, -DVec3::Y, 0.02, &PARAMS);
        let stop = 600.0 * 0.1 * (2.0 / 6.0) / 0.02;
        assert!((f.y - 0.01 * stop).abs() < 1e-9 * stop, "{f}");
        // A body bobbing at 3 mm/s, its wetted area swinging by half a face per step,
        // feels a millionth of its stopping force: nothing beside its drag.
        let v = DVec3::new(0.0, -0.003, 0.0);
        let now = SlammingHistory { area: 1.0, velocity: v };
        let before = SlammingHistory {
            area: 0.5,
            velocity: -v,
        };
        let f = slamming_force(now, before, 1.0, -DVec3::Y, 1.0 / 60.0, &PARAMS);
        let stop = 600.0 * 0.003 * (2.0 / 6.0) * 60.0;
        assert!(f.length() < 1e-4 * stop, "{f} against a stopping force of {stop}");
        // At and above the fade speed, Kerner's cap |v| / dt as before.
        let fast = SlammingParams {
            fade_speed: 0.0,
            ..PARAMS
        };
        let v = DVec3::new(0.0, -5.0, 0.0);
        let now = SlammingHistory { area: 1.0, velocity: v };
        let before = SlammingHistory { area: 0.5, velocity: v };
        assert_eq!(
            slamming_force(now, before, 1.0, -DVec3::Y, 0.02, &PARAMS),
            slamming_force(now, before, 1.0, -DVec3::Y, 0.02, &fast)
        );
    }

    #[test]
    fn a_face_that_gets_wet_at_once_gets_the_full_stopping_force() {
        let v = DVec3::new(0.0, -5.0, 0.0);
        let now = SlammingHistory { area: 1.0, velocity: v };
        let before = SlammingHistory { area: 0.0, velocity: v };
        let f = slamming_force(now, before, 1.0, -DVec3::Y, 0.02, &PARAMS);
        // m v (2 A / S) / dt = 600 * 5 * (2 / 6) / 0.02 = 50000, upward.
        assert!((f - DVec3::new(0.0, 50_000.0, 0.0)).length() < 1e-9, "{f}");
    }

    #[test]
    fn a_face_already_wet_at_steady_speed_or_leaving_the_water_feels_none() {
        let v = DVec3::new(0.0, -5.0, 0.0);
        let wet = SlammingHistory { area: 1.0, velocity: v };
        assert_eq!(slamming_force(wet, wet, 1.0, -DVec3::Y, 0.02, &PARAMS), DVec3::ZERO);
        let rising = SlammingHistory {
            area: 1.0,
            velocity: -v,
        };
        assert_eq!(
            slamming_force(rising, SlammingHistory::default(), 1.0, -DVec3::Y, 0.02, &PARAMS),
            DVec3::ZERO
        );
    }

    #[test]
    fn a_block_gives_each_triangle_its_one_at_a_time_force_to_the_bit() {
        let mut rng = crate::forces::kernel_tests::Lcg(12345);
        let mut next = move || rng.next();
        for (power, max_acceleration) in [(2.0, 0.0), (2.0, 30.0), (1.0, 0.0), (0.5, 5.0), (0.0, 0.0)] {
            let params = SlammingParams {
                power,
                max_acceleration,
                ..PARAMS
            };
            let mut block = SlammingBlock::default();
            let mut expected = Vec::new();
            for i in 0..SLAMMING_BLOCK {
                let v = DVec3::new(next(), next(), next()) * 4.0;
                // Every fourth: no area, no speed, or a face turned away (no force).
                let now = SlammingHistory {
                    area: if i % 4 == 1 { 0.0 } else { next().abs() },
                    velocity: if i % 4 == 2 { DVec3::ZERO } else { v },
                };
                let before = SlammingHistory {
                    area: next().abs() * 0.5,
                    velocity: v + DVec3::new(next(), next(), next()) * 0.1,
                };
                let normal = DVec3::new(next(), next(), next()).normalize();
                let normal = if i % 4 == 3 {
                    -normal * normal.dot(v).signum()
                } else {
                    normal
                };
                let area = 1.0 + next().abs();
                expected.push(slamming_force(now, before, area, normal, 0.02, &params));
                let full = block.push(now, before.swept(), area, normal, DVec3::ZERO);
                assert_eq!(full, i + 1 == SLAMMING_BLOCK);
            }
            let forces = block.forces(0.02, &params);
            for (i, f) in expected.iter().enumerate() {
                let lane = DVec3::new(forces[0][i], forces[1][i], forces[2][i]);
                assert_eq!(format!("{lane:?}"), format!("{f:?}"), "power {power}, row {i}");
            }
            assert!(expected.iter().any(|f| *f != DVec3::ZERO), "power {power}: some force");
        }
    }

    #[test]
    fn an_uncommon_power_is_taken_by_powf() {
        // As below with p = 1.5: ratio 0.1, 0.1^1.5 of the stopping force.
        let params = SlammingParams { power: 1.5, ..PARAMS };
        let v = DVec3::new(0.0, -1.0, 0.0);
        let now = SlammingHistory { area: 0.5, velocity: v };
        let before = SlammingHistory { area: 0.4, velocity: v };
        let f = slamming_force(now, before, 1.0, -DVec3::Y, 0.01, &params);
        let stop = 600.0 * 1.0 * (2.0 * 0.5 / 6.0) / 0.01;
        let expected = 0.1f64.powf(1.5) * stop;
        assert!((f.y - expected).abs() < 1e-9 * stop, "{f} against {expected}");
        assert!(f.x == 0.0 && f.z == 0.0);
    }

    #[test]
    fn a_slowly_wetted_face_feels_the_power_of_its_ratio() {
        let v = DVec3::new(0.0, -1.0, 0.0);
        let now = SlammingHistory { area: 0.5, velocity: v };
        let before = SlammingHistory { area: 0.4, velocity: v };
        // Gamma = 0.1 / 0.01 = 10, Gamma_max = 100: ratio 0.1, squared 0.01.
        let f = slamming_force(now, before, 1.0, -DVec3::Y, 0.01, &PARAMS);
        let stop = 600.0 * 1.0 * (2.0 * 0.5 / 6.0) / 0.01;
        assert!((f.y - 0.01 * stop).abs() < 1e-9, "{f}");
    }

    /// The module's formula written plainly, one step at a time.
    fn plain(
        now: SlammingHistory,
        before_swept: DVec3,
        triangle_area: f64,
        normal: DVec3,
        dt: f64,
        params: &SlammingParams,
    ) -> DVec3 {
        let speed = now.velocity.length();
        if now.area <= 0.0 || speed == 0.0 {
            return DVec3::ZERO;
        }
        let cos = now.velocity.dot(normal) / speed;
        if cos <= 0.0 {
            return DVec3::ZERO;
        }
        let gamma = (now.swept() - before_swept).length() / (triangle_area * dt);
        let gamma_max = if params.max_acceleration > 0.0 {
            params.max_acceleration
        } else {
            speed.max(params.fade_speed) / dt
        };
        let ratio = (gamma / gamma_max).clamp(0.0, 1.0).powf(params.power);
        let stop = params.mass * now.velocity * (2.0 * now.area / params.hull_area) / dt;
        -ratio * cos * params.multiplier * stop
    }

    #[test]
    fn the_row_gives_the_formula_to_rounding() {
        let mut rng = crate::forces::kernel_tests::Lcg(777);
        let mut next = move || rng.next();
        for (power, max_acceleration) in [(2.0, 0.0), (2.0, 30.0), (1.0, 0.0), (0.5, 5.0), (0.0, 0.0), (1.5, 0.0)] {
            let params = SlammingParams {
                power,
                max_acceleration,
                ..PARAMS
            };
            let dt = 0.02;
            let k = SlammingConstants::new(&params, dt);
            let mut acting = 0;
            for i in 0..2000 {
                let v = DVec3::new(next(), next(), next()) * 3.0;
                let normal = DVec3::new(next(), next(), next()).normalize();
                let whole = next().abs() + 0.05;
                // Half of them cut: the wet area a part of the triangle's.
                let area = if i % 2 == 0 {
                    whole
                } else {
                    whole * (next().abs() + 0.01)
                };
                let before = DVec3::new(next(), next(), next()) * 0.2;
                let now = SlammingHistory { area, velocity: v };
                let expected = plain(now, before, whole, normal, dt, &params);
                let stop = params.mass * v.length() * (2.0 * area / params.hull_area) / dt;
                let scalar = slamming_force_from_swept(now, before, whole, normal, dt, &params);
                assert!(
                    (scalar - expected).length() <= 1e-13 * stop,
                    "power {power}: {scalar} against {expected}"
                );
                let change = (now.swept() - before).to_array();
                let lane = |on: bool| {
                    let f = if power == 2.0 {
                        slamming_row::<true, false>(v.to_array(), normal.to_array(), area, whole, change, on, &k)
                    } else {
                        slamming_row::<false, true>(v.to_array(), normal.to_array(), area, whole, change, on, &k)
                    };
                    DVec3::from_array(f)
                };
                let got = lane(true);
                assert!(
                    (got - expected).length() <= 1e-13 * stop,
                    "power {power}: {got} against {expected}"
                );
                assert_eq!(lane(false), DVec3::ZERO);
                acting += usize::from(expected != DVec3::ZERO);
            }
            assert!(acting > 500, "power {power}: {acting}");
        }
    }
}
