//! Linear and angular damping scaled by the wetted ratio (Kerner's stabiliser;
//! Skvortsov & Pirogova).
//!
//! ```text
//! F   = -r c_lin v        (v: centre-of-mass velocity relative to the water)
//! tau = -r c_ang omega
//! ```
//!
//! `r` is the wetted ratio, so a body in the air is not damped and a submerged one fully.

use glam::DVec3;

/// Damping force and couple.
#[inline]
pub fn damping(
    velocity: DVec3,
    angular_velocity: DVec3,
    wetted_ratio: f64,
    linear: f64,
    angular: f64,
) -> (DVec3, DVec3) {
    (
        -wetted_ratio * linear * velocity,
        -wetted_ratio * angular * angular_velocity,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn damping_scales_with_the_wetted_ratio() {
        let (f, t) = damping(DVec3::X, DVec3::Y, 0.5, 100.0, 10.0);
        assert_eq!(f, DVec3::new(-50.0, 0.0, 0.0));
        assert_eq!(t, DVec3::new(0.0, -5.0, 0.0));
        assert_eq!(
            damping(DVec3::X, DVec3::Y, 0.0, 100.0, 10.0),
            (DVec3::ZERO, DVec3::ZERO)
        );
    }
}
