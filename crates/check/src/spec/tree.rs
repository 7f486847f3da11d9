//! A specification as parsed: its properties, each a pattern over event
//! predicates under a scope, a history, or a built-in check.

use super::history::HistItem;
use std::path::PathBuf;
use trace_syntax::ast::{Expr, Pos};

/// A parsed specification file.
#[derive(Clone, Debug)]
pub struct Spec {
    pub path: PathBuf,
    pub properties: Vec<Property>,
    /// `-registered(Name, Process).`: which process holds a registered name.
    pub registered: Vec<Registered>,
}

/// A declaration that a registered name stands for a process.
#[derive(Clone, Debug)]
pub struct Registered {
    pub name: String,
    /// A placeholder variable (see [`procname`]) or, in error, anything.
    pub process: Expr,
    pub pos: Pos,
}

/// One property: its name and what it says.
#[derive(Clone, Debug)]
pub struct Property {
    pub name: String,
    pub pos: Pos,
    /// The body as written (whitespace folded), for reports.
    pub text: String,
    pub body: Body,
}

#[derive(Clone, Debug)]
pub enum Body {
    /// Absence, existence, universality, bounded existence.
    Occurrence {
        kind: Occurrence,
        event: Pred,
        scope: Scope,
    },
    /// Response and precedence, with chains on either side.
    Order {
        kind: OrderKind,
        /// `every A then B ...`
        trigger: Vec<Pred>,
        /// `... is followed by C then D` / `... is preceded by C then D`
        other: Vec<Pred>,
        scope: Scope,
    },
    /// A concurrent-event history (Caballero et al. 2019 §4.1).
    History {
        subject: Subject,
        items: Vec<HistItem>,
    },
    /// A built-in check used by name.
    Builtin(Builtin),
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Occurrence {
    /// `never E`
    Absence,
    /// `eventually E`
    Existence,
    /// `always E`
    Universality,
    /// `at most N E`
    AtMost(u64),
    /// `at least N E`
    AtLeast(u64),
    /// `exactly N E`
    Exactly(u64),
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum OrderKind {
    /// `every T is followed by R`: an R in the causal future of each T.
    Response,
    /// `every T is preceded by C`: a C in the causal past of each T.
    Precedence,
}

/// Where a pattern applies (Dwyer's scopes, on happened-before).
#[derive(Clone, Debug)]
pub enum Scope {
    Global,
    /// `before R`
    Before(Pred),
    /// `after Q`
    After(Pred),
    /// `between Q and R`
    Between(Pred, Pred),
    /// `after Q until R`
    AfterUntil(Pred, Pred),
}

impl Scope {
    pub fn preds(&self) -> Vec<&Pred> {
        match self {
            Scope::Global => vec![],
            Scope::Before(r) | Scope::After(r) => vec![r],
            Scope::Between(q, r) | Scope::AfterUntil(q, r) => vec![q, r],
        }
    }
}

/// Whose steps a history describes.
#[derive(Clone, Debug)]
pub enum Subject {
    /// `history global: [...]`: a causal path through the run's steps.
    Global,
    /// `history <P.1>: [...]` (or a registered name, or a variable: every process).
    Process(Expr),
}

/// The built-in checks.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Builtin {
    /// Every message sent was received (`never unreceived(_, _, _)`).
    AllReceived,
    /// No process was left blocked at the end (`never blocked(_)`).
    NoDeadlock,
    /// Every process ended normally (`never exit(_, R)` for an abnormal R).
    NoAbnormalExit,
}

impl Builtin {
    pub const ALL: [Builtin; 3] = [
        Builtin::AllReceived,
        Builtin::NoDeadlock,
        Builtin::NoAbnormalExit,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Builtin::AllReceived => "all_received",
            Builtin::NoDeadlock => "no_deadlock",
            Builtin::NoAbnormalExit => "no_abnormal_exit",
        }
    }

    pub fn from_name(s: &str) -> Option<Builtin> {
        Builtin::ALL.into_iter().find(|b| b.name() == s)
    }

    /// What it says, in the language's own words.
    pub fn meaning(self) -> &'static str {
        match self {
            Builtin::AllReceived => "never unreceived(_, _, _)",
            Builtin::NoDeadlock => "never blocked(_)",
            Builtin::NoAbnormalExit => {
                "never exit(_, R) when R =/= normal, R =/= shutdown, \
                 not (is_tuple(R) andalso element(1, R) =:= shutdown)"
            }
        }
    }
}

/// An event predicate as written: `send(From, To, {req, Ref}) when Ref =/= none`.
#[derive(Clone, Debug)]
pub struct Pred {
    pub kind: PredicateKind,
    pub pos: Pos,
    pub args: Vec<Expr>,
    pub guard: Vec<Vec<Expr>>,
    /// As written (whitespace folded).
    pub text: String,
}

/// The event predicates of the language. The first argument is always the
/// process whose log holds the event.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum PredicateKind {
    /// `spawn(P, Child)`
    Spawn,
    /// `send(From, To, Msg)`
    Send,
    /// `receive(P, Msg)`, `receive(P, From, Msg)`: consumption by a `receive`.
    Receive,
    /// `deliver(P, Msg)`, `deliver(P, From, Msg)`: arrival in the mailbox.
    Deliver,
    /// `timeout(P)`
    Timeout,
    /// `exit(P)`, `exit(P, Reason)`
    Exit,
    /// `link(From, To)`
    Link,
    /// `unlink(From, To)`
    Unlink,
    /// `monitor(From, To)`
    Monitor,
    /// `demonitor(From, To)`
    Demonitor,
    /// `exit_signal(From, To, Reason)`: an exit signal sent (exit/2 or a linked death).
    ExitSignal,
    /// `down(From, To, Reason)`: a 'DOWN' signal sent by a monitored process's death.
    Down,
    /// `killed(P, From, Reason)`: P died of an exit signal From sent.
    Killed,
    /// `nondet(P, Kind, Value)`: a nondeterministic built-in's result.
    Nondet,
    /// `blocked(P)`: the run ended with P stuck waiting (a deadlock).
    Blocked,
    /// `ets(P, Table, Op, Key)`, `ets(P, Table, Op)`: an operation of P on
    /// an ETS table.
    Ets,
    /// `unreceived(From, To, Msg)`: a message no `receive` consumed.
    Unreceived,
}

/// What an argument of a predicate is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ArgRole {
    /// A process: `_`, a variable, `<P.2>`, `<0.83.0>` or a registered name.
    Process,
    /// A term pattern: the message, a reason, a value, a kind.
    Term,
}

impl PredicateKind {
    pub const ALL: [PredicateKind; 17] = [
        PredicateKind::Spawn,
        PredicateKind::Send,
        PredicateKind::Receive,
        PredicateKind::Deliver,
        PredicateKind::Timeout,
        PredicateKind::Exit,
        PredicateKind::Link,
        PredicateKind::Unlink,
        PredicateKind::Monitor,
        PredicateKind::Demonitor,
        PredicateKind::ExitSignal,
        PredicateKind::Down,
        PredicateKind::Killed,
        PredicateKind::Nondet,
        PredicateKind::Blocked,
        PredicateKind::Ets,
        PredicateKind::Unreceived,
    ];

    pub fn name(self) -> &'static str {
        match self {
            PredicateKind::Spawn => "spawn",
            PredicateKind::Send => "send",
            PredicateKind::Receive => "receive",
            PredicateKind::Deliver => "deliver",
            PredicateKind::Timeout => "timeout",
            PredicateKind::Exit => "exit",
            PredicateKind::Link => "link",
            PredicateKind::Unlink => "unlink",
            PredicateKind::Monitor => "monitor",
            PredicateKind::Demonitor => "demonitor",
            PredicateKind::ExitSignal => "exit_signal",
            PredicateKind::Down => "down",
            PredicateKind::Killed => "killed",
            PredicateKind::Nondet => "nondet",
            PredicateKind::Blocked => "blocked",
            PredicateKind::Ets => "ets",
            PredicateKind::Unreceived => "unreceived",
        }
    }

    pub fn from_name(s: &str) -> Option<PredicateKind> {
        PredicateKind::ALL.into_iter().find(|k| k.name() == s)
    }

    /// The argument roles of each accepted arity, canonical form first:
    /// the compiler rewrites a short form into the canonical one.
    pub fn forms(self) -> &'static [&'static [ArgRole]] {
        use ArgRole::{Process as P, Term as T};
        match self {
            PredicateKind::Spawn => &[&[P, P]],
            PredicateKind::Send | PredicateKind::Unreceived => &[&[P, P, T]],
            PredicateKind::Receive | PredicateKind::Deliver => &[&[P, P, T], &[P, T]],
            PredicateKind::Timeout | PredicateKind::Blocked => &[&[P]],
            PredicateKind::Exit => &[&[P, T], &[P]],
            PredicateKind::Link
            | PredicateKind::Unlink
            | PredicateKind::Monitor
            | PredicateKind::Demonitor => &[&[P, P]],
            PredicateKind::ExitSignal | PredicateKind::Down | PredicateKind::Killed => {
                &[&[P, P, T]]
            }
            PredicateKind::Nondet => &[&[P, T, T]],
            PredicateKind::Ets => &[&[P, T, T, T], &[P, T, T]],
        }
    }

    /// How the forms are written, for error messages.
    pub fn usage(self) -> &'static str {
        match self {
            PredicateKind::Spawn => "spawn(P, Child)",
            PredicateKind::Send => "send(From, To, Msg)",
            PredicateKind::Receive => "receive(P, Msg) or receive(P, From, Msg)",
            PredicateKind::Deliver => "deliver(P, Msg) or deliver(P, From, Msg)",
            PredicateKind::Timeout => "timeout(P)",
            PredicateKind::Exit => "exit(P) or exit(P, Reason)",
            PredicateKind::Link => "link(From, To)",
            PredicateKind::Unlink => "unlink(From, To)",
            PredicateKind::Monitor => "monitor(From, To)",
            PredicateKind::Demonitor => "demonitor(From, To)",
            PredicateKind::ExitSignal => "exit_signal(From, To, Reason)",
            PredicateKind::Down => "down(From, To, Reason)",
            PredicateKind::Killed => "killed(P, From, Reason)",
            PredicateKind::Nondet => "nondet(P, Kind, Value)",
            PredicateKind::Blocked => "blocked(P)",
            PredicateKind::Ets => "ets(P, Table, Op, Key) or ets(P, Table, Op)",
            PredicateKind::Unreceived => "unreceived(From, To, Msg)",
        }
    }
}
