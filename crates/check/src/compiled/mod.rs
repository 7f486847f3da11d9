//! The compiled forms of a specification: what [`crate::compile`] writes and
//! [`crate::eval`] and the history matcher read. Nothing here compiles or
//! checks; the types only say what a property ready to check holds.

mod history;
mod predicate;
mod safety;
mod vars;

pub use history::{
    CompiledConsumed, CompiledHistory, CompiledItem, CompiledList, CompiledListItem, CompiledStep,
    CompiledSubject, Pat,
};
pub use predicate::{CompiledGuard, CompiledPredicate, ProcArg, TermArg};
pub use vars::{Named, Vars};

use crate::spec::{Occurrence, OrderKind};
use std::path::PathBuf;
use trace_syntax::ast::Pos;

/// A specification ready to check.
#[derive(Clone, Debug)]
pub struct Compiled {
    pub path: PathBuf,
    pub properties: Vec<CompiledProperty>,
}

/// One property ready to check.
#[derive(Clone, Debug)]
pub struct CompiledProperty {
    pub name: String,
    pub pos: Pos,
    pub text: String,
    pub vars: Vars,
    /// Every event predicate of the property; `pattern` refers to them by index.
    pub preds: Vec<CompiledPredicate>,
    pub pattern: PropertyPattern,
    /// When every event the property involves lies in one process — the
    /// same process variable, or the same named process, as every event's
    /// first argument — happened-before among them is that process's order.
    /// The variable is then that first argument.
    pub local: Option<usize>,
}

/// What a property checks, over its predicates (indices into `preds`).
#[derive(Clone, Debug)]
pub enum PropertyPattern {
    Occurrence {
        kind: Occurrence,
        pred: usize,
        /// For universality: which events the pattern is about (kind and
        /// fixed processes only); each must match `pred`.
        select: Option<usize>,
        scope: CompiledScope,
    },
    Order {
        kind: OrderKind,
        trigger: Vec<usize>,
        other: Vec<usize>,
        scope: CompiledScope,
    },
    History(CompiledHistory),
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CompiledScope {
    Global,
    Before(usize),
    After(usize),
    Between(usize, usize),
    AfterUntil(usize, usize),
}

impl CompiledScope {
    pub fn opener(self) -> Option<usize> {
        match self {
            CompiledScope::After(q)
            | CompiledScope::Between(q, _)
            | CompiledScope::AfterUntil(q, _) => Some(q),
            _ => None,
        }
    }

    pub fn closer(self) -> Option<usize> {
        match self {
            CompiledScope::Before(r)
            | CompiledScope::Between(_, r)
            | CompiledScope::AfterUntil(_, r) => Some(r),
            _ => None,
        }
    }
}
