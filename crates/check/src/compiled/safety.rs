//! Safety properties: those a prefix of a run can violate for good.
//!
//! A violation of `never E`, `at most N E`, `always E` or `every T is
//! preceded by C` found in a prefix of a run stays a violation in every run
//! that extends it: the events that violate are there, and nothing that
//! happens later enters their causal past. The others (`eventually`,
//! `at least`, `exactly`, responses, histories) can still be met by what a
//! run does next, and `unreceived`/`blocked` events exist only at a run's
//! end. `record --until-failure --check` stops an attempt at the first
//! violation of a safety property instead of running it to its end.

use super::{Compiled, CompiledProperty, PropertyPattern};
use crate::spec::{Occurrence, OrderKind, PredicateKind};

impl CompiledProperty {
    /// Whether a violation on a prefix of a run is final (see the module).
    pub fn is_safety(&self) -> bool {
        let end_only = self
            .preds
            .iter()
            .any(|p| matches!(p.kind, PredicateKind::Unreceived | PredicateKind::Blocked));
        !end_only
            && match &self.pattern {
                PropertyPattern::Occurrence { kind, .. } => matches!(
                    kind,
                    Occurrence::Absence | Occurrence::Universality | Occurrence::AtMost(_)
                ),
                PropertyPattern::Order { kind, .. } => *kind == OrderKind::Precedence,
                PropertyPattern::History(_) => false,
            }
    }
}

impl Compiled {
    /// The safety properties of this specification, if it has any.
    pub fn safety_part(&self) -> Option<Compiled> {
        let properties: Vec<CompiledProperty> = self
            .properties
            .iter()
            .filter(|p| p.is_safety())
            .cloned()
            .collect();
        (!properties.is_empty()).then(|| Compiled {
            path: self.path.clone(),
            properties,
        })
    }
}
