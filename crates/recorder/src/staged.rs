//! Events as a process stages them during its slice: already in the log's
//! identities (dense process ids, message ids), but with payloads still as
//! terms. Turning terms into ETF and events into the block codec is left to
//! the encoder thread ([`crate::encoder`]), off the scheduler threads.

use trace_format::{Dest, MsgId, NondetKind, ProcId, SignalEffect};
use trace_term::Term;

/// A non-message signal, its reason still a term.
pub enum StagedSignal {
    Link,
    Unlink,
    Monitor,
    Demonitor,
    Exit { reason: Option<Term>, linked: bool },
    Down { reason: Option<Term> },
}

/// One event waiting for the encoder.
pub enum Staged {
    Spawn {
        child: ProcId,
        pid: u64,
        link: bool,
        monitor: bool,
    },
    Send {
        to: Dest,
        payload: Option<Term>,
    },
    Deliver(MsgId),
    Receive(MsgId),
    Timeout,
    Signal {
        to: Dest,
        kind: StagedSignal,
    },
    Taken(MsgId, SignalEffect),
    Nondet(NondetKind, Term),
    Output(u64, Option<Vec<u8>>),
    Exit(Option<Term>),
}
