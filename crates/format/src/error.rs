//! What can go wrong reading a log, and what a reader tolerated.

use std::fmt;
use std::io;

/// Why a log could not be read. Every variant renders as one line.
#[derive(Debug)]
pub enum FormatError {
    /// The file could not be opened or mapped.
    Io(io::Error),
    /// The file is not a trace log; the text says what it looks like.
    Foreign(String),
    /// A trace log of a format version this build does not read.
    Version { found: u16, supported: u16 },
    /// The bytes at `offset` are not what the format requires there.
    Corrupt { offset: u64, expected: String },
}

impl FormatError {
    pub fn corrupt(offset: u64, expected: impl Into<String>) -> Self {
        FormatError::Corrupt {
            offset,
            expected: expected.into(),
        }
    }

    /// The byte offset the error is about, when there is one.
    pub fn offset(&self) -> Option<u64> {
        match self {
            FormatError::Corrupt { offset, .. } => Some(*offset),
            _ => None,
        }
    }
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FormatError::Io(e) => write!(f, "{e}"),
            FormatError::Foreign(what) => write!(f, "not a trace log: {what}"),
            FormatError::Version { found, supported } if found > supported => write!(
                f,
                "written by a newer trace: log format version {found}, this build reads version {supported}"
            ),
            FormatError::Version { found, supported } => write!(
                f,
                "log format version {found} is not supported (this build reads version {supported})"
            ),
            FormatError::Corrupt { offset, expected } => {
                write!(f, "corrupt log at byte {offset}: expected {expected}")
            }
        }
    }
}

impl std::error::Error for FormatError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FormatError::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<io::Error> for FormatError {
    fn from(e: io::Error) -> Self {
        FormatError::Io(e)
    }
}

/// Something a reader worked around: what was lost and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    /// The byte offset concerned, if any.
    pub offset: Option<u64>,
    pub message: String,
    pub loss: Loss,
}

/// What a warning's loss is: it decides whether a verdict on the rest of
/// the log stands (README, exit statuses).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Loss {
    /// Bytes that are there but fail a checksum or the format's structure:
    /// part of the run was skipped, so a verdict on the rest is no verdict.
    Damage,
    /// The log ends early (the run was killed, or is still being written):
    /// what it holds is intact, and the end of the run is simply missing.
    CutShort,
    /// Something a reader left out by a limit of its own, not for the file's fault.
    Limit,
}

impl Warning {
    /// Damage at byte `offset`.
    pub fn at(offset: u64, message: impl Into<String>) -> Self {
        Warning {
            offset: Some(offset),
            message: message.into(),
            loss: Loss::Damage,
        }
    }

    /// Damage not tied to one byte.
    pub fn general(message: impl Into<String>) -> Self {
        Warning {
            offset: None,
            message: message.into(),
            loss: Loss::Damage,
        }
    }

    /// The log ends early, at `offset` when known.
    pub fn cut_short(offset: Option<u64>, message: impl Into<String>) -> Self {
        Warning {
            offset,
            message: message.into(),
            loss: Loss::CutShort,
        }
    }

    /// Left out by a reader's own limit.
    pub fn limit(message: impl Into<String>) -> Self {
        Warning {
            offset: None,
            message: message.into(),
            loss: Loss::Limit,
        }
    }

    pub fn is_damage(&self) -> bool {
        self.loss == Loss::Damage
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.offset {
            Some(o) => write!(f, "at byte {o}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}
