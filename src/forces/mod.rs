//! The forces water and air put on a hull, one module per force, each a pure function of
//! plain data: the clipped triangles, the environment and the body's motion.

pub mod buoyancy;

/// Skin friction, ITTC 1957 (`KEEL_FORCE_VISCOUS`).
pub const FORCE_VISCOUS: u32 = 1;
/// Pressure and suction drag (`KEEL_FORCE_PRESSURE_DRAG`).
pub const FORCE_PRESSURE_DRAG: u32 = 2;
/// Water-entry impacts (`KEEL_FORCE_SLAMMING`).
pub const FORCE_SLAMMING: u32 = 4;
/// Air resistance on emerged triangles (`KEEL_FORCE_AIR`).
pub const FORCE_AIR: u32 = 8;
/// Linear and angular damping scaled by the wetted ratio (`KEEL_FORCE_DAMPING`).
pub const FORCE_DAMPING: u32 = 16;
/// Every force bit this version knows; others are refused.
pub const FORCE_ALL: u32 =
    FORCE_VISCOUS | FORCE_PRESSURE_DRAG | FORCE_SLAMMING | FORCE_AIR | FORCE_DAMPING;
/// The forces a new body has: everything but damping.
pub const FORCE_DEFAULT: u32 = FORCE_VISCOUS | FORCE_PRESSURE_DRAG | FORCE_SLAMMING | FORCE_AIR;
