//! Errors in a specification, in erlc's `file:line:col: message` form.

use std::fmt;
use std::path::PathBuf;
use trace_syntax::ast::Pos;
use trace_syntax::Diagnostic;

/// A problem in a specification file, located.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError {
    pub path: PathBuf,
    /// 1-based; 0 when the problem concerns the whole file.
    pub line: u32,
    pub col: u32,
    pub message: String,
}

impl SpecError {
    pub fn at(path: &std::path::Path, pos: Pos, message: impl Into<String>) -> SpecError {
        SpecError {
            path: path.to_path_buf(),
            line: pos.line,
            col: pos.col,
            message: message.into(),
        }
    }

    pub fn from_diag(path: &std::path::Path, d: Diagnostic) -> SpecError {
        SpecError {
            path: path.to_path_buf(),
            line: d.line,
            col: d.col,
            message: d.message,
        }
    }
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.path.display(), self.message)
        } else {
            write!(
                f,
                "{}:{}:{}: {}",
                self.path.display(),
                self.line,
                self.col,
                self.message
            )
        }
    }
}

impl std::error::Error for SpecError {}
