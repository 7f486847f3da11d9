//! `atomics` and `counters` arrays: fixed-size arrays of 64-bit integers
//! shared by reference. Each array has its own lock, under which every
//! operation takes its position among the array's operations, so the
//! order of updates from several processes is recorded like any other
//! shared-state choice. Values are kept as 64-bit patterns: arithmetic
//! wraps, and a value reads back signed or unsigned as the array was made.

use super::{OpCount, SharedId};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use trace_term::{Pid, Ref};

/// The most elements one array may have: BEAM tries to allocate whatever
/// it is asked and dies; the engine refuses with `system_limit`.
pub const MAX_ARITY: usize = 1 << 28;

pub struct Array {
    pub id: SharedId,
    pub signed: bool,
    /// A `counters` array made with `write_concurrency`.
    pub write_concurrency: bool,
    state: Mutex<ArrayState>,
}

pub struct ArrayState {
    pub ops: OpCount,
    pub values: Vec<u64>,
}

impl Array {
    pub fn new(id: SharedId, size: usize, signed: bool, write_concurrency: bool) -> Array {
        Array {
            id,
            signed,
            write_concurrency,
            state: Mutex::new(ArrayState {
                ops: OpCount::default(),
                values: vec![0; size],
            }),
        }
    }

    pub fn lock(&self) -> MutexGuard<'_, ArrayState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Smallest and largest value an element holds.
    pub fn range(&self) -> (i128, i128) {
        if self.signed {
            (i64::MIN as i128, i64::MAX as i128)
        } else {
            (0, u64::MAX as i128)
        }
    }

    /// A stored pattern as the number it stands for.
    pub fn value(&self, bits: u64) -> i128 {
        if self.signed {
            bits as i64 as i128
        } else {
            bits as i128
        }
    }
}

#[derive(Default)]
struct Registry {
    by_ref: HashMap<Ref, Arc<Array>>,
    by_id: HashMap<SharedId, Arc<Array>>,
    awaiting: Vec<Pid>,
}

/// Every array of a run. Arrays live until the run ends (BEAM frees one
/// when no process refers to it any more).
#[derive(Default)]
pub struct Arrays {
    reg: RwLock<Registry>,
}

impl Arrays {
    pub fn get(&self, r: Ref) -> Option<Arc<Array>> {
        self.reg
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .by_ref
            .get(&r)
            .cloned()
    }

    /// The array with identity `id`, or `None` with `who` waiting for the
    /// next creation (replay: its creator has not caught up).
    pub fn by_id_or_await(&self, id: SharedId, who: Pid) -> Option<Arc<Array>> {
        let mut reg = self.reg.write().unwrap_or_else(|e| e.into_inner());
        match reg.by_id.get(&id) {
            Some(a) => Some(a.clone()),
            None => {
                if !reg.awaiting.contains(&who) {
                    reg.awaiting.push(who);
                }
                None
            }
        }
    }

    /// Registers a new array; returns the processes waiting for a creation.
    pub fn add(&self, r: Ref, a: Arc<Array>) -> Vec<Pid> {
        let mut reg = self.reg.write().unwrap_or_else(|e| e.into_inner());
        reg.by_id.insert(a.id, a.clone());
        reg.by_ref.insert(r, a);
        std::mem::take(&mut reg.awaiting)
    }
}
