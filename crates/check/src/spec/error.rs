//! Errors in a specification are diagnostics of the Erlang front end's
//! kind, printed as erlc prints them: `file:line:col: message`.

use std::path::Path;
use trace_syntax::ast::Pos;
use trace_syntax::{DiagKind, Diagnostic};

/// A problem in a specification file, located.
pub type SpecError = Diagnostic;

/// An error at `pos` of the specification `path`.
pub fn at(path: &Path, pos: Pos, message: impl Into<String>) -> SpecError {
    Diagnostic::new(DiagKind::Semantic, path, pos, message)
}

/// The Erlang parser's diagnostic, naming the specification file (the
/// parser knows it only by position).
pub fn from_diag(path: &Path, d: Diagnostic) -> SpecError {
    Diagnostic {
        path: path.to_path_buf(),
        ..d
    }
}

/// An error about the whole file (it cannot be read).
pub fn whole(path: &Path, message: impl Into<String>) -> SpecError {
    Diagnostic {
        kind: DiagKind::Io,
        path: path.to_path_buf(),
        line: 0,
        col: 0,
        message: message.into(),
    }
}
