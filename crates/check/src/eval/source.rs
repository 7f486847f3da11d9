//! The matches of a predicate in one process: from the causal model's facts
//! (spawns, signals sent, receipts, exits) when the predicate does not read
//! terms, and from the scan's hits when it does. Dense predicates such as
//! `send(S, C, _)` are thus enumerated process by process, never stored for
//! the whole log.

use super::hits::Hits;
use super::matcher::{match_view, Env, Matches, Plan, TermIn, View};
use super::resolve::Resolved;
use crate::compiled::CompiledProperty;
use crate::spec::PredicateKind;
use std::sync::OnceLock;
use trace_causal::{EventId, Model, ReceiptKind, SignalClass};
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

    /// For each process (by id), which of its signals some `receive` consumed.
    fn received(&self) -> &[Vec<bool>] {
        self.received.get_or_init(|| {
            let m = self.model;
            let mut got: Vec<Vec<bool>> = vec![Vec::new(); m.id_slots()];
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

    /// The matches of predicate `k` of property `prop` in process `p`, in its
    /// program order.
    pub fn matches(
        &self,
        props: &[&CompiledProperty],
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

    /// The events of `kind` in process `p`, from the model's facts, in
    /// program order: each with the pids of its canonical process arguments
    /// and, for a message, how a scan hit on it is filed (`Sent`: the signal
    /// index; `Received`: the packed message).
    #[inline]
    fn events_of_kind(
        &self,
        kind: PredicateKind,
        p: ProcId,
        mut f: impl FnMut(EventId, [Option<u64>; 2], Option<u64>),
    ) {
        let m = self.model;
        let Some(facts) = m.process(p) else { return };
        let me = Some(facts.pid);
        match kind {
            PredicateKind::Spawn => {
                for s in m.spawns_by(p) {
                    f(
                        EventId::new(p, s.at),
                        [me, s.child.and_then(|c| self.pid(c))],
                        None,
                    );
                }
            }
            PredicateKind::Send
            | PredicateKind::Link
            | PredicateKind::Unlink
            | PredicateKind::Monitor
            | PredicateKind::Demonitor
            | PredicateKind::ExitSignal
            | PredicateKind::Down
            | PredicateKind::Unreceived => {
                let received = (kind == PredicateKind::Unreceived).then(|| self.received());
                for (s, to) in m.signals_from_pids(p) {
                    let want = matches!(
                        (kind, s.class),
                        (
                            PredicateKind::Send | PredicateKind::Unreceived,
                            SignalClass::Message
                        ) | (PredicateKind::Link, SignalClass::Link)
                            | (PredicateKind::Unlink, SignalClass::Unlink)
                            | (PredicateKind::Monitor, SignalClass::Monitor)
                            | (PredicateKind::Demonitor, SignalClass::Demonitor)
                            | (PredicateKind::ExitSignal, SignalClass::Exit { .. })
                            | (PredicateKind::Down, SignalClass::Down)
                    );
                    let got = received.is_some_and(|got| {
                        got.get(p.0 as usize)
                            .and_then(|v| v.get(s.index as usize))
                            .copied()
                            .unwrap_or(false)
                    });
                    if want && !got {
                        f(EventId::new(p, s.at), [me, to], Some(s.index));
                    }
                }
            }
            PredicateKind::Receive | PredicateKind::Deliver | PredicateKind::Killed => {
                let want = receipt_kind(kind);
                for (rc, from) in m.receipts_in_pids(p) {
                    if want(rc.kind) {
                        let key = rc.msg.and_then(|x| super::scan::pack(x.sender, x.index));
                        f(EventId::new(p, rc.at), [me, from], key);
                    }
                }
            }
            PredicateKind::Exit => {
                if let Some(x) = facts.exit {
                    f(EventId::new(p, x), [me, None], None);
                }
            }
            PredicateKind::Blocked => {
                // A version-2 log says which waiting processes were stuck; an
                // idle server left waiting for requests is not blocked.
                let stuck = match m.records_blocked() {
                    true => facts.blocked == Some(true),
                    false => facts.exit.is_none(),
                };
                if m.is_complete() && stuck {
                    let at = match facts.events {
                        0 => m.spawn_of(p),
                        n => Some(EventId::new(p, n - 1)),
                    };
                    if let Some(ev) = at {
                        f(ev, [me, None], None);
                    }
                }
            }
            // The scan reads them: nothing of them is in the causal model.
            PredicateKind::Timeout | PredicateKind::Nondet | PredicateKind::Ets => {}
        }
    }

    /// The cheap path of predicate `k` (see [`Plan`]), when it matches on
    /// processes only and the scan does not feed it.
    pub fn plan(
        &self,
        props: &[&CompiledProperty],
        resolved: &[Resolved],
        prop: usize,
        k: usize,
    ) -> Option<Plan> {
        let pred = &props[prop].preds[k];
        if !pred.structural || self.task[prop][k].is_some() {
            return None;
        }
        Plan::of(pred, &resolved[prop].consts)
    }

    /// Hands each match of a predicate with a [`plan`](Self::plan) in process
    /// `p` to `out` as the pids of its process arguments, without terms.
    pub fn for_each_procs(
        &self,
        props: &[&CompiledProperty],
        plan: &Plan,
        prop: usize,
        k: usize,
        p: ProcId,
        mut out: impl FnMut(EventId, [Option<u64>; 2]),
    ) {
        let kind = props[prop].preds[k].kind;
        self.events_of_kind(kind, p, |ev, procs, _| {
            if plan.admits(&procs) {
                out(ev, procs)
            }
        });
    }

    /// Hands each match of predicate `k` of property `prop` in process `p`
    /// to `out`, in program order, with the values of the predicate's binds.
    pub fn for_each(
        &self,
        props: &[&CompiledProperty],
        resolved: &[Resolved],
        prop: usize,
        k: usize,
        p: ProcId,
        out: &mut dyn FnMut(EventId, &[Term]),
    ) {
        let pred = &props[prop].preds[k];
        let consts = &resolved[prop].consts;
        let task = self.task[prop][k];
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
        if let Some(t) = task {
            // The scan matched these events; it filed the hits of a
            // process's own events under the process, by event index.
            let hits = self.hits;
            if matches!(
                pred.kind,
                PredicateKind::Timeout
                    | PredicateKind::Nondet
                    | PredicateKind::Ets
                    | PredicateKind::Send
                    | PredicateKind::Exit
                    | PredicateKind::ExitSignal
                    | PredicateKind::Down
            ) {
                for (i, v) in hits.of(t, p.0 as usize) {
                    if named_ok(v) {
                        out(EventId::new(p, i), v);
                    }
                }
                return;
            }
            // A message's hit: under its sender (unreceived) or receiver.
            if hits.tasks[t].none_for(p.0 as usize) {
                return;
            }
            if matches!(
                pred.kind,
                PredicateKind::Receive | PredicateKind::Deliver | PredicateKind::Killed
            ) {
                // The receipts alone: no pid is needed to find a hit.
                let want = receipt_kind(pred.kind);
                hits.with_receipts(t, p.0 as usize, |found| {
                    for rc in self.model.receipts_in(p) {
                        if !want(rc.kind) {
                            continue;
                        }
                        let key = rc.msg.and_then(|x| super::scan::pack(x.sender, x.index));
                        if let Some(v) = key.and_then(|k| found.find(k)) {
                            if named_ok(v) {
                                out(EventId::new(p, rc.at), v);
                            }
                        }
                    }
                });
                return;
            }
            self.events_of_kind(pred.kind, p, |ev, _, key| {
                if let Some(v) = key.and_then(|k| hits.find(t, p.0 as usize, k)) {
                    if named_ok(v) {
                        out(ev, v);
                    }
                }
            });
            return;
        }
        let plan = if pred.structural {
            Plan::of(pred, consts)
        } else {
            None
        };
        let mut env: Env = Vec::new();
        let mut scratch: Vec<Term> = Vec::with_capacity(pred.binds.len());
        self.events_of_kind(pred.kind, p, |ev, procs, _| {
            let view = View {
                procs,
                terms: [TermIn::Missing, TermIn::Missing, TermIn::Missing],
            };
            let hit = match &plan {
                Some(plan) => plan.apply(pred, &view, &mut scratch),
                None => match_view(pred, consts, &mut env, &view, &mut scratch),
            };
            if hit {
                emit(out, ev, &mut scratch);
            }
        });
    }
}

/// Which receipts a receive-like predicate is about.
fn receipt_kind(kind: PredicateKind) -> fn(ReceiptKind) -> bool {
    match kind {
        PredicateKind::Receive => |k| k == ReceiptKind::Receive,
        PredicateKind::Deliver => |k| k == ReceiptKind::Deliver,
        _ => |k| k == ReceiptKind::Taken(SignalEffect::Killed),
    }
}

/// Hands the values `match_view` left in `scratch` to `out`.
fn emit(out: &mut dyn FnMut(EventId, &[Term]), ev: EventId, scratch: &mut Vec<Term>) {
    out(ev, scratch);
    scratch.clear();
}
