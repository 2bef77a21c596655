//! Errors a shell script can tell apart by the exit code.

use std::fmt;

/// Exit codes, one per kind of failure (2 is clap's usage error).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// A bug or an unexpected engine error.
    Internal = 1,
    /// The mesh file does not exist or cannot be read.
    MissingFile = 3,
    /// The file is not a valid OBJ.
    MalformedObj = 4,
    /// The mesh has no usable triangle.
    NoTriangles = 5,
    /// The body is too heavy for its hull: it sinks.
    CannotFloat = 6,
    /// A number out of range: negative mass, dt <= 0, ...
    InvalidArgument = 7,
    /// The hull is open: it has no volume to float on.
    OpenHull = 8,
    /// An output file could not be written.
    Output = 9,
}

/// A failure with the message the user sees and its exit code.
#[derive(Debug)]
pub struct CliError {
    pub exit: Exit,
    pub message: String,
}

impl CliError {
    pub fn new(exit: Exit, message: impl Into<String>) -> Self {
        Self {
            exit,
            message: message.into(),
        }
    }

    pub fn argument(message: impl Into<String>) -> Self {
        Self::new(Exit::InvalidArgument, message)
    }

    pub fn output(path: &std::path::Path, err: impl fmt::Display) -> Self {
        Self::new(Exit::Output, format!("cannot write {}: {err}", path.display()))
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Sorts the engine's refusals by what the user must fix.
impl From<keel::Error> for CliError {
    fn from(e: keel::Error) -> Self {
        let text = e.to_string();
        let exit = match e.kind {
            keel::ErrorKind::InvalidMesh => Exit::NoTriangles,
            _ if text.contains("cannot float") => Exit::CannotFloat,
            _ if text.contains("open") => Exit::OpenHull,
            keel::ErrorKind::InvalidArgument => Exit::InvalidArgument,
            _ => Exit::Internal,
        };
        Self::new(exit, text)
    }
}

pub type Result<T> = std::result::Result<T, CliError>;
