//! The writer's lists of processes with an open segment, which the flusher
//! sweeps and `finish` cuts. Each thread lists into a shard of its own (one
//! list under one lock was taken by every scheduler thread for every
//! process that opened a segment: a run of short processes took it once per
//! process, from both schedulers in turn). A process is listed once, in the
//! shard of the thread that opened its segment, wherever it runs later.

use super::process::ProcState;
use crate::sync::lock;
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Shards: more than the scheduler threads of most machines, so that
/// threads seldom share one.
pub(crate) const SHARDS: usize = 16;
// The crowds' indices, one a shard, are kept in a byte.
const _: () = assert!(SHARDS <= 256);

/// One shard, alone on its cache lines.
#[repr(align(128))]
#[derive(Default)]
pub(crate) struct Shard(pub Mutex<Vec<Arc<ProcState>>>);

pub(crate) struct OpenLists {
    shards: Box<[Shard]>,
}

thread_local! {
    /// This thread's shard, drawn on its first listing.
    static SHARD: Cell<usize> = const { Cell::new(usize::MAX) };
}

/// Shards are dealt to threads in turn.
static NEXT_SHARD: AtomicUsize = AtomicUsize::new(0);

pub(crate) fn my_shard() -> usize {
    SHARD.with(|s| match s.get() {
        usize::MAX => {
            let k = deal(&NEXT_SHARD);
            s.set(k);
            k
        }
        k => k,
    })
}

/// The next shard in turn.
fn deal(next: &AtomicUsize) -> usize {
    next.fetch_add(1, Ordering::Relaxed) % SHARDS
}

impl OpenLists {
    pub fn new() -> Self {
        OpenLists {
            shards: (0..SHARDS).map(|_| Shard::default()).collect(),
        }
    }

    /// Lists a process (once: its buffer's `listed` says whether it is).
    pub fn push(&self, state: Arc<ProcState>) {
        lock(&self.shards[my_shard()].0).push(state);
    }

    /// The shards, for a sweep that takes each list and puts back what it keeps.
    pub fn shards(&self) -> &[Shard] {
        &self.shards
    }

    /// Every listed process, the lists left empty.
    pub fn take_all(&self) -> Vec<Arc<ProcState>> {
        let mut all = Vec::new();
        for s in self.shards.iter() {
            all.append(&mut lock(&s.0));
        }
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_keeps_its_shard() {
        let mine = my_shard();
        assert!(mine < SHARDS);
        assert_eq!(my_shard(), mine);
    }

    #[test]
    fn shards_are_dealt_in_turn() {
        let next = AtomicUsize::new(0);
        let dealt: Vec<usize> = (0..2 * SHARDS).map(|_| deal(&next)).collect();
        let want: Vec<usize> = (0..SHARDS).chain(0..SHARDS).collect();
        assert_eq!(dealt, want);
    }

    /// Whatever shards the listing threads had, `take_all` finds every
    /// process listed.
    #[test]
    fn every_listed_process_is_taken_once() {
        use super::super::cell::BufCell;
        use super::super::process::ProcBuf;
        use crate::event::ProcId;
        let lists = OpenLists::new();
        std::thread::scope(|s| {
            for t in 0..4u32 {
                let lists = &lists;
                s.spawn(move || {
                    for k in 0..100u32 {
                        lists.push(Arc::new(ProcState {
                            id: ProcId(t * 100 + k),
                            pid: 0,
                            parent: None,
                            buf: BufCell::new(ProcBuf::new()),
                            flush_hint: Default::default(),
                        }));
                    }
                });
            }
        });
        let mut ids: Vec<u32> = lists.take_all().iter().map(|p| p.id.0).collect();
        ids.sort_unstable();
        assert_eq!(ids, (0..400).collect::<Vec<_>>());
        assert!(lists.take_all().is_empty());
    }
}
