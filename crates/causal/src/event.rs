//! The EVENT syntax (docs/events.md): how a user names one event of a log on
//! the command line — `trace replay --until`, and later dump, diff and check.
//!
//! ```text
//! P.2#5            event 5 of P.2's log (from 0, as trace dump numbers them)
//! send(P.1:3)      the send of message P.1:3 (signal 3 of P.1, from 0)
//! receive(P.1:3)   its consumption by a receive
//! deliver(P.1:3)   its arrival in the mailbox (logs recorded with --deliveries)
//! taken(P.1:3)     where a non-message signal (link, exit, 'DOWN', ...) was taken
//! spawn(P.2)       the spawn that created P.2
//! exit(P.2)        P.2's exit
//! ```
//!
//! A process is a symbolic name (`P.2.1`) or a raw pid (`<0.83.0>`).
//! [`EventSpec`] is the parsed form; [`Model::resolve`] finds the event.

use crate::model::{EventId, Model, ReceiptKind};
use crate::name::{LookupError, SymbolicName};
use crate::syntax::{Cursor, SyntaxError};
use std::fmt;
use trace_format::{MsgId, ProcId};

/// A process as a user names it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ProcRef {
    Name(SymbolicName),
    /// The middle number of a raw pid `<0.N.0>`.
    Pid(u64),
}

impl fmt::Display for ProcRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProcRef::Name(n) => write!(f, "{n}"),
            ProcRef::Pid(p) => write!(f, "<0.{p}.0>"),
        }
    }
}

impl std::str::FromStr for ProcRef {
    type Err = SyntaxError;

    fn from_str(s: &str) -> Result<Self, SyntaxError> {
        let mut c = Cursor::new(s);
        c.skip_space();
        let p = proc_ref(&mut c)?;
        c.skip_space();
        c.end()?;
        Ok(p)
    }
}

/// A message (or any signal) as a user names it: its sender and the
/// sender's signal index, `P.1:3`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MsgRef {
    pub sender: ProcRef,
    pub index: u64,
}

impl fmt::Display for MsgRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.sender, self.index)
    }
}

/// An event as a user names it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum EventSpec {
    /// The event at this index of the process's log.
    Nth {
        proc: ProcRef,
        index: u64,
    },
    Send(MsgRef),
    Receive(MsgRef),
    Deliver(MsgRef),
    Taken(MsgRef),
    Spawn(ProcRef),
    Exit(ProcRef),
}

impl fmt::Display for EventSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EventSpec::Nth { proc, index } => write!(f, "{proc}#{index}"),
            EventSpec::Send(m) => write!(f, "send({m})"),
            EventSpec::Receive(m) => write!(f, "receive({m})"),
            EventSpec::Deliver(m) => write!(f, "deliver({m})"),
            EventSpec::Taken(m) => write!(f, "taken({m})"),
            EventSpec::Spawn(p) => write!(f, "spawn({p})"),
            EventSpec::Exit(p) => write!(f, "exit({p})"),
        }
    }
}

const EVENT_FORMS: &str = "an event: P.2#5, send(P.1:0), receive(P.1:0), deliver(P.1:0), \
taken(P.1:0), spawn(P.2) or exit(P.2) (a process is a symbolic name like P.2.1 or a pid like <0.83.0>)";

fn proc_ref(c: &mut Cursor<'_>) -> Result<ProcRef, SyntaxError> {
    match c.peek() {
        Some('P') => Ok(ProcRef::Name(c.symbolic_name()?)),
        Some('<') => Ok(ProcRef::Pid(c.pid()?)),
        _ => Err(c.error("a process: a symbolic name (P, P.2.1) or a pid (<0.83.0>)")),
    }
}

fn msg_ref(c: &mut Cursor<'_>) -> Result<MsgRef, SyntaxError> {
    let sender = proc_ref(c)?;
    c.expect(
        ':',
        "':' and the sender's signal index (P.1:0 is the first signal P.1 sent)",
    )?;
    let index = c.number("the sender's signal index, from 0")?;
    Ok(MsgRef { sender, index })
}

impl std::str::FromStr for EventSpec {
    type Err = SyntaxError;

    fn from_str(s: &str) -> Result<Self, SyntaxError> {
        let mut c = Cursor::new(s);
        c.skip_space();
        let spec = match c.peek() {
            Some('P' | '<') => {
                let proc = proc_ref(&mut c)?;
                c.expect(
                    '#',
                    "'#' and an event index (P.2#0 is the first event of P.2)",
                )?;
                let index = c.number("an event index, from 0")?;
                EventSpec::Nth { proc, index }
            }
            _ => {
                let at = c.pos();
                let word = c.word();
                let make: fn(&mut Cursor<'_>) -> Result<EventSpec, SyntaxError> = match word {
                    "send" => |c| msg_ref(c).map(EventSpec::Send),
                    "receive" => |c| msg_ref(c).map(EventSpec::Receive),
                    "deliver" => |c| msg_ref(c).map(EventSpec::Deliver),
                    "taken" => |c| msg_ref(c).map(EventSpec::Taken),
                    "spawn" => |c| proc_ref(c).map(EventSpec::Spawn),
                    "exit" => |c| proc_ref(c).map(EventSpec::Exit),
                    _ => return Err(c.error_at(at, EVENT_FORMS)),
                };
                c.skip_space();
                c.expect('(', &format!("'(' after {word}"))?;
                c.skip_space();
                let spec = make(&mut c)?;
                c.skip_space();
                c.expect(')', "')'")?;
                spec
            }
        };
        c.skip_space();
        c.end()?;
        Ok(spec)
    }
}

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

impl Model {
    /// The process a user named.
    pub fn resolve_proc(&self, p: &ProcRef) -> Result<ProcId, LookupError> {
        match p {
            ProcRef::Name(n) => self.names.lookup(n),
            ProcRef::Pid(pid) => self.names.lookup_pid(*pid),
        }
    }

    /// The message (signal) a user named, if its sender's log holds it.
    pub fn resolve_msg(&self, m: &MsgRef) -> Result<MsgId, String> {
        let sender = self.resolve_proc(&m.sender).map_err(|e| e.to_string())?;
        let msg = MsgId {
            sender,
            index: m.index,
        };
        let sent = self.process(sender).map_or(0, |p| p.signals_sent());
        if m.index >= sent {
            let label = self.names.short(sender);
            return Err(match sent {
                0 => format!("{label} sent no message or signal"),
                1 => format!("{label} sent one signal, {label}:0"),
                n => format!("{label} sent {n} signals, {label}:0 to {label}:{}", n - 1),
            });
        }
        Ok(msg)
    }

    /// The event a user named.
    pub fn resolve(&self, spec: &EventSpec) -> Result<EventId, ResolveError> {
        let fail = |reason: String| ResolveError {
            spec: spec.to_string(),
            reason,
        };
        let proc = |p: &ProcRef| self.resolve_proc(p).map_err(|e| fail(e.to_string()));
        let msg = |m: &MsgRef| self.resolve_msg(m).map_err(fail);
        let receipt = |m: &MsgRef, want: fn(ReceiptKind) -> bool, what: &str| {
            let id = msg(m)?;
            self.receipts_of_msg(id)
                .into_iter()
                .find(|(_, k)| want(*k))
                .map(|(e, _)| e)
                .ok_or_else(|| fail(format!("{m} was never {what}")))
        };
        match spec {
            EventSpec::Nth { proc: p, index } => {
                let id = proc(p)?;
                let n = self.process(id).map_or(0, |f| f.events);
                if *index < n {
                    Ok(EventId::new(id, *index))
                } else {
                    let label = self.names.short(id);
                    Err(fail(match n {
                        0 => format!("the log holds no event of {label}"),
                        1 => format!("{label} has one event, {label}#0"),
                        n => format!("{label} has {n} events, {label}#0 to {label}#{}", n - 1),
                    }))
                }
            }
            EventSpec::Send(m) => {
                let id = msg(m)?;
                Ok(self
                    .send_of(id)
                    .map(|(e, _, _)| e)
                    .expect("resolve_msg checked it"))
            }
            EventSpec::Receive(m) => receipt(m, |k| k == ReceiptKind::Receive, "received"),
            EventSpec::Deliver(m) => {
                if !self.deliveries {
                    return Err(fail(
                        "this log has no deliveries (record with --deliveries)".into(),
                    ));
                }
                receipt(m, |k| k == ReceiptKind::Deliver, "delivered")
            }
            EventSpec::Taken(m) => receipt(m, |k| matches!(k, ReceiptKind::Taken(_)), "taken"),
            EventSpec::Spawn(p) => {
                let id = proc(p)?;
                self.spawn_of(id).ok_or_else(|| {
                    fail(if id == ProcId(0) {
                        "P is the entry process: no spawn created it".into()
                    } else {
                        format!("no spawn in the log created {}", self.names.short(id))
                    })
                })
            }
            EventSpec::Exit(p) => {
                let id = proc(p)?;
                let f = self.process(id).expect("resolved ids exist");
                f.exit
                    .map(|x| EventId::new(id, x))
                    .ok_or_else(|| fail(format!("{} never exited", self.names.short(id))))
            }
        }
    }
}
