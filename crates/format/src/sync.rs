//! Locking shared by the writer and the reader: a lock that a panic in
//! another thread does not poison for good.

use std::sync::{Mutex, MutexGuard};

/// Locks `m`, taking the data even when a thread panicked holding it: a
/// panic elsewhere must not stop a log from being finished or read.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
