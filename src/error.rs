//! The engine's error type: a kind that maps one-to-one onto the C ABI's statuses, and a
//! message written for the person who has to fix the call.

use std::fmt;

/// What went wrong, in the categories of the C ABI's `KeelStatus`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// A required pointer was NULL (only the C ABI can produce it).
    NullPointer,
    /// An unknown, destroyed or wrong-world handle.
    InvalidHandle,
    /// A value out of its domain: NaN or infinity, a negative mass, dt <= 0, ...
    InvalidArgument,
    /// A mesh that cannot be a hull: index out of range, index count not a multiple of 3,
    /// no usable triangle.
    InvalidMesh,
    /// An output buffer too small for the result.
    BufferTooSmall,
    /// A bug in keel (a caught panic).
    Internal,
}

/// An error with its kind and a human-readable message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// The category, which decides the C status code.
    pub kind: ErrorKind,
    /// What was wrong and, where it helps, what to do instead.
    pub message: String,
}

impl Error {
    /// An error of `kind` with `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }

    /// An [`ErrorKind::InvalidArgument`] error.
    pub fn argument(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::InvalidArgument, message)
    }

    /// An [`ErrorKind::InvalidMesh`] error.
    pub fn mesh(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::InvalidMesh, message)
    }

    /// An [`ErrorKind::InvalidHandle`] error.
    pub fn handle(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::InvalidHandle, message)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// The engine's result type.
pub type Result<T> = std::result::Result<T, Error>;

/// Checks that `value` is finite, naming it in the error otherwise.
pub(crate) fn finite(name: &str, value: f64) -> Result<f64> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(Error::argument(format!("{name} must be finite, got {value}")))
    }
}

/// Checks that `value` is finite and strictly positive.
pub(crate) fn positive(name: &str, value: f64) -> Result<f64> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(Error::argument(format!("{name} must be finite and > 0, got {value}")))
    }
}

/// Checks that `value` is finite and not negative.
pub(crate) fn non_negative(name: &str, value: f64) -> Result<f64> {
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err(Error::argument(format!("{name} must be finite and >= 0, got {value}")))
    }
}

/// Checks that `value` is finite and its magnitude at most `limit` (keel refuses
/// numbers so large that the physics built on them would overflow).
pub(crate) fn within(name: &str, value: f64, limit: f64) -> Result<f64> {
    finite(name, value)?;
    if value.abs() > limit {
        return Err(Error::argument(format!(
            "{name} must be within +-{limit:e}, got {value}"
        )));
    }
    Ok(value)
}

/// Checks that `value` is in `(0, limit]`.
pub(crate) fn positive_up_to(name: &str, value: f64, limit: f64) -> Result<f64> {
    positive(name, value)?;
    within(name, value, limit)
}

/// Checks that `value` is in `[0, limit]`.
pub(crate) fn non_negative_up_to(name: &str, value: f64, limit: f64) -> Result<f64> {
    non_negative(name, value)?;
    within(name, value, limit)
}
