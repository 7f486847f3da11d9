//! The store of `ordered_set` tables: a B-tree keyed by term order, so a
//! table of millions of objects stays O(log n) per operation and walks in
//! key order as BEAM's does.

use crate::ets::key::OrdKey;
use std::collections::btree_map::Entry;
use std::collections::BTreeMap;
use std::ops::Bound;
use trace_term::order::exact_eq;
use trace_term::Term;

#[derive(Default)]
pub struct Ordered {
    tree: BTreeMap<OrdKey, Term>,
}

impl Ordered {
    pub fn len(&self) -> usize {
        self.tree.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tree.is_empty()
    }

    pub fn get(&self, key: &Term) -> Option<&Term> {
        self.tree.get(OrdKey::from_ref(key))
    }

    pub fn get_mut(&mut self, key: &Term) -> Option<&mut Term> {
        self.tree.get_mut(OrdKey::from_ref(key))
    }

    /// Puts `obj` under `key`, replacing the object of an equal key (the
    /// key itself becomes the new object's: `1.0` replaces `1`).
    pub fn insert(&mut self, key: &Term, obj: Term) {
        match self.tree.entry(OrdKey(key.clone())) {
            Entry::Vacant(v) => {
                v.insert(obj);
            }
            Entry::Occupied(mut o) if exact_eq(&o.key().0, key) => {
                o.insert(obj);
            }
            Entry::Occupied(o) => {
                // An equal key of another type: walks must now show this one.
                o.remove_entry();
                self.tree.insert(OrdKey(key.clone()), obj);
            }
        }
    }

    pub fn remove(&mut self, key: &Term) -> Option<Term> {
        self.tree.remove(OrdKey::from_ref(key))
    }

    pub fn clear(&mut self) {
        self.tree.clear();
    }

    pub fn first(&self) -> Option<(&Term, &Term)> {
        self.tree.first_key_value().map(|(k, v)| (&k.0, v))
    }

    pub fn last(&self) -> Option<(&Term, &Term)> {
        self.tree.last_key_value().map(|(k, v)| (&k.0, v))
    }

    /// The first entry with a key above `key` (which need not be in the table).
    pub fn after(&self, key: &Term) -> Option<(&Term, &Term)> {
        self.tree
            .range::<OrdKey, _>((Bound::Excluded(OrdKey::from_ref(key)), Bound::Unbounded))
            .next()
            .map(|(k, v)| (&k.0, v))
    }

    /// The last entry with a key below `key`.
    pub fn before(&self, key: &Term) -> Option<(&Term, &Term)> {
        self.tree
            .range::<OrdKey, _>((Bound::Unbounded, Bound::Excluded(OrdKey::from_ref(key))))
            .next_back()
            .map(|(k, v)| (&k.0, v))
    }

    /// Entries from `key` on (excluded) or from the start, in key order.
    pub fn from(&self, key: Option<&Term>) -> impl DoubleEndedIterator<Item = (&Term, &Term)> {
        let lo = match key {
            Some(k) => Bound::Excluded(OrdKey::from_ref(k)),
            None => Bound::Unbounded,
        };
        self.tree
            .range::<OrdKey, _>((lo, Bound::Unbounded))
            .map(|(k, v)| (&k.0, v))
    }

    /// Entries below `key` (excluded) or all, highest first.
    pub fn down_from(&self, key: Option<&Term>) -> impl Iterator<Item = (&Term, &Term)> {
        let hi = match key {
            Some(k) => Bound::Excluded(OrdKey::from_ref(k)),
            None => Bound::Unbounded,
        };
        self.tree
            .range::<OrdKey, _>((Bound::Unbounded, hi))
            .rev()
            .map(|(k, v)| (&k.0, v))
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&Term, &Term)> {
        self.tree.iter().map(|(k, v)| (&k.0, v))
    }

    /// Keeps only the objects `keep` accepts; returns how many went.
    pub fn retain(&mut self, mut keep: impl FnMut(&Term) -> bool) -> usize {
        let before = self.tree.len();
        self.tree.retain(|_, v| keep(v));
        before - self.tree.len()
    }
}
