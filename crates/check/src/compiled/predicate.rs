//! One event predicate as compiled: its process arguments, its term
//! patterns, its guard, and which property variables it binds and sees.

use super::vars::Vars;
use crate::spec::PredicateKind;
use trace_pattern::{Guard, Pattern};
use trace_syntax::ast::Pos;

/// A process argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProcArg {
    /// `_`
    Any,
    /// A property variable, bound to the process's pid. A named process
    /// (`<P.2>`, `<0.83.0>`, a declared registered name) is a *constant*
    /// variable: bound, once the log is read, to that process's pid.
    Var(usize),
}

/// A term argument: the message, a reason, a value.
#[derive(Clone, Debug)]
pub struct TermArg {
    pub pattern: Pattern,
    /// Property variable of each of the pattern's variables.
    pub map: Vec<usize>,
    /// `_`, or a variable used nowhere else: the term need not be read.
    pub trivial: bool,
    pub pos: Pos,
}

/// A guard over property variables.
#[derive(Clone, Debug)]
pub struct CompiledGuard {
    pub guard: Guard,
    pub vars: Vec<usize>,
}

/// An event predicate ready to match.
#[derive(Clone, Debug)]
pub struct CompiledPredicate {
    pub kind: PredicateKind,
    pub pos: Pos,
    pub text: String,
    /// The process arguments of the canonical form, the event's own process first.
    pub procs: Vec<ProcArg>,
    pub terms: Vec<TermArg>,
    pub guard: Option<CompiledGuard>,
    /// The guard uses only this predicate's own variables (and named
    /// processes), so it is decided when the event is matched; otherwise
    /// when the event is joined with the events it sees.
    pub local_guard: bool,
    /// The property variables this predicate binds, ascending — named
    /// processes (constants) included: matching while the log is decoded,
    /// before names are resolved, captures their values for a later check.
    pub binds: Vec<usize>,
    /// The property variables bound by the predicates it sees.
    pub sees: Vec<usize>,
    /// Only process arguments to match: no term to read, no guard to
    /// decide when matching.
    pub structural: bool,
}

impl CompiledPredicate {
    /// True when matching needs the event's terms (payload, reason, value).
    pub fn reads_terms(&self) -> bool {
        self.terms.iter().any(|t| !t.trivial)
    }

    /// The predicate universality applies to: the same kind of event, in
    /// the process the first argument names (or sees bound), whatever the
    /// other arguments.
    pub fn selection(&self, vars: &Vars) -> CompiledPredicate {
        let procs: Vec<ProcArg> = self
            .procs
            .iter()
            .enumerate()
            .map(|(j, a)| match a {
                ProcArg::Var(v) if j == 0 && (self.sees.contains(v) || vars.is_constant(*v)) => {
                    a.clone()
                }
                _ => ProcArg::Any,
            })
            .collect();
        let binds = procs
            .iter()
            .filter_map(|a| match a {
                ProcArg::Var(v) => Some(*v),
                _ => None,
            })
            .collect();
        CompiledPredicate {
            kind: self.kind,
            pos: self.pos,
            text: self.text.clone(),
            procs,
            terms: self
                .terms
                .iter()
                .map(|t| TermArg {
                    pattern: trace_pattern::compile_str("_").expect("_ is a pattern"),
                    map: Vec::new(),
                    trivial: true,
                    pos: t.pos,
                })
                .collect(),
            guard: None,
            local_guard: true,
            binds,
            sees: self.sees.clone(),
            structural: true,
        }
    }
}
