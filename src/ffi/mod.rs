//! The C ABI: `include/keel.h` is generated from this module by cbindgen.
//!
//! This is the only module with `unsafe` code. Every function validates its arguments at
//! the edge, catches panics, and turns errors into a [`KeelStatus`] plus a thread-local
//! message. Nothing is written on failure but the size a KEEL_ERROR_BUFFER_TOO_SMALL
//! reports (the header's opening, generated from cbindgen.toml, says so to C).
//!
//! Pointers passed in must be NULL or point to valid, aligned memory of the stated size
//! for the duration of the call; that is the one thing keel cannot check. The functions
//! are `unsafe` for Rust callers for that reason.

mod api;
mod callback;
mod engine;
mod guard;
mod types;

pub use api::*;
pub use engine::*;
pub use types::*;
