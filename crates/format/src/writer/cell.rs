//! A process's buffer, held by one party at a time: the process pushing its
//! events, or the flusher or `finish` cutting its block.
//!
//! The process holds it from its first event in a scheduling slice to the
//! slice's end ([`crate::ProcessWriter::hold`] and `release`): one atomic
//! exchange per slice, where a mutex taken per event cost two (a message
//! ring pushes two events a slice, ping-pong's server two, its client
//! three). The others hold it briefly: the flusher only tries, and leaves a
//! hint when the process has it.

use std::cell::UnsafeCell;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, Ordering};

/// A buffer and who holds it.
pub(crate) struct BufCell<T> {
    held: AtomicBool,
    value: UnsafeCell<T>,
}

// SAFETY: the value is reached only by whoever set `held` (acquire) and
// until it clears it (release): one thread at a time.
unsafe impl<T: Send> Sync for BufCell<T> {}

/// Tries taken by [`BufCell::hold`] before it yields the thread: the other
/// holder is cutting a block, a few microseconds.
const SPINS: u32 = 64;

impl<T> BufCell<T> {
    pub fn new(value: T) -> Self {
        BufCell {
            held: AtomicBool::new(false),
            value: UnsafeCell::new(value),
        }
    }

    /// Takes the buffer if no one holds it.
    #[inline]
    pub fn try_hold(&self) -> bool {
        self.held
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
    }

    /// Takes the buffer, waiting for its holder to let it go.
    #[inline]
    pub fn hold(&self) {
        if !self.try_hold() {
            self.hold_contended();
        }
    }

    #[cold]
    fn hold_contended(&self) {
        let mut tries = 0u32;
        while !self.try_hold() {
            tries += 1;
            if tries < SPINS {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }

    /// Lets the buffer go.
    ///
    /// # Safety
    /// The caller holds it, and no reference from [`BufCell::get`] outlives this.
    #[inline]
    pub unsafe fn release(&self) {
        self.held.store(false, Ordering::Release);
    }

    /// The buffer.
    ///
    /// # Safety
    /// The caller holds it, and has no other reference to it.
    #[inline]
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn get(&self) -> &mut T {
        &mut *self.value.get()
    }

    /// Holds the buffer until the guard drops.
    pub fn lock(&self) -> CellGuard<'_, T> {
        self.hold();
        CellGuard(self)
    }

    /// Holds the buffer until the guard drops, if no one holds it now.
    pub fn try_lock(&self) -> Option<CellGuard<'_, T>> {
        // `then`, not `then_some`: a guard made and dropped on failure would
        // let go of the holder's buffer.
        self.try_hold().then(|| CellGuard(self))
    }
}

/// The buffer, held until this drops.
pub(crate) struct CellGuard<'a, T>(&'a BufCell<T>);

impl<T> Deref for CellGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the guard holds the cell.
        unsafe { self.0.get() }
    }
}

impl<T> DerefMut for CellGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the guard holds the cell, and `&mut self` is the only way in.
        unsafe { self.0.get() }
    }
}

impl<T> Drop for CellGuard<'_, T> {
    fn drop(&mut self) {
        // SAFETY: the guard holds the cell; its references end with it.
        unsafe { self.0.release() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn one_holder_at_a_time() {
        let c = BufCell::new(0u32);
        let g = c.lock();
        assert!(c.try_lock().is_none(), "held by the guard");
        assert!(c.try_lock().is_none(), "a failed try lets nothing go");
        drop(g);
        assert!(c.try_lock().is_some(), "free once the guard dropped");
    }

    #[test]
    fn a_failed_try_leaves_the_holder_holding() {
        let c = BufCell::new(0u32);
        c.hold();
        assert!(c.try_lock().is_none());
        assert!(!c.try_hold(), "still held after the failed try");
        // SAFETY: held above.
        unsafe { c.release() };
        assert!(c.try_hold());
    }

    /// A holder's writes are its own while a second thread keeps trying
    /// the buffer (the flusher's way).
    #[test]
    fn a_trying_thread_never_enters_while_held() {
        let c = Arc::new(BufCell::new(0u64));
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let trier = {
            let (c, stop) = (c.clone(), stop.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    if let Some(mut g) = c.try_lock() {
                        *g = u64::MAX;
                    }
                }
            })
        };
        for i in 0..20_000 {
            c.hold();
            // SAFETY: held until the release below; no other reference.
            unsafe {
                *c.get() = i;
                for _ in 0..20 {
                    std::hint::spin_loop();
                }
                assert_eq!(*c.get(), i, "another thread wrote while held");
                c.release();
            }
        }
        stop.store(true, Ordering::Relaxed);
        trier.join().unwrap();
    }

    #[test]
    fn holders_on_many_threads_see_each_others_writes() {
        let c = Arc::new(BufCell::new(0u64));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let c = c.clone();
                std::thread::spawn(move || {
                    for _ in 0..10_000 {
                        *c.lock() += 1;
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(*c.lock(), 40_000);
    }
}
