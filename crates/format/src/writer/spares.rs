//! Spares handed between threads a batch at a time: a process's writer
//! state is made on the thread that spawns it and let go on the thread it
//! ended on, often another (a parent spawning thousands of children on one
//! thread, the other thread running them). Each thread keeps its spares at
//! hand, passes a batch to the depot when it has too many and takes one
//! when it has none: one lock a batch, where the allocator freed each
//! state across threads and allocated each anew.

use crate::sync::lock;
use std::sync::Mutex;

/// Spares moved to or from the depot at a time.
const BATCH: usize = 64;
/// Batches the depot keeps; what comes beyond is dropped.
const MAX_BATCHES: usize = 16;

/// Batches of spares waiting for a thread that needs them.
pub(crate) struct Depot<T> {
    batches: Mutex<Vec<Vec<T>>>,
}

impl<T> Depot<T> {
    pub const fn new() -> Self {
        Depot {
            batches: Mutex::new(Vec::new()),
        }
    }

    /// A spare from the thread's own `local` ones, or from a batch of the
    /// depot's when it has none.
    #[inline]
    pub fn take(&self, local: &mut Vec<T>) -> Option<T> {
        if local.is_empty() {
            self.refill(local);
        }
        local.pop()
    }

    #[cold]
    fn refill(&self, local: &mut Vec<T>) {
        if let Some(batch) = lock(&self.batches).pop() {
            *local = batch;
        }
    }

    /// Keeps `spare` in the thread's `local` ones, passing a batch of them
    /// to the depot when they are too many.
    #[inline]
    pub fn put(&self, local: &mut Vec<T>, spare: T) {
        local.push(spare);
        if local.len() >= 2 * BATCH {
            self.spill(local);
        }
    }

    #[cold]
    fn spill(&self, local: &mut Vec<T>) {
        let batch = local.split_off(BATCH);
        let mut batches = lock(&self.batches);
        if batches.len() < MAX_BATCHES {
            batches.push(batch);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spares_put_on_one_thread_are_taken_on_another() {
        let depot = Depot::new();
        let mut ending = Vec::new();
        for k in 0..2 * BATCH {
            depot.put(&mut ending, k);
        }
        assert_eq!(ending.len(), BATCH, "a batch went to the depot");
        let mut spawning = Vec::new();
        let taken: Vec<usize> = std::iter::from_fn(|| depot.take(&mut spawning)).collect();
        assert_eq!(taken.len(), BATCH, "one batch, then none");
        assert!(taken.iter().all(|&k| k >= BATCH));
        assert_eq!(depot.take(&mut ending), Some(BATCH - 1));
    }

    #[test]
    fn the_depot_keeps_a_bounded_number_of_batches() {
        let depot = Depot::new();
        let mut local = Vec::new();
        for k in 0..(MAX_BATCHES + 4) * BATCH + BATCH {
            depot.put(&mut local, k);
        }
        assert_eq!(lock(&depot.batches).len(), MAX_BATCHES);
    }
}
