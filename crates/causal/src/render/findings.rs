//! The findings of a consistency check as text (one line each) and as JSON
//! objects: inconsistencies, messages overtaken, what could not be checked,
//! what was left behind, and the verdict.

use super::namer::{a, count, Namer};
use crate::facts::{Destination, EventId, ReceiptKind, SignalClass};
use crate::inconsistency::{Inconsistency, Overtaken, Unverifiable, Wait, WaitReason};
use crate::validate::{Arrival, Report, Unreceived};
use serde_json::{json, Value};
use std::fmt::Write;
use trace_format::text::{effect_name, pid_text};
use trace_format::{MsgId, ProcId};

fn wait_text(n: &Namer<'_>, w: &Wait, next: &Wait) -> String {
    let what = match w.why {
        WaitReason::Signal(m) => {
            format!("receive {} needs its send {}", n.msg(m), n.event(w.needs))
        }
        WaitReason::Shared => format!("operates on a shared object after {}", n.event(w.needs)),
        WaitReason::Spawn => format!(
            "is the first event of {}: it needs its spawn {}",
            n.proc(w.event.proc),
            n.event(w.needs)
        ),
    };
    // The awaited event is the next waiting one, or comes after it in its process.
    if w.needs == next.event {
        format!("{} {what}", n.event_at(w.event))
    } else {
        format!(
            "{} {what}, which comes after {}",
            n.event_at(w.event),
            n.event(next.event)
        )
    }
}

/// One inconsistency as one line of text.
pub fn inconsistency(n: &Namer<'_>, i: &Inconsistency) -> String {
    use Inconsistency::*;
    match i {
        NoSuchSignal {
            receipt,
            kind,
            msg,
            sent,
        } => no_such_signal(n, *receipt, *kind, *msg, *sent),
        WrongReceiver {
            receipt,
            kind,
            msg,
            send,
            dest,
        } => format!(
            "{} {} {}, but {} sent it to {}",
            n.event_at(*receipt),
            ReceiptKind::name(*kind),
            n.msg(*msg),
            n.event(*send),
            n.destination(*dest)
        ),
        WrongKind {
            receipt,
            kind,
            msg,
            send,
            class,
        } => wrong_kind(n, *receipt, *kind, *msg, *send, *class),
        Twice {
            msg,
            kind,
            receipts,
        } => twice(n, *msg, *kind, receipts),
        NotArrived {
            receipt,
            msg,
            class,
        } => not_arrived(n, *receipt, *msg, *class),
        Fifo(o) => format!(
            "{}: signals from one process arrive in the order sent",
            overtaken(n, o)
        ),
        AfterExit { exit, event, kind } => format!(
            "{} {kind} after {} exited at {}",
            n.event_at(*event),
            n.proc(exit.proc),
            n.event(*exit)
        ),
        SpawnUnknown { spawn, child, pid } => format!(
            "{} spawns process {} {}, which the log does not hold",
            n.event_at(*spawn),
            child.0,
            pid_text(*pid)
        ),
        SpawnPid {
            spawn,
            child,
            logged,
            table,
        } => format!(
            "{} spawns {} as {}, but the process table says {}",
            n.event_at(*spawn),
            n.proc(*child),
            pid_text(*logged),
            pid_text(*table)
        ),
        SpawnedTwice {
            child,
            first,
            again,
        } => format!(
            "{} is spawned twice: at {} and at {}",
            n.label(*child),
            n.event(*first),
            n.event(*again)
        ),
        SpawnParent {
            spawn,
            child,
            table,
        } => spawn_parent(n, *spawn, *child, *table),
        NeverSpawned { process, parent } => format!(
            "{} is not the entry process, but no spawn created it{}",
            n.label(*process),
            parent.map_or(String::new(), |p| format!(
                " (the process table names {} as its parent)",
                n.label(p)
            ))
        ),
        Cycle { waits } => {
            let parts: Vec<String> = waits
                .iter()
                .enumerate()
                .map(|(k, w)| wait_text(n, w, &waits[(k + 1) % waits.len()]))
                .collect();
            format!("happened-before cycle: {}", parts.join("; "))
        }
        SameTurn(t) => format!(
            "{} and {} both claim operation @{} of {}",
            n.event_at(t.first),
            n.event_at(t.second),
            t.seq,
            object_text(n, t.object)
        ),
    }
}

/// A shared object as the printer of events writes it: `table P.1/0`.
fn object_text(n: &Namer<'_>, o: trace_format::ObjectId) -> String {
    match o.kind {
        trace_format::ObjectKind::PersistentTerm => o.kind.name().into(),
        k => format!("{} {}/{}", k.name(), n.proc(o.creator), o.serial),
    }
}

/// A receipt of a signal its sender's log does not hold.
fn no_such_signal(
    n: &Namer<'_>,
    receipt: EventId,
    kind: ReceiptKind,
    msg: MsgId,
    sent: Option<u64>,
) -> String {
    match sent {
        None => format!(
            "{} {} of signal {}:{}, but the log holds no process {}",
            n.event_at(receipt),
            ReceiptKind::name(kind),
            msg.sender.0,
            msg.index,
            msg.sender.0
        ),
        Some(k) => format!(
            "{} {} {}, but {} sent {}",
            n.event_at(receipt),
            ReceiptKind::name(kind),
            n.msg(msg),
            n.label(msg.sender),
            match k {
                0 => "no signal".to_string(),
                1 => format!("only one signal, {}:0", n.proc(msg.sender)),
                k => format!(
                    "only {} ({}:0 to {}:{})",
                    count(k, "signal", "signals"),
                    n.proc(msg.sender),
                    n.proc(msg.sender),
                    k - 1
                ),
            }
        ),
    }
}

/// A receipt of the wrong kind for the signal's class.
fn wrong_kind(
    n: &Namer<'_>,
    receipt: EventId,
    kind: ReceiptKind,
    msg: MsgId,
    send: EventId,
    class: SignalClass,
) -> String {
    let why = match kind {
        ReceiptKind::Deliver => "signals are taken, not delivered",
        ReceiptKind::Taken(trace_format::SignalEffect::Converted) if !class.is_message() => {
            "only exit and 'DOWN' signals turn into messages"
        }
        ReceiptKind::Taken(_) => "messages are delivered and received, not taken",
        ReceiptKind::Receive => "it cannot be received",
    };
    let effect = match kind {
        ReceiptKind::Taken(e) => format!(" {}", effect_name(e)),
        _ => String::new(),
    };
    format!(
        "{} {} {}{effect}, but {} is {} (sent at {}): {why}",
        n.event_at(receipt),
        ReceiptKind::name(kind),
        n.msg(msg),
        n.msg(msg),
        a(class.noun()),
        n.event(send)
    )
}

/// A signal delivered, received or taken more than once.
fn twice(n: &Namer<'_>, msg: MsgId, kind: ReceiptKind, receipts: &[EventId]) -> String {
    let what = match kind {
        ReceiptKind::Deliver => "delivered",
        ReceiptKind::Receive => "received",
        ReceiptKind::Taken(_) => "taken",
    };
    let at: Vec<String> = receipts.iter().map(|e| n.event(*e)).collect();
    format!(
        "{} is {what} {} times: at {}",
        n.msg(msg),
        receipts.len().max(2),
        at.join(", ")
    )
}

/// A receive of a message that had not arrived.
fn not_arrived(n: &Namer<'_>, receipt: EventId, msg: MsgId, class: SignalClass) -> String {
    if class.is_message() {
        format!(
            "{} receive {}, but {} was not delivered to {} before (this log records deliveries)",
            n.event_at(receipt),
            n.msg(msg),
            n.msg(msg),
            n.proc(receipt.proc)
        )
    } else {
        format!(
            "{} receive {}, but {} is {} that {} had not turned into a message before",
            n.event_at(receipt),
            n.msg(msg),
            n.msg(msg),
            a(class.noun()),
            n.proc(receipt.proc)
        )
    }
}

/// A spawn of a child the process table gives another parent.
fn spawn_parent(n: &Namer<'_>, spawn: EventId, child: ProcId, table: Option<ProcId>) -> String {
    if child == ProcId(0) {
        format!(
            "{} spawns the entry process {}",
            n.event_at(spawn),
            n.label(child)
        )
    } else {
        format!(
            "{} spawns {}, but the process table names {} as its parent",
            n.event_at(spawn),
            n.label(child),
            table.map_or("no process".into(), |t| n.label(t))
        )
    }
}

/// The events an inconsistency involves.
pub fn involved(i: &Inconsistency) -> Vec<EventId> {
    use Inconsistency::*;
    match i {
        NoSuchSignal { receipt, .. } | NotArrived { receipt, .. } => vec![*receipt],
        WrongReceiver { receipt, send, .. } | WrongKind { receipt, send, .. } => {
            vec![*send, *receipt]
        }
        Twice { receipts, .. } => receipts.clone(),
        Fifo(o) => vec![o.first.0, o.then.0],
        AfterExit { exit, event, .. } => vec![*exit, *event],
        SpawnUnknown { spawn, .. } | SpawnPid { spawn, .. } | SpawnParent { spawn, .. } => {
            vec![*spawn]
        }
        SpawnedTwice { first, again, .. } => vec![*first, *again],
        NeverSpawned { .. } => Vec::new(),
        Cycle { waits } => waits.iter().flat_map(|w| [w.event, w.needs]).collect(),
        SameTurn(t) => vec![t.first, t.second],
    }
}

/// `P.1 <0.81.0> got P:2 (at P.1#0) before P:0 (at P.1#1), but P sent them
/// the other way round`.
pub fn overtaken(n: &Namer<'_>, o: &Overtaken) -> String {
    let mut s = format!(
        "{} got {} (at {}) before {} (at {}), but {} sent them the other way round",
        n.label(o.receiver),
        n.msg(o.first.1),
        n.event(o.first.0),
        n.msg(o.then.1),
        n.event(o.then.0),
        n.proc(o.first.1.sender)
    );
    if o.more > 0 {
        let _ = write!(
            s,
            " ({} more from {})",
            count(o.more, "inversion", "inversions"),
            n.proc(o.first.1.sender)
        );
    }
    s
}

/// An overtaken message, with why it is not counted as a problem.
pub fn overtaken_message(n: &Namer<'_>, o: &Overtaken) -> String {
    format!(
        "{}; {} may be a timer's message (erlang:send_after, erlang:start_timer), \
         which arrives when the timer fires: the log does not say",
        overtaken(n, o),
        n.msg(o.then.1)
    )
}

pub fn unverifiable(n: &Namer<'_>, u: &Unverifiable) -> String {
    match u {
        Unverifiable::Receipt { receipt, kind, msg } => {
            let sender = n.model.process(msg.sender);
            let why = match sender {
                Some(p) => format!("{}'s readable log ends at event {}", n.proc(p.id), p.events),
                None => format!("the log holds no process {}", msg.sender.0),
            };
            format!(
                "{} {} {}: cannot be checked, {why}",
                n.event_at(*receipt),
                ReceiptKind::name(*kind),
                match sender {
                    Some(_) => n.msg(*msg),
                    None => format!("{}:{}", msg.sender.0, msg.index),
                }
            )
        }
        Unverifiable::Spawn { process } => {
            format!("{}: no readable spawn created it", n.label(*process))
        }
    }
}

fn arrival_text(n: &Namer<'_>, u: &Unreceived) -> String {
    let to = match u.dest {
        Destination::Proc(p) => n.proc(p),
        _ => "its receiver".into(),
    };
    let mut s = match (u.arrival, u.class.is_message()) {
        (Arrival::InMailbox, _) => format!("left in {to}'s mailbox"),
        (Arrival::NotArrived, true) => "never delivered".into(),
        (Arrival::NotArrived, false) => "never taken".into(),
        (Arrival::Unknown, _) => "never received".into(),
    };
    if u.receiver_exited {
        let _ = write!(s, " ({to} exited)");
    }
    s
}

pub fn unreceived(n: &Namer<'_>, u: &Unreceived) -> String {
    format!(
        "{} {} to {}, sent at {}: {}",
        n.msg(u.msg),
        u.class.noun(),
        n.destination(u.dest),
        n.event(u.send),
        arrival_text(n, u)
    )
}

pub fn never_exited(n: &Namer<'_>, p: ProcId) -> String {
    let events = n.model.process(p).map_or(0, |f| f.events);
    format!(
        "{}: no exit ({})",
        n.label(p),
        count(events, "event", "events")
    )
}

/// The one-line verdict.
pub fn verdict(r: &Report) -> String {
    let mut notes = Vec::new();
    if !r.unreceived.is_empty() {
        notes.push(format!(
            "{} never received",
            count(r.unreceived.len() as u64, "signal", "signals")
        ));
    }
    if !r.overtaken.is_empty() {
        notes.push(format!(
            "{} overtaken",
            count(r.overtaken.len() as u64, "message", "messages")
        ));
    }
    if !r.never_exited.is_empty() {
        notes.push(format!(
            "{} never exited",
            count(r.never_exited.len() as u64, "process", "processes")
        ));
    }
    if !r.exits_recorded {
        notes.push("exits are not in this log".to_string());
    }
    if !r.unverifiable.is_empty() {
        notes.push(format!(
            "{} not checkable (the log is incomplete)",
            count(r.unverifiable.len() as u64, "fact", "facts")
        ));
    }
    let size = format!(
        "{}, {}",
        count(r.processes, "process", "processes"),
        count(r.events, "event", "events")
    );
    let mut s = if r.is_consistent() {
        format!("consistent: {size}, all in the derivation")
    } else {
        format!(
            "inconsistent: {}; {size}, {} in the derivation",
            count(r.inconsistencies.len() as u64, "problem", "problems"),
            r.ordered
        )
    };
    if !r.complete && r.is_consistent() {
        s = format!("{s} (as far as the log goes: it is incomplete)");
    }
    if !notes.is_empty() {
        let _ = write!(s, "; {}", notes.join(", "));
    }
    s
}

fn class_code(c: SignalClass) -> &'static str {
    match c {
        SignalClass::Message => "message",
        SignalClass::Link => "link",
        SignalClass::Unlink => "unlink",
        SignalClass::Exit { .. } => "exit",
        SignalClass::Monitor => "monitor",
        SignalClass::Demonitor => "demonitor",
        SignalClass::Down => "down",
    }
}

/// The processes of `events`, once each: symbolic name and raw pid.
fn processes(n: &Namer<'_>, events: &[EventId]) -> Vec<Value> {
    let mut seen = Vec::new();
    for e in events {
        if !seen.contains(&e.proc) {
            seen.push(e.proc);
        }
    }
    seen.into_iter()
        .map(|p| {
            json!({
                "name": &*n.proc(p),
                "pid": n.model.process(p).map(|f| pid_text(f.pid)),
            })
        })
        .collect()
}

/// The report as JSON objects, one per finding and the verdict last.
pub fn report_json(n: &Namer<'_>, r: &Report) -> Vec<Value> {
    let events = |v: Vec<EventId>| -> Vec<String> { v.into_iter().map(|e| n.event(e)).collect() };
    let mut out = Vec::new();
    for i in &r.inconsistencies {
        let ev = involved(i);
        out.push(json!({
            "type": "inconsistency",
            "problem": i.code(),
            "processes": processes(n, &ev),
            "events": events(ev),
            "text": inconsistency(n, i),
        }));
    }
    for u in &r.unverifiable {
        let ev = match u {
            Unverifiable::Receipt { receipt, .. } => vec![n.event(*receipt)],
            Unverifiable::Spawn { .. } => Vec::new(),
        };
        out.push(json!({"type": "unverifiable", "events": ev, "text": unverifiable(n, u)}));
    }
    for o in &r.overtaken {
        out.push(json!({
            "type": "overtaken",
            "events": [n.event(o.first.0), n.event(o.then.0)],
            "more": o.more,
            "text": overtaken_message(n, o),
        }));
    }
    for u in &r.unreceived {
        out.push(json!({
            "type": "unreceived",
            "msg": n.msg(u.msg),
            "signal": class_code(u.class),
            "send": n.event(u.send),
            "to": match u.dest {
                Destination::Proc(p) => Value::from(&*n.proc(p)),
                _ => Value::Null,
            },
            "arrival": match u.arrival {
                Arrival::NotArrived => "not_arrived",
                Arrival::InMailbox => "in_mailbox",
                Arrival::Unknown => "unknown",
            },
            "receiver_exited": u.receiver_exited,
        }));
    }
    for &p in &r.never_exited {
        let f = n.model.process(p);
        out.push(json!({
            "type": "never_exited",
            "name": &*n.proc(p),
            "pid": f.map(|f| pid_text(f.pid)),
            "events": f.map_or(0, |f| f.events),
        }));
    }
    out.push(json!({
        "type": "verdict",
        "consistent": r.is_consistent(),
        "complete": r.complete,
        "processes": r.processes,
        "events": r.events,
        "ordered": r.ordered,
        "inconsistencies": r.inconsistencies.len(),
        "unverifiable": r.unverifiable.len(),
        "unreceived": r.unreceived.len(),
        "overtaken": r.overtaken.len(),
        "to_foreign": r.to_foreign,
        "never_exited": r.never_exited.len(),
        "text": verdict(r),
    }));
    out
}
