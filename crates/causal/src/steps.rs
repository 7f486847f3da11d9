//! A rebuilt derivation with its events decoded, one step at a time, for
//! printing. Each process keeps one decoded block at a time, so memory is a
//! block per process that has not finished, whatever the log's size.

use crate::derive::DeriveOutcome;
use crate::model::{EventId, Model, Slot};
use std::collections::VecDeque;
use std::ops::Range;
use trace_format::{Event, EventRef, FormatError, LogReader, MsgId, ProcId};

/// One step of a derivation.
#[derive(Clone, Debug)]
pub struct Step<'a> {
    /// From 1.
    pub number: u64,
    pub event: EventId,
    /// Time since the run started (ns), when the log has timestamps.
    pub time: Option<u64>,
    pub data: &'a Event,
    /// For a send or signal: its identity.
    pub msg: Option<MsgId>,
}

impl Step<'_> {
    /// The borrowed view `trace_format::text` renders.
    pub fn as_event_ref(&self) -> EventRef<'_> {
        event_ref(self.data, self.msg)
    }
}

fn event_ref(e: &Event, msg: Option<MsgId>) -> EventRef<'_> {
    let id = msg.unwrap_or(MsgId {
        sender: ProcId(0),
        index: 0,
    });
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
            msg: id,
            to: *to,
            payload: payload.as_ref().map(|p| p.bytes()),
        },
        Event::Deliver { msg } => EventRef::Deliver { msg: *msg },
        Event::Receive { msg } => EventRef::Receive { msg: *msg },
        Event::Timeout => EventRef::Timeout,
        Event::Signal { to, kind } => EventRef::Signal {
            signal: id,
            to: *to,
            kind: trace_format::SignalKindRef::of(kind),
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
        Event::Exit { reason } => EventRef::Exit {
            reason: reason.as_ref().map(|p| p.bytes()),
        },
    }
}

/// Decoding state of one process.
struct Cursor {
    blocks: Range<usize>,
    buf: VecDeque<(u64, Option<u64>, Event)>,
    signals: u64,
}

impl Model {
    /// Rebuilds a derivation and hands `f` each step with its event decoded,
    /// in order. `limit` restricts it as in [`Model::derive_within`]. `f`
    /// returns false to stop early (e.g. the output was closed).
    pub fn for_each_step(
        &self,
        reader: &LogReader,
        limit: Option<&[u64]>,
        mut f: impl FnMut(&Step<'_>) -> bool,
    ) -> Result<DeriveOutcome, FormatError> {
        let mut cursors: Vec<Cursor> = self
            .procs
            .iter()
            .map(|_| Cursor {
                blocks: 0..0,
                buf: VecDeque::new(),
                signals: 0,
            })
            .collect();
        // Blocks are grouped by process in table order.
        let mut at = 0usize;
        let infos: Vec<_> = reader.blocks().collect();
        for (s, p) in self.procs.iter().enumerate() {
            while at < infos.len() && infos[at].process < p.id {
                at += 1;
            }
            let start = at;
            while at < infos.len() && infos[at].process == p.id {
                at += 1;
            }
            cursors[s].blocks = start..at;
        }
        let mut number = 0u64;
        let mut error: Option<FormatError> = None;
        let mut go_on = true;
        let outcome = self.derive_slots(limit, |s: Slot, from, to| {
            let c = &mut cursors[s as usize];
            let me = self.id(s);
            for i in from as u64..to as u64 {
                if !go_on || error.is_some() {
                    return;
                }
                while c.buf.front().is_some_and(|(j, _, _)| *j < i) {
                    c.buf.pop_front();
                }
                if c.buf.is_empty() {
                    let Some(b) = c.blocks.next() else {
                        return;
                    };
                    let buf = &mut c.buf;
                    if let Err(e) = reader
                        .for_each_event_in_block(b, |j, t, e| buf.push_back((j, t, e.to_owned())))
                    {
                        error = Some(e);
                        return;
                    }
                }
                let Some((j, time, data)) = c.buf.pop_front() else {
                    return;
                };
                let msg = data.sends_signal().then(|| {
                    c.signals += 1;
                    MsgId {
                        sender: me,
                        index: c.signals - 1,
                    }
                });
                number += 1;
                go_on = f(&Step {
                    number,
                    event: EventId::new(me, j),
                    time,
                    data: &data,
                    msg,
                });
            }
        });
        match error {
            Some(e) => Err(e),
            None => Ok(outcome),
        }
    }
}
