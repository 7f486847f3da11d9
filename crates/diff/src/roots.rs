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
//! later walks stop there. A walk often comes back to a process for more of
//! it; what the blocks it read hold for the walk (receipts, sends, spawns)
//! is kept, up to [`FACTS_BUDGET`] facts, so a block is decoded once.

use crate::run::{Run, TableRow, NO_ROW};
use crate::source::{BlockStream, Cut};
use std::collections::HashMap;
use std::rc::Rc;
use trace_format::EventRef;

/// Most facts kept from decoded blocks (16 bytes each); beyond, the cache
/// starts over.
const FACTS_BUDGET: usize = 1 << 20;

/// What one event means to the walk.
#[derive(Copy, Clone, Debug)]
enum Fact {
    Other,
    /// A send or another signal sent.
    Signal,
    Spawn,
    /// A delivery, taking or consumption of the sender's signal `index`.
    Receipt {
        sender: TableRow,
        index: u64,
    },
}

/// The facts of one block: its first event's index and one fact per event.
struct BlockFacts {
    first: u64,
    facts: Vec<Fact>,
}

/// A first difference of one run: process, and the prefix before it.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Candidate {
    pub slot: TableRow,
    pub before: Cut,
}

/// Walks the causal pasts of one run's first differences.
pub(crate) struct Walker<'a> {
    run: &'a Run<'a>,
    /// Per row: the prefix before its first difference, if it has one.
    diffs: Vec<Option<Cut>>,
    /// Per row: the whole readable log, once known.
    totals: Vec<Option<Cut>>,
    /// Per row: a prefix known to have a clean causal past.
    clean: Vec<Cut>,
    /// Facts of blocks decoded so far, by block position.
    facts: HashMap<usize, Rc<BlockFacts>>,
    cached: usize,
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
            facts: HashMap::new(),
            cached: 0,
        }
    }

    /// The facts of block `k` (`None`: it does not decode, and the log ends before it).
    fn facts(&mut self, k: usize) -> Option<Rc<BlockFacts>> {
        if let Some(f) = self.facts.get(&k) {
            return Some(f.clone());
        }
        let run = self.run;
        let mut facts = Vec::new();
        run.reader
            .for_each_event_in_block(k, |_, _, e| {
                facts.push(match e {
                    EventRef::Receive { msg }
                    | EventRef::Deliver { msg }
                    | EventRef::SignalTaken { signal: msg, .. } => Fact::Receipt {
                        sender: run.slot(msg.sender).unwrap_or(NO_ROW),
                        index: msg.index,
                    },
                    EventRef::Send { .. } | EventRef::Signal { .. } => Fact::Signal,
                    EventRef::Spawn { .. } => Fact::Spawn,
                    _ => Fact::Other,
                })
            })
            .ok()?;
        if self.cached + facts.len() > FACTS_BUDGET {
            self.facts.clear();
            self.cached = 0;
        }
        self.cached += facts.len();
        let f = Rc::new(BlockFacts {
            first: run.block_first_event(k),
            facts,
        });
        self.facts.insert(k, f.clone());
        Some(f)
    }

    /// The whole readable log of `q`. When the comparison did not read it
    /// (its blocks were equal in both logs), its signals are counted from its
    /// last block alone, and its spawns are its children in the process table
    /// if its log is complete; only an incomplete log is read through.
    fn total(&mut self, q: TableRow) -> Cut {
        if let Some(t) = self.totals[q as usize] {
            return t;
        }
        let run = self.run;
        let info = &run.procs[q as usize];
        let blocks = run.blocks(q);
        let t = match blocks.clone().last() {
            Some(last) if info.recorded == Some(info.events) => {
                let tail = self.facts(last).map_or(0, |f| {
                    f.facts.iter().filter(|f| matches!(f, Fact::Signal)).count() as u64
                });
                Cut {
                    events: info.events,
                    signals: run.block_first_signal(last) + tail,
                    spawns: run.children(q).len() as u64,
                }
            }
            Some(_) => BlockStream::new(run, q, false).drain(),
            None => Cut::default(),
        };
        self.totals[q as usize] = Some(t);
        t
    }

    /// Is `c`'s first difference a root in this run? (Its past holds no other.)
    pub fn is_root(&mut self, c: &Candidate) -> bool {
        let p = c.slot;
        let at = c.before.events;
        let run = self.run;
        let mut need: HashMap<TableRow, Cut> = HashMap::new();
        let mut cur: HashMap<TableRow, Cut> = HashMap::new();
        // Process `q`'s first `signals` signals and `spawns` spawns are in
        // the past: is that beyond q's first difference? A signal or spawn
        // q's log does not hold orders nothing (a receipt of a signal never
        // sent), as in trace-causal.
        let reach = |w: &mut Self,
                     q: TableRow,
                     signals: u64,
                     spawns: u64,
                     need: &mut HashMap<TableRow, Cut>|
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
            let mut pushes: Vec<TableRow> = Vec::new();
            let mut k = run.block_of_event(q, c.events);
            let blocks_end = run.blocks(q).end;
            while k < blocks_end && !hit && !c.covers(&want) && c.events < end {
                let Some(block) = self.facts(k) else {
                    // A damaged block ends the log: nothing further to walk.
                    break;
                };
                // Edges found in this block: (process, signals, spawns).
                let mut edges: Vec<(TableRow, u64, u64)> = Vec::new();
                let from = c.events.saturating_sub(block.first) as usize;
                for (i, f) in block.facts.iter().enumerate().skip(from) {
                    let j = block.first + i as u64;
                    if c.covers(&want) || j >= end {
                        break;
                    }
                    match *f {
                        Fact::Receipt { sender, index } if sender != NO_ROW => {
                            edges.push((sender, index + 1, 0))
                        }
                        Fact::Signal => c.signals += 1,
                        Fact::Spawn => c.spawns += 1,
                        _ => {}
                    }
                    if j == 0 {
                        if let Some((parent, number)) = run.birth(q) {
                            edges.push((parent, 0, number as u64));
                        }
                    }
                    c.events = j + 1;
                }
                for (s, signals, spawns) in edges {
                    match reach(self, s, signals, spawns, &mut need) {
                        Reach::Difference => hit = true,
                        Reach::Further => pushes.push(s),
                        Reach::Known => {}
                    }
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
