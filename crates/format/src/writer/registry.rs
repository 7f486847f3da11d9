//! The processes registered so far, by dense index, without a lock: an
//! index is drawn from a counter and the process's pid and parent written
//! into chunks allocated as the count reaches them. A run of many short
//! processes registered each under one lock shared by every scheduler
//! thread, and grew one vector by copying it.

use crate::event::ProcId;
use crate::meta::ProcessEntry;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::OnceLock;

/// Chunk k holds `FIRST << k` slots; 23 chunks hold every u32 index.
const FIRST_BITS: u32 = 10;
const CHUNKS: usize = 23;
/// A slot's parent when the process has none.
const NO_PARENT: u32 = u32::MAX;

#[derive(Default)]
struct Slot {
    pid: AtomicU64,
    /// The parent's index plus one; 0 while the slot is being written.
    parent: AtomicU32,
}

#[derive(Default)]
pub(crate) struct Registry {
    next: AtomicU32,
    chunks: [OnceLock<Box<[Slot]>>; CHUNKS],
}

/// Chunk and offset of index `i`.
fn locate(i: u32) -> (usize, usize) {
    let n = (u64::from(i) >> FIRST_BITS) + 1;
    let k = 63 - n.leading_zeros();
    let start = ((1u64 << k) - 1) << FIRST_BITS;
    (k as usize, (u64::from(i) - start) as usize)
}

impl Registry {
    fn slot(&self, i: u32) -> &Slot {
        let (k, off) = locate(i);
        let chunk = self.chunks[k].get_or_init(|| {
            (0..(1usize << (k as u32 + FIRST_BITS)))
                .map(|_| Slot::default())
                .collect()
        });
        &chunk[off]
    }

    /// Gives the process the next index, in registration order.
    pub fn register(&self, pid: u64, parent: Option<ProcId>) -> ProcId {
        let i = self.next.fetch_add(1, Ordering::Relaxed);
        let s = self.slot(i);
        s.pid.store(pid, Ordering::Relaxed);
        let parent = parent.map_or(NO_PARENT, |p| p.0);
        s.parent.store(parent.wrapping_add(1), Ordering::Release);
        ProcId(i)
    }

    /// How many processes were registered so far.
    pub fn count(&self) -> u64 {
        u64::from(self.next.load(Ordering::Relaxed))
    }

    /// Every process registered, by index (call once registering ended).
    pub fn entries(&self) -> Vec<ProcessEntry> {
        let n = self.next.load(Ordering::Acquire);
        (0..n)
            .map(|i| {
                let s = self.slot(i);
                let parent = s.parent.load(Ordering::Acquire).wrapping_sub(1);
                ProcessEntry {
                    pid: s.pid.load(Ordering::Relaxed),
                    parent: (parent != NO_PARENT).then_some(parent),
                    events: 0,
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_every_index_without_overlap() {
        assert_eq!(locate(0), (0, 0));
        assert_eq!(locate(1023), (0, 1023));
        assert_eq!(locate(1024), (1, 0));
        assert_eq!(locate(3071), (1, 2047));
        assert_eq!(locate(3072), (2, 0));
        let (k, off) = locate(u32::MAX);
        assert!(k < CHUNKS && off < 1 << (k as u32 + FIRST_BITS));
    }

    #[test]
    fn entries_in_registration_order_from_many_threads() {
        let r = Registry::default();
        std::thread::scope(|s| {
            for t in 0..4u64 {
                let r = &r;
                s.spawn(move || {
                    for k in 0..2000u64 {
                        let id = r.register(t << 32 | k, (k > 0).then_some(ProcId(0)));
                        assert!(id.0 < 8000);
                    }
                });
            }
        });
        let e = r.entries();
        assert_eq!(e.len(), 8000);
        let mut pids: Vec<u64> = e.iter().map(|p| p.pid).collect();
        pids.sort_unstable();
        pids.dedup();
        assert_eq!(pids.len(), 8000, "every process in one slot of its own");
        assert_eq!(e.iter().filter(|p| p.parent.is_none()).count(), 4);
    }
}
