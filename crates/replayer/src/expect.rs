//! What the engine did against what the log says: engine events are turned
//! into log events with the recorder's own mapping and compared; both sides
//! are rendered as `trace dump` prints events, for divergence reports.

use trace_format::text::{self, Context};
use trace_format::{Event, EventRef, Header, MsgId, Payload, ProcId, SignalKindRef};

/// The borrowed view of an owned event, given the signal index a `Send` or
/// `Signal` takes (the log leaves it implicit).
pub fn view(e: &Event, signal: MsgId) -> EventRef<'_> {
    fn p(x: &Option<Payload>) -> Option<&[u8]> {
        x.as_ref().map(Payload::bytes)
    }
    match e {
        Event::Spawn {
            child,
            pid,
            link,
            monitor,
        } => EventRef::Spawn {
            child: *child,
            pid: *pid,
            link: *link,
            monitor: *monitor,
        },
        Event::Send { to, payload } => EventRef::Send {
            msg: signal,
            to: *to,
            payload: p(payload),
        },
        Event::Deliver { msg } => EventRef::Deliver { msg: *msg },
        Event::Receive { msg } => EventRef::Receive { msg: *msg },
        Event::Timeout => EventRef::Timeout,
        Event::Signal { to, kind } => EventRef::Signal {
            signal,
            to: *to,
            kind: SignalKindRef::of(kind),
        },
        Event::SignalTaken { signal, effect } => EventRef::SignalTaken {
            signal: *signal,
            effect: *effect,
        },
        Event::Nondet { kind, value } => EventRef::Nondet {
            kind: *kind,
            value: value.bytes(),
        },
        Event::Output { seq, bytes } => EventRef::Output {
            seq: *seq,
            bytes: bytes.as_deref(),
        },
        Event::Exit { reason } => EventRef::Exit { reason: p(reason) },
    }
}

/// Renders events of one log the way `trace dump` does.
pub struct Describe<'a> {
    pub header: &'a Header,
    pub pids: &'a [u64],
}

impl Describe<'_> {
    /// `event` as process `proc`'s event number `index`, without the
    /// process and index prefix that `trace dump` puts first.
    pub fn event(&self, proc: ProcId, index: u64, signal: MsgId, e: &Event) -> String {
        let pid_of = |p: ProcId| self.pids.get(p.0 as usize).copied();
        let cx = Context {
            header: self.header,
            pid_of: &pid_of,
        };
        let line = text::line(&cx, proc, index, None, &view(e, signal));
        // Drop "N <0.P.0> #I " — the report names the process itself.
        match line.split_once(&format!("#{index} ")) {
            Some((_, rest)) => rest.to_string(),
            None => line,
        }
    }
}
