//! Who waits for whom while a derivation is rebuilt: a waiting process waits
//! for one signal index of one sender, so the waiters of each sender form a
//! list through per-process links, kept sorted by the index they need.
//! Dense arrays, no allocation per sender: the rebuild visits these on every
//! wait, and a heap per sender cost a cache miss each time.

use crate::model::Slot;

const NONE: u32 = u32::MAX;

pub(crate) struct Waiters {
    /// Per sender: first and last waiter.
    head: Vec<u32>,
    tail: Vec<u32>,
    /// Per waiter: the next waiter on the same sender, and the index it needs.
    next: Vec<u32>,
    need: Vec<u32>,
}

impl Waiters {
    pub fn new(n: usize) -> Self {
        Waiters {
            head: vec![NONE; n],
            tail: vec![NONE; n],
            next: vec![NONE; n],
            need: vec![0; n],
        }
    }

    /// `w` waits until `sender` has sent more than `need` signals.
    pub fn add(&mut self, sender: Slot, need: u32, w: Slot) {
        let (s, wi) = (sender as usize, w as usize);
        self.need[wi] = need;
        let tail = self.tail[s];
        // Waiters usually need later and later signals: append in O(1).
        if tail == NONE || self.need[tail as usize] <= need {
            self.next[wi] = NONE;
            if tail == NONE {
                self.head[s] = w;
            } else {
                self.next[tail as usize] = w;
            }
            self.tail[s] = w;
            return;
        }
        let mut prev = NONE;
        let mut at = self.head[s];
        while at != NONE && self.need[at as usize] <= need {
            prev = at;
            at = self.next[at as usize];
        }
        self.next[wi] = at;
        if prev == NONE {
            self.head[s] = w;
        } else {
            self.next[prev as usize] = w;
        }
    }

    /// Removes and hands over the waiters of `sender` that `sent` signals satisfy.
    pub fn wake(&mut self, sender: Slot, sent: u32, mut f: impl FnMut(Slot)) {
        let s = sender as usize;
        let mut at = self.head[s];
        while at != NONE && self.need[at as usize] < sent {
            let next = self.next[at as usize];
            f(at);
            at = next;
        }
        self.head[s] = at;
        if at == NONE {
            self.tail[s] = NONE;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn woken(w: &mut Waiters, sender: Slot, sent: u32) -> Vec<Slot> {
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
        assert_eq!(woken(&mut w, 0, 2), Vec::<Slot>::new());
        assert_eq!(woken(&mut w, 0, 3), vec![2]);
        assert_eq!(woken(&mut w, 0, 6), vec![1, 4]);
        w.add(0, 7, 2);
        assert_eq!(woken(&mut w, 0, 100), vec![2, 3]);
        assert_eq!(woken(&mut w, 0, 100), Vec::<Slot>::new());
        assert_eq!(woken(&mut w, 6, 1), vec![5]);
    }
}
