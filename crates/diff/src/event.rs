//! Events as the comparison holds them — compact, `Copy`, payloads as
//! spans of a per-block byte arena — and the judgement of two events at the
//! same position of matched processes: the same, or different and how.

use crate::pids::PidMapping;
use crate::run::Run;
use std::sync::atomic::{AtomicBool, Ordering};
use trace_format::{
    Access, Dest, EventKind, EventRef, MsgId, NondetKind, ObjectId, ProcId, SignalClass,
    SignalEffect,
};

/// Where a payload's bytes are in an arena (at most 4 GiB: a block's
/// arena is bounded by the block size).
#[derive(Copy, Clone, Debug)]
pub(crate) struct Span {
    start: u32,
    len: u32,
}

impl Span {
    /// `None` when the arena would pass 4 GiB (not for one block's arena:
    /// a block is at most 64 MiB).
    pub fn push(arena: &mut Vec<u8>, bytes: &[u8]) -> Option<Span> {
        let start = u32::try_from(arena.len()).ok()?;
        let len = u32::try_from(bytes.len()).ok()?;
        start.checked_add(len)?;
        arena.extend_from_slice(bytes);
        Some(Span { start, len })
    }

    pub fn of(self, arena: &[u8]) -> &[u8] {
        &arena[self.start as usize..(self.start + self.len) as usize]
    }
}

/// What an observer consumed, as its sender sent it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum ConsumedKind {
    Message,
    /// An exit signal turned into `{'EXIT', From, Reason}`.
    Exit,
    /// A 'DOWN' signal turned into `{'DOWN', Ref, process, From, Reason}`.
    Down,
    /// The sender's log does not hold it.
    Unknown,
}

#[derive(Copy, Clone, Debug)]
pub(crate) enum LoggedEvent {
    Spawn {
        child: ProcId,
        link: bool,
        monitor: bool,
    },
    Send {
        to: Dest,
        payload: Option<Span>,
    },
    Deliver {
        msg: MsgId,
    },
    Receive {
        msg: MsgId,
    },
    Timeout,
    Signal {
        to: Dest,
        kind: SignalClass,
        reason: Option<Span>,
    },
    Taken {
        signal: MsgId,
        effect: SignalEffect,
    },
    Nondet {
        kind: NondetKind,
        value: Option<Span>,
    },
    Output {
        /// Its place among the run's writes: shown, never compared (it
        /// depends on the interleaving).
        seq: u64,
        bytes: Option<Span>,
    },
    Exit {
        reason: Option<Span>,
    },
    /// An operation on shared state: compared by object, what it did, the
    /// function, the key, and the operation of another process it follows
    /// on the object (`after`: which process raced it, and how); its place
    /// among the object's operations (`seq`) is shown, not compared.
    Shared {
        object: Option<ObjectId>,
        access: Access,
        function: u16,
        seq: u64,
        key: Option<Span>,
        after: Option<(ProcId, u64)>,
    },
    Blocked {
        stuck: bool,
    },
    /// Under `--observe`: a consumed message with what was sent (the sender
    /// is shown but not compared).
    ConsumedKind {
        msg: MsgId,
        what: ConsumedKind,
        payload: Option<Span>,
    },
}

impl LoggedEvent {
    pub fn from_ref(e: &EventRef<'_>, arena: &mut Vec<u8>) -> LoggedEvent {
        let mut span = |p: Option<&[u8]>| p.and_then(|b| Span::push(arena, b));
        match *e {
            EventRef::Spawn {
                child,
                link,
                monitor,
                ..
            } => LoggedEvent::Spawn {
                child,
                link,
                monitor,
            },
            EventRef::Send { to, payload, .. } => LoggedEvent::Send {
                to,
                payload: span(payload),
            },
            EventRef::Deliver { msg } => LoggedEvent::Deliver { msg },
            EventRef::Receive { msg } => LoggedEvent::Receive { msg },
            EventRef::Timeout => LoggedEvent::Timeout,
            EventRef::Signal { to, kind, .. } => {
                let (kind, reason) = (kind.class(), kind.reason());
                LoggedEvent::Signal {
                    to,
                    kind,
                    reason: span(reason),
                }
            }
            EventRef::SignalTaken { signal, effect } => LoggedEvent::Taken { signal, effect },
            EventRef::Nondet { kind, value } => LoggedEvent::Nondet {
                kind,
                value: span(Some(value)),
            },
            EventRef::Output { seq, bytes } => LoggedEvent::Output {
                seq,
                bytes: span(bytes),
            },
            EventRef::Exit { reason } => LoggedEvent::Exit {
                reason: span(reason),
            },
            EventRef::Shared {
                object,
                access,
                function,
                seq,
                key,
                ..
            } => LoggedEvent::Shared {
                object,
                access,
                function,
                seq,
                key: span(key),
                after: None,
            },
            EventRef::Blocked { stuck } => LoggedEvent::Blocked { stuck },
        }
    }

    pub fn kind(&self) -> EventKind {
        match self {
            LoggedEvent::Spawn { .. } => EventKind::Spawn,
            LoggedEvent::Send { .. } => EventKind::Send,
            LoggedEvent::Deliver { .. } => EventKind::Deliver,
            LoggedEvent::Receive { .. } | LoggedEvent::ConsumedKind { .. } => EventKind::Receive,
            LoggedEvent::Timeout => EventKind::Timeout,
            LoggedEvent::Signal { .. } => EventKind::Signal,
            LoggedEvent::Taken { .. } => EventKind::SignalTaken,
            LoggedEvent::Nondet { .. } => EventKind::Nondet,
            LoggedEvent::Output { .. } => EventKind::Output,
            LoggedEvent::Exit { .. } => EventKind::Exit,
            LoggedEvent::Shared { .. } => EventKind::Shared,
            LoggedEvent::Blocked { .. } => EventKind::Blocked,
        }
    }
}

/// One event of a compared process: its index in the process log, how many
/// signals and spawns the process made before it (what the causal walk of
/// [`crate::roots`] needs), and the event.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Item {
    pub index: u64,
    pub signals: u64,
    pub spawns: u64,
    pub ev: LoggedEvent,
}

/// How two events at the same position differ.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Another kind of event, or the same kind with other processes,
    /// messages or flags.
    Event,
    /// The same event with another payload (message, signal reason, result
    /// of a built-in, output).
    Payload,
    /// Both exit, for different reasons.
    ExitReason,
    /// One process log ends here; the other goes on.
    Missing,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Event => "event",
            Kind::Payload => "payload",
            Kind::ExitReason => "exit_reason",
            Kind::Missing => "missing",
        }
    }
}

/// Judges events of run 0 against run 1.
pub(crate) struct EventComparer<'a> {
    pub pids: PidMapping<'a>,
    pub ignore_payloads: bool,
    /// A destination one log records was compared with one the other does
    /// not (and so taken as the same).
    pub unknown_dest: AtomicBool,
}

impl EventComparer<'_> {
    fn runs(&self) -> [&Run<'_>; 2] {
        self.pids.runs
    }

    /// The pair of process `p` of run `x` (`None`: not in that log).
    fn pair(&self, x: usize, p: ProcId) -> Option<u32> {
        self.runs()[x]
            .slot(p)
            .map(|s| self.pids.matching.pair(x, s))
    }

    fn observed(&self, pair: Option<u32>) -> bool {
        match (self.pids.observed, pair) {
            (None, _) => true,
            (Some(o), Some(p)) => o[p as usize],
            (Some(_), None) => false,
        }
    }

    fn proc_eq(&self, a: ProcId, b: ProcId) -> bool {
        self.pair(0, a) == self.pair(1, b)
    }

    fn msg_eq(&self, a: MsgId, b: MsgId) -> bool {
        a.index == b.index && self.proc_eq(a.sender, b.sender)
    }

    fn dest_eq(&self, a: Dest, b: Dest) -> bool {
        // Under --observe, destinations that are not observed are all alike.
        let unobserved =
            |x: usize, p: ProcId| self.pids.observed.is_some() && !self.observed(self.pair(x, p));
        match (a, b) {
            (Dest::Unknown, Dest::Unknown) => true,
            (Dest::Unknown, _) | (_, Dest::Unknown) => {
                self.unknown_dest.store(true, Ordering::Relaxed);
                true
            }
            (Dest::Proc(p), Dest::Proc(q)) => {
                self.pair(0, p) == self.pair(1, q) || (unobserved(0, p) && unobserved(1, q))
            }
            (Dest::Foreign(_), Dest::Foreign(_)) => true,
            (Dest::Proc(p), Dest::Foreign(_)) => unobserved(0, p),
            (Dest::Foreign(_), Dest::Proc(q)) => unobserved(1, q),
        }
    }

    fn payload_eq(&self, a: Option<Span>, aa: &[u8], b: Option<Span>, ab: &[u8]) -> bool {
        match (a, b) {
            // Not recorded on one side: not compared (the report says so).
            (None, _) | (_, None) => true,
            _ if self.ignore_payloads => true,
            (Some(x), Some(y)) => self.pids.same(x.of(aa), y.of(ab)),
        }
    }

    fn object_eq(&self, a: Option<ObjectId>, b: Option<ObjectId>) -> bool {
        match (a, b) {
            (Some(x), Some(y)) => {
                x.kind == y.kind
                    && x.serial == y.serial
                    && (x.creator == ProcId::UNKNOWN && y.creator == ProcId::UNKNOWN
                        || self.proc_eq(x.creator, y.creator))
            }
            (None, None) => true,
            _ => false,
        }
    }

    /// The same operation of the same process came before both.
    fn after_eq(&self, a: Option<(ProcId, u64)>, b: Option<(ProcId, u64)>) -> bool {
        match (a, b) {
            (Some((p, i)), Some((q, j))) => i == j && self.proc_eq(p, q),
            (None, None) => true,
            _ => false,
        }
    }

    fn function_eq(&self, a: u16, b: u16) -> bool {
        let name = |x: usize, f: u16| {
            self.runs()[x]
                .reader
                .header()
                .shared_functions
                .get(f as usize)
        };
        name(0, a) == name(1, b)
    }

    fn nondet_eq(&self, a: NondetKind, b: NondetKind) -> bool {
        match (a, b) {
            (NondetKind::Other(x), NondetKind::Other(y)) => {
                self.runs()[0].nondet_name(x) == self.runs()[1].nondet_name(y)
            }
            _ => a == b,
        }
    }

    /// `None` when the events are the same.
    pub fn comparer(&self, a: &Item, aa: &[u8], b: &Item, ab: &[u8]) -> Option<Kind> {
        let (same, payload) = match (a.ev, b.ev) {
            (
                LoggedEvent::Spawn {
                    child: c,
                    link: l,
                    monitor: m,
                },
                LoggedEvent::Spawn {
                    child: c2,
                    link: l2,
                    monitor: m2,
                },
            ) => (l == l2 && m == m2 && self.proc_eq(c, c2), true),
            (
                LoggedEvent::Send { to, payload },
                LoggedEvent::Send {
                    to: t2,
                    payload: p2,
                },
            ) => (self.dest_eq(to, t2), self.payload_eq(payload, aa, p2, ab)),
            (LoggedEvent::Deliver { msg }, LoggedEvent::Deliver { msg: m2 })
            | (LoggedEvent::Receive { msg }, LoggedEvent::Receive { msg: m2 }) => {
                (self.msg_eq(msg, m2), true)
            }
            (LoggedEvent::Timeout, LoggedEvent::Timeout) => (true, true),
            (
                LoggedEvent::Signal { to, kind, reason },
                LoggedEvent::Signal {
                    to: t2,
                    kind: k2,
                    reason: r2,
                },
            ) => (
                kind == k2 && self.dest_eq(to, t2),
                self.payload_eq(reason, aa, r2, ab),
            ),
            (
                LoggedEvent::Taken { signal, effect },
                LoggedEvent::Taken {
                    signal: s2,
                    effect: e2,
                },
            ) => (effect == e2 && self.msg_eq(signal, s2), true),
            (
                LoggedEvent::Nondet { kind, value },
                LoggedEvent::Nondet {
                    kind: k2,
                    value: v2,
                },
            ) => (self.nondet_eq(kind, k2), self.payload_eq(value, aa, v2, ab)),
            (LoggedEvent::Output { bytes, .. }, LoggedEvent::Output { bytes: b2, .. }) => (
                true,
                match (bytes, b2) {
                    (Some(x), Some(y)) => self.ignore_payloads || x.of(aa) == y.of(ab),
                    _ => true,
                },
            ),
            (
                LoggedEvent::Shared {
                    object,
                    access,
                    function,
                    key,
                    after,
                    ..
                },
                LoggedEvent::Shared {
                    object: o2,
                    access: a2,
                    function: f2,
                    key: k2,
                    after: af2,
                    ..
                },
            ) => (
                access == a2
                    && self.object_eq(object, o2)
                    && self.function_eq(function, f2)
                    && self.after_eq(after, af2),
                self.payload_eq(key, aa, k2, ab),
            ),
            (LoggedEvent::Blocked { stuck }, LoggedEvent::Blocked { stuck: s2 }) => {
                (stuck == s2, true)
            }
            (LoggedEvent::Exit { reason }, LoggedEvent::Exit { reason: r2 }) => {
                return (!self.payload_eq(reason, aa, r2, ab)).then_some(Kind::ExitReason)
            }
            (
                LoggedEvent::ConsumedKind { what, payload, .. },
                LoggedEvent::ConsumedKind {
                    what: w2,
                    payload: p2,
                    ..
                },
            ) => (what == w2, self.payload_eq(payload, aa, p2, ab)),
            _ => (false, true),
        };
        if !same {
            Some(Kind::Event)
        } else if !payload {
            Some(Kind::Payload)
        } else {
            None
        }
    }
}
