//! Join keys: the values of the variables two predicates share, hashed as
//! `=:=` compares them, so the matches that may agree with a binding are
//! found without trying the others.

use std::hash::{Hash, Hasher};
use trace_term::Term;

/// One or two values (the usual case: a pid, a reference) without allocating.
#[derive(Clone, Debug)]
pub enum Key {
    Zero,
    One(Term),
    Two(Term, Term),
    Many(Vec<Term>),
}

impl Key {
    /// The key of `vals` taken at `at`.
    pub fn pick(vals: &[Term], at: &[usize]) -> Key {
        match at {
            [] => Key::Zero,
            [a] => Key::One(vals[*a].clone()),
            [a, b] => Key::Two(vals[*a].clone(), vals[*b].clone()),
            _ => Key::Many(at.iter().map(|&i| vals[i].clone()).collect()),
        }
    }

    /// The key of variables `vars` in `env`, if all are bound.
    pub fn of_env(env: &[Option<Term>], vars: &[usize]) -> Option<Key> {
        Some(match vars {
            [] => Key::Zero,
            [a] => Key::One(env[*a].clone()?),
            [a, b] => Key::Two(env[*a].clone()?, env[*b].clone()?),
            _ => Key::Many(
                vars.iter()
                    .map(|&v| env[v].clone())
                    .collect::<Option<Vec<_>>>()?,
            ),
        })
    }

    fn each(&self, mut f: impl FnMut(&Term)) {
        match self {
            Key::Zero => {}
            Key::One(a) => f(a),
            Key::Two(a, b) => {
                f(a);
                f(b);
            }
            Key::Many(v) => v.iter().for_each(f),
        }
    }
}

fn hash_term<H: Hasher>(t: &Term, h: &mut H) {
    match t {
        Term::Pid(p) => h.write_u64(p.0),
        Term::Int(i) => h.write_u64(*i as u64 ^ 0x9e37_79b9_7f4a_7c15),
        Term::Atom(a) => a.hash(h),
        other => h.write_u32(trace_term::phash::phash2(other)),
    }
}

impl Hash for Key {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.each(|t| hash_term(t, h));
    }
}

/// `=:=`, with the usual keys (pids, integers, atoms) compared directly.
fn eq(a: &Term, b: &Term) -> bool {
    match (a, b) {
        (Term::Pid(x), Term::Pid(y)) => x == y,
        (Term::Int(x), Term::Int(y)) => x == y,
        (Term::Atom(x), Term::Atom(y)) => x == y,
        _ => trace_term::order::exact_eq(a, b),
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Key) -> bool {
        match (self, other) {
            (Key::Zero, Key::Zero) => true,
            (Key::One(a), Key::One(b)) => eq(a, b),
            (Key::Two(a, b), Key::Two(c, d)) => eq(a, c) && eq(b, d),
            (Key::Many(x), Key::Many(y)) => {
                x.len() == y.len() && x.iter().zip(y).all(|(a, b)| eq(a, b))
            }
            _ => false,
        }
    }
}

impl Eq for Key {}

/// A small multiplicative hasher: keys are pids and small terms, hashed by
/// the process checking them, with no need to resist chosen collisions.
#[derive(Default)]
pub struct FxHasher(u64);

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.write_u64(n as u64);
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

pub type FxBuild = std::hash::BuildHasherDefault<FxHasher>;
pub type FxMap<K, V> = std::collections::HashMap<K, V, FxBuild>;
