//! The specification language (docs/spec-language.md): what a `.tspec` file
//! says, as parsed — properties over the events of a run, written with
//! Erlang terms, patterns and guards.
//!
//! ```text
//! text ──procname::rewrite──► text with <P.2> as placeholder variables
//!      ──trace_syntax lexer──► tokens ──parse──► Spec (the types of `tree`)
//! ```
//!
//! Nothing here knows a log: names are resolved and patterns compiled in
//! [`crate::compile`].

pub(crate) mod error;
pub mod history;
mod parse;
pub mod procname;
mod tree;

pub use error::SpecError;
pub use history::{HistItem, ListItem, StepPattern};
pub use tree::{
    ArgRole, Body, Builtin, Occurrence, OrderKind, Pred, PredicateKind, Property, Registered,
    Scope, Spec, Subject,
};

use std::path::Path;

/// Parses a specification. All errors found are returned (a bad property
/// does not stop the others from being read), each at `file:line:col`.
pub fn parse(path: &Path, text: &str) -> Result<Spec, Vec<SpecError>> {
    parse::spec(path, text)
}

/// Reads and parses a specification file.
pub fn read(path: &Path) -> Result<Spec, Vec<SpecError>> {
    /// Specification files are small; a bigger one is a mistake.
    const MAX_SPEC_BYTES: u64 = 16 << 20;
    let fail = |message: String| vec![error::whole(path, message)];
    let bytes = trace_input::read(path, MAX_SPEC_BYTES, "a specification")
        .map_err(|e| fail(e.to_string()))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        fail(format!(
            "not UTF-8 text (byte {})",
            e.utf8_error().valid_up_to()
        ))
    })?;
    parse(path, &text)
}
