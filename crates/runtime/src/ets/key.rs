//! Table keys. `set`, `bag` and `duplicate_bag` tables match keys exactly
//! (`=:=`: `1` and `1.0` are different keys) and hash them; `ordered_set`
//! tables order keys by term order, where `1 == 1.0` makes them one key.

use std::cmp::Ordering;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use trace_term::order::{compare, exact_eq};
use trace_term::{Fun, Term};

/// A key compared with `=:=` and hashed consistently with it.
#[derive(Clone, Debug)]
#[repr(transparent)]
pub struct ExactKey(pub Term);

impl ExactKey {
    /// Views a term as a key without copying it.
    pub fn from_ref(t: &Term) -> &ExactKey {
        // SAFETY: `ExactKey` is a transparent wrapper of `Term`.
        unsafe { &*(t as *const Term as *const ExactKey) }
    }
}

impl PartialEq for ExactKey {
    fn eq(&self, o: &ExactKey) -> bool {
        key_eq(&self.0, &o.0)
    }
}

/// `=:=`, with the shapes keys usually have (integers, atoms, tuples of
/// them) compared directly.
fn key_eq(a: &Term, b: &Term) -> bool {
    match (a, b) {
        (Term::Int(x), Term::Int(y)) => x == y,
        (Term::Atom(x), Term::Atom(y)) => x == y,
        (Term::Tuple(x), Term::Tuple(y)) => {
            x.arity() == y.arity()
                && x.elements()
                    .iter()
                    .zip(y.elements())
                    .all(|(p, q)| key_eq(p, q))
        }
        _ => exact_eq(a, b),
    }
}

impl Eq for ExactKey {}

impl Hash for ExactKey {
    fn hash<H: Hasher>(&self, h: &mut H) {
        hash_term(&self.0, h);
    }
}

/// Feeds `t` to `h` so that terms equal under `=:=` hash alike (`0.0` and
/// `-0.0` are equal in OTP 25, so floats hash by value).
fn hash_term<H: Hasher>(t: &Term, h: &mut H) {
    let mut t = t;
    loop {
        match t {
            Term::Int(i) => h.write_u64(*i as u64),
            Term::Big(b) => {
                h.write_u8(1);
                b.hash(h);
            }
            Term::Float(f) => {
                let f = if *f == 0.0 { 0.0 } else { *f };
                h.write_u8(2);
                h.write_u64(f.to_bits());
            }
            Term::Atom(a) => {
                h.write_u8(3);
                a.hash(h);
            }
            Term::Nil => h.write_u8(4),
            Term::Cons(c) => {
                h.write_u8(5);
                hash_term(&c.head, h);
                // The spine iteratively: long lists do not recurse.
                t = &c.tail;
                continue;
            }
            Term::Tuple(tp) => {
                h.write_u8(6);
                h.write_usize(tp.arity());
                for e in tp.elements() {
                    hash_term(e, h);
                }
            }
            Term::Map(m) => {
                h.write_u8(7);
                h.write_usize(m.len());
                for (k, v) in m.iter() {
                    hash_term(k, h);
                    hash_term(v, h);
                }
            }
            Term::Binary(b) => {
                h.write_u8(8);
                let bits = b.bit_len();
                h.write_usize(bits);
                h.write(&b.bytes()[..bits / 8]);
                for i in bits / 8 * 8..bits {
                    h.write_u8(b.bit(i) as u8);
                }
            }
            Term::Fun(f) => {
                h.write_u8(9);
                match &**f {
                    Fun::Closure {
                        module,
                        index,
                        uniq,
                        env,
                        ..
                    } => {
                        module.hash(h);
                        h.write_u32(*index);
                        h.write_u32(*uniq);
                        for e in env.iter() {
                            hash_term(e, h);
                        }
                    }
                    Fun::External {
                        module,
                        function,
                        arity,
                    } => {
                        module.hash(h);
                        function.hash(h);
                        h.write_u32(*arity);
                    }
                }
            }
            Term::Pid(p) => {
                h.write_u8(10);
                h.write_u64(p.0);
            }
            Term::Ref(r) => {
                h.write_u8(11);
                h.write_u64(r.0);
            }
        }
        return;
    }
}

/// A small, fast hasher for keys (multiply-rotate, as rustc's FxHash, with
/// a final mix so that the low bits a hash table uses depend on every bit).
/// Deterministic: the same keys give the same table in every run.
#[derive(Default, Clone, Copy)]
pub struct KeyHasher(u64);

const K: u64 = 0x517c_c1b7_2722_0a95;

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.write_u64(u64::from_le_bytes(c.try_into().unwrap_or([0; 8])));
        }
        for &b in chunks.remainder() {
            self.write_u64(b as u64);
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.write_u64(i as u64);
    }
    fn write_u32(&mut self, i: u32) {
        self.write_u64(i as u64);
    }
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(K);
    }
    fn finish(&self) -> u64 {
        let x = self.0;
        (x ^ (x >> 29)).wrapping_mul(0xbf58_476d_1ce4_e5b9) ^ (x >> 32)
    }
}

pub type KeyHash = BuildHasherDefault<KeyHasher>;

/// A key in term order (`ordered_set`): `1` and `1.0` are the same key.
#[derive(Clone, Debug)]
#[repr(transparent)]
pub struct OrdKey(pub Term);

impl OrdKey {
    /// Views a term as a key without copying it.
    pub fn from_ref(t: &Term) -> &OrdKey {
        // SAFETY: `OrdKey` is a transparent wrapper of `Term`.
        unsafe { &*(t as *const Term as *const OrdKey) }
    }
}

impl PartialEq for OrdKey {
    fn eq(&self, o: &OrdKey) -> bool {
        key_cmp(&self.0, &o.0) == Ordering::Equal
    }
}

impl Eq for OrdKey {}

impl PartialOrd for OrdKey {
    fn partial_cmp(&self, o: &OrdKey) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for OrdKey {
    fn cmp(&self, o: &OrdKey) -> Ordering {
        key_cmp(&self.0, &o.0)
    }
}

/// Term order, with the shapes keys usually have (integers, atoms, tuples
/// of them) compared directly.
fn key_cmp(a: &Term, b: &Term) -> Ordering {
    match (a, b) {
        (Term::Int(x), Term::Int(y)) => x.cmp(y),
        (Term::Atom(x), Term::Atom(y)) => x.cmp_by_name(*y),
        (Term::Tuple(x), Term::Tuple(y)) => x.arity().cmp(&y.arity()).then_with(|| {
            for (p, q) in x.elements().iter().zip(y.elements()) {
                match key_cmp(p, q) {
                    Ordering::Equal => {}
                    o => return o,
                }
            }
            Ordering::Equal
        }),
        _ => compare(a, b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    fn h(t: &Term) -> u64 {
        KeyHash::default().hash_one(ExactKey::from_ref(t))
    }

    #[test]
    fn exactly_equal_terms_hash_alike() {
        assert_eq!(h(&Term::Float(0.0)), h(&Term::Float(-0.0)));
        let a = Term::tuple(vec![Term::atom("k"), Term::string("abc")]);
        let b = Term::tuple(vec![Term::atom("k"), Term::string("abc")]);
        assert_eq!(h(&a), h(&b));
        assert_ne!(h(&Term::Int(1)), h(&Term::Float(1.0)));
        assert!(ExactKey(Term::Int(1)) != ExactKey(Term::Float(1.0)));
        assert!(OrdKey(Term::Int(1)) == OrdKey(Term::Float(1.0)));
    }
}
