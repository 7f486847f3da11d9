//! Concurrent-event histories (Caballero et al. 2019 §4.1): patterns over *steps*. A step
//! is what one process does from its start, or from one `receive`, up to its
//! next `receive`: the message it consumed (or none), the messages it sent
//! and the processes it spawned. A step pattern is the paper's tuple
//! `{Process, Consumed, Sent, Spawned}`; lists of steps, sends and spawns take
//! `*` (any number), `+` (at least one), `_` (exactly one) and nested lists
//! for items in any order.

use trace_syntax::ast::{Expr, Pos};

/// An item of a history: a step pattern, a wildcard, or steps in any order.
#[derive(Clone, Debug)]
pub enum HistItem {
    Step(Box<StepPattern>),
    /// `*`: any number of steps.
    Star,
    /// `+`: at least one step.
    Plus,
    /// `[S1, S2]`: these steps, in any order.
    Group(Vec<StepPattern>),
}

/// `{Process, Consumed, Sent, Spawned}`.
#[derive(Clone, Debug)]
pub struct StepPattern {
    pub pos: Pos,
    /// As written.
    pub text: String,
    pub process: Expr,
    pub consumed: Consumed,
    /// Items are `{To, Msg}` patterns.
    pub sent: ListPattern,
    /// Items are process patterns.
    pub spawned: ListPattern,
}

/// What a step consumed.
#[derive(Clone, Debug)]
pub enum Consumed {
    /// `_`: anything, or nothing.
    Any,
    /// `none`: the process's first step (it consumed nothing).
    Nothing,
    /// `timeout`: the step began with a `receive ... after` that timed out.
    Timeout,
    /// `{From, Msg}`: this message, from this sender.
    Message { from: Box<Expr>, msg: Box<Expr> },
}

/// A list pattern with wildcards.
#[derive(Clone, Debug)]
pub enum ListPattern {
    /// `_`: any list.
    Any,
    Items(Vec<ListItem>),
}

#[derive(Clone, Debug)]
pub enum ListItem {
    /// An item matching this pattern.
    One(Expr),
    /// `*`: any number of items.
    Star,
    /// `+`: at least one item.
    Plus,
    /// `[A, B]`: these items, in any order.
    Group(Vec<Expr>),
}
