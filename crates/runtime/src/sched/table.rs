//! The process table: pid → shared process, for every live process.
//!
//! Pid numbers are dense (allocated from a counter, or forced by a replay
//! Director to the numbers of the recorded run), so the table is an array of
//! chunks indexed by number; a chunk is allocated once and never moves.
//! Chunks double in size (128 pids, then 128, 256, 512, ...): a short run,
//! as `trace explore` makes thousands of, allocates and frees a few hundred
//! slots, not thousands, while a run of millions of processes still has
//! only a few dozen chunks.
//!
//! A replay can send to a process before it exists: it learned the pid from
//! a result the log forces (`whereis/1` of a name the recorded run had
//! registered), while the process that will have it is not spawned yet.
//! Such signals wait in the table and land in the process's inbox when it
//! is spawned, as they would have in the recorded run.

use crate::process::{ProcShared, Signal};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use trace_term::Pid;

/// What a table slot knows of its pid.
enum Entry {
    /// No process had the pid yet.
    Unborn,
    /// Replay: signals sent to the pid before its process was spawned.
    /// (Boxed: every slot stays two words, as the table has one per pid.)
    #[allow(clippy::box_collection)]
    Awaited(Box<Vec<Signal>>),
    Live(Arc<ProcShared>),
    Ended,
}

/// Pids of the first chunk (and of the second); chunk `k >= 1` holds the
/// pids from `FIRST << (k - 1)` up to twice that.
const FIRST_BITS: u32 = 7;
const FIRST: u64 = 1 << FIRST_BITS;
/// Pid numbers at or above this are refused (16.7 million processes).
pub const MAX_PID: u64 = 1 << 24;
const CHUNKS: usize = (24 - FIRST_BITS) as usize + 1;

/// The chunk of pid number `n` (below [`MAX_PID`]), the pid's place in it,
/// and the chunk's size.
fn locate(n: u64) -> (usize, usize, usize) {
    if n < FIRST {
        return (0, n as usize, FIRST as usize);
    }
    let top = 63 - n.leading_zeros();
    let base = 1u64 << top;
    (
        (top + 1 - FIRST_BITS) as usize,
        (n - base) as usize,
        base as usize,
    )
}

type Slot = Mutex<Entry>;

pub struct ProcTable {
    chunks: Box<[OnceLock<Box<[Slot]>>]>,
    /// One past the highest pid number a process has had: [`ProcTable::all`]
    /// looks no further (a short run, as `trace explore` makes thousands
    /// of, would otherwise scan a whole chunk at its end).
    end: AtomicU64,
}

impl Default for ProcTable {
    fn default() -> Self {
        ProcTable {
            chunks: (0..CHUNKS).map(|_| OnceLock::new()).collect(),
            end: AtomicU64::new(0),
        }
    }
}

impl ProcTable {
    fn slot(&self, pid: Pid) -> Option<&Slot> {
        let n = pid.number();
        if n >= MAX_PID {
            return None;
        }
        let (c, i, size) = locate(n);
        let chunk =
            self.chunks[c].get_or_init(|| (0..size).map(|_| Mutex::new(Entry::Unborn)).collect());
        Some(&chunk[i])
    }

    /// The live process with this pid.
    pub fn get(&self, pid: Pid) -> Option<Arc<ProcShared>> {
        let n = pid.number();
        if n >= MAX_PID {
            return None;
        }
        let (c, i, _) = locate(n);
        let chunk = self.chunks[c].get()?;
        match &*chunk[i].lock().unwrap_or_else(|e| e.into_inner()) {
            Entry::Live(p) => Some(p.clone()),
            _ => None,
        }
    }

    /// Registers a new process (with the signals that awaited it in its
    /// inbox); false if the pid is taken or out of range.
    pub fn insert(&self, p: Arc<ProcShared>) -> bool {
        let Some(slot) = self.slot(p.pid) else {
            return false;
        };
        let mut g = slot.lock().unwrap_or_else(|e| e.into_inner());
        if let Entry::Live(_) = &*g {
            return false;
        }
        if let Entry::Awaited(early) = std::mem::replace(&mut *g, Entry::Unborn) {
            for s in *early {
                p.push(s);
            }
        }
        self.end.fetch_max(p.pid.number() + 1, Ordering::SeqCst);
        *g = Entry::Live(p);
        true
    }

    pub fn remove(&self, pid: Pid) {
        if let Some(slot) = self.slot(pid) {
            *slot.lock().unwrap_or_else(|e| e.into_inner()) = Entry::Ended;
        }
    }

    /// Keeps a signal for a pid no process has had yet (see the module's
    /// doc); false if the pid's process exists or has ended.
    pub fn hold_for_unborn(&self, pid: Pid, sig: Signal) -> bool {
        let Some(slot) = self.slot(pid) else {
            return false;
        };
        let mut g = slot.lock().unwrap_or_else(|e| e.into_inner());
        match &mut *g {
            Entry::Unborn => *g = Entry::Awaited(Box::new(vec![sig])),
            Entry::Awaited(v) => v.push(sig),
            Entry::Live(_) | Entry::Ended => return false,
        }
        true
    }

    /// Every live process (for `erlang:processes/0` and end-of-run reports).
    pub fn all(&self) -> Vec<Arc<ProcShared>> {
        let mut out = Vec::new();
        let end = self.end.load(Ordering::SeqCst);
        if end == 0 {
            return out;
        }
        let (last, here, _) = locate(end - 1);
        for (c, chunk) in self.chunks.iter().enumerate().take(last + 1) {
            let Some(chunk) = chunk.get() else {
                continue;
            };
            let upto = if c == last { here + 1 } else { chunk.len() };
            for s in &chunk[..upto] {
                if let Entry::Live(p) = &*s.lock().unwrap_or_else(|e| e.into_inner()) {
                    out.push(p.clone());
                }
            }
        }
        out
    }

    /// The pids of the processes alive now, in order (`erlang:processes/0`,
    /// `system_info(process_count)`).
    pub fn live_pids(&self) -> Vec<Pid> {
        let mut pids: Vec<Pid> = self
            .all()
            .iter()
            .filter(|s| !s.is_exited())
            .map(|s| s.pid)
            .collect();
        pids.sort();
        pids
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_every_pid_once_in_order() {
        let mut next = (0, 0);
        for n in 0..(FIRST * 8) {
            let (c, i, size) = locate(n);
            assert_eq!((c, i), next, "pid {n}");
            next = if i + 1 == size {
                (c + 1, 0)
            } else {
                (c, i + 1)
            };
        }
        assert_eq!(locate(MAX_PID - 1).0, CHUNKS - 1);
        let (_, i, size) = locate(MAX_PID - 1);
        assert_eq!(i + 1, size);
    }

    #[test]
    fn all_lists_the_live_processes_across_chunks() {
        let t = ProcTable::default();
        for n in [0, 80, 127, 128, 255, 256, 70_000] {
            assert!(t.insert(Arc::new(ProcShared::new(Pid(n)))));
        }
        t.remove(Pid(128));
        let live: Vec<u64> = t.all().iter().map(|p| p.pid.number()).collect();
        assert_eq!(live, [0, 80, 127, 255, 256, 70_000]);
        assert!(t.get(Pid(70_000)).is_some());
        assert!(t.get(Pid(MAX_PID)).is_none());
    }
}
