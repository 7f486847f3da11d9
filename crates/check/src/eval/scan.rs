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
//! with the receiver taken from the send's destination. Its hits are filed
//! under the receiver, keyed by the message, and joined with the receiver's
//! receipts — a lookup in a short list of the receiver's own, not a jump
//! into the sender's.

use super::matcher::{match_view, Env, Plan, TermIn, View};
use crate::compile::{CPred, CProp};
use crate::spec::EventKind;
use rayon::prelude::*;
use trace_causal::EventVisitor;
use trace_format::{BlockInfo, Dest, EventRef, LogReader, NondetKind, ProcId, SignalKindRef};
use trace_term::{Pid, Ref, Term};

/// What a hit is keyed by, and whose it is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Keyed {
    /// The event's index in its process's log.
    Event,
    /// The signal index of a message, with its sender.
    Sent,
    /// The message ([`pack`]ed sender and signal index), with its receiver.
    Received,
}

/// A message's identity in one number (signal indices of a log the model
/// takes fit in 32 bits).
pub fn pack(sender: ProcId, index: u64) -> Option<u64> {
    (index <= u32::MAX as u64).then_some((sender.0 as u64) << 32 | index)
}

/// No process: the message's receiver is not recorded (imported logs).
const NOBODY: u32 = u32::MAX;

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
                EventKind::Receive | EventKind::Deliver | EventKind::Killed
                    if pred.reads_terms() =>
                {
                    Some(Keyed::Received)
                }
                EventKind::Unreceived if pred.reads_terms() => Some(Keyed::Sent),
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

/// Whose a received-message hit is: the destination's slot.
fn receiver(d: Dest) -> u32 {
    match d {
        Dest::Proc(q) => q.0,
        Dest::Foreign(_) | Dest::Unknown => NOBODY,
    }
}

/// One match: its task, the process it is filed under, its key.
#[derive(Copy, Clone, Debug)]
pub struct Hit {
    task: u32,
    owner: u32,
    key: u64,
}

/// One block's scan: its hits, each with its values in `vals`.
pub struct BlockScan<'a> {
    s: &'a Scanner<'a>,
    pub process: ProcId,
    me: u64,
    pub hits: Vec<Hit>,
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
    fn try_task(&mut self, t: usize, owner: u32, key: u64, view: View<'_>) {
        self.try_checked(t, owner, key, view, false)
    }

    /// `checked`: the terms passed the plan's quick test already.
    #[inline]
    fn try_checked(&mut self, t: usize, owner: u32, key: u64, view: View<'_>, checked: bool) {
        let (pred, blank) = self.s.pred(t);
        let hit = match &self.s.plans[t] {
            Some(plan) if checked => plan.apply_checked(&view, &mut self.vals),
            Some(plan) => plan.apply(pred, &view, &mut self.vals),
            None => match_view(pred, blank, &mut self.env, &view, &mut self.vals),
        };
        if hit {
            self.hits.push(Hit {
                task: t as u32,
                owner,
                key,
            });
        }
    }
}

impl EventVisitor for BlockScan<'_> {
    /// Most events interest no predicate: tell them apart before anything
    /// else, in the decoder's loop.
    #[inline(always)]
    fn event(&mut self, index: u64, e: &EventRef<'_>) {
        let s = self.s;
        let wanted = match e {
            EventRef::Send { .. } => !s.on_send.is_empty(),
            EventRef::Signal { .. } => !s.on_signal.is_empty(),
            EventRef::Timeout => !s.on_timeout.is_empty(),
            EventRef::Exit { .. } => !s.on_exit.is_empty(),
            EventRef::Nondet { .. } => !s.on_nondet.is_empty(),
            _ => false,
        };
        if wanted {
            self.visit(index, e);
        }
    }
}

impl BlockScan<'_> {
    #[inline(never)]
    fn visit(&mut self, index: u64, e: &EventRef<'_>) {
        let s = self.s;
        let me = Some(self.me);
        let own = self.process.0;
        match *e {
            EventRef::Send { msg, to, payload } => {
                let terms = [term(payload), TermIn::Missing];
                let mut dest_pid = None;
                for &t in &s.on_send {
                    // Most messages fail a pattern's first bytes: test them
                    // before looking anything up.
                    let checked = match &s.plans[t] {
                        Some(plan) => {
                            if !plan.terms_ok(s.pred(t).0, &terms) {
                                continue;
                            }
                            true
                        }
                        None => false,
                    };
                    let dest = *dest_pid.get_or_insert_with(|| s.pid(to));
                    let (procs, owner, key) = match s.kind(t) {
                        EventKind::Send => ([me, dest], own, index),
                        EventKind::Unreceived => ([me, dest], own, msg.index),
                        // receive(P, From, Msg): P is the destination.
                        _ => match pack(msg.sender, msg.index) {
                            Some(k) => ([dest, me], receiver(to), k),
                            None => continue,
                        },
                    };
                    self.try_checked(t, owner, key, View { procs, terms }, checked);
                }
            }
            EventRef::Signal { signal, to, kind } => {
                let dest = s.pid(to);
                let mut message = None;
                for &t in &s.on_signal {
                    let received = pack(signal.sender, signal.index);
                    let (procs, owner, key, term_in) = match (s.kind(t), &kind) {
                        (EventKind::ExitSignal, SignalKindRef::Exit { reason, .. })
                        | (EventKind::Down, SignalKindRef::Down { reason }) => {
                            ([me, dest], own, index, term(*reason))
                        }
                        (EventKind::Killed, SignalKindRef::Exit { reason, .. }) => match received {
                            Some(k) => ([dest, me], receiver(to), k, term(*reason)),
                            None => continue,
                        },
                        (EventKind::Receive | EventKind::Deliver, _) => {
                            let Some(k) = received else { continue };
                            if message.is_none() {
                                message = Some(converted(self.me, &kind));
                            }
                            let Some(Some(m)) = message.as_ref() else {
                                continue;
                            };
                            let view = View {
                                procs: [dest, me],
                                terms: [TermIn::Built(m), TermIn::Missing],
                            };
                            let (pred, blank) = s.pred(t);
                            if match_view(pred, blank, &mut self.env, &view, &mut self.vals) {
                                self.hits.push(Hit {
                                    task: t as u32,
                                    owner: receiver(to),
                                    key: k,
                                });
                            }
                            continue;
                        }
                        _ => continue,
                    };
                    self.try_task(
                        t,
                        owner,
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
                        own,
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
                        own,
                        index,
                        View {
                            procs: [me, None],
                            terms: [term(reason), TermIn::Missing],
                        },
                    );
                }
            }
            EventRef::Nondet { kind, value } => {
                let k = Term::atom(&nondet_kind(&s.reader.header().nondet_names, kind));
                for &t in &s.on_nondet {
                    self.try_task(
                        t,
                        own,
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
/// filed under the process with id `p`.
pub struct TaskHits {
    pub keys: Vec<u64>,
    pub vals: Vec<Term>,
    pub start: Vec<u32>,
    pub stride: usize,
    /// Received-message hits whose receiver the log does not record, by
    /// packed message (imported logs).
    pub nobody: Vec<(u64, u32)>,
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

    /// The values of the hit `key` filed under `p` (or under nobody).
    #[inline]
    pub fn find(&self, p: usize, key: u64) -> Option<&[Term]> {
        let (keys, first) = self.of(p);
        // A short list is read through; a long one is searched.
        let found = if keys.len() <= 16 {
            keys.iter().position(|&k| k == key)
        } else {
            keys.binary_search(&key).ok()
        };
        if let Some(i) = found {
            return Some(self.vals(first + i));
        }
        if self.nobody.is_empty() {
            return None;
        }
        let i = self.nobody.binary_search_by_key(&key, |(k, _)| *k).ok()?;
        Some(self.vals(self.nobody[i].1 as usize))
    }
}

/// Hits per task.
pub struct Hits {
    pub tasks: Vec<TaskHits>,
}

/// Gathers the blocks' hits by task and process. Blocks come grouped by
/// process, each group in event order, so hits filed under the block's own
/// process come in key order; hits filed under a message's receiver are
/// sorted. Event-keyed hits past the end of a process's log in the model
/// (`lens`, by process id) are dropped.
pub fn gather(
    props: &[&CProp],
    tasks: &[Task],
    blocks: Vec<Option<BlockScan<'_>>>,
    lens: &[u64],
) -> Hits {
    let nprocs = lens.len();
    let blocks: Vec<BlockScan<'_>> = blocks.into_iter().flatten().collect();
    let stride: Vec<usize> = tasks
        .iter()
        .map(|t| props[t.prop].preds[t.pred].binds.len())
        .collect();
    // Every hit as (owner, key, block, offset of its values), per task.
    let mut all: Vec<Vec<(u32, u64, u32, u32)>> = tasks.iter().map(|_| Vec::new()).collect();
    for (bi, b) in blocks.iter().enumerate() {
        let slot = b.process.0 as usize;
        let mut at = 0u32;
        for h in &b.hits {
            let t = h.task as usize;
            let n = stride[t] as u32;
            let off = at;
            at += n;
            if tasks[t].keyed == Keyed::Event && h.key >= lens.get(slot).copied().unwrap_or(0) {
                continue;
            }
            all[t].push((h.owner, h.key, bi as u32, off));
        }
    }
    let tasks_out = all
        .into_iter()
        .enumerate()
        .map(|(t, list)| {
            let n = stride[t];
            // Group by owner (a counting sort: hits of one owner are few),
            // then order each owner's hits by key.
            let mut start = vec![0u32; nprocs + 2];
            for &(owner, ..) in &list {
                start[(owner as usize).min(nprocs) + 1] += 1;
            }
            for p in 1..start.len() {
                start[p] += start[p - 1];
            }
            let mut fill = start.clone();
            let mut placed = vec![(0u64, 0u32, 0u32); list.len()];
            for (owner, key, bi, off) in list {
                let o = (owner as usize).min(nprocs);
                placed[fill[o] as usize] = (key, bi, off);
                fill[o] += 1;
            }
            if tasks[t].keyed == Keyed::Received {
                let mut rest: &mut [(u64, u32, u32)] = &mut placed;
                let mut groups = Vec::with_capacity(nprocs + 1);
                for o in 0..=nprocs {
                    let len = (start[o + 1] - start[o]) as usize;
                    let (group, tail) = rest.split_at_mut(len);
                    groups.push(group);
                    rest = tail;
                }
                groups
                    .into_par_iter()
                    .for_each(|g| g.sort_unstable_by_key(|&(k, _, _)| k));
            }
            let mut th = TaskHits {
                keys: Vec::with_capacity(placed.len()),
                vals: Vec::with_capacity(placed.len() * n),
                start: start[..=nprocs].to_vec(),
                stride: n,
                nobody: Vec::new(),
            };
            for (i, &(key, bi, off)) in placed.iter().enumerate() {
                th.vals
                    .extend_from_slice(&blocks[bi as usize].vals[off as usize..off as usize + n]);
                if i < start[nprocs] as usize {
                    th.keys.push(key);
                } else {
                    // No receiver recorded: kept after the filed ones.
                    th.nobody.push((key, i as u32));
                    th.keys.push(u64::MAX);
                }
            }
            th.nobody.sort_unstable_by_key(|(k, _)| *k);
            th
        })
        .collect();
    Hits { tasks: tasks_out }
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
