//! The scan's hits, filed by task and process. A hit's values stay in the
//! buffer of the block that found them: a hit is filed as its key and
//! where its values are, so gathering moves 16 bytes a hit and copies no
//! term (a log-wide predicate can have millions of hits, and on large logs
//! fresh memory costs as much as the work).

use super::scan::{BlockScan, Keyed, Task};
use crate::compiled::CompiledProperty;
use rayon::prelude::*;
use trace_term::Term;

/// One filed hit: its key, then its values' block and offset in that
/// block's buffer.
type Filed = (u64, u32, u32);

/// Hits of one task, for every process: in order of key per process,
/// `start[p]..start[p + 1]` the hits filed under the process with id `p`.
pub struct TaskHits {
    hits: Vec<Filed>,
    start: Vec<u32>,
    stride: usize,
    /// Received-message hits whose receiver the log does not record, by
    /// packed message (imported logs): (key, position in `hits`).
    nobody: Vec<(u64, u32)>,
}

/// Hits per task, and the values they point into (one buffer per block).
pub struct Hits {
    pub tasks: Vec<TaskHits>,
    store: Vec<Vec<Term>>,
}

impl TaskHits {
    /// Process `p`'s hits, and the position of the first.
    fn of(&self, p: usize) -> (&[Filed], usize) {
        match (self.start.get(p), self.start.get(p + 1)) {
            (Some(&a), Some(&b)) => (&self.hits[a as usize..b as usize], a as usize),
            _ => (&[], 0),
        }
    }

    /// Whether process `p` has no hit filed under it and none is unfiled.
    pub fn none_for(&self, p: usize) -> bool {
        self.of(p).0.is_empty() && self.nobody.is_empty()
    }
}

impl Hits {
    /// The values of hit `(block, offset)` of task `t`.
    #[inline]
    fn at(&self, t: usize, (_, block, off): Filed) -> &[Term] {
        let n = self.tasks[t].stride;
        &self.store[block as usize][off as usize..off as usize + n]
    }

    /// Task `t`'s hits filed under process `p`, in key order: each key with
    /// its values.
    pub fn of(&self, t: usize, p: usize) -> impl Iterator<Item = (u64, &[Term])> + '_ {
        self.tasks[t]
            .of(p)
            .0
            .iter()
            .map(move |&h| (h.0, self.at(t, h)))
    }

    /// The values of task `t`'s hit `key` filed under `p` (or under nobody).
    #[inline]
    pub fn find(&self, t: usize, p: usize, key: u64) -> Option<&[Term]> {
        let th = &self.tasks[t];
        let (hits, _) = th.of(p);
        // A short list is read through; a long one is searched.
        let found = if hits.len() <= 16 {
            hits.iter().position(|h| h.0 == key)
        } else {
            hits.binary_search_by_key(&key, |h| h.0).ok()
        };
        if let Some(i) = found {
            return Some(self.at(t, hits[i]));
        }
        self.unfiled(t, key)
    }

    /// The values of task `t`'s hit `key` whose receiver is not recorded.
    fn unfiled(&self, t: usize, key: u64) -> Option<&[Term]> {
        let th = &self.tasks[t];
        if th.nobody.is_empty() {
            return None;
        }
        let i = th.nobody.binary_search_by_key(&key, |(k, _)| *k).ok()?;
        Some(self.at(t, th.hits[th.nobody[i].1 as usize]))
    }

    /// Runs `f` with a [`Receipts`] finder over task `t`'s hits filed under
    /// process `p`, for looking up its receipts in program order.
    pub fn with_receipts<R>(
        &self,
        t: usize,
        p: usize,
        f: impl FnOnce(&mut Receipts<'_>) -> R,
    ) -> R {
        NEXT.with(|cell| match cell.try_borrow_mut() {
            Ok(mut next) => Receipts::start(self, t, p, &mut next).run(f),
            // Nested in another finder on this thread: a table of its own.
            Err(_) => Receipts::start(self, t, p, &mut Vec::new()).run(f),
        })
    }
}

/// No hit of the sender left to meet in order.
const NO_NEXT: u32 = u32::MAX;

thread_local! {
    /// Per sender (by process id): where its next hit is in the list being
    /// read. Kept per thread and cleared after each use, not allocated per
    /// process: a log can have thousands of processes.
    static NEXT: std::cell::RefCell<Vec<u32>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Looks up a process's receipts among its received-message hits. Receipts
/// come in program order and hits in key order (sender, then signal
/// index), and a process receives each sender's messages mostly in the
/// order sent: a cursor per sender finds the next hit at once, where a
/// search per receipt of a long list cost more than the rest of the check.
/// A receipt out of the sender's order is searched for.
pub struct Receipts<'a> {
    hits: &'a Hits,
    t: usize,
    list: &'a [Filed],
    next: &'a mut Vec<u32>,
}

impl<'a> Receipts<'a> {
    fn start(hits: &'a Hits, t: usize, p: usize, next: &'a mut Vec<u32>) -> Self {
        let list = hits.tasks[t].of(p).0;
        if let Some(last) = list.last() {
            let senders = (last.0 >> 32) as usize + 1;
            if next.len() < senders {
                next.resize(senders, NO_NEXT);
            }
        }
        let mut r = Receipts {
            hits,
            t,
            list,
            next,
        };
        r.each_sender(|next, first| *next = first);
        r
    }

    /// Calls `f` with each sender's slot and the position of its first hit.
    fn each_sender(&mut self, mut f: impl FnMut(&mut u32, u32)) {
        let mut i = 0;
        while let Some(h) = self.list.get(i) {
            let sender = h.0 >> 32;
            f(&mut self.next[sender as usize], i as u32);
            i += self.list[i..].partition_point(|x| x.0 >> 32 == sender);
        }
    }

    fn run<R>(mut self, f: impl FnOnce(&mut Receipts<'_>) -> R) -> R {
        let out = f(&mut self);
        self.each_sender(|next, _| *next = NO_NEXT);
        out
    }

    /// The values of the hit on message `key` ([`pack`](super::scan::pack)ed),
    /// as [`Hits::find`] finds them.
    #[inline]
    pub fn find(&mut self, key: u64) -> Option<&'a [Term]> {
        let list = self.list;
        let slot = self.next.get_mut((key >> 32) as usize);
        let at = match slot {
            Some(slot) if *slot != NO_NEXT => {
                let c = *slot as usize;
                if list.get(c).is_some_and(|h| h.0 == key) {
                    *slot += 1;
                    return Some(self.hits.at(self.t, list[c]));
                }
                // Between the hit before the cursor and the one at it: none.
                let below = c == 0 || list[c - 1].0 < key;
                let above = list.get(c).is_none_or(|h| h.0 > key);
                if below && above {
                    None
                } else {
                    list.binary_search_by_key(&key, |h| h.0).ok()
                }
            }
            // No hit from this sender.
            _ => None,
        };
        match at {
            Some(i) => Some(self.hits.at(self.t, list[i])),
            None => self.hits.unfiled(self.t, key),
        }
    }
}

/// Gathers the blocks' hits by task and process. Blocks come grouped by
/// process, each group in event order, so hits filed under the block's own
/// process come in key order; hits filed under a message's receiver are
/// sorted. Event-keyed hits past the end of a process's log in the model
/// (`lens`, by process id) are dropped.
pub fn gather(
    props: &[&CompiledProperty],
    tasks: &[Task],
    blocks: Vec<Option<BlockScan<'_>>>,
    lens: &[u64],
) -> Hits {
    let nprocs = lens.len();
    let stride: Vec<usize> = tasks
        .iter()
        .map(|t| props[t.prop].preds[t.pred].binds.len())
        .collect();
    let mut lists = Vec::with_capacity(blocks.len());
    let mut store = Vec::with_capacity(blocks.len());
    for b in blocks.into_iter().flatten() {
        lists.push((b.process.0 as usize, b.hits));
        store.push(b.vals);
    }
    // Each hit with the offset of its values, for those that are kept.
    let kept = |t: usize| {
        let lists = &lists;
        let stride = &stride;
        lists
            .iter()
            .enumerate()
            .flat_map(move |(bi, (slot, hits))| {
                let mut at = 0u32;
                hits.iter().filter_map(move |h| {
                    let off = at;
                    at += stride[h.task as usize] as u32;
                    let keep = h.task as usize == t
                        && !(tasks[t].keyed == Keyed::Event
                            && h.key >= lens.get(*slot).copied().unwrap_or(0));
                    keep.then_some((h.owner, (h.key, bi as u32, off)))
                })
            })
    };
    let tasks_out = (0..tasks.len())
        .map(|t| {
            // Group by owner (a counting sort: hits of one owner are few),
            // then order each owner's hits by key.
            let mut start = vec![0u32; nprocs + 2];
            for (owner, _) in kept(t) {
                start[(owner as usize).min(nprocs) + 1] += 1;
            }
            for p in 1..start.len() {
                start[p] += start[p - 1];
            }
            let mut fill = start.clone();
            let mut placed: Vec<Filed> = vec![(0, 0, 0); start[nprocs + 1] as usize];
            for (owner, h) in kept(t) {
                let o = (owner as usize).min(nprocs);
                placed[fill[o] as usize] = h;
                fill[o] += 1;
            }
            if tasks[t].keyed == Keyed::Received {
                let mut rest: &mut [Filed] = &mut placed;
                let mut groups = Vec::with_capacity(nprocs + 1);
                for o in 0..=nprocs {
                    let len = (start[o + 1] - start[o]) as usize;
                    let (group, tail) = rest.split_at_mut(len);
                    groups.push(group);
                    rest = tail;
                }
                groups
                    .into_par_iter()
                    .for_each(|g| g.sort_unstable_by_key(|h| h.0));
            }
            // No receiver recorded: kept after the filed ones.
            let filed = start[nprocs] as usize;
            let mut nobody: Vec<(u64, u32)> = placed[filed..]
                .iter()
                .enumerate()
                .map(|(i, h)| (h.0, (filed + i) as u32))
                .collect();
            nobody.sort_unstable_by_key(|(k, _)| *k);
            TaskHits {
                hits: placed,
                start: start[..=nprocs].to_vec(),
                stride: stride[t],
                nobody,
            }
        })
        .collect();
    Hits {
        tasks: tasks_out,
        store,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hits of one task under process 0 with `keys` (sorted), each valued
    /// with its own key.
    fn hits_of(keys: &[u64]) -> Hits {
        let store = vec![keys.iter().map(|&k| Term::int(k as i64)).collect()];
        let hits = keys
            .iter()
            .enumerate()
            .map(|(i, &k)| (k, 0, i as u32))
            .collect();
        Hits {
            tasks: vec![TaskHits {
                hits,
                start: vec![0, keys.len() as u32],
                stride: 1,
                nobody: Vec::new(),
            }],
            store,
        }
    }

    #[test]
    fn receipts_find_what_a_search_finds_in_any_order() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut rand = move |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        for _ in 0..200 {
            // Messages of 5 senders; some are hits.
            let all: Vec<u64> = (0..5u64)
                .flat_map(|s| (0..rand(12)).map(move |i| s << 32 | i))
                .collect();
            let keys: Vec<u64> = all.iter().copied().filter(|_| rand(3) > 0).collect();
            let h = hits_of(&keys);
            // Receipts mostly in each sender's order, some swapped, some
            // repeated, some of messages no sender sent.
            let mut order = all.clone();
            for _ in 0..rand(4) {
                let (i, j) = (rand(order.len() as u64 + 1), rand(order.len() as u64 + 1));
                if (i as usize) < order.len() && (j as usize) < order.len() {
                    order.swap(i as usize, j as usize);
                }
            }
            order.push(9 << 32);
            if let Some(&k) = order.first() {
                order.push(k);
            }
            h.with_receipts(0, 0, |found| {
                for &k in &order {
                    assert_eq!(found.find(k), h.find(0, 0, k), "key {k:#x} in {keys:x?}");
                }
            });
        }
    }
}
