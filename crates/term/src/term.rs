//! The Erlang term: one 16-byte value type for the engine, the log and the tools.
//!
//! Terms are immutable, so compound terms are reference counted and shared rather
//! than copied: a message sent to another process is the same allocation, and a
//! literal in compiled code is built once. Erlang data has no cycles, so reference
//! counting reclaims everything; long lists are freed iteratively (see `Cons`'s
//! `Drop`) so that dropping a million-element list does not recurse.

use crate::atom::{self, Atom};
use crate::bits::Bitstring;
use crate::fun::Fun;
use crate::map::MapRepr;
use num_bigint::BigInt;
use num_traits::ToPrimitive;
use triomphe::{Arc, ThinArc};

/// A process identifier, printed `<0.N.0>`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Pid(pub u64);

impl Pid {
    /// The `N` of `<0.N.0>`.
    pub fn number(self) -> u64 {
        self.0
    }
}

impl std::fmt::Display for Pid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "<0.{}.0>", self.0)
    }
}

/// A reference. Engine references are `(creator pid number, per-process counter)`,
/// which makes them deterministic given the process, so replay reproduces them
/// without logging. Printed `#Ref<0.0.P.C>`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Ref(pub u64);

impl Ref {
    pub fn new(creator: Pid, counter: u32) -> Ref {
        Ref((creator.0 << 32) | counter as u64)
    }
    pub fn creator(self) -> u64 {
        self.0 >> 32
    }
    pub fn counter(self) -> u32 {
        self.0 as u32
    }
}

impl std::fmt::Display for Ref {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "#Ref<0.0.{}.{}>", self.creator(), self.counter())
    }
}

/// A list cell `[Head | Tail]`.
pub struct Cons {
    pub head: Term,
    pub tail: Term,
}

impl Drop for Cons {
    fn drop(&mut self) {
        // Unlink uniquely owned tail cells one by one instead of recursing.
        let mut tail = std::mem::replace(&mut self.tail, Term::Nil);
        while let Term::Cons(cell) = tail {
            match Arc::try_unwrap(cell) {
                Ok(mut c) => tail = std::mem::replace(&mut c.tail, Term::Nil),
                Err(_shared) => break,
            }
        }
    }
}

/// A tuple: one allocation holding the elements.
#[derive(Clone)]
pub struct Tuple(ThinArc<(), Term>);

impl Tuple {
    pub fn from_vec(v: Vec<Term>) -> Tuple {
        Tuple(ThinArc::from_header_and_iter((), v.into_iter()))
    }
    pub fn from_slice(v: &[Term]) -> Tuple {
        Tuple(ThinArc::from_header_and_iter((), v.iter().cloned()))
    }
    #[allow(clippy::should_implement_trait)]
    pub fn from_iter<I>(it: I) -> Tuple
    where
        I: IntoIterator<Item = Term>,
        I::IntoIter: ExactSizeIterator,
    {
        Tuple(ThinArc::from_header_and_iter((), it.into_iter()))
    }
    pub fn elements(&self) -> &[Term] {
        &self.0.slice
    }
    pub fn arity(&self) -> usize {
        self.0.slice.len()
    }
    pub fn ptr_eq(&self, other: &Tuple) -> bool {
        std::ptr::eq(self.0.heap_ptr(), other.0.heap_ptr())
    }
}

/// An Erlang term.
///
/// The immediates come first: rustc numbers the variants in this order, so
/// "owns no allocation" ([`Term::is_immediate`]) is one comparison of the
/// tag, which the interpreter makes on every slot it overwrites. (Nothing
/// depends on the order for correctness.)
pub enum Term {
    /// An integer that fits in 64 bits.
    Int(i64),
    Float(f64),
    Atom(Atom),
    /// The empty list `[]`.
    Nil,
    Pid(Pid),
    Ref(Ref),
    /// An integer that does not fit in 64 bits (never holds a value that would).
    Big(Arc<BigInt>),
    Cons(Arc<Cons>),
    Tuple(Tuple),
    Map(Arc<MapRepr>),
    /// A binary or bitstring.
    Binary(Arc<Bitstring>),
    Fun(Arc<Fun>),
}

const _: () = assert!(std::mem::size_of::<Term>() == 16);

impl Clone for Term {
    /// Immediates are copied inline; only reference-counted terms take the
    /// out-of-line path (the interpreter clones terms constantly).
    #[inline(always)]
    fn clone(&self) -> Term {
        match self {
            Term::Int(i) => Term::Int(*i),
            Term::Float(f) => Term::Float(*f),
            Term::Atom(a) => Term::Atom(*a),
            Term::Nil => Term::Nil,
            Term::Pid(p) => Term::Pid(*p),
            Term::Ref(r) => Term::Ref(*r),
            _ => self.clone_shared(),
        }
    }
}

impl Term {
    #[inline(never)]
    fn clone_shared(&self) -> Term {
        match self {
            Term::Big(b) => Term::Big(b.clone()),
            Term::Cons(c) => Term::Cons(c.clone()),
            Term::Tuple(t) => Term::Tuple(t.clone()),
            Term::Map(m) => Term::Map(m.clone()),
            Term::Binary(b) => Term::Binary(b.clone()),
            Term::Fun(f) => Term::Fun(f.clone()),
            Term::Int(_)
            | Term::Float(_)
            | Term::Atom(_)
            | Term::Nil
            | Term::Pid(_)
            | Term::Ref(_) => unreachable!("immediates are copied inline"),
        }
    }
}

impl Term {
    pub const TRUE: Term = Term::Atom(atom::TRUE);
    pub const FALSE: Term = Term::Atom(atom::FALSE);
    pub const OK: Term = Term::Atom(atom::OK);
    pub const UNDEFINED: Term = Term::Atom(atom::UNDEFINED);

    pub fn atom(name: &str) -> Term {
        Term::Atom(Atom::intern(name))
    }

    pub fn bool(b: bool) -> Term {
        Term::Atom(Atom::from_bool(b))
    }

    /// An integer, normalised: small values are `Int`, others `Big`.
    pub fn from_bigint(b: BigInt) -> Term {
        match b.to_i64() {
            Some(i) => Term::Int(i),
            None => Term::Big(Arc::new(b)),
        }
    }

    pub fn int(i: i64) -> Term {
        Term::Int(i)
    }

    pub fn cons(head: Term, tail: Term) -> Term {
        Term::Cons(Arc::new(Cons { head, tail }))
    }

    pub fn tuple(elems: Vec<Term>) -> Term {
        Term::Tuple(Tuple::from_vec(elems))
    }

    /// A proper list of the given elements.
    pub fn list(elems: Vec<Term>) -> Term {
        Self::list_with_tail(elems, Term::Nil)
    }

    /// `[E1, ..., En | Tail]`.
    pub fn list_with_tail(elems: Vec<Term>, tail: Term) -> Term {
        elems
            .into_iter()
            .rev()
            .fold(tail, |acc, e| Term::cons(e, acc))
    }

    /// `[E1, ..., En | Tail]` from elements in order, built front to back
    /// without collecting them first.
    pub fn list_from_iter<I: IntoIterator<Item = Term>>(elems: I, tail: Term) -> Term {
        let mut b = ListBuilder::new();
        for e in elems {
            b.push(e);
        }
        b.finish(tail)
    }

    /// A list of character codes (an Erlang string).
    pub fn string(s: &str) -> Term {
        let chars: Vec<Term> = s.chars().map(|c| Term::Int(c as i64)).collect();
        Term::list(chars)
    }

    /// A binary holding `bytes`.
    pub fn binary(bytes: &[u8]) -> Term {
        Term::Binary(Arc::new(Bitstring::from_bytes(bytes)))
    }

    /// True for values that own no allocation (dropping them is a no-op).
    #[inline(always)]
    pub fn is_immediate(&self) -> bool {
        matches!(
            self,
            Term::Int(_) | Term::Float(_) | Term::Atom(_) | Term::Nil | Term::Pid(_) | Term::Ref(_)
        )
    }

    /// Overwrites `self` with `v`, skipping the out-of-line drop when the old
    /// value is an immediate (the common case in registers). The old value
    /// is tested before the write, so the fast path keeps no copy of it.
    #[inline(always)]
    pub fn set(&mut self, v: Term) {
        if self.is_immediate() {
            // SAFETY: an immediate owns no allocation, so overwriting it
            // without running its destructor leaks nothing.
            unsafe { std::ptr::write(self, v) }
        } else {
            self.replace_shared(v);
        }
    }

    /// `set`'s slow path: the old value holds a reference to release.
    #[inline(never)]
    fn replace_shared(&mut self, v: Term) {
        *self = v;
    }

    /// Resets `self` to `[]`, releasing what it held.
    #[inline(always)]
    pub fn clear(&mut self) {
        if !self.is_immediate() {
            *self = Term::Nil;
        }
    }

    pub fn is_atom(&self, a: Atom) -> bool {
        matches!(self, Term::Atom(x) if *x == a)
    }

    pub fn as_atom(&self) -> Option<Atom> {
        match self {
            Term::Atom(a) => Some(*a),
            _ => None,
        }
    }

    pub fn as_int(&self) -> Option<i64> {
        match self {
            Term::Int(i) => Some(*i),
            _ => None,
        }
    }

    /// The character an integer stands for (a Unicode scalar value), as in
    /// a string.
    pub fn as_char(&self) -> Option<char> {
        self.as_int()
            .and_then(|c| u32::try_from(c).ok())
            .and_then(char::from_u32)
    }

    pub fn as_tuple(&self) -> Option<&[Term]> {
        match self {
            Term::Tuple(t) => Some(t.elements()),
            _ => None,
        }
    }

    pub fn as_pid(&self) -> Option<Pid> {
        match self {
            Term::Pid(p) => Some(*p),
            _ => None,
        }
    }

    pub fn is_number(&self) -> bool {
        matches!(self, Term::Int(_) | Term::Big(_) | Term::Float(_))
    }

    pub fn is_integer(&self) -> bool {
        matches!(self, Term::Int(_) | Term::Big(_))
    }

    pub fn is_list(&self) -> bool {
        matches!(self, Term::Nil | Term::Cons(_))
    }

    /// Iterates the elements of a list; the iterator's `tail()` tells whether it was proper.
    pub fn list_iter(&self) -> ListIter<'_> {
        ListIter { cur: self }
    }

    /// The elements of a proper list, or `None` if `self` is not a proper list.
    pub fn to_vec(&self) -> Option<Vec<Term>> {
        // Count first: one allocation of the right size beats growing.
        let n = self.list_iter().count();
        let mut out = Vec::with_capacity(n);
        let mut it = self.list_iter();
        for e in &mut it {
            out.push(e.clone());
        }
        it.is_proper().then_some(out)
    }

    /// The length of a proper list, or `None`.
    pub fn list_len(&self) -> Option<usize> {
        let mut n = 0;
        let mut it = self.list_iter();
        for _ in &mut it {
            n += 1;
        }
        it.is_proper().then_some(n)
    }

    /// The name of the term's type as `erlang:error` messages and printers need it.
    pub fn type_name(&self) -> &'static str {
        match self {
            Term::Int(_) | Term::Big(_) => "integer",
            Term::Float(_) => "float",
            Term::Atom(_) => "atom",
            Term::Nil | Term::Cons(_) => "list",
            Term::Tuple(_) => "tuple",
            Term::Map(_) => "map",
            Term::Binary(b) if b.is_binary() => "binary",
            Term::Binary(_) => "bitstring",
            Term::Fun(_) => "fun",
            Term::Pid(_) => "pid",
            Term::Ref(_) => "reference",
        }
    }
}

impl From<Atom> for Term {
    fn from(a: Atom) -> Term {
        Term::Atom(a)
    }
}

impl From<i64> for Term {
    fn from(i: i64) -> Term {
        Term::Int(i)
    }
}

impl From<Pid> for Term {
    fn from(p: Pid) -> Term {
        Term::Pid(p)
    }
}

impl From<BigInt> for Term {
    fn from(b: BigInt) -> Term {
        Term::from_bigint(b)
    }
}

/// Builds a list front to back: each new cell is appended to the last one,
/// which is still uniquely owned (so no cell is ever copied or mutated once
/// shared).
pub struct ListBuilder {
    head: Term,
    /// The tail field of the last cell (or `head` while empty).
    last: *mut Term,
}

impl ListBuilder {
    pub fn new() -> ListBuilder {
        ListBuilder {
            head: Term::Nil,
            last: std::ptr::null_mut(),
        }
    }

    pub fn push(&mut self, e: Term) {
        let mut cell = Arc::new(Cons {
            head: e,
            tail: Term::Nil,
        });
        let tail: *mut Term = &mut Arc::get_mut(&mut cell).expect("a new cell").tail;
        if self.last.is_null() {
            self.head = Term::Cons(cell);
        } else {
            // SAFETY: `last` points into the previous cell, which only this
            // builder references (it was new, and only its predecessor's
            // tail points to it), and moving an Arc does not move its data.
            unsafe { *self.last = Term::Cons(cell) };
        }
        self.last = tail;
    }

    /// The list, ending in `tail`.
    pub fn finish(mut self, tail: Term) -> Term {
        if self.last.is_null() {
            return tail;
        }
        // SAFETY: as in `push`.
        unsafe { *self.last = tail };
        std::mem::replace(&mut self.head, Term::Nil)
    }
}

impl Default for ListBuilder {
    fn default() -> Self {
        ListBuilder::new()
    }
}

/// Iterator over the elements of a (possibly improper) list.
pub struct ListIter<'a> {
    cur: &'a Term,
}

impl<'a> ListIter<'a> {
    /// What is left: `Nil` after a proper list, the improper tail otherwise.
    pub fn rest(&self) -> &'a Term {
        self.cur
    }
    /// True once iteration ended on `[]`.
    pub fn is_proper(&self) -> bool {
        matches!(self.cur, Term::Nil)
    }
}

impl<'a> Iterator for ListIter<'a> {
    type Item = &'a Term;
    fn next(&mut self) -> Option<&'a Term> {
        match self.cur {
            Term::Cons(c) => {
                self.cur = &c.tail;
                Some(&c.head)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lists_drop_without_recursing() {
        let mut l = Term::Nil;
        for i in 0..2_000_000 {
            l = Term::cons(Term::Int(i), l);
        }
        assert_eq!(l.list_len(), Some(2_000_000));
        drop(l);
    }

    #[test]
    fn shared_tails_survive_dropping_one_owner() {
        let tail = Term::list((0..10).map(Term::Int).collect());
        let a = Term::cons(Term::Int(-1), tail.clone());
        drop(a);
        assert_eq!(tail.list_len(), Some(10));
    }

    #[test]
    fn improper_lists_are_seen_as_such() {
        let l = Term::list_with_tail(vec![Term::Int(1)], Term::Int(2));
        assert_eq!(l.list_len(), None);
        let mut it = l.list_iter();
        assert!(it.next().is_some());
        assert!(it.next().is_none());
        assert!(matches!(it.rest(), Term::Int(2)));
    }

    #[test]
    fn lists_build_front_to_back() {
        let l = Term::list_from_iter((1..=4).map(Term::Int), Term::atom("t"));
        assert_eq!(format!("{l:?}"), "[1,2,3,4|t]");
        assert!(matches!(
            Term::list_from_iter(std::iter::empty(), Term::Nil),
            Term::Nil
        ));
        let long = Term::list_from_iter((0..1_000_000).map(Term::Int), Term::Nil);
        assert_eq!(long.list_len(), Some(1_000_000));
    }

    #[test]
    fn bigints_are_normalised() {
        assert!(matches!(Term::from_bigint(BigInt::from(5)), Term::Int(5)));
        let big = BigInt::from(i64::MAX) + 1;
        assert!(matches!(Term::from_bigint(big), Term::Big(_)));
    }
}
