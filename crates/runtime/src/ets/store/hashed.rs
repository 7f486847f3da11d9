//! The store of `set`, `bag` and `duplicate_bag` tables: a hash index from
//! each key to its objects (so a lookup or an update touches the index
//! only), and the keys in the order they were first inserted.
//!
//! BEAM walks these tables in hash order, which cannot be reproduced; this
//! store walks them in insertion order instead (deterministic, and the same
//! in every run that inserts the same keys). A deleted key leaves an empty
//! slot behind, so that positions stay put; the slots are compacted once
//! there are more empty than used ones, and walks from the start skip the
//! empty prefix at once (a table used as a queue stays cheap).
//!
//! While a table is fixed (`ets:safe_fixtable/2`), a deleted key keeps its
//! position, so `next/2` from it goes on where it was, as on BEAM.

use super::Objs;
use crate::ets::key::{ExactKey, KeyHash};
use std::collections::HashMap;
use trace_term::Term;

/// A key's objects and its slot in insertion order.
struct Entry {
    slot: usize,
    objs: Objs,
}

#[derive(Default)]
pub struct Hashed {
    index: HashMap<ExactKey, Entry, KeyHash>,
    /// Keys in insertion order; `None`: the key once here was deleted.
    slots: Vec<Option<Term>>,
    /// Every slot before this one is empty.
    head: usize,
    objects: usize,
    /// Compactions so far (a position saved before one is stale after it).
    epoch: u64,
    /// Fixed: slots are not compacted, and deleted keys are remembered.
    fixed: bool,
    /// Keys deleted while fixed, and where they were.
    ghosts: HashMap<ExactKey, usize, KeyHash>,
}

impl Hashed {
    pub fn objects(&self) -> usize {
        self.objects
    }

    pub fn keys(&self) -> usize {
        self.index.len()
    }

    pub fn get(&self, key: &Term) -> Option<&Objs> {
        self.index.get(ExactKey::from_ref(key)).map(|e| &e.objs)
    }

    /// The objects of `key`, to change in place (the caller keeps the
    /// object count right through [`Hashed::adjust`]).
    pub fn get_mut(&mut self, key: &Term) -> Option<&mut Objs> {
        self.index
            .get_mut(ExactKey::from_ref(key))
            .map(|e| &mut e.objs)
    }

    /// Makes `obj` the one object of `key` (a set's insert); true if the
    /// key is new.
    pub fn put_one(&mut self, key: &Term, obj: Term) -> bool {
        if let Some(e) = self.index.get_mut(ExactKey::from_ref(key)) {
            e.objs = Objs::One(obj);
            return false;
        }
        self.add(key, Objs::One(obj));
        self.objects += 1;
        true
    }

    fn add(&mut self, key: &Term, objs: Objs) -> &mut Objs {
        let slot = self.slots.len();
        self.slots.push(Some(key.clone()));
        &mut self
            .index
            .entry(ExactKey(key.clone()))
            .or_insert(Entry { slot, objs })
            .objs
    }

    /// The objects of `key`, made empty first if the key is new.
    pub fn entry(&mut self, key: &Term) -> &mut Objs {
        if self.index.contains_key(ExactKey::from_ref(key)) {
            return &mut self
                .index
                .get_mut(ExactKey::from_ref(key))
                .expect("a key just found")
                .objs;
        }
        self.add(key, Objs::none())
    }

    /// Records that `n` objects were added (or, negative, removed) through
    /// [`Hashed::entry`] or [`Hashed::get_mut`]; drops `key` if it has none left.
    pub fn adjust(&mut self, key: &Term, n: isize) {
        self.objects = self.objects.saturating_add_signed(n);
        if self.get(key).is_some_and(|o| o.is_empty()) {
            self.remove(key);
        }
    }

    /// Removes `key` and its objects.
    pub fn remove(&mut self, key: &Term) -> Option<Objs> {
        let e = self.index.remove(ExactKey::from_ref(key))?;
        let k = self.slots[e.slot].take();
        if let (true, Some(k)) = (self.fixed, k) {
            self.ghosts.insert(ExactKey(k), e.slot);
        }
        self.objects -= e.objs.len();
        self.tidy();
        Some(e.objs)
    }

    pub fn clear(&mut self) {
        *self = Hashed {
            epoch: self.epoch + 1,
            fixed: self.fixed,
            ..Hashed::default()
        };
    }

    /// Fixes or unfixes the table (see the module's comment).
    pub fn set_fixed(&mut self, fixed: bool) {
        self.fixed = fixed;
        if !fixed {
            self.ghosts.clear();
            self.tidy();
        }
    }

    /// Compacts the slots when most are empty.
    fn tidy(&mut self) {
        while self.head < self.slots.len() && self.slots[self.head].is_none() {
            self.head += 1;
        }
        if self.fixed {
            return;
        }
        if self.head == self.slots.len() {
            self.slots.clear();
            self.head = 0;
            return;
        }
        let used = self.index.len();
        if self.slots.len() < 64 || self.slots.len() - used <= used {
            return;
        }
        let mut remap = vec![usize::MAX; self.slots.len()];
        let mut kept = Vec::with_capacity(used * 2);
        for (i, s) in self.slots.drain(..).enumerate() {
            if s.is_some() {
                remap[i] = kept.len();
                kept.push(s);
            }
        }
        self.slots = kept;
        for e in self.index.values_mut() {
            e.slot = remap[e.slot];
        }
        self.head = 0;
        self.epoch += 1;
    }

    /// The used slot at or after `i`: its position, key and objects.
    pub fn at_or_after(&self, i: usize) -> Option<(usize, &Term, &Objs)> {
        let start = i.max(self.head);
        let (j, k) = self
            .slots
            .get(start..)?
            .iter()
            .enumerate()
            .find_map(|(j, s)| s.as_ref().map(|k| (j, k)))?;
        Some((start + j, k, self.get(k)?))
    }

    /// The position of `key` (or, in a fixed table, where it was).
    pub fn position(&self, key: &Term) -> Option<usize> {
        let k = ExactKey::from_ref(key);
        self.index
            .get(k)
            .map(|e| e.slot)
            .or_else(|| self.ghosts.get(k).copied())
    }

    /// Every key and its objects, in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (&Term, &Objs)> {
        self.slots[self.head.min(self.slots.len())..]
            .iter()
            .flatten()
            .filter_map(|k| Some((k, self.get(k)?)))
    }

    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// Keeps only the objects `keep` accepts; returns how many went.
    pub fn retain(&mut self, mut keep: impl FnMut(&Term) -> bool) -> usize {
        let mut emptied = Vec::new();
        let mut gone = 0;
        for e in self.index.values_mut() {
            let before = e.objs.len();
            e.objs.retain(&mut keep);
            gone += before - e.objs.len();
            if e.objs.is_empty() {
                emptied.push(e.slot);
            }
        }
        self.objects -= gone;
        // In insertion order, so a fixed table remembers them alike.
        emptied.sort_unstable();
        for slot in emptied {
            if let Some(k) = self.slots[slot].clone() {
                self.remove(&k);
            }
        }
        gone
    }
}
