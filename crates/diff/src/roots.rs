//! Root divergences: differing events whose causal past holds no other
//! difference. Only a process's first differing event can be one (the
//! later ones have it in their past); it is a root in a run when walking
//! happened-before backwards from it, in that run's log, meets no event at
//! or after another process's first difference.
//!
//! The walk reads logs on demand, never past a process's first difference
//! (meeting one ends the walk), so its memory is a few counters per process
//! it visits and a block, and an early divergence costs little however long
//! the logs are. A walk follows the edges of trace-causal's happened-before:
//! program order, each receipt (delivery, taking, consumption) back to its
//! send, a process's first event back to its spawn. It needs no event's
//! position in another log: a send is reached as "the sender's first k+1
//! signals", a spawn as "the parent's first k spawns", and whether that
//! crosses the sender's first difference is known from the signals and
//! spawns the sender made before it.
//!
//! Prefixes found clean by a walk that met no difference are remembered, so
//! later walks stop there.

use crate::run::{Run, Slot, NO_SLOT};
use crate::source::BlockStream;
use std::collections::HashMap;
use trace_format::EventRef;

/// A prefix of a process log: its first `events` events, holding `signals`
/// signals sent and `spawns` spawns.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Cut {
    pub events: u64,
    pub signals: u64,
    pub spawns: u64,
}

impl Cut {
    fn covers(&self, need: &Cut) -> bool {
        self.events >= need.events && self.signals >= need.signals && self.spawns >= need.spawns
    }
}

/// A first difference of one run: process, and the prefix before it.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Candidate {
    pub slot: Slot,
    pub before: Cut,
}

/// Walks the causal pasts of one run's first differences.
pub(crate) struct Walker<'a> {
    run: &'a Run<'a>,
    /// Per slot: the prefix before its first difference, if it has one.
    diffs: Vec<Option<Cut>>,
    /// Per slot: the whole readable log, once known.
    totals: Vec<Option<Cut>>,
    /// Per slot: a prefix known to have a clean causal past.
    clean: Vec<Cut>,
}

/// What reaching a prefix of another process means for the walk.
enum Reach {
    /// Nothing new to walk.
    Known,
    /// Walk further in that process.
    Further,
    /// The prefix holds that process's first difference.
    Difference,
}

impl<'a> Walker<'a> {
    /// `totals`: the whole logs the comparison read (others are read when
    /// a walk needs them).
    pub fn new(run: &'a Run<'a>, candidates: &[Candidate], totals: Vec<Option<Cut>>) -> Walker<'a> {
        let mut diffs = vec![None; run.procs.len()];
        for c in candidates {
            diffs[c.slot as usize] = Some(c.before);
        }
        Walker {
            run,
            diffs,
            totals,
            clean: vec![Cut::default(); run.procs.len()],
        }
    }

    fn total(&mut self, q: Slot) -> Cut {
        let run = self.run;
        *self.totals[q as usize].get_or_insert_with(|| BlockStream::new(run, q, false).drain())
    }

    /// Is `c`'s first difference a root in this run? (Its past holds no other.)
    pub fn is_root(&mut self, c: &Candidate) -> bool {
        let p = c.slot;
        let at = c.before.events;
        let run = self.run;
        let mut need: HashMap<Slot, Cut> = HashMap::new();
        let mut cur: HashMap<Slot, Cut> = HashMap::new();
        // Process `q`'s first `signals` signals and `spawns` spawns are in
        // the past: is that beyond q's first difference? A signal or spawn
        // q's log does not hold orders nothing (a receipt of a signal never
        // sent), as in trace-causal.
        let reach = |w: &mut Self,
                     q: Slot,
                     signals: u64,
                     spawns: u64,
                     need: &mut HashMap<Slot, Cut>|
         -> Reach {
            let total = w.total(q);
            if signals > total.signals || spawns > total.spawns {
                return Reach::Known;
            }
            if let (Some(before), true) = (w.diffs[q as usize], q != p) {
                if signals > before.signals || spawns > before.spawns {
                    return Reach::Difference;
                }
            }
            let n = need.entry(q).or_default();
            if signals > n.signals || spawns > n.spawns {
                n.signals = n.signals.max(signals);
                n.spawns = n.spawns.max(spawns);
                Reach::Further
            } else {
                Reach::Known
            }
        };
        // The differing event itself and the events before it: their causes.
        need.insert(
            p,
            Cut {
                events: at + 1,
                ..Cut::default()
            },
        );
        let mut stack = vec![p];
        while let Some(q) = stack.pop() {
            let want = need[&q];
            let c0 = *cur.entry(q).or_insert(self.clean[q as usize]);
            let end = if q == p { at + 1 } else { run.events(q) };
            if c0.covers(&want) || c0.events >= end {
                continue;
            }
            let mut c = c0;
            let mut hit = false;
            let mut pushes: Vec<Slot> = Vec::new();
            let mut k = run.block_of_event(q, c.events);
            let blocks_end = run.blocks(q).end;
            while k < blocks_end && !hit && !c.covers(&want) && c.events < end {
                // Edges found in this block: (process, signals, spawns).
                let mut edges: Vec<(Slot, u64, u64)> = Vec::new();
                let r = run.reader.for_each_event_in_block(k, |j, _, e| {
                    if j < c.events || c.covers(&want) || j >= end {
                        return;
                    }
                    match e {
                        EventRef::Receive { msg }
                        | EventRef::Deliver { msg }
                        | EventRef::SignalTaken { signal: msg, .. } => {
                            if let Some(s) = run.slot(msg.sender) {
                                edges.push((s, msg.index + 1, 0));
                            }
                        }
                        EventRef::Send { .. } | EventRef::Signal { .. } => c.signals += 1,
                        EventRef::Spawn { .. } => c.spawns += 1,
                        _ => {}
                    }
                    if j == 0 {
                        let (parent, number) = run.birth[q as usize];
                        if parent != NO_SLOT {
                            edges.push((parent, 0, number as u64));
                        }
                    }
                    c.events = j + 1;
                });
                for (s, signals, spawns) in edges {
                    match reach(self, s, signals, spawns, &mut need) {
                        Reach::Difference => hit = true,
                        Reach::Further => pushes.push(s),
                        Reach::Known => {}
                    }
                }
                if r.is_err() {
                    // A damaged block ends the log: nothing further to walk.
                    break;
                }
                k += 1;
            }
            if hit {
                return false;
            }
            cur.insert(q, c);
            stack.extend(pushes);
        }
        // Nothing met: every prefix walked has a clean past. The candidate's
        // own prefix stops before its differing event.
        cur.insert(p, c.before);
        for (q, c) in cur {
            let m = &mut self.clean[q as usize];
            if c.events > m.events {
                *m = c;
            }
        }
        true
    }
}
