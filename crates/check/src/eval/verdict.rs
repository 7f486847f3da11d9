//! What checking a property answers: its verdict, the violations found,
//! and why a check could not be completed.

use std::fmt;
use trace_causal::EventId;
use trace_term::Term;

/// One way a run breaks a property.
#[derive(Clone, Debug, Default)]
pub struct Violation {
    /// The event that breaks it; `None` when the whole run does (a global
    /// existence that nothing satisfies).
    pub event: Option<EventId>,
    /// What is wrong, in words.
    pub what: String,
    /// The property's variables as bound for this violation.
    pub bindings: Vec<(String, Term)>,
    /// Other events worth seeing, each with what it is to the violation.
    pub related: Vec<(String, EventId)>,
    /// The causal slice: the events in its causal past that the property
    /// involves, in an order that respects happened-before (filled for the
    /// violations reported in detail).
    pub slice: Vec<EventId>,
    /// Earlier slice events left out (the slice lists the latest ones).
    pub slice_omitted: usize,
}

impl Violation {
    /// A violation at `event`, described by `what` only.
    pub fn at(event: Option<EventId>, what: String) -> Violation {
        Violation {
            event,
            what,
            ..Violation::default()
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    Satisfied,
    Violated,
    /// The check could not be completed (CRV's `GaveUp`), with why.
    GaveUp(String),
}

/// A property's verdict on one run.
#[derive(Clone, Debug)]
pub struct Verdict {
    /// Index of the property in the compiled specification.
    pub property: usize,
    pub status: Status,
    /// The violations described (the first ones, events in process order;
    /// all of them with `Options::detail` unbounded).
    pub violations: Vec<Violation>,
    /// How many violations there are in all.
    pub total: usize,
    /// Things worth knowing that do not change the verdict.
    pub warnings: Vec<String>,
    /// The property is about one process's order (else about happened-before).
    pub local: bool,
}

/// A property that cannot be checked on this log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckError {
    pub message: String,
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CheckError {}

/// Why a search stopped without a verdict.
#[derive(Debug, Clone)]
pub struct GaveUp(pub String);
