//! Who waits for whom while a derivation is rebuilt: a waiting process waits
//! for one signal index of one sender, so the waiters of each sender form a
//! list through per-process links, kept sorted by the index they need.
//! Dense arrays, no allocation per sender: the rebuild visits these on every
//! wait, and a heap per sender cost a cache miss each time.

use crate::facts::TableRow;

const NONE: u32 = u32::MAX;

pub(crate) struct Waiters {
    /// Per sender: first and last waiter.
    lists: Vec<List>,
    /// Per waiter: the index it needs and the next waiter on the same sender.
    nodes: Vec<Node>,
}

#[derive(Copy, Clone)]
struct List {
    head: u32,
    tail: u32,
}

#[derive(Copy, Clone)]
struct Node {
    need: u32,
    next: u32,
}

impl Waiters {
    pub fn new(n: usize) -> Self {
        Waiters {
            lists: vec![
                List {
                    head: NONE,
                    tail: NONE
                };
                n
            ],
            nodes: vec![
                Node {
                    need: 0,
                    next: NONE
                };
                n
            ],
        }
    }

    /// `w` waits until `sender` has sent more than `need` signals.
    #[inline]
    pub fn add(&mut self, sender: TableRow, need: u32, w: TableRow) {
        let list = self.lists[sender as usize];
        // Waiters usually need later and later signals: append in O(1).
        if list.tail != NONE && self.nodes[list.tail as usize].need > need {
            return self.insert(sender, need, w);
        }
        self.nodes[w as usize] = Node { need, next: NONE };
        if list.tail == NONE {
            self.lists[sender as usize].head = w;
        } else {
            self.nodes[list.tail as usize].next = w;
        }
        self.lists[sender as usize].tail = w;
    }

    /// As [`add`](Self::add), for a waiter that needs less than the last:
    /// its place is found from the head.
    #[cold]
    fn insert(&mut self, sender: TableRow, need: u32, w: TableRow) {
        let mut prev = NONE;
        let mut at = self.lists[sender as usize].head;
        while at != NONE && self.nodes[at as usize].need <= need {
            prev = at;
            at = self.nodes[at as usize].next;
        }
        self.nodes[w as usize] = Node { need, next: at };
        if prev == NONE {
            self.lists[sender as usize].head = w;
        } else {
            self.nodes[prev as usize].next = w;
        }
    }

    /// Removes and hands over the waiters of `sender` that `sent` signals satisfy.
    pub fn wake(&mut self, sender: TableRow, sent: u32, mut f: impl FnMut(TableRow)) {
        let s = sender as usize;
        let mut at = self.lists[s].head;
        while at != NONE && self.nodes[at as usize].need < sent {
            let next = self.nodes[at as usize].next;
            f(at);
            at = next;
        }
        self.lists[s].head = at;
        if at == NONE {
            self.lists[s].tail = NONE;
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
