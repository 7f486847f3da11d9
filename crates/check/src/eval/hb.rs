//! The order a property is judged on. A property whose events all lie in
//! one process is judged on that process's program order; any other on
//! happened-before, through the causal model.

use trace_causal::{EventId, Model};

pub trait Order: Sync {
    /// `a` happened before `b` (strictly).
    fn before(&self, a: EventId, b: EventId) -> bool;

    fn before_eq(&self, a: EventId, b: EventId) -> bool {
        a == b || self.before(a, b)
    }

    /// A position in one linear extension of the order, to list events in
    /// an order that respects it.
    fn position(&self, e: EventId) -> u64;
}

/// One process's program order.
pub struct ProgramOrder;

impl Order for ProgramOrder {
    fn before(&self, a: EventId, b: EventId) -> bool {
        a.proc == b.proc && a.index < b.index
    }

    fn position(&self, e: EventId) -> u64 {
        e.index
    }
}

/// Happened-before.
pub struct Causal<'m>(pub &'m Model);

impl Order for Causal<'_> {
    fn before(&self, a: EventId, b: EventId) -> bool {
        self.0.happened_before(a, b)
    }

    fn position(&self, e: EventId) -> u64 {
        self.0.position(e).unwrap_or(u64::MAX)
    }
}
