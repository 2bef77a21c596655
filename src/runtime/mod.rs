//! The engine room under every layer: who runs a step's parallel work and how its time
//! is measured. Nothing here knows of water, hulls or bodies.
//!
//! - [`tasks`]: the host's job system ([`tasks::TaskSystem`]), in place of keel's threads;
//! - `team`: the threads one step shares its work with (the world's pool, its helper
//!   thread, the host's tasks);
//! - `prefetch`: a hint that memory is about to be read;
//! - [`profile`]: a step's wall-clock time, section by section (benchmarks, the
//!   `profile-sections` feature).

pub(crate) mod prefetch;
pub mod profile;
pub mod tasks;
pub(crate) mod team;
