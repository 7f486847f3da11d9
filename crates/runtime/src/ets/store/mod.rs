//! Where a table keeps its objects: [`Hashed`] for `set`, `bag` and
//! `duplicate_bag`, [`Ordered`] for `ordered_set`. [`Store`] gives both
//! the operations of ETS with each type's rules (which object wins, which
//! duplicates are kept, in which order a key's objects come).
//!
//! Objects are terms shared with the processes that put them in or read
//! them out, as messages are: terms are immutable, so sharing is what
//! copying is on BEAM, without the copy.

mod hashed;
mod ordered;

pub use hashed::Hashed;
pub use ordered::Ordered;

use super::table::Kind;
use trace_term::order::exact_eq;
use trace_term::Term;

/// The objects of one key, in insertion order (one for a set). Boxing the
/// list keeps this as small as a term, which is most of a set's index.
#[derive(Clone, Debug)]
pub enum Objs {
    One(Term),
    Many(Box<Vec<Term>>),
}

const _: () = assert!(std::mem::size_of::<Objs>() == 16);

impl Objs {
    pub fn none() -> Objs {
        Objs::Many(Box::default())
    }

    pub fn as_slice(&self) -> &[Term] {
        match self {
            Objs::One(t) => std::slice::from_ref(t),
            Objs::Many(v) => v,
        }
    }

    pub fn len(&self) -> usize {
        self.as_slice().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn push(&mut self, t: Term) {
        match self {
            Objs::Many(v) if v.is_empty() => *self = Objs::One(t),
            Objs::Many(v) => v.push(t),
            Objs::One(_) => {
                let Objs::One(first) = std::mem::replace(self, Objs::none()) else {
                    unreachable!()
                };
                *self = Objs::Many(Box::new(vec![first, t]));
            }
        }
    }

    fn retain(&mut self, mut keep: impl FnMut(&Term) -> bool) {
        match self {
            Objs::One(t) => {
                if !keep(t) {
                    *self = Objs::none();
                }
            }
            Objs::Many(v) => v.retain(|t| keep(t)),
        }
    }
}

/// The element at 1-based `pos` of an object (a tuple), if it has one.
pub fn element(obj: &Term, pos: usize) -> Option<&Term> {
    obj.as_tuple()?.get(pos.checked_sub(1)?)
}

pub enum Store {
    Hashed(Hashed),
    Ordered(Ordered),
}

impl Store {
    pub fn new(kind: Kind) -> Store {
        match kind {
            Kind::OrderedSet => Store::Ordered(Ordered::default()),
            _ => Store::Hashed(Hashed::default()),
        }
    }

    /// Objects in the table.
    pub fn len(&self) -> usize {
        match self {
            Store::Hashed(h) => h.objects(),
            Store::Ordered(o) => o.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The objects of `key`.
    pub fn lookup(&self, key: &Term) -> &[Term] {
        match self {
            Store::Hashed(h) => h.get(key).map_or(&[], Objs::as_slice),
            Store::Ordered(o) => o.get(key).map_or(&[], std::slice::from_ref),
        }
    }

    pub fn contains(&self, key: &Term) -> bool {
        !self.lookup(key).is_empty()
    }

    /// Inserts objects (tuples at least `keypos` long, checked by the
    /// caller) with the rules of `kind`: a set's new object replaces the old
    /// one (the last of a list wins); a bag keeps one copy of each distinct
    /// object, and a list goes in from its end (as BEAM's does); a
    /// duplicate bag keeps every copy.
    pub fn insert(&mut self, kind: Kind, keypos: usize, objs: &[Term]) {
        let key = |o: &Term| element(o, keypos).cloned().unwrap_or(Term::Nil);
        match (self, kind) {
            (Store::Ordered(s), _) => {
                for o in objs {
                    if let Some(k) = element(o, keypos) {
                        s.insert(k, o.clone());
                    }
                }
            }
            (Store::Hashed(h), Kind::Set) => {
                for o in objs {
                    if let Some(k) = element(o, keypos) {
                        h.put_one(k, o.clone());
                    }
                }
            }
            (Store::Hashed(h), Kind::Bag) => {
                for o in objs.iter().rev() {
                    let k = key(o);
                    let e = h.entry(&k);
                    if !e.as_slice().iter().any(|x| exact_eq(x, o)) {
                        e.push(o.clone());
                        h.adjust(&k, 1);
                    }
                }
            }
            (Store::Hashed(h), _) => {
                for o in objs {
                    let k = key(o);
                    h.entry(&k).push(o.clone());
                    h.adjust(&k, 1);
                }
            }
        }
    }

    /// Removes `key`'s objects; returns them.
    pub fn remove(&mut self, key: &Term) -> Vec<Term> {
        match self {
            Store::Hashed(h) => h.remove(key).map_or_else(Vec::new, |o| match o {
                Objs::One(t) => vec![t],
                Objs::Many(v) => *v,
            }),
            Store::Ordered(o) => o.remove(key).into_iter().collect(),
        }
    }

    /// Removes every copy of `obj` (exactly equal) under `key`.
    pub fn remove_object(&mut self, key: &Term, obj: &Term) {
        match self {
            Store::Hashed(h) => {
                if let Some(objs) = h.get_mut(key) {
                    let before = objs.len();
                    objs.retain(|x| !exact_eq(x, obj));
                    let gone = before - objs.len();
                    h.adjust(key, -(gone as isize));
                }
            }
            Store::Ordered(o) => {
                if o.get(key).is_some_and(|x| exact_eq(x, obj)) {
                    o.remove(key);
                }
            }
        }
    }

    /// The object of `key` in a set or ordered set, to replace in place.
    pub fn one_mut(&mut self, key: &Term) -> Option<&mut Term> {
        match self {
            Store::Hashed(h) => match h.get_mut(key)? {
                Objs::One(t) => Some(t),
                Objs::Many(v) => v.first_mut(),
            },
            Store::Ordered(o) => o.get_mut(key),
        }
    }

    /// Replaces the object of `key` in a set or ordered set.
    pub fn replace(&mut self, key: &Term, obj: Term) {
        match self {
            Store::Hashed(h) => {
                if let Some(o) = h.get_mut(key) {
                    *o = Objs::One(obj);
                }
            }
            Store::Ordered(o) => {
                if let Some(x) = o.get_mut(key) {
                    *x = obj;
                }
            }
        }
    }

    pub fn clear(&mut self) {
        match self {
            Store::Hashed(h) => h.clear(),
            Store::Ordered(o) => o.clear(),
        }
    }

    /// Fixes or unfixes the table for walks (`safe_fixtable/2`): an
    /// `ordered_set` walks by key and needs nothing.
    pub fn set_fixed(&mut self, fixed: bool) {
        if let Store::Hashed(h) = self {
            h.set_fixed(fixed);
        }
    }

    /// Keeps only the objects `keep` accepts; returns how many went.
    pub fn retain(&mut self, keep: impl FnMut(&Term) -> bool) -> usize {
        match self {
            Store::Hashed(h) => h.retain(keep),
            Store::Ordered(o) => o.retain(keep),
        }
    }

    /// Every object, in the table's order.
    pub fn objects(&self) -> Vec<Term> {
        let mut out = Vec::with_capacity(self.len());
        self.for_each(|o| out.push(o.clone()));
        out
    }

    pub fn for_each(&self, mut f: impl FnMut(&Term)) {
        match self {
            Store::Hashed(h) => {
                for (_, objs) in h.iter() {
                    objs.as_slice().iter().for_each(&mut f);
                }
            }
            Store::Ordered(o) => o.iter().for_each(|(_, v)| f(v)),
        }
    }
}
