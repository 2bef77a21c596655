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
//! Gamma_max = |v_j| / dt unless set            (a triangle that went from dry to wet at once)
//! F_stop  = m v_j (2 A_j / S_hull) / dt        (stops its share of the body's momentum)
//! F_j     = -clamp(Gamma_j / Gamma_max, 0, 1)^p cos(theta_j) F_stop * multiplier,
//!           only when cos(theta_j) = (v_j / |v_j|) . n_j > 0 (the face meets the water)
//! ```
//!
//! As printed, Kerner's `F_stop` is a momentum; divided by `dt` it is the force that stops
//! the triangle's share within one step, whatever the step length. A flat face that goes
//! from dry to wet in one step gets the full `F_stop`; a wedge or a sphere, whose wetted
//! area grows step by step, gets a small fraction. The sum over the hull is further kept
//! from reversing the body's motion by the step's implicit limiter (`limiter`).

use glam::DVec3;

/// What slamming remembers of a triangle from one step to the next.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SlammingHistory {
    /// Submerged area, m^2.
    pub area: f64,
    /// Velocity of the triangle's centroid relative to the water, m/s.
    pub velocity: DVec3,
}

/// Slamming parameters of a body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlammingParams {
    /// `p`.
    pub power: f64,
    /// `Gamma_max`, m/s^2; 0 = `|v_j| / dt`.
    pub max_acceleration: f64,
    /// Multiplier of the force.
    pub multiplier: f64,
    /// Body mass, kg.
    pub mass: f64,
    /// Total hull area, m^2.
    pub hull_area: f64,
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
    let speed = now.velocity.length();
    if now.area <= 0.0 || speed == 0.0 {
        return DVec3::ZERO;
    }
    let cos = now.velocity.dot(normal) / speed;
    if cos <= 0.0 {
        return DVec3::ZERO;
    }
    let gamma = (now.area * now.velocity - before.area * before.velocity).length() / (triangle_area * dt);
    let gamma_max = if params.max_acceleration > 0.0 {
        params.max_acceleration
    } else {
        speed / dt
    };
    let ratio = super::pressure_drag::power((gamma / gamma_max).clamp(0.0, 1.0), params.power);
    let stop = params.mass * now.velocity * (2.0 * now.area / params.hull_area) / dt;
    -ratio * cos * params.multiplier * stop
}

#[cfg(test)]
mod tests {
    use super::*;

    const PARAMS: SlammingParams = SlammingParams {
        power: 2.0,
        max_acceleration: 0.0,
        multiplier: 1.0,
        mass: 600.0,
        hull_area: 6.0,
    };

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
    fn a_slowly_wetted_face_feels_the_power_of_its_ratio() {
        let v = DVec3::new(0.0, -1.0, 0.0);
        let now = SlammingHistory { area: 0.5, velocity: v };
        let before = SlammingHistory { area: 0.4, velocity: v };
        // Gamma = 0.1 / 0.01 = 10, Gamma_max = 100: ratio 0.1, squared 0.01.
        let f = slamming_force(now, before, 1.0, -DVec3::Y, 0.01, &PARAMS);
        let stop = 600.0 * 1.0 * (2.0 * 0.5 / 6.0) / 0.01;
        assert!((f.y - 0.01 * stop).abs() < 1e-9, "{f}");
    }
}
