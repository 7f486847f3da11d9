//! Who waits for whom while a derivation is rebuilt: a waiting process waits
//! for one signal index of one sender, so the waiters of each sender form a
//! list through per-process links, kept sorted by the index they need.
//! Dense arrays, no allocation per sender: the rebuild visits these on every
//! wait, and a heap per sender cost a cache miss each time.

use crate::facts::TableRow;

const NONE: u32 = u32::MAX;

pub(crate) struct Waiters {
    /// Per process: its list as a sender (first and last waiter) and its
    /// place as a waiter (the index it needs, the next waiter on the same
    /// sender), side by side: a wake reads the sender's list and then the
    /// waiters' places, and one line holds both for a process.
    slots: Vec<Slot>,
}

#[derive(Copy, Clone)]
struct Slot {
    head: u32,
    tail: u32,
    need: u32,
    next: u32,
}

impl Waiters {
    pub fn new(n: usize) -> Self {
        Waiters {
            slots: vec![
                Slot {
                    head: NONE,
                    tail: NONE,
                    need: 0,
                    next: NONE
                };
                n
            ],
        }
    }

    /// The slot of a process a list links to (a `head`, `tail` or `next`
    /// other than `NONE`).
    #[inline(always)]
    fn linked(&self, at: u32) -> &Slot {
        debug_assert!((at as usize) < self.slots.len());
        // SAFETY: lists link only waiters `w` that `link` has indexed with
        // a bounds check (`self.slots[w]`), and `slots` never shrinks.
        unsafe { self.slots.get_unchecked(at as usize) }
    }

    #[inline(always)]
    fn linked_mut(&mut self, at: u32) -> &mut Slot {
        debug_assert!((at as usize) < self.slots.len());
        // SAFETY: as in `linked`.
        unsafe { self.slots.get_unchecked_mut(at as usize) }
    }

    /// `w` waits until `sender` has sent more than `need` signals.
    #[inline]
    pub fn add(&mut self, sender: TableRow, need: u32, w: TableRow) {
        let tail = self.slots[sender as usize].tail;
        // Waiters usually need later and later signals: append in O(1).
        if tail != NONE && self.linked(tail).need > need {
            return self.insert(sender, need, w);
        }
        self.link(sender, tail, w, need, NONE);
        self.slots[sender as usize].tail = w;
    }

    /// As [`add`](Self::add), for a waiter that needs less than the last:
    /// its place is found from the head.
    #[cold]
    fn insert(&mut self, sender: TableRow, need: u32, w: TableRow) {
        let mut prev = NONE;
        let mut at = self.slots[sender as usize].head;
        while at != NONE && self.linked(at).need <= need {
            prev = at;
            at = self.linked(at).next;
        }
        self.link(sender, prev, w, need, at);
    }

    /// Puts waiter `w` (needing `need`) in `sender`'s list after `prev`
    /// (`NONE`: at the head) and before `next`.
    #[inline(always)]
    fn link(&mut self, sender: TableRow, prev: u32, w: TableRow, need: u32, next: u32) {
        let me = &mut self.slots[w as usize];
        me.need = need;
        me.next = next;
        if prev == NONE {
            self.slots[sender as usize].head = w;
        } else {
            self.linked_mut(prev).next = w;
        }
    }

    /// Removes and hands over the waiters of `sender` that `sent` signals
    /// satisfy. A sender nobody waits for is only read.
    #[inline]
    pub fn wake(&mut self, sender: TableRow, sent: u32, mut f: impl FnMut(TableRow)) {
        let s = sender as usize;
        let head = self.slots[s].head;
        if head == NONE || self.linked(head).need >= sent {
            return;
        }
        let mut at = head;
        while at != NONE && self.linked(at).need < sent {
            let next = self.linked(at).next;
            f(at);
            at = next;
        }
        let list = &mut self.slots[s];
        list.head = at;
        if at == NONE {
            list.tail = NONE;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn woken(w: &mut Waiters, sender: TableRow, sent: u32) -> Vec<TableRow> {
        let mut v = Vec::new();
        w.wake(sender, sent, |p| v.push(p));
        v
    }

    #[test]
    fn waiters_wake_in_the_order_of_what_they_need() {
        let mut w = Waiters::new(8);
        w.add(0, 5, 1);
        w.add(0, 2, 2);
        w.add(0, 9, 3);
        w.add(0, 5, 4);
        w.add(6, 0, 5);
        assert_eq!(woken(&mut w, 0, 2), Vec::<TableRow>::new());
        assert_eq!(woken(&mut w, 0, 3), vec![2]);
        assert_eq!(woken(&mut w, 0, 6), vec![1, 4]);
        w.add(0, 7, 2);
        assert_eq!(woken(&mut w, 0, 100), vec![2, 3]);
        assert_eq!(woken(&mut w, 0, 100), Vec::<TableRow>::new());
        assert_eq!(woken(&mut w, 6, 1), vec![5]);
    }
}
