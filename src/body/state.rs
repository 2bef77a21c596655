//! A body's state as the host passes it, the forces a step returns, and the limits both
//! are checked against.

use glam::{DQuat, DVec3};

use crate::error::{Error, Result, positive};

/// The pose and motion of a rigid body, as the host's engine has it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyState {
    /// Body origin, world.
    pub position: DVec3,
    /// Body-local to world rotation.
    pub rotation: DQuat,
    /// Velocity of the centre of mass, m/s.
    pub linear_velocity: DVec3,
    /// Angular velocity, rad/s, world axes.
    pub angular_velocity: DVec3,
    /// Centre of mass, world.
    pub center_of_mass: DVec3,
}

impl Default for BodyState {
    fn default() -> Self {
        Self {
            position: DVec3::ZERO,
            rotation: DQuat::IDENTITY,
            linear_velocity: DVec3::ZERO,
            angular_velocity: DVec3::ZERO,
            center_of_mass: DVec3::ZERO,
        }
    }
}

/// The farthest a body may be from the world origin, m (a million km).
pub const MAX_COORDINATE: f64 = 1e9;
/// The fastest a body may move or spin, m/s or rad/s.
pub const MAX_SPEED: f64 = 1e6;
/// The shortest step, s.
pub const MIN_DT: f64 = 1e-7;
/// The longest step, s.
pub const MAX_DT: f64 = 60.0;
/// The heaviest body, kg (a thousand supertankers).
pub const MAX_MASS: f64 = 1e12;

impl BodyState {
    /// Checks every number and returns the state with a unit rotation. Rotations are
    /// renormalised (engines' quaternions drift); a zero or non-finite one is refused.
    pub fn validated(&self) -> Result<Self> {
        // One comparison per number when all is well (NaN compares false, infinity is
        // beyond every limit); the messages sort out what is wrong otherwise.
        let within = |v: DVec3, limit: f64| v.abs().cmple(DVec3::splat(limit)).all();
        // (`&`, not `&&`: four tests and one branch, not a branch per test.)
        if !(within(self.position, MAX_COORDINATE)
            & within(self.center_of_mass, MAX_COORDINATE)
            & within(self.linear_velocity, MAX_SPEED)
            & within(self.angular_velocity, MAX_SPEED))
        {
            return Err(self.out_of_range());
        }
        // A finite length at least 1e-6 is also every component finite (an infinite or NaN
        // one makes the length so, and NaN fails the comparison), and refuses components
        // so large that their squares overflow, which `/ length` would turn into zero.
        let length = self.rotation.length();
        if !(length >= 1e-6 && length.is_finite()) {
            return Err(Error::argument(format!(
                "state.rotation must be a finite non-zero quaternion, got {}",
                self.rotation
            )));
        }
        Ok(Self {
            rotation: self.rotation / length,
            ..*self
        })
    }

    /// What is wrong with a state whose vectors are not all finite and within limits.
    #[cold]
    fn out_of_range(&self) -> Error {
        let vectors = [
            ("position", self.position),
            ("linear_velocity", self.linear_velocity),
            ("angular_velocity", self.angular_velocity),
            ("center_of_mass", self.center_of_mass),
        ];
        for (name, v) in vectors {
            if !v.is_finite() {
                return Error::argument(format!("state.{name} must be finite, got {v}"));
            }
        }
        for (name, v, limit, unit) in [
            ("position", self.position, MAX_COORDINATE, "m"),
            ("center_of_mass", self.center_of_mass, MAX_COORDINATE, "m"),
            ("linear_velocity", self.linear_velocity, MAX_SPEED, "m/s"),
            ("angular_velocity", self.angular_velocity, MAX_SPEED, "rad/s"),
        ] {
            if v.abs().max_element() > limit {
                return Error::argument(format!(
                    "state.{name} {v} is beyond {limit:e} {unit}: no floating body is there"
                ));
            }
        }
        // (Not reached: a vector fails `within` only by one of the above.)
        Error::argument("state has a number out of range")
    }
}

/// Forces of one step (the C ABI's `KeelBodyForces`). World axes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BodyForces {
    /// Total of all enabled forces, gravity excluded.
    pub force: DVec3,
    /// Torque about the state's centre of mass.
    pub torque: DVec3,
    /// Hydrostatic part of `force`.
    pub buoyancy_force: DVec3,
    /// Skin-friction part of `force`.
    pub viscous_force: DVec3,
    /// Pressure and suction drag part of `force`.
    pub pressure_drag_force: DVec3,
    /// Slamming part of `force`.
    pub slamming_force: DVec3,
    /// Air resistance part of `force`.
    pub air_force: DVec3,
    /// Damping part of `force`.
    pub damping_force: DVec3,
    /// Centroid of the submerged volume, world; the centre of mass when dry.
    pub center_of_buoyancy: DVec3,
    /// Submerged volume, m^3 (closed hulls; a partial figure for open ones).
    pub submerged_volume: f64,
    /// Wetted hull area, m^2.
    pub submerged_area: f64,
    /// `submerged_area / hull area`.
    pub wetted_ratio: f64,
    /// Number of submerged pieces ([`crate::Body::submerged_triangles`]).
    pub submerged_triangle_count: u32,
}

/// The largest force or torque a step may return, N or N m: beyond it a host's f32
/// arithmetic would be meaningless.
pub const MAX_FORCE: f64 = 1e30;

impl BodyForces {
    /// Every number finite and every force and torque within [`MAX_FORCE`].
    // (Out of line: inlined into a group's step, it moved that step's register allocation
    // and bounds checks by more than it saved.)
    #[inline(never)]
    pub fn is_sound(&self) -> bool {
        // (NaN compares false and infinity is beyond the limit: one comparison each. `&`,
        // not `&&`: every test is cheap, and one answer with no branch per test is cheaper
        // than stopping early; the step asks this of every body it commits.)
        let within = |v: &DVec3| {
            let a = v.abs();
            (a.x <= MAX_FORCE) & (a.y <= MAX_FORCE) & (a.z <= MAX_FORCE)
        };
        let c = &self.center_of_buoyancy;
        within(&self.force)
            & within(&self.torque)
            & within(&self.buoyancy_force)
            & within(&self.viscous_force)
            & within(&self.pressure_drag_force)
            & within(&self.slamming_force)
            & within(&self.air_force)
            & within(&self.damping_force)
            & (c.x.is_finite() & c.y.is_finite() & c.z.is_finite())
            & self.submerged_volume.is_finite()
            & self.submerged_area.is_finite()
            & self.wetted_ratio.is_finite()
    }

    /// Every number's bits, in field order (the vectors' x, y, z; then the volume, the
    /// area, the wetted ratio, the piece count): two steps agree to the bit when these
    /// do, which is how determinism, rollback and moved code are checked.
    pub fn to_bits(&self) -> [u64; 31] {
        let vectors = [
            self.force,
            self.torque,
            self.buoyancy_force,
            self.viscous_force,
            self.pressure_drag_force,
            self.slamming_force,
            self.air_force,
            self.damping_force,
            self.center_of_buoyancy,
        ];
        let mut out = [0; 31];
        for (i, v) in vectors.iter().enumerate() {
            out[3 * i..3 * i + 3].copy_from_slice(&v.to_array().map(f64::to_bits));
        }
        out[27..30].copy_from_slice(&[self.submerged_volume, self.submerged_area, self.wetted_ratio].map(f64::to_bits));
        out[30] = u64::from(self.submerged_triangle_count);
        out
    }
}

/// A force and the world point where it acts.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PointForce {
    /// Point of application, world.
    pub point: DVec3,
    /// Force, N.
    pub force: DVec3,
}

/// Checks that `dt` is a usable step length.
pub(crate) fn check_dt(dt: f64) -> Result<f64> {
    positive("dt", dt)?;
    if !(MIN_DT..=MAX_DT).contains(&dt) {
        return Err(Error::argument(format!(
            "dt must be between {MIN_DT:e} and {MAX_DT} s, got {dt}"
        )));
    }
    Ok(dt)
}
