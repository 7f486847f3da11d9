//! The causal pasts of many events at once. One walk per event
//! ([`Model::causal_past`]) visits the receipts of the whole past, and the
//! pasts of events late in a run are nearly the whole log: ten of them cost
//! ten walks of the log. Here one sweep goes backwards through the rebuilt
//! derivation (every event after the events that happened after it) and
//! carries, for each event reached, one bit per asked event whose past holds
//! it: the bits of its next event in its process, of the receipts of the
//! signals it sent, of the first event of the process it spawned, and its
//! own. Since a past is a prefix of each process log, the first event of a
//! process (going backwards) that gains a bit ends that past there.
//!
//! The sweep needs a complete derivation without dependencies on shared
//! state; otherwise each past is walked on its own.

use crate::facts::{EventId, TableRow};
use crate::model::Model;
use crate::query::Past;

/// Events per sweep: one bit each in a word.
const PER_SWEEP: usize = 64;

/// The causal past of each of `events` ([`Model::causal_past`]), in order.
pub fn causal_pasts(model: &Model, events: &[EventId]) -> Vec<Past> {
    if events.len() < 2 || model.deps.iter().any(|d| !d.is_empty()) {
        return events.iter().map(|&e| model.causal_past(e)).collect();
    }
    if !model.positions().complete {
        return events.iter().map(|&e| model.causal_past(e)).collect();
    }
    events
        .chunks(PER_SWEEP)
        .flat_map(|chunk| Sweep::new(model, chunk).run())
        .collect()
}

/// One sweep for up to [`PER_SWEEP`] events.
struct Sweep<'m> {
    model: &'m Model,
    /// The asked events located, each with its bit, sorted by row and index.
    asked: Vec<(TableRow, u32, u64)>,
    /// Per asked event: per row, how many of its events are in the past.
    counts: Vec<Vec<u64>>,
    /// Per row: the bits of the earliest event swept so far.
    mask: Vec<u64>,
    /// Per signal (global index): the bits of its receipts.
    signal: Vec<u64>,
    /// Per row: how many of its receipts, signals and spawns, and of the
    /// asked events (an end in `asked`), are not swept yet.
    left: Vec<[u32; 4]>,
}

impl<'m> Sweep<'m> {
    fn new(model: &'m Model, events: &[EventId]) -> Self {
        let n = model.procs.len();
        let mut asked: Vec<(TableRow, u32, u64)> = events
            .iter()
            .enumerate()
            .filter_map(|(k, &e)| model.locate(e).map(|(s, at)| (s, at, 1u64 << k)))
            .collect();
        asked.sort_unstable();
        let mut left: Vec<[u32; 4]> = (0..n as TableRow)
            .map(|s| {
                [
                    model.receipts_of(s).len() as u32,
                    model.signals_of(s).len() as u32,
                    model.spawns_of(s).len() as u32,
                    0,
                ]
            })
            .collect();
        for (k, &(s, _, _)) in asked.iter().enumerate() {
            left[s as usize][3] = k as u32 + 1;
        }
        Sweep {
            model,
            asked,
            counts: vec![vec![0; n]; events.len()],
            mask: vec![0; n],
            signal: vec![0; model.total_signals()],
            left,
        }
    }

    fn run(mut self) -> Vec<Past> {
        let m = self.model;
        let pos = m.positions();
        // Stretches placed after every asked event hold no event of a past.
        let latest = self
            .asked
            .iter()
            .filter_map(|&(s, at, _)| m.position(EventId::new(m.id(s), at as u64)))
            .max();
        let mut end: u64 = pos.stretches.iter().map(|&(_, len)| len as u64).sum();
        let mut hi: Vec<u32> = m.procs.iter().map(|p| p.events as u32).collect();
        for &(s, len) in pos.stretches.iter().rev() {
            let to = hi[s as usize];
            let from = to.saturating_sub(len);
            hi[s as usize] = from;
            end -= len as u64;
            if latest.is_some_and(|l| end <= l) {
                self.stretch(s, from, to);
            }
        }
        let ids = m.ids();
        self.counts
            .into_iter()
            .map(|c| Past::from_counts(ids.clone(), c))
            .collect()
    }

    /// Sweeps events `from..to` of row `s`, last first: a merge of its
    /// receipts, signals, spawns and asked events going down.
    fn stretch(&mut self, s: TableRow, from: u32, to: u32) {
        let m = self.model;
        let (recs, sigs, spawns) = (m.receipts_of(s), m.signals_of(s), m.spawns_of(s));
        let base = m.facts.signal_start[s as usize];
        let mut cur = self.mask[s as usize];
        let [mut r, mut g, mut k, mut a] = self.left[s as usize].map(|x| x as usize);
        // Items of events placed after every asked event were not swept.
        while r > 0 && recs[r - 1].at >= to {
            r -= 1;
        }
        while g > 0 && sigs[g - 1].at >= to {
            g -= 1;
        }
        while k > 0 && spawns[k - 1].at >= to {
            k -= 1;
        }
        // The index of the last item not swept of a list (-1: none).
        let at = |n: usize, at: &dyn Fn(usize) -> u32| if n > 0 { at(n - 1) as i64 } else { -1 };
        loop {
            let ra = at(r, &|i| recs[i].at);
            let ga = at(g, &|i| sigs[i].at);
            let ka = at(k, &|i| spawns[i].at);
            let aa = match a.checked_sub(1).map(|i| self.asked[i]) {
                Some((row, at, _)) if row == s => at as i64,
                _ => -1,
            };
            let e = ra.max(ga).max(ka).max(aa);
            if e < from as i64 {
                break;
            }
            let mut add = 0u64;
            while g > 0 && sigs[g - 1].at as i64 == e {
                g -= 1;
                add |= self.signal[base + g];
            }
            if ka == e || aa == e {
                add |= self.rare(s, e as u32, &mut k, &mut a);
            }
            let new = add & !cur;
            if new != 0 {
                cur |= new;
                let mut bits = new;
                while bits != 0 {
                    let b = bits.trailing_zeros() as usize;
                    self.counts[b][s as usize] = e as u64 + 1;
                    bits &= bits - 1;
                }
            }
            while r > 0 && recs[r - 1].at as i64 == e {
                r -= 1;
                let rc = &recs[r];
                if let (true, Some(g)) = (cur != 0, m.signal_global(rc.sender, rc.index)) {
                    self.signal[g] |= cur;
                }
            }
        }
        self.mask[s as usize] = cur;
        self.left[s as usize] = [r, g, k, a].map(|x| x as u32);
    }

    /// The bits row `s`'s event `e` adds as an asked event or a spawn
    /// (the rare items), taking them off their lists.
    fn rare(&self, s: TableRow, e: u32, k: &mut usize, a: &mut usize) -> u64 {
        let m = self.model;
        let spawns = m.spawns_of(s);
        let mut add = 0u64;
        while *k > 0 && spawns[*k - 1].at == e {
            *k -= 1;
            if let Some(c) = m.starts_child(s, &spawns[*k]) {
                add |= self.mask[c as usize];
            }
        }
        while let Some(&(row, at, bit)) = a.checked_sub(1).map(|i| &self.asked[i]) {
            if row != s || at != e {
                break;
            }
            add |= bit;
            *a -= 1;
        }
        add
    }
}
