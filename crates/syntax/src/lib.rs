//! The Erlang source front end: lexer, preprocessor and parser producing the
//! abstract syntax of [`ast`], with erlc-style `file:line:col` diagnostics.
//!
//! Data flow: source text → [`lexer`] tokens → [`preprocess`] (macros,
//! includes, conditionals) → [`parser`] → [`ast::Module`]. The compiler in
//! `trace-runtime` takes it from there.

pub mod ast;
pub mod diag;
pub mod lexer;
pub mod parser;
pub mod text;
pub mod token;

pub use diag::{DiagKind, Diagnostic, SourceMap};
pub use parser::Parser;
pub use token::{Keyword, Punct, Token, TokenKind};
