//! The one pass that decodes the log: every block in parallel, each event
//! offered to the predicates that need what only the decoded event holds
//! (payloads, reasons, nondeterministic values, timeouts). What matches is
//! kept as *hits*; everything else about events — who spawned, sent,
//! received what — comes from the causal model without decoding again
//! ([`super::source`]).
//!
//! A `receive` names its message but does not hold it, so a predicate on
//! what a process received is matched where the message is: at its send,
//! with the receiver taken from the send's destination. Its hits are keyed
//! by the message (the sender's signal index) and joined with the receipts.

use super::matcher::{match_view, Env, Fixed, TermIn, View};
use super::resolve::Resolved;
use crate::compile::{CPred, CProp};
use crate::spec::EventKind;
use trace_format::{Dest, EventRef, LogReader, NondetKind, ProcId, SignalKindRef};
use trace_term::{Pid, Ref, Term};

/// What a hit is keyed by.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Keyed {
    /// The event's index in its process's log.
    Event,
    /// The signal index of the message (the hit lives with the sender).
    Message,
}

/// One predicate the pass feeds.
pub struct Task {
    pub prop: usize,
    pub pred: usize,
    pub keyed: Keyed,
}

/// Matches found, per task and process: `(key, values)`, in key order.
pub type Hits = Vec<Vec<Vec<(u64, Box<[Term]>)>>>;

/// Which predicates need the pass, and how their hits are keyed.
pub fn tasks(props: &[&CProp]) -> Vec<Task> {
    let mut tasks = Vec::new();
    for (i, p) in props.iter().enumerate() {
        for (k, pred) in p.preds.iter().enumerate() {
            let keyed = match pred.kind {
                EventKind::Timeout | EventKind::Nondet => Some(Keyed::Event),
                EventKind::Send | EventKind::Exit | EventKind::ExitSignal | EventKind::Down
                    if pred.reads_terms() =>
                {
                    Some(Keyed::Event)
                }
                EventKind::Receive
                | EventKind::Deliver
                | EventKind::Killed
                | EventKind::Unreceived
                    if pred.reads_terms() =>
                {
                    Some(Keyed::Message)
                }
                _ => None,
            };
            if let Some(keyed) = keyed {
                tasks.push(Task {
                    prop: i,
                    pred: k,
                    keyed,
                });
            }
        }
    }
    tasks
}

struct Ctx<'a> {
    props: &'a [&'a CProp],
    resolved: &'a [Resolved],
    tasks: &'a [Task],
    reader: &'a LogReader,
    nondet_names: &'a [String],
}

impl Ctx<'_> {
    fn pred(&self, t: &Task) -> (&CPred, &Env, &dyn Fixed) {
        let r = &self.resolved[t.prop];
        (&self.props[t.prop].preds[t.pred], &r.consts, r)
    }

    fn pid(&self, d: Dest) -> Option<u64> {
        match d {
            Dest::Proc(q) => self.reader.process(q).map(|p| p.pid),
            Dest::Foreign(n) => Some(n),
            Dest::Unknown => None,
        }
    }
}

fn term(bytes: Option<&[u8]>) -> TermIn<'_> {
    bytes.map_or(TermIn::Missing, TermIn::Etf)
}

/// The message an exit or 'DOWN' signal becomes when its receiver turns it
/// into one. A monitor's reference is not in the log: `#Ref<0.0.0.0>` stands
/// for it (match it with `_`).
fn converted(sender: u64, kind: &SignalKindRef<'_>) -> Option<Term> {
    let (tag, reason) = match kind {
        SignalKindRef::Exit { reason, .. } => ("EXIT", reason),
        SignalKindRef::Down { reason } => ("DOWN", reason),
        _ => return None,
    };
    let reason = trace_term::etf::decode((*reason)?).ok()?;
    let pid = Term::Pid(Pid(sender));
    Some(if tag == "EXIT" {
        Term::tuple(vec![Term::atom("EXIT"), pid, reason])
    } else {
        Term::tuple(vec![
            Term::atom("DOWN"),
            Term::Ref(Ref(0)),
            Term::atom("process"),
            pid,
            reason,
        ])
    })
}

/// Decodes every block and collects the hits of `tasks`.
pub fn scan(
    reader: &LogReader,
    props: &[&CProp],
    resolved: &[Resolved],
    tasks: &[Task],
    lens: &[u64],
) -> Hits {
    let nprocs = reader.processes().len();
    let mut hits: Hits = tasks.iter().map(|_| vec![Vec::new(); nprocs]).collect();
    if tasks.is_empty() {
        return hits;
    }
    let cx = Ctx {
        props,
        resolved,
        tasks,
        reader,
        nondet_names: &reader.header().nondet_names,
    };
    let per_block = reader.par_map_each_block(|ev| {
        let info = *ev.info();
        let mut out: Vec<(u32, u64, Box<[Term]>)> = Vec::new();
        let me = info.pid;
        for (index, e) in (info.first_event..).zip(ev.by_ref()) {
            visit(&cx, me, index, &e, &mut out);
        }
        (info.process, out)
    });
    for (process, out) in per_block.into_iter().flatten() {
        let slot = process.0 as usize;
        for (task, key, vals) in out {
            let t = &tasks[task as usize];
            // The causal model ends a process's log at its first unreadable
            // block; nothing past that point exists for the check either.
            if t.keyed == Keyed::Event && key >= lens.get(slot).copied().unwrap_or(0) {
                continue;
            }
            if let Some(v) = hits[task as usize].get_mut(slot) {
                v.push((key, vals));
            }
        }
    }
    let _ = ProcId(0);
    hits
}

fn visit(
    cx: &Ctx<'_>,
    me: u64,
    index: u64,
    e: &EventRef<'_>,
    out: &mut Vec<(u32, u64, Box<[Term]>)>,
) {
    for (i, t) in cx.tasks.iter().enumerate() {
        let (pred, consts, fixed) = cx.pred(t);
        let hit = |view: View<'_>| match_view(pred, consts, fixed, &view);
        let found = match (pred.kind, e) {
            (EventKind::Send, EventRef::Send { to, payload, .. })
            | (EventKind::Unreceived, EventRef::Send { to, payload, .. }) => hit(View {
                procs: [Some(me), cx.pid(*to)],
                terms: [term(*payload), TermIn::Missing],
            })
            .map(|v| {
                (
                    if t.keyed == Keyed::Event {
                        index
                    } else {
                        msg_index(e)
                    },
                    v,
                )
            }),
            (EventKind::Receive | EventKind::Deliver, EventRef::Send { to, payload, msg }) => {
                hit(View {
                    procs: [cx.pid(*to), Some(me)],
                    terms: [term(*payload), TermIn::Missing],
                })
                .map(|v| (msg.index, v))
            }
            (EventKind::Receive | EventKind::Deliver, EventRef::Signal { signal, to, kind }) => {
                match converted(me, kind) {
                    Some(m) => hit(View {
                        procs: [cx.pid(*to), Some(me)],
                        terms: [TermIn::Built(&m), TermIn::Missing],
                    })
                    .map(|v| (signal.index, v)),
                    None => None,
                }
            }
            (
                EventKind::ExitSignal,
                EventRef::Signal {
                    to,
                    kind: SignalKindRef::Exit { reason, .. },
                    ..
                },
            )
            | (
                EventKind::Down,
                EventRef::Signal {
                    to,
                    kind: SignalKindRef::Down { reason },
                    ..
                },
            ) => hit(View {
                procs: [Some(me), cx.pid(*to)],
                terms: [term(*reason), TermIn::Missing],
            })
            .map(|v| (index, v)),
            (
                EventKind::Killed,
                EventRef::Signal {
                    signal,
                    to,
                    kind: SignalKindRef::Exit { reason, .. },
                },
            ) => hit(View {
                procs: [cx.pid(*to), Some(me)],
                terms: [term(*reason), TermIn::Missing],
            })
            .map(|v| (signal.index, v)),
            (EventKind::Timeout, EventRef::Timeout) => hit(View {
                procs: [Some(me), None],
                terms: [TermIn::Missing, TermIn::Missing],
            })
            .map(|v| (index, v)),
            (EventKind::Exit, EventRef::Exit { reason }) => hit(View {
                procs: [Some(me), None],
                terms: [term(*reason), TermIn::Missing],
            })
            .map(|v| (index, v)),
            (EventKind::Nondet, EventRef::Nondet { kind, value }) => {
                let k = Term::atom(&nondet_kind(cx.nondet_names, *kind));
                hit(View {
                    procs: [Some(me), None],
                    terms: [TermIn::Built(&k), TermIn::Etf(value)],
                })
                .map(|v| (index, v))
            }
            _ => None,
        };
        if let Some((key, vals)) = found {
            out.push((i as u32, key, vals));
        }
    }
}

fn msg_index(e: &EventRef<'_>) -> u64 {
    match e {
        EventRef::Send { msg, .. } => msg.index,
        EventRef::Signal { signal, .. } => signal.index,
        _ => 0,
    }
}

/// The atom a `nondet` event's kind is matched as.
pub fn nondet_kind(names: &[String], k: NondetKind) -> String {
    match k {
        NondetKind::Other(n) => names
            .get(n as usize)
            .cloned()
            .unwrap_or_else(|| format!("other#{n}")),
        k => trace_format::text::nondet_name(k).to_string(),
    }
}
