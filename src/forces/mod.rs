//! The forces water and air put on a hull, one module per force, each a pure function of
//! plain data: the clipped triangles, the environment and the body's motion.

pub mod added_mass;
pub mod air;
pub mod buoyancy;
pub mod damping;
pub(crate) mod drag;
pub mod limiter;
pub mod lumped;
pub mod pressure_drag;
pub(crate) mod row;
pub mod slamming;
pub mod viscous;

#[cfg(test)]
pub(crate) mod kernel_tests;

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
/// Bourg's whole-hull ship resistance, a cheap alternative to the per-triangle
/// `FORCE_VISCOUS | FORCE_PRESSURE_DRAG | FORCE_AIR` (`KEEL_FORCE_LUMPED_RESISTANCE`).
pub const FORCE_LUMPED_RESISTANCE: u32 = 32;
/// Every force bit this version knows; others are refused.
pub const FORCE_ALL: u32 =
    FORCE_VISCOUS | FORCE_PRESSURE_DRAG | FORCE_SLAMMING | FORCE_AIR | FORCE_DAMPING | FORCE_LUMPED_RESISTANCE;
/// The per-triangle forces the lumped resistance replaces.
pub const FORCE_PER_TRIANGLE_RESISTANCE: u32 = FORCE_VISCOUS | FORCE_PRESSURE_DRAG | FORCE_AIR;
/// The forces a new body has: everything but damping.
pub const FORCE_DEFAULT: u32 = FORCE_VISCOUS | FORCE_PRESSURE_DRAG | FORCE_SLAMMING | FORCE_AIR;
