//! Maps. Keys are kept in Erlang's map key order (term order, except that every
//! integer comes before every float, because map keys compare exactly).
//!
//! The representation is a B-tree behind a reference count: an update copies
//! only when the map is shared, so the common `M1 = M0#{K => V}` with `M0` dead
//! afterwards updates in place.

use crate::order::cmp_exact;
use crate::term::Term;
use std::collections::BTreeMap;

/// A map key: a term ordered by exact term order.
#[derive(Clone, Debug)]
#[repr(transparent)]
pub struct MapKey(pub Term);

impl PartialEq for MapKey {
    fn eq(&self, o: &MapKey) -> bool {
        cmp_exact(&self.0, &o.0).is_eq()
    }
}
impl Eq for MapKey {}
impl PartialOrd for MapKey {
    fn partial_cmp(&self, o: &MapKey) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for MapKey {
    fn cmp(&self, o: &MapKey) -> std::cmp::Ordering {
        cmp_exact(&self.0, &o.0)
    }
}

/// The contents of a map term.
#[derive(Clone, Default, Debug)]
pub struct MapRepr {
    entries: BTreeMap<MapKey, Term>,
}

impl MapRepr {
    pub fn new() -> MapRepr {
        MapRepr::default()
    }

    pub fn from_pairs<I: IntoIterator<Item = (Term, Term)>>(pairs: I) -> MapRepr {
        let mut m = MapRepr::new();
        for (k, v) in pairs {
            m.insert(k, v);
        }
        m
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn get(&self, k: &Term) -> Option<&Term> {
        // Borrowing lookup without cloning the key: MapKey is a transparent wrapper.
        self.entries.get(MapKey::from_ref(k))
    }

    pub fn contains_key(&self, k: &Term) -> bool {
        self.get(k).is_some()
    }

    pub fn insert(&mut self, k: Term, v: Term) -> Option<Term> {
        self.entries.insert(MapKey(k), v)
    }

    pub fn remove(&mut self, k: &Term) -> Option<Term> {
        self.entries.remove(MapKey::from_ref(k))
    }

    /// Entries in key order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&Term, &Term)> + ExactSizeIterator {
        self.entries.iter().map(|(k, v)| (&k.0, v))
    }

    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &Term> + ExactSizeIterator {
        self.entries.keys().map(|k| &k.0)
    }

    pub fn values(&self) -> impl DoubleEndedIterator<Item = &Term> + ExactSizeIterator {
        self.entries.values()
    }
}

impl MapKey {
    fn from_ref(t: &Term) -> &MapKey {
        // SAFETY: MapKey is #[repr(transparent)] over Term.
        unsafe { &*(t as *const Term as *const MapKey) }
    }
}
