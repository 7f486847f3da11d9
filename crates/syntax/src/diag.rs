//! Diagnostics in erlc's form: `file:line:col: message`.

use crate::ast::{FileId, Pos};
use std::fmt;
use std::path::{Path, PathBuf};

/// What kind of problem a diagnostic reports; the CLI maps kinds to exit codes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DiagKind {
    /// The file could not be read.
    Io,
    /// Malformed source: a token or form that is not Erlang.
    Syntax,
    /// Valid Erlang that breaks a compile-time rule (unbound variable, undefined
    /// function, unknown record, ...), as erlc reports it.
    Semantic,
    /// Valid Erlang that `trace` does not support; the message names the feature.
    Unsupported,
}

/// One located problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub kind: DiagKind,
    pub path: PathBuf,
    /// 1-based; 0 when the problem has no position (e.g. a missing file).
    pub line: u32,
    pub col: u32,
    pub message: String,
}

impl Diagnostic {
    pub fn new(kind: DiagKind, path: &Path, pos: Pos, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            kind,
            path: path.to_path_buf(),
            line: pos.line,
            col: pos.col,
            message: message.into(),
        }
    }
}

impl fmt::Display for Diagnostic {
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

impl std::error::Error for Diagnostic {}

/// The files read for one module: `FileId` 0 is the module, the rest are includes.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    pub files: Vec<PathBuf>,
}

impl SourceMap {
    pub fn path(&self, id: FileId) -> &Path {
        self.files
            .get(id as usize)
            .map(|p| p.as_path())
            .unwrap_or(Path::new("?"))
    }

    /// A diagnostic at `pos`, naming the file `pos` is in.
    pub fn diag(&self, kind: DiagKind, pos: Pos, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(kind, self.path(pos.file), pos, message)
    }
}
