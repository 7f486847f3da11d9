//! `trace check`: runtime-verification properties checked over the
//! happened-before order of a recorded run (docs/spec-language.md).
//!
//! A specification (`.tspec`) states properties in Erlang syntax: event
//! predicates (`send(From, To, {req, Ref})`, `receive(P, Msg)`, ...) combined
//! into Dwyer's specification patterns under scopes, concurrent-event
//! histories (Caballero et al. 2019 §4.1), and built-in checks. A property's verdict is
//! decided on happened-before, never on the order events were written, so it
//! holds for every causally equivalent interleaving of the run.
//!
//! ```text
//! .tspec ──spec::read──► Spec ──compile──► Compiled (patterns, guards, variables;
//!                                             named processes as constants)
//! run.trace ──LogReader──► eval::check:
//!     Model::build_visiting (trace-causal) decodes every block once, in
//!     parallel; the scan matches the predicates that read terms on the way
//!     ──► hits, filed by process;  names resolved against the model
//!     matches of a predicate in a process = the model's facts (spawns,
//!     signals, receipts, exits) or the hits
//!     each property: process by process on program order (one process's
//!     order), or on happened-before across processes; fast paths for the
//!     commonest response/precedence; histories on the step graph
//!                          │
//!                          ▼
//!     Verdicts ──report──► text / JSON: status, violating event, its
//!                          process, payload, causal slice, --until
//! ```
//!
//! Modules: [`spec`] (the language as written), [`compile`] (from a spec
//! to the forms ready to check, [`compiled`]), [`eval`] (the checking),
//! `history` (concurrent-event histories and the steps they are matched
//! against), [`report`] (what a user reads).

pub mod compile;
pub mod compiled;
pub mod eval;
mod history;
pub mod report;
pub mod spec;

pub use compile::{builtins, compile};
pub use compiled::{Compiled, CompiledProperty};
pub use eval::{check, retain_answerable, CheckError, Status, Verdict, Violation};
pub use spec::{Builtin, SpecError};

/// Reads, parses and compiles a specification file.
pub fn load(path: &std::path::Path) -> Result<Compiled, Vec<SpecError>> {
    let spec = spec::read(path)?;
    compile::compile(&spec)
}

/// Parses and compiles a specification given as text (`path` names it in errors).
pub fn load_str(path: &std::path::Path, text: &str) -> Result<Compiled, Vec<SpecError>> {
    let spec = spec::parse(path, text)?;
    compile::compile(&spec)
}
