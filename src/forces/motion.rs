//! What the force rows take of a body's motion and of the drag model: a rigid motion
//! and the drag pass's parameters, below the loops that evaluate them.

use glam::DVec3;

use super::pressure_drag::DragCoefficients;

/// A rigid motion: `velocity + angular_velocity x (r - com)` at `r`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Motion {
    pub com: DVec3,
    pub velocity: DVec3,
    pub angular_velocity: DVec3,
}

/// What the drag pass computes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DragParams {
    /// Water density and friction coefficient, when viscous resistance is on.
    pub viscous: Option<(f64, f64)>,
    /// Pressure drag coefficients, when pressure drag is on.
    pub pressure: Option<DragCoefficients>,
}
