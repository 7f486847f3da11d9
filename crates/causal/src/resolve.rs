//! Finding the event a user named (the EVENT syntax, parsed by
//! trace-capture) in this log's model: each form resolves to one event, or
//! to an error that says why the log has no such event.

use crate::facts::{EventId, ReceiptKind};
use crate::model::Model;
use std::fmt;
use trace_capture::{EventSpec, LookupError, MsgRef, ProcRef};
use trace_format::{MsgId, ProcId};

/// Why an event name names no event of this log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResolveError {
    pub spec: String,
    pub reason: String,
}

impl fmt::Display for ResolveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.spec, self.reason)
    }
}

impl std::error::Error for ResolveError {}

/// The process a user named.
pub fn resolve_proc(model: &Model, p: &ProcRef) -> Result<ProcId, LookupError> {
    model.names.resolve(p)
}

/// The message (signal) a user named, if its sender's log holds it.
pub fn resolve_msg(model: &Model, m: &MsgRef) -> Result<MsgId, String> {
    let sender = resolve_proc(model, &m.sender).map_err(|e| e.to_string())?;
    let msg = MsgId {
        sender,
        index: m.index,
    };
    let sent = model.process(sender).map_or(0, |p| p.signals_sent());
    if m.index >= sent {
        let label = model.names.short(sender);
        return Err(match sent {
            0 => format!("{label} sent no message or signal"),
            1 => format!("{label} sent one signal, {label}:0"),
            n => format!("{label} sent {n} signals, {label}:0 to {label}:{}", n - 1),
        });
    }
    Ok(msg)
}

/// The event a user named.
pub fn resolve(model: &Model, spec: &EventSpec) -> Result<EventId, ResolveError> {
    let fail = |reason: String| ResolveError {
        spec: spec.to_string(),
        reason,
    };
    let proc = |p: &ProcRef| resolve_proc(model, p).map_err(|e| fail(e.to_string()));
    let msg = |m: &MsgRef| resolve_msg(model, m).map_err(fail);
    let receipt = |m: &MsgRef, want: fn(ReceiptKind) -> bool, what: &str| {
        let id = msg(m)?;
        model
            .receipts_of_msg(id)
            .into_iter()
            .find(|(_, k)| want(*k))
            .map(|(e, _)| e)
            .ok_or_else(|| fail(format!("{m} was never {what}")))
    };
    match spec {
        EventSpec::Nth { proc: p, index } => {
            let id = proc(p)?;
            let n = model.process(id).map_or(0, |f| f.events);
            if *index < n {
                Ok(EventId::new(id, *index))
            } else {
                let label = model.names.short(id);
                Err(fail(match n {
                    0 => format!("the log holds no event of {label}"),
                    1 => format!("{label} has one event, {label}#0"),
                    n => format!("{label} has {n} events, {label}#0 to {label}#{}", n - 1),
                }))
            }
        }
        EventSpec::Send(m) => {
            let id = msg(m)?;
            Ok(model
                .send_of(id)
                .map(|(e, _, _)| e)
                .expect("resolve_msg checked it"))
        }
        EventSpec::Receive(m) => receipt(m, |k| k == ReceiptKind::Receive, "received"),
        EventSpec::Deliver(m) => {
            if !model.deliveries {
                return Err(fail(
                    "this log has no deliveries (record with --deliveries)".into(),
                ));
            }
            receipt(m, |k| k == ReceiptKind::Deliver, "delivered")
        }
        EventSpec::Taken(m) => receipt(m, |k| matches!(k, ReceiptKind::Taken(_)), "taken"),
        EventSpec::Spawn(p) => {
            let id = proc(p)?;
            model.spawn_of(id).ok_or_else(|| {
                fail(if id == ProcId(0) {
                    "P is the entry process: no spawn created it".into()
                } else {
                    format!("no spawn in the log created {}", model.names.short(id))
                })
            })
        }
        EventSpec::Exit(p) => {
            let id = proc(p)?;
            let f = model.process(id).expect("resolved ids exist");
            f.exit
                .map(|x| EventId::new(id, x))
                .ok_or_else(|| fail(format!("{} never exited", model.names.short(id))))
        }
    }
}
