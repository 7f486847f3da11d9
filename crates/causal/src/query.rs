//! Happened-before queries: is one event a cause of another, and what is an
//! event's causal past or future.
//!
//! Happened-before is program order within a process, plus an edge from each
//! spawn to the child's first event, from each send (or signal) to each
//! event that received it: its delivery, its taking, its consumption by a
//! `receive` (also when an exit or 'DOWN' signal was turned into a message
//! first: the message keeps the signal's id), and from each operation on a
//! shared object to the next operation on it ([`crate::shared`]).
//! Everything else follows by transitivity.
//!
//! The causal past of an event is downward closed in every process, so it is
//! a prefix of each process log: one count per process, which is the event's
//! vector clock. Likewise the causal future is a suffix of each process log.
//!
//! Costs (R: receipts, S: signals, P: processes):
//! - [`Model::causal_past`]: O(P + receipts in the past), by walking receipt
//!   edges backwards; [`Model::causal_future`]: O(P + signals in the future)
//!   (the first call builds a signal → receipts index, O(R + S)). The same
//!   for a set of events, and for what lies strictly before or after a set
//!   ([`Model::causal_past_before`], [`Model::causal_future_after`]).
//!   The pasts of many events each on its own: [`crate::causal_pasts`],
//!   one backward sweep of the rebuilt derivation for up to 64 of them.
//! - [`Model::happened_before`]: O(1) within a process; across processes a
//!   backward search from the later event that only visits receipts placed
//!   after the earlier event in the rebuilt derivation, O(k log R) for k such
//!   receipts in the later event's past. The first call rebuilds the
//!   derivation to place the receipts, O(R + S + spawns).

use crate::facts::{EventId, ReceiptFact, TableRow, NO_ROW};
use crate::index::{Positions, ReceiptIndex};
use crate::model::Model;
use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use trace_format::ProcId;

impl ReceiptIndex {
    fn build(m: &Model) -> ReceiptIndex {
        let total_signals = m.total_signals();
        let mut offsets = vec![0usize; total_signals + 1];
        let mut receiver = vec![NO_ROW; m.total_receipts()];
        for (s, p) in m.procs.iter().enumerate() {
            receiver[p.receipts.clone()].fill(s as TableRow);
            for rc in m.receipts_of(s as TableRow) {
                if let Some(g) = m.signal_global(rc.sender, rc.index) {
                    offsets[g + 1] += 1;
                }
            }
        }
        for i in 1..offsets.len() {
            offsets[i] += offsets[i - 1];
        }
        let mut fill = offsets.clone();
        let mut list = vec![0usize; offsets[total_signals]];
        for (s, p) in m.procs.iter().enumerate() {
            for (k, rc) in m.receipts_of(s as TableRow).iter().enumerate() {
                if let Some(g) = m.signal_global(rc.sender, rc.index) {
                    list[fill[g]] = p.receipts.start + k;
                    fill[g] += 1;
                }
            }
        }
        ReceiptIndex {
            offsets,
            list,
            receiver,
        }
    }

    /// The receipts (global indices) of signal `index` of `sender`.
    pub fn of(&self, m: &Model, sender: TableRow, index: u32) -> &[usize] {
        match m.signal_global(sender, index) {
            Some(g) => &self.list[self.offsets[g]..self.offsets[g + 1]],
            None => &[],
        }
    }

    /// The receiver and the receipt with global index `j`.
    pub fn receipt<'m>(&self, m: &'m Model, j: usize) -> (TableRow, &'m ReceiptFact) {
        let s = self.receiver[j];
        let local = j - m.procs[s as usize].receipts.start;
        (s, &m.receipts_of(s)[local])
    }
}

/// A causal past: for every process, how many of its first events it holds.
/// It is the vector clock of the event it was computed for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Past {
    ids: Arc<[ProcId]>,
    counts: Vec<u64>,
}

/// A causal future: for every process, the index of its first event in it
/// (the rest of its log follows).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Future {
    ids: Arc<[ProcId]>,
    /// `u64::MAX`: none of the process's events.
    first: Vec<u64>,
    events: Vec<u64>,
}

fn slot_in(ids: &[ProcId], id: ProcId) -> Option<usize> {
    match ids.get(id.0 as usize) {
        Some(&x) if x == id => Some(id.0 as usize),
        _ => ids.binary_search(&id).ok(),
    }
}

impl Past {
    /// The past holding the first `counts[row]` events of each row.
    pub(crate) fn from_counts(ids: Arc<[ProcId]>, counts: Vec<u64>) -> Past {
        Past { ids, counts }
    }

    /// How many of `p`'s events are in the past (its vector clock entry).
    pub fn count(&self, p: ProcId) -> u64 {
        slot_in(&self.ids, p).map_or(0, |s| self.counts[s])
    }

    pub fn contains(&self, e: EventId) -> bool {
        e.index < self.count(e.proc)
    }

    /// Events in the past.
    pub fn len(&self) -> u64 {
        self.counts.iter().sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The processes that take part, with their number of events.
    pub fn processes(&self) -> impl Iterator<Item = (ProcId, u64)> + '_ {
        self.ids
            .iter()
            .zip(&self.counts)
            .filter(|(_, &c)| c > 0)
            .map(|(&p, &c)| (p, c))
    }

    /// Per process row (the order of [`Model::processes`]), for
    /// [`Model::derive_within`].
    pub fn as_limits(&self) -> &[u64] {
        &self.counts
    }
}

impl Future {
    /// The first event of `p` in the future, if any.
    pub fn first(&self, p: ProcId) -> Option<u64> {
        slot_in(&self.ids, p)
            .map(|s| self.first[s])
            .filter(|&f| f != u64::MAX)
    }

    pub fn contains(&self, e: EventId) -> bool {
        self.first(e.proc).is_some_and(|f| e.index >= f)
    }

    /// Events in the future.
    pub fn len(&self) -> u64 {
        self.first
            .iter()
            .zip(&self.events)
            .filter(|(&f, _)| f != u64::MAX)
            .map(|(&f, &n)| n - f)
            .sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The processes that take part, with the range of their events in it.
    pub fn processes(&self) -> impl Iterator<Item = (ProcId, std::ops::Range<u64>)> + '_ {
        self.ids
            .iter()
            .zip(self.first.iter().zip(&self.events))
            .filter(|(_, (&f, &n))| f < n)
            .map(|(&p, (&f, &n))| (p, f..n))
    }
}

impl Model {
    pub(crate) fn receipt_index(&self) -> &ReceiptIndex {
        self.receipts_of.get_or_init(|| ReceiptIndex::build(self))
    }

    pub(crate) fn positions(&self) -> &Positions {
        self.positions.get_or_init(|| {
            self.place_events(None)
                .expect("a derivation that cannot be cancelled")
        })
    }

    /// Rebuilds the derivation that places events ([`position`](Self::position),
    /// [`happened_before`](Self::happened_before), [`crate::causal_pasts`]),
    /// unless `cancel` is set before it is done: a caller that may need it
    /// builds it beside other work, and gives it up when that work finds it
    /// unneeded.
    pub fn place_events_unless(&self, cancel: &AtomicBool) {
        if self.positions.get().is_none() {
            if let Some(p) = self.place_events(Some(cancel)) {
                let _ = self.positions.set(p);
            }
        }
    }

    fn place_events(&self, cancel: Option<&AtomicBool>) -> Option<Positions> {
        let mut start = vec![u64::MAX; self.procs.len()];
        let mut receipt = vec![u64::MAX; self.total_receipts()];
        let mut dep: Vec<Vec<u64>> = self.deps.iter().map(|d| vec![u64::MAX; d.len()]).collect();
        let mut next_receipt = vec![0usize; self.procs.len()];
        let mut next_dep = vec![0usize; self.procs.len()];
        let mut pos = 0u64;
        let mut stretches = Vec::new();
        let out = crate::derive::derive_slots_unless(self, None, cancel, |s, from, to| {
            stretches.push((s, to - from));
            let base = self.procs[s as usize].receipts.start;
            let recs = self.receipts_of(s);
            if from == 0 {
                start[s as usize] = pos;
            }
            let j = &mut next_receipt[s as usize];
            while *j < recs.len() && recs[*j].at < to {
                receipt[base + *j] = pos + (recs[*j].at - from) as u64;
                *j += 1;
            }
            let deps = self.deps_of(s);
            let j = &mut next_dep[s as usize];
            while *j < deps.len() && deps[*j].at < to {
                dep[s as usize][*j] = pos + (deps[*j].at - from) as u64;
                *j += 1;
            }
            pos += (to - from) as u64;
        })?;
        Some(Positions {
            start,
            receipt,
            dep,
            complete: out.cycles.is_empty() && out.behind.is_empty(),
            stretches,
        })
    }

    /// The position of an event in the rebuilt derivation (`None` when a
    /// happened-before cycle kept it out).
    pub fn position(&self, e: EventId) -> Option<u64> {
        let (s, at) = self.locate(e)?;
        self.position_of(s, at)
    }

    fn position_of(&self, s: TableRow, index: u32) -> Option<u64> {
        let pos = self.positions();
        let p = &self.procs[s as usize];
        let recs = self.receipts_of(s);
        // Stretches of the derivation start at a receipt, a dependency or
        // event 0: the last of them at or before `index` starts its stretch.
        let k = recs.partition_point(|r| r.at <= index);
        let (mut base, mut at) = match k {
            0 => (pos.start[s as usize], 0),
            k => (pos.receipt[p.receipts.start + k - 1], recs[k - 1].at),
        };
        let deps = self.deps_of(s);
        let j = deps.partition_point(|d| d.at <= index);
        if j > 0 && deps[j - 1].at >= at {
            (base, at) = (pos.dep[s as usize][j - 1], deps[j - 1].at);
        }
        (base != u64::MAX).then(|| base + (index - at) as u64)
    }

    pub(crate) fn ids(&self) -> Arc<[ProcId]> {
        self.procs.iter().map(|p| p.id).collect()
    }

    /// The events of other processes that follow row `s`'s shared-state
    /// operations: (its event, the follower, the follower's event), sorted.
    fn dependents_of(&self, s: TableRow) -> &[(u32, TableRow, u32)] {
        let all = self.dependents.get_or_init(|| {
            let mut all: Vec<Vec<(u32, TableRow, u32)>> = vec![Vec::new(); self.procs.len()];
            for (f, deps) in self.deps.iter().enumerate() {
                for d in deps {
                    all[d.after as usize].push((d.after_at, f as TableRow, d.at));
                }
            }
            for v in &mut all {
                v.sort_unstable();
            }
            all
        });
        all.get(s as usize).map_or(&[], Vec::as_slice)
    }

    /// Pushes the followers of row `s`'s events in `events`.
    fn followers(
        &self,
        s: TableRow,
        events: std::ops::Range<u32>,
        mut push: impl FnMut(TableRow, u32),
    ) {
        let d = self.dependents_of(s);
        let lo = d.partition_point(|x| x.0 < events.start);
        for &(at, f, f_at) in &d[lo..] {
            if at >= events.end {
                break;
            }
            push(f, f_at);
        }
    }

    /// The dependencies of row `s` (see [`crate::shared`]).
    pub(crate) fn deps_of(&self, s: TableRow) -> &[crate::shared::DepFact] {
        self.deps.get(s as usize).map_or(&[], Vec::as_slice)
    }

    /// Adds the causes of the events of `q` in `events` that come from
    /// other processes: the sends of its receipts `recs` (those in that
    /// range), the operations its own shared-state operations follow, and,
    /// with `spawn`, its spawn.
    fn causes(
        &self,
        q: TableRow,
        recs: &[ReceiptFact],
        events: std::ops::Range<u32>,
        spawn: bool,
        mut push: impl FnMut(TableRow, u32),
    ) {
        for rc in recs {
            if let Some(f) = self.signal(rc.sender, rc.index) {
                push(rc.sender, f.at + 1);
            }
        }
        let deps = self.deps_of(q);
        let lo = deps.partition_point(|d| d.at < events.start);
        for d in &deps[lo..] {
            if d.at >= events.end {
                break;
            }
            push(d.after, d.after_at + 1);
        }
        if spawn {
            if let Some((parent, at)) = self.spawned_by[q as usize] {
                push(parent, at + 1);
            }
        }
    }

    /// The causal past of `e`: `e` and every event that happened before it.
    pub fn causal_past(&self, e: EventId) -> Past {
        self.causal_past_of(&[e])
    }

    /// The vector clock of `e`: for each process, how many of its events
    /// happened before `e` or are `e`. The same as [`causal_past`](Self::causal_past).
    pub fn vector_clock(&self, e: EventId) -> Past {
        self.causal_past(e)
    }

    /// The union of the causal pasts of `events`.
    pub fn causal_past_of(&self, events: &[EventId]) -> Past {
        let stack: Vec<(TableRow, u32)> = events
            .iter()
            .filter_map(|&e| self.locate(e))
            .map(|(s, at)| (s, at + 1))
            .collect();
        self.past_from(stack)
    }

    /// The events that happened before one of `events` (strictly: an event
    /// is in it only if it happened before another of them). It is the
    /// union of the causal pasts of their immediate predecessors.
    pub fn causal_past_before(&self, events: &[EventId]) -> Past {
        let mut stack: Vec<(TableRow, u32)> = Vec::new();
        for e in events {
            let Some((s, at)) = self.locate(*e) else {
                continue;
            };
            // Its process's earlier events, and what the event itself received.
            stack.push((s, at));
            let recs = self.receipts_of(s);
            let lo = recs.partition_point(|r| r.at < at);
            let hi = recs.partition_point(|r| r.at <= at);
            self.causes(s, &recs[lo..hi], at..at + 1, at == 0, |q, n| {
                stack.push((q, n))
            });
        }
        self.past_from(stack)
    }

    /// The causal past closed from `stack`: `(row, h)` puts the first `h`
    /// events of the process in it.
    fn past_from(&self, mut stack: Vec<(TableRow, u32)>) -> Past {
        let mut counts = vec![0u64; self.procs.len()];
        while let Some((q, h)) = stack.pop() {
            let old = counts[q as usize] as u32;
            if h <= old {
                continue;
            }
            counts[q as usize] = h as u64;
            let recs = self.receipts_of(q);
            let lo = recs.partition_point(|r| r.at < old);
            let hi = recs.partition_point(|r| r.at < h);
            self.causes(q, &recs[lo..hi], old..h, old == 0, |s, n| {
                stack.push((s, n))
            });
        }
        Past {
            ids: self.ids(),
            counts,
        }
    }

    /// The causal future of `e`: `e` and every event it happened before.
    pub fn causal_future(&self, e: EventId) -> Future {
        self.causal_future_of(&[e])
    }

    /// The union of the causal futures of `events`.
    pub fn causal_future_of(&self, events: &[EventId]) -> Future {
        let stack: Vec<(TableRow, u32)> = events.iter().filter_map(|&e| self.locate(e)).collect();
        self.future_from(stack)
    }

    /// The events that one of `events` happened before (strictly: an event
    /// is in it only if another of them happened before it). It is the
    /// union of the causal futures of their immediate successors.
    pub fn causal_future_after(&self, events: &[EventId]) -> Future {
        let idx = self.receipt_index();
        let mut stack: Vec<(TableRow, u32)> = Vec::new();
        for e in events {
            let Some((s, at)) = self.locate(*e) else {
                continue;
            };
            // Its process's later events, the receipts of what it sent, the
            // process it spawned.
            stack.push((s, at + 1));
            let sigs = self.signals_of(s);
            let lo = sigs.partition_point(|f| f.at < at);
            let hi = sigs.partition_point(|f| f.at <= at);
            for k in lo..hi {
                for &j in idx.of(self, s, k as u32) {
                    let (r, rc) = idx.receipt(self, j);
                    stack.push((r, rc.at));
                }
            }
            for sp in self.spawns_of(s) {
                if sp.at == at && sp.child != NO_ROW {
                    stack.push((sp.child, 0));
                }
            }
            self.followers(s, at..at + 1, |q, n| stack.push((q, n)));
        }
        self.future_from(stack)
    }

    /// The causal future closed from `stack`: `(row, l)` puts the events
    /// of the process from index `l` on in it.
    fn future_from(&self, mut stack: Vec<(TableRow, u32)>) -> Future {
        let idx = self.receipt_index();
        let lens: Vec<u64> = self.procs.iter().map(|p| p.events).collect();
        let mut first = vec![u64::MAX; self.procs.len()];
        while let Some((q, l)) = stack.pop() {
            let old = first[q as usize].min(lens[q as usize]) as u32;
            if l >= old {
                continue;
            }
            first[q as usize] = l as u64;
            let sigs = self.signals_of(q);
            let lo = sigs.partition_point(|f| f.at < l);
            let hi = sigs.partition_point(|f| f.at < old);
            for k in lo..hi {
                for &j in idx.of(self, q, k as u32) {
                    let (r, rc) = idx.receipt(self, j);
                    stack.push((r, rc.at));
                }
            }
            for sp in self.spawns_of(q) {
                if sp.at >= l && sp.at < old && sp.child != NO_ROW {
                    stack.push((sp.child, 0));
                }
            }
            self.followers(q, l..old, |s, n| stack.push((s, n)));
        }
        Future {
            ids: self.ids(),
            first,
            events: lens,
        }
    }

    /// True when `a` happened before `b` (strictly: an event did not happen
    /// before itself).
    pub fn happened_before(&self, a: EventId, b: EventId) -> bool {
        let (Some((sa, _)), Some((sb, _))) = (self.locate(a), self.locate(b)) else {
            return false;
        };
        if sa == sb {
            return a.index < b.index;
        }
        let pos = self.positions();
        // Every event on a path from a to b lies after a in any derivation;
        // with a complete derivation, receipts placed before a are skipped.
        // (Not with dependencies, which are placed apart.)
        let after = if pos.complete && self.deps.iter().all(Vec::is_empty) {
            let pa = self.position_of(sa, a.index as u32).unwrap_or(0);
            let pb = self.position_of(sb, b.index as u32).unwrap_or(u64::MAX);
            if pa >= pb {
                return false;
            }
            Some(pa)
        } else {
            None
        };
        let want = a.index as u32;
        let mut seen: HashMap<TableRow, u32> = HashMap::new();
        let mut stack = vec![(sb, b.index as u32 + 1)];
        while let Some((q, h)) = stack.pop() {
            if q == sa && h > want {
                return true;
            }
            let old = seen.get(&q).copied().unwrap_or(0);
            if h <= old {
                continue;
            }
            seen.insert(q, h);
            let p = &self.procs[q as usize];
            let recs = self.receipts_of(q);
            let mut lo = recs.partition_point(|r| r.at < old);
            let hi = recs.partition_point(|r| r.at < h);
            let mut spawn_counts = old == 0;
            if let Some(pa) = after {
                let placed = &pos.receipt[p.receipts.start..p.receipts.end];
                lo = lo.max(placed.partition_point(|&x| x <= pa));
                spawn_counts &= pos.start[q as usize] > pa;
            }
            self.causes(q, &recs[lo..hi.max(lo)], old..h, spawn_counts, |s, n| {
                stack.push((s, n))
            });
        }
        false
    }

    /// True when neither event happened before the other.
    pub fn concurrent(&self, a: EventId, b: EventId) -> bool {
        a != b && !self.happened_before(a, b) && !self.happened_before(b, a)
    }

    /// True when shared-state operation `b` follows `a` (of another
    /// process) on its object and nothing but that object's order put `a`
    /// first: without the edge from `a` to `b`, happened-before leaves them
    /// unordered. That order was a choice of the run, a race. A shared
    /// operation's only causes are its process's previous event (or its
    /// spawn) and the operation it follows, so the test is whether `a`
    /// happened before what came before `b`.
    pub fn raced(&self, a: EventId, b: EventId) -> bool {
        if a.proc == b.proc || self.shared_predecessor(b) != Some(a) {
            return false;
        }
        let before_b = match b.index {
            0 => self.spawn_of(b.proc),
            i => Some(EventId::new(b.proc, i - 1)),
        };
        before_b.is_none_or(|e| e != a && !self.happened_before(a, e))
    }
}
