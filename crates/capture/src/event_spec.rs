//! The EVENT syntax (docs/events.md): how a user names one process,
//! message or event of a log — `trace replay --until`, check's and diff's
//! reports, and every event `trace` prints can be pasted back.
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
//! [`EventSpec`] is the parsed form; the causal model finds the event it
//! names (`trace_causal::Model::resolve`).

use crate::cursor::{Cursor, SyntaxError};
use crate::names::{LookupError, Names, SymbolicName};
use std::fmt;
use trace_format::text::pid_text;
use trace_format::ProcId;

impl std::str::FromStr for SymbolicName {
    type Err = SyntaxError;

    fn from_str(s: &str) -> Result<Self, SyntaxError> {
        let mut c = Cursor::new(s);
        c.skip_space();
        let name = c.symbolic_name()?;
        c.skip_space();
        c.end()?;
        Ok(name)
    }
}

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
            ProcRef::Pid(p) => f.write_str(&pid_text(*p)),
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

impl Names {
    /// The process a user named, by symbolic name or raw pid.
    pub fn resolve(&self, p: &ProcRef) -> Result<ProcId, LookupError> {
        match p {
            ProcRef::Name(n) => self.lookup(n),
            ProcRef::Pid(pid) => self.lookup_pid(*pid),
        }
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
