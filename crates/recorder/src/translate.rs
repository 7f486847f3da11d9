//! How an engine event becomes a log event: the one mapping from the
//! runtime's vocabulary (raw pids, terms) to the log's (dense process ids,
//! ETF payloads). The recording Observer uses its parts on its fast path; the
//! replayer uses [`log_event`] to compare what the engine does with the log.

use crate::observer::{RecordFlags, OTHER_NONDET};
use trace_format::{Dest, Event, MsgId, NondetKind, Payload, ProcId, SignalEffect, SignalKind};
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
    match s {
        SignalOut::Link => SignalKind::Link,
        SignalOut::Unlink => SignalKind::Unlink,
        SignalOut::Monitor => SignalKind::Monitor,
        SignalOut::Demonitor => SignalKind::Demonitor,
        SignalOut::Exit { reason, linked } => SignalKind::Exit {
            reason: payload(flags, reason),
            linked,
        },
        SignalOut::Down { reason } => SignalKind::Down {
            reason: payload(flags, reason),
        },
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
    match *ev {
        hooks::Event::Spawn {
            child,
            link,
            monitor,
        } => Event::Spawn {
            child: id_of(child).unwrap_or(ProcId(u32::MAX)),
            pid: child.number(),
            link,
            monitor,
        },
        hooks::Event::Send { to, payload: p, .. } => Event::Send {
            to: dest(id_of, to),
            payload: payload(flags, p),
        },
        hooks::Event::Deliver { id } => Event::Deliver {
            msg: msg(id_of, id),
        },
        hooks::Event::Receive { id, .. } => Event::Receive {
            msg: msg(id_of, id),
        },
        hooks::Event::Timeout => Event::Timeout,
        hooks::Event::Signal { to, signal, .. } => Event::Signal {
            to: dest(id_of, to),
            kind: signal_kind(flags, signal),
        },
        hooks::Event::SignalTaken { id, effect: e } => Event::SignalTaken {
            signal: msg(id_of, id),
            effect: effect(e),
        },
        hooks::Event::Nondet { kind, value } => Event::Nondet {
            kind: nondet_kind(kind),
            value: Payload(trace_term::etf::to_vec(value)),
        },
        hooks::Event::Output { seq, bytes } => Event::Output {
            seq,
            bytes: flags.output.then(|| bytes.to_vec()),
        },
        hooks::Event::Exit { reason } => Event::Exit {
            reason: payload(flags, reason),
        },
    }
}
