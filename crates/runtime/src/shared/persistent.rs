//! `persistent_term`: one store of terms by key for the whole run, behind
//! one lock, counted as one shared object (every put, get and erase is an
//! operation on it).

use super::OpCount;
use crate::ets::key::{ExactKey, KeyHash};
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
use trace_term::Term;

#[derive(Default)]
pub struct Terms {
    pub ops: OpCount,
    pub map: HashMap<ExactKey, Term, KeyHash>,
}

#[derive(Default)]
pub struct Persistent {
    state: Mutex<Terms>,
}

impl Persistent {
    pub fn lock(&self) -> MutexGuard<'_, Terms> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}
