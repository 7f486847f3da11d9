//! A concurrent-event history as compiled (Caballero et al. 2019 §4.1):
//! step patterns with their term patterns mapped to the property's
//! variables, in the order the history lists them.

use trace_pattern::Pattern;
use trace_syntax::ast::Pos;

/// A compiled term pattern with its variables mapped to the property's.
#[derive(Clone, Debug)]
pub struct Pat {
    pub pattern: Pattern,
    pub map: Vec<usize>,
}

#[derive(Clone, Debug)]
pub enum CompiledConsumed {
    Any,
    Nothing,
    Timeout,
    /// Matched against `{From, Msg}`.
    Message(Pat),
}

#[derive(Clone, Debug)]
pub enum CompiledList {
    Any,
    Items(Vec<CompiledListItem>),
}

#[derive(Clone, Debug)]
pub enum CompiledListItem {
    One(Pat),
    Star,
    Group(Vec<Pat>),
}

#[derive(Clone, Debug)]
pub struct CompiledStep {
    pub pos: Pos,
    /// As written.
    pub text: String,
    /// Matched against the step's process's pid.
    pub process: Pat,
    pub consumed: CompiledConsumed,
    /// Items matched against `{To, Msg}`.
    pub sent: CompiledList,
    /// Items matched against the children's pids.
    pub spawned: CompiledList,
}

#[derive(Clone, Debug)]
pub enum CompiledItem {
    Step(Box<CompiledStep>),
    Star,
    Group(Vec<CompiledStep>),
}

#[derive(Clone, Debug)]
pub enum CompiledSubject {
    Global,
    /// The process a constant variable (`<P.1>`, a registered name) names.
    Process(usize),
    /// Every process, bound to this variable in turn.
    Each(usize),
}

/// A compiled history.
#[derive(Clone, Debug)]
pub struct CompiledHistory {
    pub subject: CompiledSubject,
    pub items: Vec<CompiledItem>,
}

impl CompiledHistory {
    /// Whether matching reads message terms (every history does, unless all
    /// its messages are `_`); conservatively: any step pattern with a
    /// consumed message or sent items.
    pub fn needs_payloads(&self) -> bool {
        fn step(s: &CompiledStep) -> bool {
            matches!(s.consumed, CompiledConsumed::Message(_))
                || matches!(&s.sent, CompiledList::Items(v) if v.iter().any(|i| !matches!(i, CompiledListItem::Star)))
        }
        self.items.iter().any(|i| match i {
            CompiledItem::Step(s) => step(s),
            CompiledItem::Group(g) => g.iter().any(step),
            CompiledItem::Star => false,
        })
    }
}
