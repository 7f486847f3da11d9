//! Erlang patterns (and guards) matched against terms outside the engine:
//! `trace record --expect 'Pattern'`, `trace diff --abstract 'Pattern'`, and
//! the event predicates of `trace check` specifications.
//!
//! A pattern is parsed with the Erlang front end, compiled once into a
//! [`Pattern`] (literals folded, variables numbered), then matched against
//! any number of terms, producing [`Bindings`]; `replace` rewrites what the
//! variables matched (diff's abstraction of payloads). A term still in the
//! External Term Format can be rejected without decoding
//! ([`Pattern::may_match_etf`]), or matched decoding only what its
//! variables bind ([`Pattern::match_etf_with`]).

mod compile;
mod etf;
mod etf_prefix;
#[cfg(test)]
mod etf_props;
mod guard;
mod matching;
mod node;
mod pattern;
mod replace;

pub use compile::{compile, compile_str, PatternError};
pub use etf::{EtfMatch, EtfTest};
pub use guard::{Guard, GuardError};
pub use matching::Bindings;
pub use pattern::Pattern;
