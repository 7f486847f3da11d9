//! The process table: pid → shared process, for every live process.
//!
//! Pid numbers are dense (allocated from a counter, or forced by a replay
//! Director to the numbers of the recorded run), so the table is an array of
//! chunks indexed by number; a chunk is allocated once and never moves.

use crate::process::ProcShared;
use std::sync::{Arc, Mutex, OnceLock};
use trace_term::Pid;

const CHUNK_BITS: u32 = 12;
const CHUNK: usize = 1 << CHUNK_BITS;
/// Pid numbers at or above this are refused (16.7 million processes).
pub const MAX_PID: u64 = (CHUNK as u64) * 4096;

type Slot = Mutex<Option<Arc<ProcShared>>>;

pub struct ProcTable {
    chunks: Box<[OnceLock<Box<[Slot]>>]>,
}

impl Default for ProcTable {
    fn default() -> Self {
        ProcTable {
            chunks: (0..(MAX_PID as usize / CHUNK))
                .map(|_| OnceLock::new())
                .collect(),
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
        let chunk = c.get_or_init(|| (0..CHUNK).map(|_| Mutex::new(None)).collect());
        Some(&chunk[(n as usize) & (CHUNK - 1)])
    }

    /// The live process with this pid.
    pub fn get(&self, pid: Pid) -> Option<Arc<ProcShared>> {
        let n = pid.number();
        if n >= MAX_PID {
            return None;
        }
        let chunk = self.chunks[(n >> CHUNK_BITS) as usize].get()?;
        chunk[(n as usize) & (CHUNK - 1)]
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Registers a new process; false if the pid is taken or out of range.
    pub fn insert(&self, p: Arc<ProcShared>) -> bool {
        let Some(slot) = self.slot(p.pid) else {
            return false;
        };
        let mut g = slot.lock().unwrap_or_else(|e| e.into_inner());
        if g.is_some() {
            return false;
        }
        *g = Some(p);
        true
    }

    pub fn remove(&self, pid: Pid) {
        if let Some(slot) = self.slot(pid) {
            *slot.lock().unwrap_or_else(|e| e.into_inner()) = None;
        }
    }

    /// Every live process (for `erlang:processes/0` and end-of-run reports).
    pub fn all(&self) -> Vec<Arc<ProcShared>> {
        let mut out = Vec::new();
        for c in self.chunks.iter() {
            if let Some(chunk) = c.get() {
                for s in chunk.iter() {
                    if let Some(p) = s.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
                        out.push(p.clone());
                    }
                }
            }
        }
        out
    }
}
