//! The codec's predictors: move-to-front lists of recent destinations and
//! recent senders. Encoder and decoder update them identically, so a slot
//! number in a tag byte names the same value on both sides.
//!
//! A sender slot also remembers the index expected next from that sender (the
//! last index taken from it, plus one): a receive from a recent sender at the
//! expected index is one byte. Senders that fall off the end of the list keep
//! their expectation in a side map, so a later explicit receive from them still
//! needs only a small delta.

use crate::event::Dest;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Number of addressable slots: operand values 0..=30 of a tag byte (31 means
/// "explicit value follows").
pub const SLOTS: usize = 31;

/// Recently used destinations, most recent first.
#[derive(Clone)]
pub struct DestCache {
    dests: [Dest; SLOTS],
    len: usize,
}

impl Default for DestCache {
    fn default() -> Self {
        DestCache {
            dests: [Dest::Unknown; SLOTS],
            len: 0,
        }
    }
}

impl DestCache {
    /// The slot holding `d`, if any.
    #[inline]
    pub fn find(&self, d: Dest) -> Option<usize> {
        self.dests[..self.len].iter().position(|&x| x == d)
    }

    /// The destination in `slot`, moved to the front.
    #[inline]
    pub fn take(&mut self, slot: usize) -> Option<Dest> {
        if slot >= self.len {
            return None;
        }
        let d = self.dests[slot];
        self.dests.copy_within(0..slot, 1);
        self.dests[0] = d;
        Some(d)
    }

    /// Puts a destination that is not in the list at the front.
    #[inline]
    pub fn insert(&mut self, d: Dest) {
        let keep = self.len.min(SLOTS - 1);
        self.dests.copy_within(0..keep, 1);
        self.dests[0] = d;
        self.len = keep + 1;
    }
}

/// A fast hasher for the side map: keys are dense process indices.
#[derive(Default)]
pub struct IdHasher(u64);

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

/// Recent senders with the index expected next from each, most recent first.
#[derive(Clone, Default)]
pub struct SenderCache {
    senders: [u32; SLOTS],
    next: [u64; SLOTS],
    len: usize,
    /// Expectations of senders that fell off the list.
    evicted: IdMap,
}

impl SenderCache {
    #[inline]
    pub fn find(&self, sender: u32) -> Option<usize> {
        self.senders[..self.len].iter().position(|&x| x == sender)
    }

    /// The sender in `slot` and the index expected from it.
    #[inline]
    pub fn peek(&self, slot: usize) -> Option<(u32, u64)> {
        (slot < self.len).then(|| (self.senders[slot], self.next[slot]))
    }

    /// The index expected from a sender that is not in the list (0 if never seen).
    #[inline]
    pub fn expected_evicted(&self, sender: u32) -> u64 {
        self.evicted.get(&sender).copied().unwrap_or(0)
    }

    /// Records that `index` was taken from the sender in `slot`, moving it to the front.
    #[inline]
    pub fn hit(&mut self, slot: usize, index: u64) {
        let s = self.senders[slot];
        self.senders.copy_within(0..slot, 1);
        self.next.copy_within(0..slot, 1);
        self.senders[0] = s;
        self.next[0] = index.wrapping_add(1);
    }

    /// Records that `index` was taken from a sender not in the list.
    #[inline]
    pub fn miss(&mut self, sender: u32, index: u64) {
        self.evicted.remove(&sender);
        if self.len == SLOTS {
            self.evicted
                .insert(self.senders[SLOTS - 1], self.next[SLOTS - 1]);
        }
        let keep = self.len.min(SLOTS - 1);
        self.senders.copy_within(0..keep, 1);
        self.next.copy_within(0..keep, 1);
        self.senders[0] = sender;
        self.next[0] = index.wrapping_add(1);
        self.len = keep + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::ProcId;

    #[test]
    fn dest_cache_moves_to_front_and_drops_the_oldest() {
        let mut c = DestCache::default();
        for i in 0..(SLOTS as u32 + 1) {
            c.insert(Dest::Proc(ProcId(i)));
        }
        assert_eq!(c.find(Dest::Proc(ProcId(SLOTS as u32))), Some(0));
        assert_eq!(c.find(Dest::Proc(ProcId(0))), None);
        assert_eq!(c.take(3), Some(Dest::Proc(ProcId(SLOTS as u32 - 3))));
        assert_eq!(c.find(Dest::Proc(ProcId(SLOTS as u32 - 3))), Some(0));
        assert_eq!(c.take(SLOTS), None);
    }

    #[test]
    fn sender_cache_remembers_evicted_expectations() {
        let mut c = SenderCache::default();
        c.miss(7, 41);
        for s in 100..(100 + SLOTS as u32) {
            c.miss(s, 0);
        }
        assert_eq!(c.find(7), None);
        assert_eq!(c.expected_evicted(7), 42);
        assert_eq!(c.expected_evicted(8), 0);
        let slot = c.find(100).unwrap();
        assert_eq!(c.peek(slot), Some((100, 1)));
        c.hit(slot, 5);
        assert_eq!(c.peek(0), Some((100, 6)));
    }
}
