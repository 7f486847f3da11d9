//! Events as the report shows them, named with symbolic names so the two
//! runs read alike: `receive P.1:0`, `send P:2 to P.2: {ping,1}`,
//! `spawn P.3 link`, `exit: normal`. Payloads print as `~p` prints them.

use crate::event::{Ev, Got, Item};
use crate::matching::Matching;
use crate::run::{Run, Slot};
use std::fmt::Write;
use trace_format::text::{effect_name, nondet_name, pid_text, render_payload, string_literal};
use trace_format::{Dest, MsgId, NondetKind, ProcId};

/// One event, shown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shown {
    /// Its index in its process's log (`P.2#index`).
    pub index: u64,
    pub kind: &'static str,
    /// The event without its process: `receive P.1:0`.
    pub text: String,
}

pub(crate) struct Namer<'a> {
    pub run: &'a Run<'a>,
    pub matching: &'a Matching,
    pub x: usize,
}

impl Namer<'_> {
    /// The short name of process `p`: `P.1`, or its raw pid.
    pub fn proc(&self, p: ProcId) -> String {
        match self.run.slot(p) {
            Some(s) => self.slot(s),
            None => format!("process {}", p.0),
        }
    }

    pub fn slot(&self, s: Slot) -> String {
        self.matching
            .name(self.matching.pair(self.x, s))
            .to_string()
    }

    fn msg(&self, m: MsgId) -> String {
        format!("{}:{}", self.proc(m.sender), m.index)
    }

    fn dest(&self, d: Dest) -> String {
        match d {
            Dest::Proc(p) => self.proc(p),
            Dest::Foreign(n) => format!("{} (not in this log)", pid_text(n)),
            Dest::Unknown => "? (not recorded)".into(),
        }
    }

    /// Event `it` of process `me`.
    pub fn show(&self, me: Slot, it: &Item, arena: &[u8]) -> Shown {
        let mut s = String::from(it.ev.kind().name());
        let payload = |s: &mut String, p: Option<crate::event::Span>| {
            if let Some(p) = p {
                let _ = write!(s, ": {}", render_payload(p.of(arena)));
            }
        };
        let own = || format!("{}:{}", self.slot(me), it.signals);
        match it.ev {
            Ev::Spawn {
                child,
                link,
                monitor,
            } => {
                let _ = write!(s, " {}", self.proc(child));
                if link {
                    s.push_str(" link");
                }
                if monitor {
                    s.push_str(" monitor");
                }
            }
            Ev::Send { to, payload: p } => {
                let _ = write!(s, " {} to {}", own(), self.dest(to));
                payload(&mut s, p);
            }
            Ev::Deliver { msg } | Ev::Receive { msg } => {
                let _ = write!(s, " {}", self.msg(msg));
            }
            Ev::Timeout => {}
            Ev::Signal { to, kind, reason } => {
                let _ = write!(s, " {} {} to {}", own(), kind.name(), self.dest(to));
                if kind == (trace_format::SignalClass::Exit { linked: true }) {
                    s.push_str(" (link)");
                }
                payload(&mut s, reason);
            }
            Ev::Taken { signal, effect } => {
                let _ = write!(s, " {} {}", self.msg(signal), effect_name(effect));
            }
            Ev::Nondet { kind, value } => {
                let name = match kind {
                    NondetKind::Other(n) => self.run.nondet_name(n).unwrap_or("other").to_string(),
                    k => nondet_name(k).to_string(),
                };
                let _ = write!(s, " {name}");
                payload(&mut s, value);
            }
            Ev::Output { bytes } => {
                if let Some(b) = bytes {
                    let _ = write!(s, ": {}", string_literal(b.of(arena)));
                }
            }
            Ev::Exit { reason } => payload(&mut s, reason),
            Ev::Got {
                msg,
                what,
                payload: p,
            } => {
                let _ = write!(s, " {}", self.msg(msg));
                match what {
                    Got::Message => {}
                    Got::Exit => s.push_str(" (exit signal)"),
                    Got::Down => s.push_str(" ('DOWN' signal)"),
                    Got::Unknown => s.push_str(" (not in the sender's log)"),
                }
                payload(&mut s, p);
            }
        }
        Shown {
            index: it.index,
            kind: it.ev.kind().name(),
            text: s,
        }
    }
}
