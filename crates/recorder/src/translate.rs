//! How an engine event becomes a log event: the one mapping from the
//! runtime's vocabulary (raw pids, terms) to the log's (dense process ids,
//! ETF payloads). The recording Observer uses its parts on its fast path; the
//! replayer uses [`log_event`] to compare what the engine does with the log.

use crate::observer::{RecordFlags, OTHER_NONDET};
use trace_format::{
    Dest, Event, EventRef, MsgId, NondetKind, Payload, ProcId, SignalEffect, SignalKind,
    SignalKindRef,
};
use trace_runtime::hooks::{self, Effect, SignalOut};
use trace_runtime::process;
use trace_term::{Pid, Term};

pub fn nondet_kind(k: hooks::NondetKind) -> NondetKind {
    use hooks::NondetKind as K;
    match k {
        K::MonotonicTime => NondetKind::MonotonicTime,
        K::SystemTime => NondetKind::SystemTime,
        K::Timestamp => NondetKind::Timestamp,
        K::UniqueInteger => NondetKind::UniqueInteger,
        K::Random => NondetKind::Random,
        K::Whereis => NondetKind::Whereis,
        K::Register => NondetKind::Register,
        K::Registered => NondetKind::Registered,
        K::IsProcessAlive => NondetKind::IsProcessAlive,
        K::Processes => NondetKind::Processes,
        K::ProcessInfo => NondetKind::ProcessInfo,
        K::Other(name) => {
            NondetKind::Other(OTHER_NONDET.iter().position(|n| *n == name).unwrap_or(0) as u16)
        }
    }
}

pub fn effect(e: Effect) -> SignalEffect {
    match e {
        Effect::Applied => SignalEffect::Applied,
        Effect::Ignored => SignalEffect::Ignored,
        Effect::Converted => SignalEffect::Converted,
        Effect::Killed => SignalEffect::Killed,
    }
}

/// A term as a log payload, when payloads are recorded.
pub fn payload(flags: RecordFlags, t: &Term) -> Option<Payload> {
    flags.payloads.then(|| Payload(trace_term::etf::to_vec(t)))
}

pub fn signal_kind(flags: RecordFlags, s: SignalOut<'_>) -> SignalKind {
    let reason = match s {
        SignalOut::Exit { reason, .. } | SignalOut::Down { reason } => payload(flags, reason),
        _ => None,
    };
    signal_kind_ref(s, reason.as_ref().map(Payload::bytes)).to_owned()
}

/// A signal's kind in the log, its reason (if recorded) already encoded.
fn signal_kind_ref<'a>(s: SignalOut<'_>, reason: Option<&'a [u8]>) -> SignalKindRef<'a> {
    match s {
        SignalOut::Link => SignalKindRef::Link,
        SignalOut::Unlink => SignalKindRef::Unlink,
        SignalOut::Monitor => SignalKindRef::Monitor,
        SignalOut::Demonitor => SignalKindRef::Demonitor,
        SignalOut::Exit { linked, .. } => SignalKindRef::Exit { reason, linked },
        SignalOut::Down { .. } => SignalKindRef::Down { reason },
    }
}

/// Where a signal to `pid` went, given the log's process ids.
pub fn dest(id_of: &dyn Fn(Pid) -> Option<ProcId>, pid: Pid) -> Dest {
    match id_of(pid) {
        Some(id) => Dest::Proc(id),
        None => Dest::Foreign(pid.number()),
    }
}

/// A signal's identity in the log. Every sender was registered before it
/// could send, so an unknown one is a broken invariant shown as `u32::MAX`.
pub fn msg(id_of: &dyn Fn(Pid) -> Option<ProcId>, id: process::MsgId) -> MsgId {
    MsgId {
        sender: id_of(id.sender).unwrap_or(ProcId(u32::MAX)),
        index: id.index,
    }
}

/// The log event an engine event is recorded as, with `flags` saying which
/// optional parts are kept. `Deliver` is translated whatever the flags say.
pub fn log_event(
    ev: &hooks::Event<'_>,
    id_of: &dyn Fn(Pid) -> Option<ProcId>,
    flags: RecordFlags,
) -> Event {
    let own = MsgId {
        sender: ProcId(u32::MAX),
        index: 0,
    };
    log_event_ref(ev, id_of, flags, own, &mut Vec::new()).to_owned()
}

/// As [`log_event`], borrowed: a term (there is at most one per event) is
/// encoded into `etf`, so comparing an engine event with a logged one
/// allocates nothing. `own` is the identity a `Send` or `Signal` takes.
pub fn log_event_ref<'e>(
    ev: &hooks::Event<'e>,
    id_of: &dyn Fn(Pid) -> Option<ProcId>,
    flags: RecordFlags,
    own: MsgId,
    etf: &'e mut Vec<u8>,
) -> EventRef<'e> {
    let term = match *ev {
        hooks::Event::Send { payload: t, .. } | hooks::Event::Exit { reason: t } => {
            flags.payloads.then_some(t)
        }
        hooks::Event::Signal {
            signal: SignalOut::Exit { reason: t, .. } | SignalOut::Down { reason: t },
            ..
        } => flags.payloads.then_some(t),
        hooks::Event::Nondet { value, .. } => Some(value),
        _ => None,
    };
    etf.clear();
    if let Some(t) = term {
        trace_term::etf::encode(t, etf);
    }
    let etf: &'e Vec<u8> = etf;
    let bytes = term.map(|_| &etf[..]);
    match *ev {
        hooks::Event::Spawn {
            child,
            link,
            monitor,
        } => EventRef::Spawn {
            child: id_of(child).unwrap_or(ProcId(u32::MAX)),
            pid: child.number(),
            link,
            monitor,
        },
        hooks::Event::Send { to, .. } => EventRef::Send {
            msg: own,
            to: dest(id_of, to),
            payload: bytes,
        },
        hooks::Event::Deliver { id } => EventRef::Deliver {
            msg: msg(id_of, id),
        },
        hooks::Event::Receive { id, .. } => EventRef::Receive {
            msg: msg(id_of, id),
        },
        hooks::Event::Timeout => EventRef::Timeout,
        hooks::Event::Signal { to, signal, .. } => EventRef::Signal {
            signal: own,
            to: dest(id_of, to),
            kind: signal_kind_ref(signal, bytes),
        },
        hooks::Event::SignalTaken { id, effect: e } => EventRef::SignalTaken {
            signal: msg(id_of, id),
            effect: effect(e),
        },
        hooks::Event::Nondet { kind, .. } => EventRef::Nondet {
            kind: nondet_kind(kind),
            value: bytes.unwrap_or_default(),
        },
        hooks::Event::Output { seq, bytes } => EventRef::Output {
            seq,
            bytes: flags.output.then_some(bytes),
        },
        hooks::Event::Exit { .. } => EventRef::Exit { reason: bytes },
    }
}
