//! The Erlang source front end: lexer, preprocessor and parser producing the
//! abstract syntax of [`ast`], with erlc-style `file:line:col` diagnostics.
//!
//! Data flow: source text → [`lexer`] tokens → `preprocess` (forms split at
//! dots; `-define`/`-include`/`-ifdef`... acted on; macros expanded) →
//! [`parser`] (one form at a time) → [`ast::Module`]. The compiler in
//! `trace-runtime` takes it from there.
//!
//! Errors are collected per form, as erlc does: a bad form is reported and
//! the next one is read, so one run reports several errors. Inputs are
//! untrusted: nesting, macro expansion and literal sizes are bounded, and
//! nothing panics.
//!
//! Entry points: [`parse_file`] and [`parse_source`] for modules,
//! [`parse_expr`] for one expression given on the command line, and
//! [`lexer::tokenize`] with [`parser::Parser`] for languages that embed
//! Erlang expressions, patterns and guards.

pub mod ast;
pub mod diag;
pub mod lexer;
pub mod parser;
mod preprocess;
pub mod text;
pub mod token;

pub use diag::{DiagKind, Diagnostic, SourceMap};
pub use parser::Parser;
pub use preprocess::{
    io_message, read_error, read_source, NotUtf8, MAX_EXPANDED_TOKENS, MAX_INCLUDE_DEPTH,
    MAX_MACRO_DEPTH, MAX_SOURCE_BYTES, OTP_RELEASE,
};
pub use token::{Keyword, Punct, Token, TokenKind};

use ast::{Attribute, Form};
use preprocess::{Item, Preprocessor};
use std::path::{Path, PathBuf};

/// How to read a module: where includes are searched and which macros are
/// predefined (like erlc's `-I` and `-D`).
#[derive(Clone, Debug, Default)]
pub struct ParseOptions {
    /// Searched after the including file's own directory.
    pub include_paths: Vec<PathBuf>,
    /// `(name, None)` defines `?name` as `true`; `(name, Some(text))` as the tokens of `text`.
    pub defines: Vec<(String, Option<String>)>,
}

/// A parsed module and the files it was read from.
#[derive(Clone, Debug)]
pub struct Parsed {
    pub module: ast::Module,
    /// File 0 is the module; the others are its includes.
    pub sources: SourceMap,
    /// `-warning(...)` directives met, as erlc prints them.
    pub warnings: Vec<Diagnostic>,
}

/// Reads and parses the module in `path`. A file that cannot be read gives a
/// single [`DiagKind::Io`] diagnostic without a position; one that is not
/// UTF-8 (nor declared Latin-1), a syntax error at its first bad byte.
pub fn parse_file(path: &Path, opts: &ParseOptions) -> Result<Parsed, Vec<Diagnostic>> {
    match preprocess::read_source(path) {
        Ok(source) => parse_source(path, &source, opts),
        Err(e) => Err(vec![preprocess::read_error(path, &e)]),
    }
}

/// Parses `source` as the module in `path` (includes are found relative to it).
pub fn parse_source(
    path: &Path,
    source: &str,
    opts: &ParseOptions,
) -> Result<Parsed, Vec<Diagnostic>> {
    let sources = SourceMap {
        files: vec![path.to_path_buf()],
    };
    let mut pp = Preprocessor::new(opts, sources);
    pp.define_options();
    let end = pp.run_file(0, source);
    let Preprocessor {
        sources,
        items,
        warnings,
        ..
    } = pp;

    let mut diagnostics = Vec::new();
    let mut forms = Vec::new();
    let mut module = None;
    for item in items {
        let tokens = match item {
            Item::Error(d) => {
                diagnostics.push(d);
                continue;
            }
            Item::Form(tokens) => tokens,
        };
        let mut parser = Parser::new(&tokens, &sources);
        match parser.parse_form() {
            Ok(form) => {
                if let Form::Attribute(Attribute::Module { pos, name }) = &form {
                    if module.is_some() {
                        diagnostics.push(sources.diag(
                            DiagKind::Semantic,
                            *pos,
                            "redefining module",
                        ));
                    } else {
                        module = Some((name.clone(), *pos));
                    }
                }
                forms.push(form);
            }
            Err(d) => diagnostics.push(d),
        }
    }
    let Some((name, pos)) = module else {
        diagnostics.push(sources.diag(DiagKind::Semantic, end, "no module definition"));
        return Err(diagnostics);
    };
    if !diagnostics.is_empty() {
        return Err(diagnostics);
    }
    Ok(Parsed {
        module: ast::Module { name, pos, forms },
        sources,
        warnings,
    })
}

/// Parses one expression (or pattern), with an optional trailing dot: an
/// `--entry` call or an `--expect` pattern. Diagnostics name `<argument>`.
pub fn parse_expr(source: &str) -> Result<ast::Expr, Diagnostic> {
    let path = Path::new("<argument>");
    let tokens = lexer::tokenize(source, 0, path)?;
    let sources = SourceMap {
        files: vec![path.to_path_buf()],
    };
    let mut parser = Parser::new(&tokens, &sources);
    let expr = parser.parse_expr()?;
    if parser.peek().is_some_and(|t| t.kind == TokenKind::Dot) {
        parser.advance();
    }
    if !parser.at_end() {
        return Err(parser.error_expected("an operator or the end of the expression"));
    }
    Ok(expr)
}
