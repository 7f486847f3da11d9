//! The codec's predictors: move-to-front lists of recent destinations and
//! recent senders. Encoder and decoder update them identically, so a slot
//! number in a tag byte names the same value on both sides.
//!
//! A sender slot also remembers the index expected next from that sender (the
//! last index taken from it, plus one): a receive from a recent sender at the
//! expected index is one byte. Senders that fall off the end of the list keep
//! their expectation in a side map, so a later explicit receive from them still
//! needs only a small delta.

use super::evicted::Evicted;
use crate::event::{Dest, ObjectId};
use std::collections::HashMap;

/// Number of addressable slots: operand values 0..=30 of a tag byte (31 means
/// "explicit value follows").
pub const SLOTS: usize = 31;

/// A move-to-front order over a pool of `SLOTS` entries: the pool entry in
/// slot `k` (most recent first) is byte `k` of `bytes`. Values stay where
/// they are in their pool; only these bytes move. Slots below 8 (nearly all
/// of them in practice) live in one 64-bit word and move with a shift and a
/// mask, without a branch per position: slots are unpredictable, and a
/// mispredicted loop exit costs more than the move.
#[derive(Clone)]
struct Order {
    /// Slots 0..8 as the bytes of a little-endian word.
    front: u64,
    /// Slots 8..32.
    back: [u8; 24],
    len: usize,
}

impl Default for Order {
    fn default() -> Self {
        Order::EMPTY
    }
}

impl Order {
    /// The empty list. Entries past `len` are never moved, so they stay the
    /// identity: the next free pool entry is always the one in slot `len`.
    /// (A constant: decoders of many small segments reset lists often.)
    const EMPTY: Order = {
        let mut front = 0u64;
        let mut back = [0u8; 24];
        let mut i = 0;
        while i < 8 {
            front |= (i as u64) << (8 * i);
            i += 1;
        }
        while i < 32 {
            back[i - 8] = i as u8;
            i += 1;
        }
        Order {
            front,
            back,
            len: 0,
        }
    };
}

impl Order {
    /// Moves slot `slot` (< 32) to the front; returns its pool entry.
    #[inline(always)]
    fn move_to_front(&mut self, slot: usize) -> usize {
        if slot < 8 {
            let j = (self.front >> (8 * slot)) as u8;
            // The bytes above `slot` stay; those below move up one.
            let keep = (!0u64).checked_shl(8 * (slot as u32 + 1)).unwrap_or(0);
            self.front = (self.front & keep) | ((self.front << 8) & !keep) | j as u64;
            j as usize
        } else {
            self.move_far(slot)
        }
    }

    #[inline(never)]
    fn move_far(&mut self, slot: usize) -> usize {
        let k = slot - 8;
        let j = self.back[k];
        self.back.copy_within(0..k, 1);
        self.back[0] = (self.front >> 56) as u8;
        self.front = (self.front << 8) | j as u64;
        j as usize
    }

    /// The pool entry in `slot`, if the slot is filled.
    #[inline(always)]
    fn get(&self, slot: usize) -> Option<usize> {
        if slot >= self.len {
            return None;
        }
        Some(self.entry(slot))
    }

    #[inline(always)]
    fn entry(&self, slot: usize) -> usize {
        if slot < 8 {
            (self.front >> (8 * slot)) as u8 as usize
        } else {
            self.back[slot - 8] as usize
        }
    }

    /// The pool entry in slot 0, unless the list is empty.
    #[inline(always)]
    fn front_entry(&self) -> Option<usize> {
        (self.len > 0).then_some(self.front as u8 as usize)
    }

    /// The slot holding pool entry `entry`.
    #[inline]
    fn slot_of(&self, entry: usize) -> usize {
        // The first zero byte of `front ^ entry * 0x01..01` (no false
        // positive below the first true one).
        let x = self.front ^ (entry as u64).wrapping_mul(0x0101_0101_0101_0101);
        let zero = x.wrapping_sub(0x0101_0101_0101_0101) & !x & 0x8080_8080_8080_8080;
        let k = (zero.trailing_zeros() / 8) as usize;
        if k < 8 && k < self.len {
            return k;
        }
        8 + self.back[..self.len.saturating_sub(8)]
            .iter()
            .position(|&e| e as usize == entry)
            .expect("every used pool entry has a slot")
    }

    /// Makes room for a new value at the front: the pool entry to fill (a
    /// free one, or the least recently used one, which falls off the list).
    #[inline]
    fn push_front(&mut self) -> usize {
        let keep = self.len.min(SLOTS - 1);
        self.len = keep + 1;
        self.move_to_front(keep)
    }

    /// The pool entry that `push_front` would reuse, if the list is full.
    fn victim(&self) -> Option<usize> {
        (self.len == SLOTS).then(|| self.entry(SLOTS - 1))
    }
}

/// Recently used destinations, most recent first.
#[derive(Clone)]
pub struct DestCache {
    order: Order,
    dests: [Dest; SLOTS],
}

impl Default for DestCache {
    fn default() -> Self {
        DestCache {
            order: Order::default(),
            dests: [Dest::Unknown; SLOTS],
        }
    }
}

impl DestCache {
    /// Empties the list for a new block. Values past the length are never
    /// read, so only the order is reset.
    pub fn clear(&mut self) {
        self.order = Order::default();
    }

    /// The slot holding `d`, if any. Inlined: a crowd's segments name
    /// most destinations for the first time, each looked for in a list
    /// of a few.
    #[inline(always)]
    pub fn find(&self, d: Dest) -> Option<usize> {
        // Pool entries are filled in order, so the used ones are `..len`.
        let used = &self.dests[..self.order.len];
        // Nearly every destination is a process: one comparison per entry.
        let entry = match d {
            Dest::Proc(p) => used
                .iter()
                .position(|x| matches!(x, Dest::Proc(q) if *q == p)),
            _ => used.iter().position(|&x| x == d),
        }?;
        Some(self.order.slot_of(entry))
    }

    /// Whether `d` is in slot 0, where taking it changes nothing: a process
    /// that sends again to its last destination, the most common send,
    /// needs no search.
    #[inline(always)]
    pub fn is_front(&self, d: Dest) -> bool {
        self.order.front_entry().is_some_and(|e| self.dests[e] == d)
    }

    /// The destination in `slot`, moved to the front.
    #[inline]
    pub fn take(&mut self, slot: usize) -> Option<Dest> {
        self.order.get(slot)?;
        Some(self.dests[self.order.move_to_front(slot)])
    }

    /// Puts a destination that is not in the list at the front.
    #[inline]
    pub fn insert(&mut self, d: Dest) {
        let e = self.order.push_front();
        self.dests[e] = d;
    }
}

/// Recent senders with the index expected next from each, most recent first.
#[derive(Clone, Default)]
pub struct SenderCache {
    order: Order,
    senders: [u32; SLOTS],
    next: [u64; SLOTS],
    /// Expectations of senders that fell off the list.
    evicted: Evicted,
    /// One more than the largest sender ever put in `evicted` since the
    /// last clear: a sender at or above it is not there, with no lookup (a
    /// parent receiving from child after new child never finds one).
    evicted_above: u64,
}

impl SenderCache {
    /// Empties the list and the side map for a new block (a side map grown
    /// large is dropped rather than kept for a block that may not need it).
    #[inline]
    pub fn clear(&mut self) {
        self.order = Order::default();
        // Every sender put in the side map raised `evicted_above`: while
        // it is 0 the map is empty (a crowd's short segments never evict),
        // and is not looked at.
        if self.evicted_above != 0 {
            self.clear_evicted();
        }
    }

    #[inline(never)]
    fn clear_evicted(&mut self) {
        self.evicted.clear();
        self.evicted_above = 0;
    }

    #[inline]
    pub fn find(&self, sender: u32) -> Option<usize> {
        let entry = self.senders[..self.order.len]
            .iter()
            .position(|&x| x == sender)?;
        Some(self.order.slot_of(entry))
    }

    /// The sender in `slot` and the index expected from it.
    #[inline]
    pub fn peek(&self, slot: usize) -> Option<(u32, u64)> {
        let e = self.order.get(slot)?;
        Some((self.senders[e], self.next[e]))
    }

    /// The sender in `slot` and the index expected from it, taken as
    /// predicted (the sender moves to the front and expects the next index).
    #[inline]
    pub fn take_expected(&mut self, slot: usize) -> Option<(u32, u64)> {
        self.order.get(slot)?;
        let e = self.order.move_to_front(slot);
        let index = self.next[e];
        self.next[e] = index.wrapping_add(1);
        Some((self.senders[e], index))
    }

    /// Takes `index` as predicted if `sender` is in slot 0 and `index` is
    /// the one expected from it (one more message from the last sender, the
    /// most common receive); returns whether it did.
    #[inline(always)]
    pub fn take_front(&mut self, sender: u32, index: u64) -> bool {
        match self.order.front_entry() {
            Some(e) if self.senders[e] == sender && self.next[e] == index => {
                self.next[e] = index.wrapping_add(1);
                true
            }
            _ => false,
        }
    }

    /// The index expected from a sender that is not in the list (0 if never seen).
    #[inline]
    pub fn expected_evicted(&self, sender: u32) -> u64 {
        // Most blocks (a crowd's segments) never evict, and a parent taking
        // one message from each new child evicts only older senders: no
        // hashing then.
        if u64::from(sender) >= self.evicted_above {
            return 0;
        }
        self.evicted.get(sender)
    }

    /// Records that `index` was taken from the sender in `slot` (a filled
    /// slot), moving it to the front.
    #[inline]
    pub fn hit(&mut self, slot: usize, index: u64) {
        let e = self.order.move_to_front(slot);
        self.next[e] = index.wrapping_add(1);
    }

    /// Records that `index` was taken from a sender not in the list.
    #[inline]
    pub fn miss(&mut self, sender: u32, index: u64) {
        // The side map out of line: a crowd's short segments never fill
        // the list, and this inlines into the decoder's quick path.
        if u64::from(sender) < self.evicted_above || self.order.len == SLOTS {
            self.move_to_side_map(sender);
        }
        let e = self.order.push_front();
        self.senders[e] = sender;
        self.next[e] = index.wrapping_add(1);
    }

    /// Takes `sender`, about to join the list, out of the side map, and
    /// puts there the sender that falls off the list, if it is full.
    #[inline(never)]
    fn move_to_side_map(&mut self, sender: u32) {
        if u64::from(sender) < self.evicted_above {
            self.evicted.remove(sender);
        }
        if let Some(v) = self.order.victim() {
            let victim = self.senders[v];
            self.evicted.insert(victim, self.next[v]);
            self.evicted_above = self.evicted_above.max(u64::from(victim) + 1);
        }
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

    /// The predictors are plain move-to-front lists (as docs/format.md
    /// describes them): checked against a `Vec` doing exactly that.
    mod model {
        use super::*;
        use proptest::prelude::*;

        #[derive(Clone, Debug)]
        enum Op {
            /// Use value `v`: a hit moves it to the front, a miss inserts it.
            Use(u32),
            /// Take slot `k` as predicted (senders) or as is (destinations).
            Slot(usize),
        }

        fn ops() -> impl Strategy<Value = Vec<Op>> {
            // Few distinct values make hits common; more than SLOTS make evictions happen.
            let op = prop_oneof![
                3 => (0u32..48).prop_map(Op::Use),
                1 => (0usize..32).prop_map(Op::Slot),
            ];
            proptest::collection::vec(op, 0..400)
        }

        proptest! {
            #[test]
            fn dest_cache_is_a_move_to_front_list(ops in ops()) {
                let mut c = DestCache::default();
                let mut model: Vec<Dest> = Vec::new();
                for op in ops {
                    match op {
                        Op::Use(v) => {
                            let d = Dest::Proc(ProcId(v));
                            let want = model.iter().position(|&x| x == d);
                            prop_assert_eq!(c.find(d), want);
                            prop_assert_eq!(c.is_front(d), want == Some(0));
                            match want {
                                Some(k) => {
                                    prop_assert_eq!(c.take(k), Some(d));
                                    model.remove(k);
                                }
                                None => {
                                    c.insert(d);
                                    model.truncate(SLOTS - 1);
                                }
                            }
                            model.insert(0, d);
                        }
                        Op::Slot(k) => {
                            let want = model.get(k).copied();
                            prop_assert_eq!(c.take(k), want);
                            if let Some(d) = want {
                                model.remove(k);
                                model.insert(0, d);
                            }
                        }
                    }
                }
            }

            #[test]
            fn sender_cache_is_a_move_to_front_list(ops in ops()) {
                let mut c = SenderCache::default();
                // (sender, expected next index), most recent first; and the evicted ones.
                let mut model: Vec<(u32, u64)> = Vec::new();
                let mut evicted = std::collections::HashMap::new();
                let mut step = 0u64;
                for op in ops {
                    step += 1;
                    match op {
                        Op::Use(s) => {
                            let want = model.iter().position(|x| x.0 == s);
                            // Half the time the index expected, for `take_front`.
                            let index = match want {
                                Some(k) if step.is_multiple_of(2) => model[k].1,
                                _ => step * 3,
                            };
                            prop_assert_eq!(c.find(s), want);
                            let front = want == Some(0) && model[0].1 == index;
                            prop_assert_eq!(c.take_front(s, index), front);
                            match want {
                                _ if front => {
                                    model.remove(0);
                                }
                                Some(k) => {
                                    prop_assert_eq!(c.peek(k), Some(model[k]));
                                    c.hit(k, index);
                                    model.remove(k);
                                }
                                None => {
                                    let e = evicted.get(&s).copied().unwrap_or(0);
                                    prop_assert_eq!(c.expected_evicted(s), e);
                                    c.miss(s, index);
                                    evicted.remove(&s);
                                    if model.len() == SLOTS {
                                        let (old, next) = model.pop().unwrap();
                                        evicted.insert(old, next);
                                    }
                                }
                            }
                            model.insert(0, (s, index + 1));
                        }
                        Op::Slot(k) => {
                            let want = model.get(k).copied();
                            prop_assert_eq!(c.take_expected(k), want);
                            if let Some((s, i)) = want {
                                model.remove(k);
                                model.insert(0, (s, i + 1));
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The shared objects a block's operations touched, most recent first, each
/// with the operation number expected next on it (the last one seen, plus
/// one): a process that updates one table over and over names it by slot 0
/// and its operation by a small delta. Few objects are touched per block,
/// so a short list searched in order does.
#[derive(Clone, Default)]
pub struct ObjectCache {
    recent: Vec<(ObjectId, u64)>,
    /// Expectations of objects that fell off the list.
    evicted: HashMap<ObjectId, u64>,
}

/// Slots of [`ObjectCache`]: operand values below [`OBJECT_NONE`].
pub const OBJECT_SLOTS: usize = 30;

impl ObjectCache {
    pub fn clear(&mut self) {
        self.recent.clear();
        if !self.evicted.is_empty() {
            self.evicted.clear();
        }
    }

    pub fn find(&self, o: ObjectId) -> Option<usize> {
        self.recent.iter().position(|(x, _)| *x == o)
    }

    /// The object in `slot` and the number expected next on it.
    pub fn peek(&self, slot: usize) -> Option<(ObjectId, u64)> {
        self.recent.get(slot).copied()
    }

    /// What is expected next of an object not in the list.
    pub fn expected_evicted(&self, o: ObjectId) -> u64 {
        self.evicted.get(&o).copied().unwrap_or(0)
    }

    /// Operation `seq` on the object in `slot`: it moves to the front.
    pub fn hit(&mut self, slot: usize, seq: u64) {
        let (o, _) = self.recent.remove(slot);
        self.recent.insert(0, (o, seq.wrapping_add(1)));
    }

    /// Operation `seq` on an object not in the list: it joins the front,
    /// and the least recently used one falls off when the list is full.
    pub fn miss(&mut self, o: ObjectId, seq: u64) {
        self.evicted.remove(&o);
        if self.recent.len() == OBJECT_SLOTS {
            if let Some((old, next)) = self.recent.pop() {
                self.evicted.insert(old, next);
            }
        }
        self.recent.insert(0, (o, seq.wrapping_add(1)));
    }
}

/// Operand of a SHARED tag: the operation found no object.
pub const OBJECT_NONE: u8 = 30;

/// Every predictor of one block, as the encoder and the decoder both keep
/// them: they start (and restart) from the same state.
#[derive(Clone, Default)]
pub struct Predictors {
    pub dests: DestCache,
    /// Receives and signals taken share a predictor: both consume a
    /// sender's signals in order.
    pub receipts: SenderCache,
    pub deliveries: SenderCache,
    pub objects: ObjectCache,
    /// Spawns are coded relative to the last child (the block's own process
    /// at first) and its pid.
    pub last_child: u32,
    pub pid_offset: i64,
    pub next_output: u64,
}

impl Predictors {
    /// The state a block of process `own` (engine pid `own_pid`) starts in,
    /// keeping the tables' storage.
    #[inline]
    pub fn reset(&mut self, own: crate::event::ProcId, own_pid: u64) {
        self.dests.clear();
        self.receipts.clear();
        self.deliveries.clear();
        self.objects.clear();
        self.last_child = own.0;
        self.pid_offset = own_pid.wrapping_sub(own.0 as u64) as i64;
        self.next_output = 0;
    }
}
