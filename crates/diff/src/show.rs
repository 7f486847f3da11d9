//! Events as the report shows them, printed by the one printer of events
//! (`trace_format::text`) and named with symbolic names alone, so the two
//! runs read alike: `receive P.1:0`, `send P:2 to P.2: {ping,1}`,
//! `spawn P.3 link`, `exit: normal`.

use crate::event::{ConsumedKind, Item, LoggedEvent};
use crate::matching::Matching;
use crate::run::{Run, TableRow};
use std::fmt::Write;
use trace_format::text::{render_payload, Naming, Printer};
use trace_format::{EventRef, MsgId, ProcId, SignalKindRef};

/// One event, shown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shown {
    /// Its index in its process's log (`P.2#index`).
    pub index: u64,
    pub kind: &'static str,
    /// The event without its process: `receive P.1:0`.
    pub text: String,
}

/// Names the processes of run `x` by their pair's name: the same name for a
/// process and its counterpart in the other run.
pub(crate) struct Namer<'a> {
    pub run: &'a Run<'a>,
    pub matching: &'a Matching,
    pub x: usize,
}

impl Naming for Namer<'_> {
    fn process(&self, p: ProcId) -> String {
        self.proc(p)
    }

    fn sender(&self, p: ProcId) -> String {
        self.proc(p)
    }

    fn pid(&self, p: ProcId) -> Option<u64> {
        self.run.slot(p).map(|s| self.run.pid(s))
    }
}

impl Namer<'_> {
    /// The short name of process `p`: `P.1`, or its raw pid.
    pub fn proc(&self, p: ProcId) -> String {
        match self.run.slot(p) {
            Some(s) => self.slot(s),
            None => format!("process {}", p.0),
        }
    }

    pub fn slot(&self, s: TableRow) -> String {
        self.matching
            .name(self.matching.pair(self.x, s))
            .to_string()
    }

    /// Event `it` of process `me`.
    pub fn show(&self, me: TableRow, it: &Item, arena: &[u8]) -> Shown {
        let printer = Printer {
            header: self.run.reader.header(),
            names: self,
        };
        let bytes = |p: Option<crate::event::Span>| p.map(|p| p.of(arena));
        let own = MsgId {
            sender: self.run.id(me),
            index: it.signals,
        };
        let text = match it.ev {
            LoggedEvent::ConsumedKind { msg, what, payload } => {
                let mut s = printer.event(&EventRef::Receive { msg });
                s.push_str(match what {
                    ConsumedKind::Message => "",
                    ConsumedKind::Exit => " (exit signal)",
                    ConsumedKind::Down => " ('DOWN' signal)",
                    ConsumedKind::Unknown => " (not in the sender's log)",
                });
                if let Some(p) = bytes(payload) {
                    let _ = write!(s, ": {}", render_payload(p));
                }
                s
            }
            LoggedEvent::Shared {
                after: Some((p, i)),
                ..
            } => {
                let mut s = printer.event(&as_event_ref(it.ev, own, self.run, &bytes));
                let _ = write!(s, " (after {}#{i})", self.proc(p));
                s
            }
            ev => printer.event(&as_event_ref(ev, own, self.run, &bytes)),
        };
        Shown {
            index: it.index,
            kind: it.ev.kind().name(),
            text,
        }
    }
}

/// The log's event a compared event stands for (`ConsumedKind` aside).
fn as_event_ref<'b>(
    ev: LoggedEvent,
    own: MsgId,
    run: &Run<'_>,
    bytes: &dyn Fn(Option<crate::event::Span>) -> Option<&'b [u8]>,
) -> EventRef<'b> {
    match ev {
        LoggedEvent::Spawn {
            child,
            link,
            monitor,
        } => EventRef::Spawn {
            child,
            pid: run.slot(child).map_or(0, |s| run.pid(s)),
            link,
            monitor,
        },
        LoggedEvent::Send { to, payload } => EventRef::Send {
            msg: own,
            to,
            payload: bytes(payload),
        },
        LoggedEvent::Deliver { msg } => EventRef::Deliver { msg },
        LoggedEvent::Receive { msg } | LoggedEvent::ConsumedKind { msg, .. } => {
            EventRef::Receive { msg }
        }
        LoggedEvent::Timeout => EventRef::Timeout,
        LoggedEvent::Signal { to, kind, reason } => EventRef::Signal {
            signal: own,
            to,
            // `LoggedEvent::from_ref` takes the class of a signal kind: never a message.
            kind: SignalKindRef::with_class(kind, bytes(reason)).unwrap_or(SignalKindRef::Link),
        },
        LoggedEvent::Taken { signal, effect } => EventRef::SignalTaken { signal, effect },
        LoggedEvent::Nondet { kind, value } => EventRef::Nondet {
            kind,
            value: bytes(value).unwrap_or_default(),
        },
        LoggedEvent::Output { seq, bytes: b } => EventRef::Output {
            seq,
            bytes: bytes(b),
        },
        LoggedEvent::Exit { reason } => EventRef::Exit {
            reason: bytes(reason),
        },
        LoggedEvent::Shared {
            object,
            access,
            function,
            seq,
            key,
            ..
        } => EventRef::Shared {
            object,
            access,
            function,
            seq,
            key: bytes(key),
            name: None,
        },
        LoggedEvent::Blocked { stuck } => EventRef::Blocked { stuck },
    }
}
