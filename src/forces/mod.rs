//! The forces water and air put on a hull, one module per force, each a pure function of
//! plain data: the clipped triangles, the environment and the body's motion.
//!
//! Each per-triangle force is written once, here, as a row function on plain numbers
//! (`[f64; 3]` vectors, `row`) that every path of the step calls, inlined into its
//! vector loop: the whole triangles' loops (`crate::loops::whole`), the bodies in
//! lanes (`crate::loops::lanes`), the cut pieces, and the one-at-a-time code and the replay
//! (through the scalar functions, thin callers of the same rows, which add only what the
//! loops never take: `powf` for uncommon powers). A row is the loops' form of its formula,
//! multiplied out where a division or a root would cost a vector loop its speed; its docs
//! say how, and its test ties it to the formula:
//!
//! | force | row function(s) | scalar form |
//! |---|---|---|
//! | pressure, its moment and centre of pressure | `buoyancy::pressure_row` (on `depth_weighted_midpoints`) | `buoyancy::pressure`, `pressure_at_centroid` (call it) |
//! | submerged volume | `buoyancy::volume_row` | `buoyancy::SubmergedVolume::add` (calls it) |
//! | viscous drag | `drag::viscous_row` | `viscous::viscous_force` (calls it) |
//! | pressure drag | `pressure_drag::pressure_drag_row` (on `spread_power`; in `drag::drag_at` with viscous) | `pressure_drag::pressure_drag_force` (calls it; `powf` for other falloffs) |
//! | drag rule | `drag::{needs_three_points, centroid_and_radius, drag_points, edge_midpoints}` | |
//! | slamming | `slamming::slamming_row` (whole triangles, cut triangles' blocks, lanes) | `slamming::slamming_force` (calls it; `powf` for other powers) |
//! | air | `air::air_row` | `air::air_force` (calls it) |
//! | `x^p` | `pressure_drag::fast_power` | `pressure_drag::power` (calls it) |
//!
//! `kernel_tests` and the modules' tests check each row against its formula written
//! plainly (and the analytic integral it stands for), to rounding. One other form
//! remains on purpose: `crate::hull::flat_moments` sums the pressure and the volume over the
//! wholly wet triangles of a body on flat water as polynomials integrated once per hull,
//! not per triangle (its tests compare it, to rounding, with the same terms summed one
//! triangle at a time).

pub mod added_mass;
pub mod air;
pub mod buoyancy;
pub mod damping;
pub(crate) mod drag;
pub mod limiter;
pub mod lumped;
pub(crate) mod motion;
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
