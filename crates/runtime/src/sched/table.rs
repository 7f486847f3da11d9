//! The process table: pid → shared process, for every live process.
//!
//! Pid numbers are dense (allocated from a counter, or forced by a replay
//! Director to the numbers of the recorded run), so the table is an array of
//! chunks indexed by number; a chunk is allocated once and never moves.
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

const CHUNK_BITS: u32 = 12;
const CHUNK: usize = 1 << CHUNK_BITS;
/// Pid numbers at or above this are refused (16.7 million processes).
pub const MAX_PID: u64 = (CHUNK as u64) * 4096;

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
            chunks: (0..(MAX_PID as usize / CHUNK))
                .map(|_| OnceLock::new())
                .collect(),
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
        let c = &self.chunks[(n >> CHUNK_BITS) as usize];
        let chunk = c.get_or_init(|| (0..CHUNK).map(|_| Mutex::new(Entry::Unborn)).collect());
        Some(&chunk[(n as usize) & (CHUNK - 1)])
    }

    /// The live process with this pid.
    pub fn get(&self, pid: Pid) -> Option<Arc<ProcShared>> {
        let n = pid.number();
        if n >= MAX_PID {
            return None;
        }
        let chunk = self.chunks[(n >> CHUNK_BITS) as usize].get()?;
        match &*chunk[(n as usize) & (CHUNK - 1)]
            .lock()
            .unwrap_or_else(|e| e.into_inner())
        {
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
        let end = self.end.load(Ordering::SeqCst) as usize;
        for (i, c) in self.chunks.iter().enumerate().take(end.div_ceil(CHUNK)) {
            if let Some(chunk) = c.get() {
                let here = (end - i * CHUNK).min(CHUNK);
                for s in chunk.iter().take(here) {
                    if let Entry::Live(p) = &*s.lock().unwrap_or_else(|e| e.into_inner()) {
                        out.push(p.clone());
                    }
                }
            }
        }
        out
    }
}
