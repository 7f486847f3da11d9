//! Asking the processor for memory ahead of use. Readers of a log jump
//! through tables far larger than the caches (a block's entry, a process's
//! facts); each jump misses unless its address is asked for while the work
//! before it runs. Shared with the crates that read logs.

/// A hint that `p` will be read soon. It never faults, whatever the address.
#[inline(always)]
pub fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint: it reads nothing and never faults.
    #[allow(unused_unsafe)]
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(p as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
