//! Exceptions: BEAM's three classes, what built-ins return when they do not
//! return a value, and the raw stack trace kept until someone looks at it.

use trace_term::{atom, Atom, Term};

/// Exception classes as `try ... catch Class:Reason` sees them.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Class {
    Error,
    Throw,
    Exit,
}

impl Class {
    pub fn atom(self) -> Atom {
        match self {
            Class::Error => atom::ERROR,
            Class::Throw => atom::THROW,
            Class::Exit => atom::EXIT,
        }
    }

    pub fn from_atom(a: Atom) -> Option<Class> {
        match a {
            atom::ERROR => Some(Class::Error),
            atom::THROW => Some(Class::Throw),
            atom::EXIT => Some(Class::Exit),
            _ => None,
        }
    }
}

/// A call the VM makes on a built-in's behalf (`apply/2,3` and friends).
#[derive(Clone, Debug)]
pub enum Apply {
    /// Apply a fun value to arguments.
    Fun(Term),
    /// Call `Module:Function` with the arguments.
    Mfa(Atom, Atom),
}

/// Why a built-in did not return a value.
#[derive(Clone, Debug)]
pub enum Fault {
    /// `error:Reason` raised inside the built-in (its own frame, with its
    /// arguments, tops the stack trace).
    Error(Term),
    /// An exception raised on the caller's behalf (`error/1,2`, `throw/1`,
    /// `exit/1`, `raise/3`), with an explicit stack trace for `raise/3`.
    Raise {
        class: Class,
        reason: Term,
        trace: Option<Term>,
    },
    /// Not a failure: call this with these arguments and return its result.
    Apply(Apply, Vec<Term>),
    /// Not a failure: `erlang:hibernate(M, F, Args)`. The call stack and
    /// every `catch` are discarded, and the process goes on in `M:F(Args)`
    /// once a message is in its mailbox; when that returns, the process ends.
    Hibernate(Atom, Atom, Vec<Term>),
    /// Not a failure: yield and run the built-in again later (replay waiting
    /// for its turn, e.g. to write output).
    Retry,
    /// Not a failure: suspend until a signal arrives, then run the built-in
    /// again (replay waiting for a signal that lands before this event).
    Block,
    /// The process must yield after this built-in returned `value`
    /// (`erlang:yield/0`, and when a signal to itself must be taken now).
    Yield(Term),
    /// The call needs something the engine does not implement (named in the
    /// message): the run stops with the "unsupported" exit status rather
    /// than going on with a wrong result.
    Unsupported(String),
}

pub type BifResult = Result<Term, Fault>;

/// `error:badarg`.
pub fn badarg() -> Fault {
    Fault::Error(Term::Atom(atom::BADARG))
}

/// `error:Reason` with an atom reason.
pub fn error_atom(a: Atom) -> Fault {
    Fault::Error(Term::Atom(a))
}

/// `error:{Tag, Value}`.
pub fn error_tagged(tag: Atom, v: Term) -> Fault {
    Fault::Error(Term::tuple(vec![Term::Atom(tag), v]))
}

/// One raw stack-trace entry: a function and the instruction it was at.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RawFrame {
    pub fun: u32,
    pub pc: u32,
}

/// The stack trace of an exception in flight.
#[derive(Clone, Debug)]
pub enum Trace {
    /// Frames innermost first, plus the built-in that raised (module, function, args).
    Raw {
        bif: Option<(Atom, Atom, Vec<Term>)>,
        /// For `function_clause`: the arguments of the function that had no matching clause.
        args: Option<Vec<Term>>,
        frames: Vec<RawFrame>,
    },
    /// An explicit trace term (`erlang:raise/3`, re-raises).
    Term(Term),
}

/// An exception in flight.
#[derive(Clone, Debug)]
pub struct Exception {
    pub class: Class,
    pub reason: Term,
    pub trace: Trace,
}

/// How deep BEAM's stack traces go by default (`backtrace_depth`).
pub const TRACE_DEPTH: usize = 8;
