//! Keeps dissipative forces from reversing the motion they oppose within one step.
//!
//! Drag, slamming and damping oppose the body's motion relative to the water. Applied
//! explicitly by the host for a step `dt`, a strong one (a light body, a long step, a
//! fast entry) would overshoot: the velocity would change sign and grow, which is the
//! jitter and the launching of light bodies that buoyancy systems are known for.
//!
//! With `u = (v, omega)` the body's motion, `M = diag(m, I)` its mass and inertia and
//! `W = (F, tau)` the dissipative forces, the host's step changes the motion by
//! `D = M^-1 W dt`. Kinetic energy along `u + s D` is lowest at
//! `s* = -D.M.u / D.M.D`; past it the forces would put energy back in. Keel measures
//!
//! ```text
//! lambda = 1 / s* = dt (F.F / m + tau.I^-1.tau) / -(F.v + tau.omega)
//! ```
//!
//! (for linear drag `F = -c v`, `lambda = c dt / m`, the fraction of the motion removed in
//! one step) and scales the forces by `s = g(lambda) / lambda`:
//!
//! ```text
//! g(lambda) = lambda                   for lambda <= 1/2  (forces untouched)
//! g(lambda) = 1 - 1 / (4 lambda)       beyond             (smooth, always < 1)
//! ```
//!
//! Weak forces are exactly what their formulas say; strong ones bring the body close to
//! rest along their direction but never past it, also when they act off-centre and spin
//! the body (a plate meeting the water edge first). `I` is the host's inertia when the
//! body's description gives it, else that of a body of the hull's shape and the given
//! mass.
//!
//! ## Never backwards
//!
//! Lowest energy along `u + s D` is not the same as no reversal: when `D` is not
//! parallel to `u` (slamming on a tilted face both stops and spins the body) the point of
//! lowest energy can have the centre of mass moving back the way it came, its energy
//! moved into spin. A tilted box driven into still water at 30 m/s with 20 Hz steps was
//! thrown back out by slamming alone. So the factor is also kept at or below the one that
//! leaves each of the two motions, taken alone, pointing the way it did:
//!
//! ```text
//! v . (v + s dt F / m) >= 0          s <= |v|^2 / (-dt v.F / m)        when v.F < 0
//! w . (w + s dt I^-1 tau) >= 0       s <= |w|^2 / (-dt w.I^-1 tau)     when w.I^-1 tau < 0
//! ```
//!
//! (The spin's bound is skipped for a spin whose kinetic energy is under a millionth of
//! the body's: one factor scales all the dissipative forces, and a heave's drag must
//! not be scaled away to spare a spin of rounding size.)
//!
//! With both bounds and `s <= 1/lambda` the dissipative forces of a step never raise the
//! kinetic energy, never turn the centre of mass's velocity (relative to the water)
//! backwards and never reverse a spin, whatever they are made of: any force a formula
//! gives, however large, is safe. (They may still start a spin about another axis, as an
//! off-centre impact does.) [`limit`] takes the smallest of the three.

use glam::{DMat3, DVec3};

/// What the limiter needs to know about the body.
#[derive(Clone, Copy, Debug)]
pub struct Motion {
    /// Velocity of the centre of mass relative to the medium, m/s.
    pub velocity: DVec3,
    /// Angular velocity, rad/s.
    pub angular_velocity: DVec3,
    /// Mass, kg.
    pub mass: f64,
    /// Inverse of the inertia tensor about the centre of mass, world axes, 1/(kg m^2)
    /// (the step inverts it once for its end-of-step motion and both limiters).
    pub inverse_inertia: DMat3,
}

/// The factor in (0, 1] that keeps dissipative `force` and `torque` from reversing the
/// motion within `dt`.
#[inline(always)]
pub fn implicit_scale(force: DVec3, torque: DVec3, motion: &Motion, dt: f64) -> f64 {
    implicit_scale_of(force, torque, motion, dt, spin_rate(torque, motion))
}

/// `I^-1 torque` when the inverse inertia is finite: what both bounds read of the torque
/// (computed once when [`limit`] takes both: the same numbers, half the work).
#[inline(always)]
fn spin_rate(torque: DVec3, motion: &Motion) -> Option<DVec3> {
    // (Not `bool::then` with a closure: a closure may be left out of line, compiled for
    // the baseline processor.)
    let inverse = motion.inverse_inertia;
    if inverse.is_finite() {
        Some(inverse * torque)
    } else {
        None
    }
}

#[inline(always)]
fn implicit_scale_of(force: DVec3, torque: DVec3, motion: &Motion, dt: f64, spin_rate: Option<DVec3>) -> f64 {
    let removed = -(force.dot(motion.velocity) + torque.dot(motion.angular_velocity));
    if removed <= 0.0 {
        // The forces drive rather than oppose the motion (water pulling a body along).
        return 1.0;
    }
    let spin = match spin_rate {
        Some(rate) => torque.dot(rate),
        None => 0.0,
    };
    let lambda = dt * (force.length_squared() / motion.mass + spin.max(0.0)) / removed;
    if lambda <= 0.5 {
        1.0
    } else if lambda.is_finite() {
        (1.0 - 0.25 / lambda) / lambda
    } else {
        0.0
    }
}

/// The largest factor in [0, 1] for which `force` and `torque` applied for `dt` leave
/// the velocity and the spin each pointing the way it did (no component along its own
/// direction reversed): the "never backwards" bounds of the module documentation.
#[inline(always)]
pub fn no_reversal_scale(force: DVec3, torque: DVec3, motion: &Motion, dt: f64) -> f64 {
    no_reversal_scale_of(force, motion, dt, spin_rate(torque, motion))
}

#[inline(always)]
fn no_reversal_scale_of(force: DVec3, motion: &Motion, dt: f64, spin_rate: Option<DVec3>) -> f64 {
    let mut scale = 1.0_f64;
    let v = motion.velocity;
    let opposed = -(force * (dt / motion.mass)).dot(v);
    let speed_squared = v.length_squared();
    if opposed > speed_squared {
        scale = speed_squared / opposed;
    }
    if let Some(rate) = spin_rate {
        let w = motion.angular_velocity;
        let opposed = -(rate * dt).dot(w);
        let spin_squared = w.length_squared();
        if opposed > spin_squared && !negligible_spin(motion) {
            scale = scale.min(spin_squared / opposed);
        }
    }
    scale
}

/// A spin whose kinetic energy is below [`NEGLIGIBLE_SPIN`] of the body's is no motion
/// to protect: a body heaving straight up and down has a spin of rounding size (1e-12
/// rad/s from a mesh's triangulation), and the bound on reversing it would scale the
/// heave's drag down to nothing.
fn negligible_spin(motion: &Motion) -> bool {
    let w = motion.angular_velocity;
    let spin_energy = w.dot(motion.inverse_inertia.inverse() * w);
    let linear_energy = motion.mass * motion.velocity.length_squared();
    let threshold = NEGLIGIBLE_SPIN * (spin_energy + linear_energy);
    spin_energy.is_nan() || spin_energy < threshold
}

/// The share of a body's kinetic energy under which its spin is not protected from
/// reversal: a heave's drag must not be scaled away to spare a spin of rounding size
/// ("Never backwards" above).
pub const NEGLIGIBLE_SPIN: f64 = 1e-6;

/// The factor the step applies to dissipative forces: the smaller of
/// [`implicit_scale`] (energy) and [`no_reversal_scale`] (direction).
#[inline(always)]
pub fn limit(force: DVec3, torque: DVec3, motion: &Motion, dt: f64) -> f64 {
    let rate = spin_rate(torque, motion);
    implicit_scale_of(force, torque, motion, dt, rate).min(no_reversal_scale_of(force, motion, dt, rate))
}

/// Eight bodies' (or fewer) dissipative forces and motions, one body in each lane, for
/// [`limit_lanes`]: vectors by component, then lane.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MotionLanes<const N: usize> {
    /// The dissipative forces, N.
    pub(crate) force: [[f64; N]; 3],
    /// The dissipative torques, N m.
    pub(crate) torque: [[f64; N]; 3],
    /// [`Motion::velocity`], lane by lane.
    pub(crate) velocity: [[f64; N]; 3],
    /// [`Motion::angular_velocity`], lane by lane.
    pub(crate) angular_velocity: [[f64; N]; 3],
    /// [`Motion::mass`], lane by lane.
    pub(crate) mass: [f64; N],
}

/// [`limit`] for `N` bodies at once, one in each lane: `inverse_inertia[3 k + i][l]` is
/// component `i` of column `k` of lane `l`'s [`Motion::inverse_inertia`]. The same
/// arithmetic in the same order, each branch taken as a choice between both sides and
/// every number in an array of lanes, so that the compiler can turn the loops over the
/// lanes into vector instructions. The one rare branch that inverts a matrix (a spin's
/// reversal bound, checked against `negligible_spin`) is taken lane by lane after.
#[inline(always)]
pub(crate) fn limit_lanes<const N: usize>(
    lanes: &MotionLanes<N>,
    inverse_inertia: &[[f64; N]; 9],
    dt: f64,
    out: &mut [f64; N],
) {
    let MotionLanes {
        force: f,
        torque: t,
        velocity: v,
        angular_velocity: w,
        mass,
    } = lanes;
    let m = inverse_inertia;
    // `spin_rate`: `I^-1 tau` when the inverse is finite (`&`, not `&&`: no branches).
    let mut finite = [true; N];
    for component in m {
        for l in 0..N {
            finite[l] &= component[l].is_finite();
        }
    }
    let mut rate = [[0.0; N]; 3];
    for (i, r) in rate.iter_mut().enumerate() {
        for l in 0..N {
            r[l] = m[i][l] * t[0][l] + m[3 + i][l] * t[1][l] + m[6 + i][l] * t[2][l];
        }
    }
    let mut energy = [0.0; N];
    let mut spin_bound = [0.0; N];
    let mut spin_binds = [false; N];
    for l in 0..N {
        // `implicit_scale_of`.
        let removed = -((f[0][l] * v[0][l] + f[1][l] * v[1][l] + f[2][l] * v[2][l])
            + (t[0][l] * w[0][l] + t[1][l] * w[1][l] + t[2][l] * w[2][l]));
        let spin = if finite[l] {
            t[0][l] * rate[0][l] + t[1][l] * rate[1][l] + t[2][l] * rate[2][l]
        } else {
            0.0
        };
        let force_squared = f[0][l] * f[0][l] + f[1][l] * f[1][l] + f[2][l] * f[2][l];
        let lambda = dt * (force_squared / mass[l] + spin.max(0.0)) / removed;
        let limited = if lambda.is_finite() {
            (1.0 - 0.25 / lambda) / lambda
        } else {
            0.0
        };
        energy[l] = if removed <= 0.0 || lambda <= 0.5 { 1.0 } else { limited };
        // `no_reversal_scale_of`, but for the spin's bound.
        let k = dt / mass[l];
        let opposed = -((f[0][l] * k) * v[0][l] + (f[1][l] * k) * v[1][l] + (f[2][l] * k) * v[2][l]);
        let speed_squared = v[0][l] * v[0][l] + v[1][l] * v[1][l] + v[2][l] * v[2][l];
        out[l] = if opposed > speed_squared {
            speed_squared / opposed
        } else {
            1.0
        };
        let opposed = -((rate[0][l] * dt) * w[0][l] + (rate[1][l] * dt) * w[1][l] + (rate[2][l] * dt) * w[2][l]);
        let spin_squared = w[0][l] * w[0][l] + w[1][l] * w[1][l] + w[2][l] * w[2][l];
        spin_binds[l] = finite[l] & (opposed > spin_squared);
        spin_bound[l] = spin_squared / opposed;
    }
    for l in 0..N {
        if spin_binds[l] {
            let mut inverse = [0.0; 9];
            for (to, from) in inverse.iter_mut().zip(m) {
                *to = from[l];
            }
            let motion = Motion {
                velocity: DVec3::new(v[0][l], v[1][l], v[2][l]),
                angular_velocity: DVec3::new(w[0][l], w[1][l], w[2][l]),
                mass: mass[l],
                inverse_inertia: DMat3::from_cols_array(&inverse),
            };
            if !negligible_spin(&motion) {
                out[l] = out[l].min(spin_bound[l]);
            }
        }
    }
    for l in 0..N {
        out[l] = energy[l].min(out[l]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn motion(v: DVec3, w: DVec3) -> Motion {
        Motion {
            velocity: v,
            angular_velocity: w,
            mass: 2.0,
            inverse_inertia: DMat3::from_diagonal(DVec3::splat(0.5)).inverse(),
        }
    }

    #[test]
    fn strong_drag_stops_the_motion_without_reversing_it() {
        // F = -c v with c = 100: lambda = c dt / m = 100 * 0.1 / 2 = 5, g = 1 - 1/20.
        let v = DVec3::new(3.0, 0.0, 0.0);
        let s = implicit_scale(-100.0 * v, DVec3::ZERO, &motion(v, DVec3::ZERO), 0.1);
        assert!((s * 5.0 - 0.95).abs() < 1e-15);
        let after = v + s * (-100.0 * v) * 0.1 / 2.0;
        assert!((after - 0.05 * v).length() < 1e-12);
        // Continuous where the limiter starts: lambda = 1/2 removes half the motion.
        let s = implicit_scale(-10.0 * v, DVec3::ZERO, &motion(v, DVec3::ZERO), 0.1);
        assert_eq!(s, 1.0);
        let s = implicit_scale(-10.000001 * v, DVec3::ZERO, &motion(v, DVec3::ZERO), 0.1);
        assert!((s - 1.0).abs() < 1e-6);
    }

    #[test]
    fn an_off_centre_stop_is_limited_by_the_spin_it_causes_too() {
        // A force stopping the body, applied off-centre, also spins it: the limiter must
        // take more off than for the same force through the centre of mass.
        let v = DVec3::new(0.0, -3.0, 0.0);
        let force = DVec3::new(0.0, 30.0, 0.0);
        let centred = implicit_scale(force, DVec3::ZERO, &motion(v, DVec3::ZERO), 0.1);
        let torque = DVec3::new(0.5, 0.0, 0.0).cross(force);
        let off = implicit_scale(force, torque, &motion(v, DVec3::ZERO), 0.1);
        assert!(off < centred, "{off} vs {centred}");
        // Kinetic energy after the step never exceeds the minimum along the forces' line.
        let m = motion(v, DVec3::ZERO);
        let energy = |s: f64| {
            let dv = v + force * (s * 0.1 / m.mass);
            let dw = m.inverse_inertia * torque * (s * 0.1);
            0.5 * m.mass * dv.length_squared() + 0.5 * dw.dot(m.inverse_inertia.inverse() * dw)
        };
        assert!(energy(off) <= energy(0.0));
    }

    #[test]
    fn weak_or_driving_forces_are_left_alone() {
        let v = DVec3::new(0.0, 1.0, 0.0);
        assert_eq!(
            implicit_scale(DVec3::new(0.0, 5.0, 0.0), DVec3::ZERO, &motion(v, DVec3::ZERO), 0.1),
            1.0
        );
        assert_eq!(
            implicit_scale(DVec3::X, DVec3::ZERO, &motion(DVec3::ZERO, DVec3::ZERO), 0.1),
            1.0
        );
    }

    #[test]
    fn a_stop_that_also_brakes_a_spin_never_sends_the_body_back_the_way_it_came() {
        // Sinking at 1 m/s while spinning at 10 rad/s; the water brakes the spin hard and
        // pushes up. Energy is lowest along the forces' line with the body rising: the
        // energy bound alone would trade the braked spin for a bounce.
        let v = DVec3::new(0.0, -1.0, 0.0);
        let w = DVec3::new(0.0, 0.0, 10.0);
        let m = Motion {
            velocity: v,
            angular_velocity: w,
            mass: 100.0,
            inverse_inertia: DMat3::from_diagonal(DVec3::splat(1.0 / 20.0)),
        };
        let (force, torque, dt) = (DVec3::new(0.0, 8000.0, 0.0), DVec3::new(0.0, 0.0, -8944.0), 0.05);
        let energy_only = implicit_scale(force, torque, &m, dt);
        assert!(
            v.y + energy_only * force.y * dt / m.mass > 0.25,
            "the energy bound alone does not reverse"
        );
        let s = limit(force, torque, &m, dt);
        let after = v + force * (s * dt / m.mass);
        assert!(after.dot(v) >= -1e-12 * v.length_squared(), "{after} after {v}");
        let spin_after = w + m.inverse_inertia * torque * (s * dt);
        assert!(spin_after.dot(w) >= 0.0, "{spin_after} after {w}");
        // A spin braked alone is not reversed either.
        let spun = Motion {
            velocity: DVec3::ZERO,
            ..m
        };
        let s = limit(DVec3::ZERO, -1.0e5 * w, &spun, dt);
        let after = w + spun.inverse_inertia * (-1.0e5 * w) * (s * dt);
        assert!(after.dot(w) >= -1e-12 * w.length_squared(), "{after} after {w}");
    }

    #[test]
    fn a_spin_of_rounding_size_does_not_hold_back_the_heaves_drag() {
        let m = motion(DVec3::new(0.0, 0.3, 0.0), DVec3::new(1e-12, 0.0, 0.0));
        // Drag against the heave, and a torque of triangulation noise against the spin.
        let s = no_reversal_scale(DVec3::new(0.0, -5.0, 0.0), DVec3::new(-1e-3, 0.0, 0.0), &m, 0.1);
        assert_eq!(s, 1.0);
    }

    #[test]
    fn the_direction_bound_leaves_forces_that_only_slow_the_body_alone() {
        let v = DVec3::new(2.0, -1.0, 0.0);
        let m = motion(v, DVec3::new(0.0, 1.0, 0.0));
        assert_eq!(no_reversal_scale(-0.1 * v, DVec3::ZERO, &m, 0.1), 1.0);
        assert_eq!(no_reversal_scale(DVec3::new(0.0, 0.0, 50.0), DVec3::X, &m, 0.1), 1.0);
        assert_eq!(no_reversal_scale(v, DVec3::Y, &m, 0.1), 1.0);
    }

    #[test]
    fn strong_drag_torque_is_limited_too() {
        let w = DVec3::new(0.0, 0.0, 2.0);
        // tau = -k w with k = 50: lambda = k dt / I = 50 * 0.1 / 0.5 = 10.
        let s = implicit_scale(DVec3::ZERO, -50.0 * w, &motion(DVec3::ZERO, w), 0.1);
        assert!((s * 10.0 - (1.0 - 0.025)).abs() < 1e-15);
    }

    /// The lanes' factors are [`limit`]'s bits, lane by lane, through every branch:
    /// driving forces, weak and strong drag, a massless body, a non-finite inverse
    /// inertia, the velocity's and the spin's reversal bounds, a negligible spin.
    #[test]
    fn lanes_match_the_one_body_limiter_bit_for_bit() {
        const N: usize = 8;
        let dt = 0.05;
        let inverse = |k: f64| {
            DMat3::from_cols(
                DVec3::new(0.5 * k, 0.01, 0.0),
                DVec3::new(0.01, 0.4 * k, -0.02),
                DVec3::new(0.0, -0.02, 0.3 * k),
            )
        };
        let cases: [(DVec3, DVec3, Motion); N] = [
            // Driving: the water pulls the body along.
            (
                DVec3::X,
                DVec3::ZERO,
                Motion {
                    velocity: DVec3::X,
                    angular_velocity: DVec3::ZERO,
                    mass: 2.0,
                    inverse_inertia: inverse(1.0),
                },
            ),
            // Weak drag.
            (
                -0.1 * DVec3::Y,
                DVec3::new(0.0, 0.0, -0.01),
                Motion {
                    velocity: DVec3::Y,
                    angular_velocity: DVec3::Z,
                    mass: 2.0,
                    inverse_inertia: inverse(1.0),
                },
            ),
            // Strong drag, off-centre.
            (
                DVec3::new(0.0, 800.0, 10.0),
                DVec3::new(30.0, 0.0, -900.0),
                Motion {
                    velocity: DVec3::new(0.3, -1.0, 0.0),
                    angular_velocity: DVec3::new(0.0, 0.0, 10.0),
                    mass: 100.0,
                    inverse_inertia: inverse(0.1),
                },
            ),
            // Massless.
            (
                -DVec3::X,
                DVec3::ZERO,
                Motion {
                    velocity: DVec3::X,
                    angular_velocity: DVec3::ZERO,
                    mass: 0.0,
                    inverse_inertia: inverse(1.0),
                },
            ),
            // A non-finite inverse inertia.
            (
                -3.0 * DVec3::X,
                DVec3::Y,
                Motion {
                    velocity: DVec3::X,
                    angular_velocity: DVec3::Y,
                    mass: 1.0,
                    inverse_inertia: DMat3::from_diagonal(DVec3::new(f64::INFINITY, 1.0, 1.0)),
                },
            ),
            // The spin's reversal bound.
            (
                DVec3::ZERO,
                DVec3::new(0.0, 0.0, -1.0e5),
                Motion {
                    velocity: DVec3::ZERO,
                    angular_velocity: DVec3::new(0.0, 0.0, 2.0),
                    mass: 100.0,
                    inverse_inertia: inverse(0.05),
                },
            ),
            // A spin of rounding size under a heave: its bound is ignored.
            (
                DVec3::new(0.0, -5.0, 0.0),
                DVec3::new(-1e-3, 0.0, 0.0),
                Motion {
                    velocity: DVec3::new(0.0, 0.3, 0.0),
                    angular_velocity: DVec3::new(1e-12, 0.0, 0.0),
                    mass: 2.0,
                    inverse_inertia: inverse(1.0),
                },
            ),
            // The velocity's reversal bound, with a tilted push.
            (
                DVec3::new(300.0, 8000.0, 0.0),
                DVec3::new(0.0, 0.0, -8944.0),
                Motion {
                    velocity: DVec3::new(0.0, -1.0, 0.0),
                    angular_velocity: DVec3::new(0.0, 0.0, 10.0),
                    mass: 100.0,
                    inverse_inertia: DMat3::from_diagonal(DVec3::splat(1.0 / 20.0)),
                },
            ),
        ];
        let mut lanes = MotionLanes::<N> {
            force: [[0.0; N]; 3],
            torque: [[0.0; N]; 3],
            velocity: [[0.0; N]; 3],
            angular_velocity: [[0.0; N]; 3],
            mass: [0.0; N],
        };
        let mut inverses = [[0.0; N]; 9];
        for (l, (force, torque, motion)) in cases.iter().enumerate() {
            for c in 0..3 {
                lanes.force[c][l] = force[c];
                lanes.torque[c][l] = torque[c];
                lanes.velocity[c][l] = motion.velocity[c];
                lanes.angular_velocity[c][l] = motion.angular_velocity[c];
            }
            lanes.mass[l] = motion.mass;
            for (k, value) in motion.inverse_inertia.to_cols_array().iter().enumerate() {
                inverses[k][l] = *value;
            }
        }
        let mut out = [f64::NAN; N];
        limit_lanes(&lanes, &inverses, dt, &mut out);
        let mut distinct = Vec::new();
        for (l, (force, torque, motion)) in cases.iter().enumerate() {
            let want = limit(*force, *torque, motion, dt);
            assert_eq!(out[l].to_bits(), want.to_bits(), "lane {l}: {} vs {want}", out[l]);
            if !distinct.contains(&want.to_bits()) {
                distinct.push(want.to_bits());
            }
        }
        // The cases reach more than one branch's answer (1, 0, and limited factors).
        assert!(distinct.len() >= 4, "{distinct:?}");
        assert!(out.contains(&1.0) && out.contains(&0.0));
    }
}
