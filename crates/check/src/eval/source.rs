//! The matches of a predicate in one process: from the causal model's facts
//! (spawns, signals sent, receipts, exits) when the predicate does not read
//! terms, and from the scan's hits when it does. Dense predicates such as
//! `send(S, C, _)` are thus enumerated process by process, never stored for
//! the whole log.

use super::matcher::{match_view, Match, TermIn, View};
use super::resolve::Resolved;
use super::scan::Hits;
use crate::compile::CProp;
use crate::spec::EventKind;
use std::sync::OnceLock;
use trace_causal::{Destination, EventId, Model, ReceiptKind, SignalClass};
use trace_format::{ProcId, SignalEffect};

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

    /// For each process, which of its signals some `receive` consumed.
    fn received(&self) -> &[Vec<bool>] {
        self.received.get_or_init(|| {
            let m = self.model;
            let mut got: Vec<Vec<bool>> = m
                .processes()
                .iter()
                .map(|f| vec![false; f.signals_sent() as usize])
                .collect();
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

    fn hit(&self, task: usize, owner: ProcId, key: u64) -> Option<&'a [trace_term::Term]> {
        let list = self.hits[task].get(owner.0 as usize)?;
        let i = list.binary_search_by_key(&key, |(k, _)| *k).ok()?;
        Some(&list[i].1)
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
    ) -> Vec<Match> {
        let pred = &props[prop].preds[k];
        let r = &resolved[prop];
        let m = self.model;
        let Some(facts) = m.process(p) else {
            return Vec::new();
        };
        let me = Some(facts.pid);
        let task = self.task[prop][k];
        let mut out = Vec::new();
        let structural = |procs: [Option<u64>; 2]| {
            match_view(
                pred,
                &r.consts,
                r,
                &View {
                    procs,
                    terms: [TermIn::Missing, TermIn::Missing],
                },
            )
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
                if let Some(list) = self.hits[t].get(p.0 as usize) {
                    out.extend(list.iter().map(|(i, v)| Match {
                        ev: EventId::new(p, *i),
                        vals: v.clone(),
                    }));
                }
                return out;
            }
        }
        match pred.kind {
            EventKind::Spawn => {
                for s in m.spawns_by(p) {
                    let child = s.child.and_then(|c| self.pid(c));
                    if let Some(vals) = structural([me, child]) {
                        out.push(Match {
                            ev: EventId::new(p, s.at),
                            vals,
                        });
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
                    let vals = match task {
                        Some(t) => self.hit(t, p, s.index).map(Into::into),
                        None => structural([me, self.dest_pid(s.to)]),
                    };
                    if let Some(vals) = vals {
                        out.push(Match {
                            ev: EventId::new(p, s.at),
                            vals,
                        });
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
                    let vals = match (task, rc.msg) {
                        (Some(t), Some(msg)) => self.hit(t, msg.sender, msg.index).map(Into::into),
                        (Some(_), None) => None,
                        (None, msg) => structural([me, msg.and_then(|x| self.pid(x.sender))]),
                    };
                    if let Some(vals) = vals {
                        out.push(Match {
                            ev: EventId::new(p, rc.at),
                            vals,
                        });
                    }
                }
            }
            EventKind::Exit => {
                if let Some(x) = facts.exit {
                    if let Some(vals) = structural([me, None]) {
                        out.push(Match {
                            ev: EventId::new(p, x),
                            vals,
                        });
                    }
                }
            }
            EventKind::Blocked => {
                if m.is_complete() && facts.exit.is_none() {
                    let at = match facts.events {
                        0 => m.spawn_of(p),
                        n => Some(EventId::new(p, n - 1)),
                    };
                    if let (Some(ev), Some(vals)) = (at, structural([me, None])) {
                        out.push(Match { ev, vals });
                    }
                }
            }
            EventKind::Timeout | EventKind::Nondet => {}
        }
        out
    }
}
