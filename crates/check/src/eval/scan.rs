//! What only the decoded events hold — payloads, reasons, nondeterministic
//! values, timeouts — is matched while the causal model decodes the log:
//! each block's events go through a [`BlockScan`] on the thread decoding the
//! block, so the log is read once. Names (`<P.2>`) are not resolved yet at
//! that point: a named process is matched as a variable and its value kept
//! with the match, to be compared with the name's pid afterwards. What
//! matches is kept as *hits*; everything else about events — who spawned,
//! sent, received what — comes from the causal model's facts
//! ([`super::source`]).
//!
//! A `receive` names its message but does not hold it, so a predicate on
//! what a process received is matched where the message is: at its send,
//! with the receiver taken from the send's destination. Its hits are keyed
//! by the message (the sender's signal index) and joined with the receipts.

use super::matcher::{match_view, Env, Plan, TermIn, View};
use crate::compile::{CPred, CProp};
use crate::spec::EventKind;
use trace_causal::EventVisitor;
use trace_format::{BlockInfo, Dest, EventRef, LogReader, NondetKind, ProcId, SignalKindRef};
use trace_term::{Pid, Ref, Term};

/// What a hit is keyed by.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Keyed {
    /// The event's index in its process's log.
    Event,
    /// The signal index of the message (the hit lives with the sender).
    Message,
}

/// One predicate the scan feeds.
pub struct Task {
    pub prop: usize,
    pub pred: usize,
    pub keyed: Keyed,
}

/// Which predicates need the scan, and how their hits are keyed.
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

/// The tasks, sorted by the kind of event they look at.
pub struct Scanner<'a> {
    props: &'a [&'a CProp],
    tasks: &'a [Task],
    reader: &'a LogReader,
    /// Per property: every variable unbound.
    blank: Vec<Env>,
    /// Per task: the cheap path, when the predicate has one.
    plans: Vec<Option<Plan>>,
    /// Per task: its predicate's kind.
    kinds: Vec<EventKind>,
    on_send: Vec<usize>,
    on_signal: Vec<usize>,
    on_timeout: Vec<usize>,
    on_exit: Vec<usize>,
    on_nondet: Vec<usize>,
}

impl<'a> Scanner<'a> {
    pub fn new(props: &'a [&'a CProp], tasks: &'a [Task], reader: &'a LogReader) -> Self {
        let mut s = Scanner {
            props,
            tasks,
            reader,
            blank: props.iter().map(|p| vec![None; p.vars.len()]).collect(),
            plans: Vec::new(),
            kinds: tasks
                .iter()
                .map(|t| props[t.prop].preds[t.pred].kind)
                .collect(),
            on_send: Vec::new(),
            on_signal: Vec::new(),
            on_timeout: Vec::new(),
            on_exit: Vec::new(),
            on_nondet: Vec::new(),
        };
        s.plans = tasks
            .iter()
            .map(|t| Plan::of(&props[t.prop].preds[t.pred], &s.blank[t.prop]))
            .collect();
        for (i, t) in tasks.iter().enumerate() {
            let list = match props[t.prop].preds[t.pred].kind {
                EventKind::Send | EventKind::Unreceived => &mut s.on_send,
                EventKind::Receive | EventKind::Deliver => {
                    s.on_signal.push(i);
                    &mut s.on_send
                }
                EventKind::ExitSignal | EventKind::Down | EventKind::Killed => &mut s.on_signal,
                EventKind::Timeout => &mut s.on_timeout,
                EventKind::Exit => &mut s.on_exit,
                EventKind::Nondet => &mut s.on_nondet,
                _ => continue,
            };
            list.push(i);
        }
        s
    }

    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// The visitor for one block.
    pub fn block(&self, info: &BlockInfo) -> BlockScan<'_> {
        BlockScan {
            s: self,
            process: info.process,
            me: info.pid,
            hits: Vec::new(),
            vals: Vec::new(),
            env: Vec::new(),
        }
    }

    #[inline]
    fn pred(&self, t: usize) -> (&CPred, &Env) {
        let task = &self.tasks[t];
        (
            &self.props[task.prop].preds[task.pred],
            &self.blank[task.prop],
        )
    }

    #[inline]
    fn kind(&self, t: usize) -> EventKind {
        self.kinds[t]
    }

    fn pid(&self, d: Dest) -> Option<u64> {
        match d {
            Dest::Proc(q) => self.reader.process(q).map(|p| p.pid),
            Dest::Foreign(n) => Some(n),
            Dest::Unknown => None,
        }
    }
}

/// One block's scan: its hits `(task, key)`, each with its values in `vals`.
pub struct BlockScan<'a> {
    s: &'a Scanner<'a>,
    pub process: ProcId,
    me: u64,
    pub hits: Vec<(u32, u64)>,
    pub vals: Vec<Term>,
    env: Env,
}

fn term(bytes: Option<&[u8]>) -> TermIn<'_> {
    bytes.map_or(TermIn::Missing, TermIn::Etf)
}

/// The message an exit or 'DOWN' signal becomes when its receiver turns it
/// into one. A monitor's reference is not in the log: `#Ref<0.0.0.0>` stands
/// for it (match it with `_`).
pub fn converted(sender: u64, kind: &SignalKindRef<'_>) -> Option<Term> {
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

impl BlockScan<'_> {
    #[inline]
    fn try_task(&mut self, t: usize, key: u64, view: View<'_>) {
        let (pred, blank) = self.s.pred(t);
        let hit = match &self.s.plans[t] {
            Some(plan) => plan.apply(pred, &view, &mut self.vals),
            None => match_view(pred, blank, &mut self.env, &view, &mut self.vals),
        };
        if hit {
            self.hits.push((t as u32, key));
        }
    }
}

impl EventVisitor for BlockScan<'_> {
    fn event(&mut self, index: u64, e: &EventRef<'_>) {
        let s = self.s;
        let me = Some(self.me);
        match *e {
            EventRef::Send { msg, to, payload } if !s.on_send.is_empty() => {
                let dest = s.pid(to);
                for &t in &s.on_send {
                    let (procs, key) = match s.kind(t) {
                        EventKind::Send => ([me, dest], index),
                        EventKind::Unreceived => ([me, dest], msg.index),
                        // receive(P, From, Msg): P is the destination.
                        _ => ([dest, me], msg.index),
                    };
                    self.try_task(
                        t,
                        key,
                        View {
                            procs,
                            terms: [term(payload), TermIn::Missing],
                        },
                    );
                }
            }
            EventRef::Signal { signal, to, kind } if !s.on_signal.is_empty() => {
                let dest = s.pid(to);
                let mut message = None;
                for &t in &s.on_signal {
                    let (pred, _) = s.pred(t);
                    let (procs, key, term_in) = match (pred.kind, &kind) {
                        (EventKind::ExitSignal, SignalKindRef::Exit { reason, .. })
                        | (EventKind::Down, SignalKindRef::Down { reason }) => {
                            ([me, dest], index, term(*reason))
                        }
                        (EventKind::Killed, SignalKindRef::Exit { reason, .. }) => {
                            ([dest, me], signal.index, term(*reason))
                        }
                        (EventKind::Receive | EventKind::Deliver, _) => {
                            if message.is_none() {
                                message = Some(converted(self.me, &kind));
                            }
                            match message.as_ref().and_then(Option::as_ref) {
                                Some(m) => {
                                    let view = View {
                                        procs: [dest, me],
                                        terms: [TermIn::Built(m), TermIn::Missing],
                                    };
                                    let (pred, blank) = s.pred(t);
                                    if match_view(pred, blank, &mut self.env, &view, &mut self.vals)
                                    {
                                        self.hits.push((t as u32, signal.index));
                                    }
                                    continue;
                                }
                                None => continue,
                            }
                        }
                        _ => continue,
                    };
                    self.try_task(
                        t,
                        key,
                        View {
                            procs,
                            terms: [term_in, TermIn::Missing],
                        },
                    );
                }
            }
            EventRef::Timeout => {
                for &t in &s.on_timeout {
                    self.try_task(
                        t,
                        index,
                        View {
                            procs: [me, None],
                            terms: [TermIn::Missing, TermIn::Missing],
                        },
                    );
                }
            }
            EventRef::Exit { reason } => {
                for &t in &s.on_exit {
                    self.try_task(
                        t,
                        index,
                        View {
                            procs: [me, None],
                            terms: [term(reason), TermIn::Missing],
                        },
                    );
                }
            }
            EventRef::Nondet { kind, value } if !s.on_nondet.is_empty() => {
                let k = Term::atom(&nondet_kind(&s.reader.header().nondet_names, kind));
                for &t in &s.on_nondet {
                    self.try_task(
                        t,
                        index,
                        View {
                            procs: [me, None],
                            terms: [TermIn::Built(&k), TermIn::Etf(value)],
                        },
                    );
                }
            }
            _ => {}
        }
    }
}

/// Hits of one task, for every process: keys in order per process, values
/// flat (stride: the predicate's binds), `start[p]..start[p + 1]` the hits
/// of the process with id `p`.
pub struct TaskHits {
    pub keys: Vec<u64>,
    pub vals: Vec<Term>,
    pub start: Vec<u32>,
    pub stride: usize,
}

impl TaskHits {
    /// The keys of process `p`'s hits, and the index of the first.
    pub fn of(&self, p: usize) -> (&[u64], usize) {
        match (self.start.get(p), self.start.get(p + 1)) {
            (Some(&a), Some(&b)) => (&self.keys[a as usize..b as usize], a as usize),
            _ => (&[], 0),
        }
    }

    pub fn vals(&self, i: usize) -> &[Term] {
        &self.vals[i * self.stride..(i + 1) * self.stride]
    }
}

/// Hits per task.
pub struct Hits {
    pub tasks: Vec<TaskHits>,
}

/// Gathers the blocks' hits by task and process. Blocks come grouped by
/// process, each group in event order, so each process's hits come in key
/// order. Event-keyed hits past the end of a process's log in the model
/// (`lens`, by process id) are dropped.
pub fn gather(
    props: &[&CProp],
    tasks: &[Task],
    blocks: Vec<Option<BlockScan<'_>>>,
    lens: &[u64],
) -> Hits {
    let nprocs = lens.len();
    let mut out: Vec<TaskHits> = tasks
        .iter()
        .map(|t| TaskHits {
            keys: Vec::new(),
            vals: Vec::new(),
            start: vec![0; nprocs + 1],
            stride: props[t.prop].preds[t.pred].binds.len(),
        })
        .collect();
    let mut total = vec![0usize; tasks.len()];
    for b in blocks.iter().flatten() {
        for &(task, _) in &b.hits {
            total[task as usize] += 1;
        }
    }
    for (th, n) in out.iter_mut().zip(total) {
        th.keys.reserve(n);
        th.vals.reserve(n * th.stride);
    }
    for b in blocks.into_iter().flatten() {
        let slot = b.process.0 as usize;
        if slot >= nprocs {
            continue;
        }
        let mut at = 0;
        for (task, key) in b.hits {
            let th = &mut out[task as usize];
            let n = th.stride;
            let v = &b.vals[at..at + n];
            at += n;
            if tasks[task as usize].keyed == Keyed::Event && key >= lens[slot] {
                continue;
            }
            th.keys.push(key);
            th.vals.extend_from_slice(v);
            th.start[slot + 1] = th.keys.len() as u32;
        }
    }
    // Processes without hits start where the one before ended.
    for th in &mut out {
        for p in 1..=nprocs {
            th.start[p] = th.start[p].max(th.start[p - 1]);
        }
    }
    Hits { tasks: out }
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
