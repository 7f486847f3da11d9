//! The matches of a predicate in one process: from the causal model's facts
//! (spawns, signals sent, receipts, exits) when the predicate does not read
//! terms, and from the scan's hits when it does. Dense predicates such as
//! `send(S, C, _)` are thus enumerated process by process, never stored for
//! the whole log.

use super::matcher::{match_view, Env, Matches, Plan, TermIn, View};
use super::resolve::Resolved;
use super::scan::Hits;
use crate::compile::CProp;
use crate::spec::EventKind;
use std::sync::OnceLock;
use trace_causal::{Destination, EventId, Model, ReceiptKind, SignalClass};
use trace_format::{ProcId, SignalEffect};
use trace_term::Term;

/// Where the matches of every predicate of the checked properties come from.
pub struct Sources<'a> {
    pub model: &'a Model,
    pub hits: &'a Hits,
    /// `task[prop][pred]`: the scan task feeding the predicate, if any.
    pub task: Vec<Vec<Option<usize>>>,
    received: OnceLock<Vec<Vec<bool>>>,
}

impl<'a> Sources<'a> {
    pub fn new(model: &'a Model, hits: &'a Hits, task: Vec<Vec<Option<usize>>>) -> Self {
        Sources {
            model,
            hits,
            task,
            received: OnceLock::new(),
        }
    }

    fn pid(&self, p: ProcId) -> Option<u64> {
        self.model.process(p).map(|f| f.pid)
    }

    fn dest_pid(&self, d: Destination) -> Option<u64> {
        match d {
            Destination::Proc(q) => self.pid(q),
            Destination::Foreign | Destination::Unknown => None,
        }
    }

    /// For each process (by id), which of its signals some `receive` consumed.
    fn received(&self) -> &[Vec<bool>] {
        self.received.get_or_init(|| {
            let m = self.model;
            let n = m
                .processes()
                .iter()
                .map(|f| f.id.0 as usize + 1)
                .max()
                .unwrap_or(0);
            let mut got: Vec<Vec<bool>> = vec![Vec::new(); n];
            for f in m.processes() {
                got[f.id.0 as usize] = vec![false; f.signals_sent() as usize];
            }
            for f in m.processes() {
                for r in m.receipts_in(f.id) {
                    if let (ReceiptKind::Receive, Some(msg)) = (r.kind, r.msg) {
                        if let Some(b) = got
                            .get_mut(msg.sender.0 as usize)
                            .and_then(|v| v.get_mut(msg.index as usize))
                        {
                            *b = true;
                        }
                    }
                }
            }
            got
        })
    }

    /// The values of task `t`'s hit `key` in process `owner`, if any.
    fn hit(&self, t: usize, owner: ProcId, key: u64) -> Option<&'a [Term]> {
        let th = &self.hits.tasks[t];
        let (keys, first) = th.of(owner.0 as usize);
        if keys.is_empty() {
            return None;
        }
        let i = keys.binary_search(&key).ok()?;
        Some(th.vals(first + i))
    }

    /// The matches of predicate `k` of property `prop` in process `p`, in its
    /// program order.
    pub fn matches(
        &self,
        props: &[&CProp],
        resolved: &[Resolved],
        prop: usize,
        k: usize,
        p: ProcId,
    ) -> Matches {
        let mut out = Matches::new(props[prop].preds[k].binds.len());
        self.for_each(props, resolved, prop, k, p, &mut |ev, vals| {
            out.push(ev, vals)
        });
        out
    }

    /// Hands each match of predicate `k` of property `prop` in process `p`
    /// to `out`, in program order, with the values of the predicate's binds.
    pub fn for_each(
        &self,
        props: &[&CProp],
        resolved: &[Resolved],
        prop: usize,
        k: usize,
        p: ProcId,
        out: &mut dyn FnMut(EventId, &[Term]),
    ) {
        let pred = &props[prop].preds[k];
        let consts = &resolved[prop].consts;
        let stride = pred.binds.len();
        let m = self.model;
        let Some(facts) = m.process(p) else {
            return;
        };
        let me = Some(facts.pid);
        let task = self.task[prop][k];
        let mut env: Env = Vec::new();
        let mut scratch: Vec<Term> = Vec::with_capacity(stride);
        // Values of named processes captured by the scan must be the names' pids.
        let named: Vec<(usize, &Term)> = pred
            .binds
            .iter()
            .enumerate()
            .filter_map(|(i, &v)| consts[v].as_ref().map(|t| (i, t)))
            .collect();
        let named_ok = |vals: &[Term]| {
            named
                .iter()
                .all(|&(i, t)| trace_term::order::exact_eq(&vals[i], t))
        };
        let plan = if pred.structural {
            Plan::of(pred, consts)
        } else {
            None
        };
        let mut structural = |procs: [Option<u64>; 2], scratch: &mut Vec<Term>| {
            let view = View {
                procs,
                terms: [TermIn::Missing, TermIn::Missing],
            };
            match &plan {
                Some(plan) => plan.apply(pred, &view, scratch),
                None => match_view(pred, consts, &mut env, &view, scratch),
            }
        };
        // Hits keyed by the event are this process's own matches.
        if let Some(t) = task {
            if matches!(
                pred.kind,
                EventKind::Timeout
                    | EventKind::Nondet
                    | EventKind::Send
                    | EventKind::Exit
                    | EventKind::ExitSignal
                    | EventKind::Down
            ) {
                let th = &self.hits.tasks[t];
                let (keys, first) = th.of(p.0 as usize);
                for (j, &i) in keys.iter().enumerate() {
                    let v = th.vals(first + j);
                    if named_ok(v) {
                        out(EventId::new(p, i), v);
                    }
                }
                return;
            }
        }
        match pred.kind {
            EventKind::Spawn => {
                for s in m.spawns_by(p) {
                    let child = s.child.and_then(|c| self.pid(c));
                    if structural([me, child], &mut scratch) {
                        emit(out, EventId::new(p, s.at), &mut scratch);
                    }
                }
            }
            EventKind::Send
            | EventKind::Link
            | EventKind::Unlink
            | EventKind::Monitor
            | EventKind::Demonitor
            | EventKind::ExitSignal
            | EventKind::Down
            | EventKind::Unreceived => {
                let received = (pred.kind == EventKind::Unreceived).then(|| self.received());
                for s in m.signals_from(p) {
                    let want = matches!(
                        (pred.kind, s.class),
                        (
                            EventKind::Send | EventKind::Unreceived,
                            SignalClass::Message
                        ) | (EventKind::Link, SignalClass::Link)
                            | (EventKind::Unlink, SignalClass::Unlink)
                            | (EventKind::Monitor, SignalClass::Monitor)
                            | (EventKind::Demonitor, SignalClass::Demonitor)
                            | (EventKind::ExitSignal, SignalClass::Exit { .. })
                            | (EventKind::Down, SignalClass::Down)
                    );
                    if !want {
                        continue;
                    }
                    if let Some(got) = received {
                        if got
                            .get(p.0 as usize)
                            .and_then(|v| v.get(s.index as usize))
                            .copied()
                            .unwrap_or(false)
                        {
                            continue;
                        }
                    }
                    let ev = EventId::new(p, s.at);
                    match task {
                        Some(t) => {
                            if let Some(v) = self.hit(t, p, s.index) {
                                if named_ok(v) {
                                    out(ev, v);
                                }
                            }
                        }
                        None => {
                            if structural([me, self.dest_pid(s.to)], &mut scratch) {
                                emit(out, ev, &mut scratch);
                            }
                        }
                    }
                }
            }
            EventKind::Receive | EventKind::Deliver | EventKind::Killed => {
                let want = match pred.kind {
                    EventKind::Receive => |k| k == ReceiptKind::Receive,
                    EventKind::Deliver => |k| k == ReceiptKind::Deliver,
                    _ => |k| k == ReceiptKind::Taken(SignalEffect::Killed),
                };
                for rc in m.receipts_in(p) {
                    if !want(rc.kind) {
                        continue;
                    }
                    let ev = EventId::new(p, rc.at);
                    match (task, rc.msg) {
                        (Some(t), Some(msg)) => {
                            if let Some(v) = self.hit(t, msg.sender, msg.index) {
                                if named_ok(v) {
                                    out(ev, v);
                                }
                            }
                        }
                        (Some(_), None) => {}
                        (None, msg) => {
                            let from = msg.and_then(|x| self.pid(x.sender));
                            if structural([me, from], &mut scratch) {
                                emit(out, ev, &mut scratch);
                            }
                        }
                    }
                }
            }
            EventKind::Exit => {
                if let Some(x) = facts.exit {
                    if structural([me, None], &mut scratch) {
                        emit(out, EventId::new(p, x), &mut scratch);
                    }
                }
            }
            EventKind::Blocked => {
                if m.is_complete() && facts.exit.is_none() {
                    let at = match facts.events {
                        0 => m.spawn_of(p),
                        n => Some(EventId::new(p, n - 1)),
                    };
                    if let Some(ev) = at {
                        if structural([me, None], &mut scratch) {
                            emit(out, ev, &mut scratch);
                        }
                    }
                }
            }
            EventKind::Timeout | EventKind::Nondet => {}
        }
    }
}

/// Hands the values `match_view` left in `scratch` to `out`.
fn emit(out: &mut dyn FnMut(EventId, &[Term]), ev: EventId, scratch: &mut Vec<Term>) {
    out(ev, scratch);
    scratch.clear();
}
