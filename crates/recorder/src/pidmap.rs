//! Engine pid → the process's dense index in the log, readable without locks
//! from every scheduler thread. Pids are dense numbers, so this is an array of
//! lazily allocated chunks of atomics.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;
use trace_format::ProcId;

const CHUNK_BITS: u32 = 12;
const CHUNK: usize = 1 << CHUNK_BITS;
const CHUNKS: usize = 4096;
const NONE: u32 = u32::MAX;

pub struct PidMap {
    chunks: Box<[OnceLock<Box<[AtomicU32]>>]>,
}

impl Default for PidMap {
    fn default() -> Self {
        PidMap {
            chunks: (0..CHUNKS).map(|_| OnceLock::new()).collect(),
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
        if let Some(c) = self.chunk(pid) {
            c[(pid as usize) & (CHUNK - 1)].store(id.0, Ordering::Release);
        }
    }

    pub fn get(&self, pid: u64) -> Option<ProcId> {
        let c = self.chunks.get((pid >> CHUNK_BITS) as usize)?.get()?;
        match c[(pid as usize) & (CHUNK - 1)].load(Ordering::Acquire) {
            NONE => None,
            v => Some(ProcId(v)),
        }
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
    }
}
