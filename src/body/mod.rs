//! Bodies: a hull, its force model, and what one step leaves behind.
//!
//! A step transforms every hull vertex once into a frame that has the world's axes and
//! the body's origin (so a body 100 km from the world origin loses no precision), measures
//! each vertex's height above the water once, clips every triangle, and sums the forces
//! of the clipped pieces. Torques are about the centre of mass the host passes in. The
//! step's stages are in `src/step/`; this module holds what they work on:
//!
//! - `desc`: the description ([`BodyDesc`]) and its checks;
//! - `state`: the host's state ([`BodyState`]) and a step's forces ([`BodyForces`]);
//! - `store`: the body ([`Body`]): its buffers, laid out for the caches, and lifecycle;
//! - `records`: what a step keeps to be replayed, and the detail a replay fills (the
//!   step's `replay.rs` runs it).

mod desc;
mod records;
mod state;
mod store;

pub(crate) use desc::StepDesc;
pub use desc::{
    BodyDesc, BuoyancyModel, DEFAULT_PRESSURE_DRAG_LINEAR, DEFAULT_PRESSURE_DRAG_QUADRATIC,
    DEFAULT_SLAMMING_MULTIPLIER, DEFAULT_SUCTION_DRAG_LINEAR, DEFAULT_SUCTION_DRAG_QUADRATIC,
    DEFAULT_WATER_PATCH_CELLS, MAX_INERTIA, MAX_WATER_PATCH_CELLS,
};
pub(crate) use records::{
    Conditions, Derived, Detail, Discard, KeptReplay, Kind, PointForces, Replay, Sink, StepInputs,
};
pub(crate) use state::check_dt;
pub use state::{BodyForces, BodyState, MAX_COORDINATE, MAX_DT, MAX_FORCE, MAX_MASS, MAX_SPEED, MIN_DT, PointForce};
pub use store::Body;
pub(crate) use store::{CHECKED_BYTES, LANES_HOT_BYTES, LaneKey, Output, Samples, sides_of};
