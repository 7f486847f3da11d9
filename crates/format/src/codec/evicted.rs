//! The index expected next from each sender that fell off a block's list of
//! recent senders ([`super::cache::SenderCache`]). Senders are dense process
//! indices, and those evicted in one block mostly lie close together (a
//! parent taking one message from each of thousands of children evicts
//! them in about the order they were spawned), so they live in a window
//! indexed by sender: a store and a load, where a hash map's insert cost
//! about 140 instructions a child. A sender that would stretch the window
//! past its bound (a few times the entries it holds) goes to a map instead.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A fast hasher for the map of far senders: keys are dense process indices.
#[derive(Default)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.0 = (n as u64 ^ 0x5851_F42D_4C95_7F2D).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type IdMap = HashMap<u32, u64, BuildHasherDefault<IdHasher>>;

/// Room the window keeps below its first sender: children end, and are
/// evicted, a little out of the order they were spawned in.
const BELOW: u32 = 64;
/// The window spans at most this many senders more than four per entry
/// ever stored in it: its memory follows the work done.
const SPAN_FREE: usize = 1024;
/// A window holding more than this is dropped at a block's start, not kept
/// for a block that may not need it.
const KEEP: usize = 4096;

/// Senders' expectations: sender `base + i`'s at `window[i]`, or in `far`.
/// An expectation of 0 is one never recorded (the default, as for a
/// sender never seen), so a 0 in the window is an empty place.
#[derive(Clone, Default)]
pub(crate) struct Evicted {
    base: u32,
    window: Vec<u64>,
    far: IdMap,
    stored: usize,
}

impl Evicted {
    /// Forgets every sender (a new block).
    pub fn clear(&mut self) {
        if self.window.capacity() > KEEP {
            self.window = Vec::new();
        } else {
            self.window.clear();
        }
        // Clearing a map, even an empty one, writes all its control bytes.
        if self.far.capacity() > 64 {
            self.far = IdMap::default();
        } else if !self.far.is_empty() {
            self.far.clear();
        }
        self.stored = 0;
    }

    /// The index expected from `sender` (0 if none was recorded).
    #[inline]
    pub fn get(&self, sender: u32) -> u64 {
        match self.window.get(sender.wrapping_sub(self.base) as usize) {
            Some(&v) if v != 0 => v,
            _ if self.far.is_empty() => 0,
            _ => self.far.get(&sender).copied().unwrap_or(0),
        }
    }

    /// Forgets `sender` (it is back in the list of recent senders).
    #[inline]
    pub fn remove(&mut self, sender: u32) {
        if let Some(v) = self.window.get_mut(sender.wrapping_sub(self.base) as usize) {
            *v = 0;
        }
        if !self.far.is_empty() {
            self.far.remove(&sender);
        }
    }

    /// Records that `next` is expected from `sender`.
    #[inline]
    pub fn insert(&mut self, sender: u32, next: u64) {
        self.stored += 1;
        match self.place(sender) {
            Some(i) => {
                self.window[i] = next;
                if !self.far.is_empty() {
                    self.far.remove(&sender);
                }
            }
            None => {
                self.far.insert(sender, next);
            }
        }
    }

    /// Where `sender` goes in the window, which grows (or moves its base
    /// down) to take it; `None` if that would stretch it past its bound.
    #[inline]
    fn place(&mut self, sender: u32) -> Option<usize> {
        if self.window.is_empty() {
            self.base = sender.saturating_sub(BELOW);
        }
        if sender < self.base {
            self.lower_base(sender)?;
        }
        let i = (sender - self.base) as usize;
        if i >= self.window.len() {
            if i >= self.span() {
                return None;
            }
            // Mostly the next place (children evicted in turn): a push.
            if i == self.window.len() {
                self.window.push(0);
            } else {
                self.window.resize(i + 1, 0);
            }
        }
        Some(i)
    }

    /// The most senders the window may span now.
    fn span(&self) -> usize {
        SPAN_FREE + 4 * self.stored
    }

    /// Moves the base down to take `sender` (rare: a sender evicted well
    /// out of order); `None` if the window would span too much.
    #[cold]
    fn lower_base(&mut self, sender: u32) -> Option<()> {
        let base = sender.saturating_sub(BELOW);
        let shift = (self.base - base) as usize;
        if self.window.len() + shift > self.span() {
            return None;
        }
        self.window.splice(0..0, std::iter::repeat_n(0, shift));
        self.base = base;
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Senders near each other, below the first, and far away all keep
    /// their expectations, wherever they are stored; a removed or cleared
    /// one reads as never seen.
    #[test]
    fn keeps_near_far_and_lower_senders() {
        let mut e = Evicted::default();
        e.insert(5000, 7);
        e.insert(5001, 8);
        e.insert(4990, 9);
        e.insert(10, 11);
        e.insert(4_000_000_000, 12);
        assert!(e.window.len() < 200, "far senders stay out of the window");
        for (s, v) in [
            (5000, 7),
            (5001, 8),
            (4990, 9),
            (10, 11),
            (4_000_000_000, 12),
        ] {
            assert_eq!(e.get(s), v, "sender {s}");
        }
        assert_eq!(e.get(5002), 0);
        assert_eq!(e.get(0), 0);
        e.remove(5001);
        e.remove(10);
        assert_eq!((e.get(5001), e.get(10)), (0, 0));
        e.insert(10, 13);
        assert_eq!(e.get(10), 13);
        e.clear();
        assert_eq!((e.get(5000), e.get(4_000_000_000)), (0, 0));
    }

    /// A sender first stored far, then inside a window that grew over it,
    /// reads as its latest expectation, and as none once removed.
    #[test]
    fn a_sender_moved_into_the_window_leaves_the_map() {
        let mut e = Evicted::default();
        e.insert(100, 1);
        e.insert(100 + 5000, 2);
        assert_eq!(e.get(5100), 2);
        for s in 0..2000 {
            e.insert(200 + s, 3);
        }
        e.insert(5100, 4);
        assert_eq!(e.get(5100), 4);
        e.remove(5100);
        assert_eq!(e.get(5100), 0);
    }
}
