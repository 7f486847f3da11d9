//! The Erlang source front end: lexer, preprocessor and parser producing the
//! abstract syntax of [`ast`], with erlc-style `file:line:col` diagnostics.
//!
//! Data flow: source text → [`lexer`] tokens → [`preprocess`] (macros,
//! includes, conditionals) → [`parser`] → [`ast::Module`]. The compiler in
//! `trace-runtime` takes it from there.

pub mod ast;
pub mod diag;

pub use diag::{DiagKind, Diagnostic, SourceMap};

// --- Temporary stand-ins until the parser lands (replaced by the front end).
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, Default)]
pub struct ParseOptions {
    pub include_paths: Vec<PathBuf>,
    pub defines: Vec<(String, Option<String>)>,
}

pub struct Parsed {
    pub module: ast::Module,
    pub sources: SourceMap,
}

pub fn parse_source(
    path: &Path,
    _source: &str,
    _opts: &ParseOptions,
) -> Result<Parsed, Vec<Diagnostic>> {
    Err(vec![Diagnostic::new(
        DiagKind::Unsupported,
        path,
        ast::Pos::default(),
        "parser not built yet",
    )])
}

pub fn parse_expr(_source: &str) -> Result<ast::Expr, Diagnostic> {
    Err(Diagnostic::new(
        DiagKind::Unsupported,
        Path::new("<argument>"),
        ast::Pos::default(),
        "parser not built yet",
    ))
}
