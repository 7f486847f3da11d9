//! `erlang:phash/2`: OTP's older portable term hash (`make_hash`), bit for
//! bit. `dict` and version-1 `sets` place their keys by it, and their
//! buckets are visible to a program that prints one, so it must agree with
//! BEAM's.
//!
//! The hash walks the term and folds each part in by multiplying by a prime
//! near 2^28 (one per kind of term) and adding the part: integers a byte at
//! a time from the least significant 32-bit word up, list elements in order
//! (bytes directly, as in a string) with one more step when the list ends,
//! tuple elements followed by the arity, binaries a byte at a time followed
//! by their size. Maps fold in their `phash2` hash. Pids and refs have the
//! same gap as [`crate::phash`].

use crate::bits::Bitstring;
use crate::fun::Fun;
use crate::phash::{atom_hash, make_hash2};
use crate::term::Term;

/// Fourteen primes just above 2^28, numbered from 1; each kind of term
/// folds its parts in with its own.
const P: [u32; 15] = [
    0,
    268_440_163,
    268_439_161,
    268_435_459,
    268_436_141,
    268_438_633,
    268_437_017,
    268_438_039,
    268_437_511,
    268_439_627,
    268_440_479,
    268_440_577,
    268_440_581,
    268_440_593,
    268_440_611,
];
const P_ATOM: u32 = P[1];
const P_BYTE: u32 = P[2];
const P_POSITIVE: u32 = P[3];
const P_NEGATIVE: u32 = P[4];
const P_LIST_END: u32 = P[8];
const P_TUPLE: u32 = P[9];

fn fold(hash: u32, prime: u32, part: u32) -> u32 {
    hash.wrapping_mul(prime).wrapping_add(part)
}

/// Folds in the four bytes of a 32-bit word, least significant first.
fn fold_word(mut hash: u32, word: u32, prime: u32) -> u32 {
    for shift in [0, 8, 16, 24] {
        hash = fold(hash, prime, (word >> shift) & 0xff);
    }
    hash
}

/// An integer's magnitude, 32-bit word by word up to its highest non-zero
/// one (zero is one word), then its sign.
fn fold_integer(mut hash: u32, words: impl Iterator<Item = u32>, negative: bool) -> u32 {
    let mut any = false;
    for w in words {
        hash = fold_word(hash, w, P_BYTE);
        any = true;
    }
    if !any {
        hash = fold_word(hash, 0, P_BYTE);
    }
    hash.wrapping_mul(if negative { P_NEGATIVE } else { P_POSITIVE })
}

fn small_words(i: i64) -> impl Iterator<Item = u32> {
    let m = i.unsigned_abs();
    let hi = (m >> 32) as u32;
    std::iter::once(m as u32)
        .filter(move |_| m != 0)
        .chain(std::iter::once(hi).filter(move |&h| h != 0))
}

fn fold_binary(mut hash: u32, b: &Bitstring) -> u32 {
    let whole = b.bit_len() / 8;
    let tail_bits = (b.bit_len() % 8) as u32;
    let bytes = b.bytes();
    for &byte in &bytes[..whole] {
        hash = fold(hash, P_ATOM, u32::from(byte));
    }
    if tail_bits > 0 {
        let last = u32::from(bytes[whole]) >> (8 - tail_bits);
        hash = fold(fold(hash, P_ATOM, last), P[12], tail_bits);
    }
    fold(hash, P[4], whole as u32)
}

enum Work<'a> {
    Term(&'a Term),
    /// The rest of a list, from this cell (or its final tail) on.
    ListFrom(&'a Term),
    /// The list is done: its closing step.
    ListEnd,
    /// The tuple's elements are done: fold in its arity.
    TupleEnd(u32),
}

/// `make_hash`: the full 32-bit hash.
pub fn make_hash(t: &Term) -> u32 {
    let mut hash: u32 = 0;
    let mut stack = vec![Work::Term(t)];
    while let Some(w) = stack.pop() {
        let t = match w {
            Work::Term(t) => t,
            Work::ListFrom(t) => {
                hash = list_from(hash, t, &mut stack);
                continue;
            }
            Work::ListEnd => {
                hash = hash.wrapping_mul(P_LIST_END);
                continue;
            }
            Work::TupleEnd(arity) => {
                hash = fold(hash, P_TUPLE, arity);
                continue;
            }
        };
        hash = match t {
            Term::Nil => fold(hash, P_POSITIVE, 1),
            Term::Atom(a) => fold(hash, P_ATOM, atom_hash(a.name())),
            Term::Int(i) => fold_integer(hash, small_words(*i), *i < 0),
            Term::Big(b) => fold_integer(
                hash,
                b.magnitude().iter_u32_digits(),
                b.sign() == num_bigint::Sign::Minus,
            ),
            Term::Float(f) => {
                // 0.0 and -0.0 are the same number and hash alike.
                let bits = if *f == 0.0 { 0 } else { f.to_bits() };
                fold(hash, P[6], (bits as u32) ^ ((bits >> 32) as u32))
            }
            Term::Cons(_) => {
                stack.push(Work::ListEnd);
                list_from(hash, t, &mut stack)
            }
            Term::Tuple(tu) => {
                let elems = tu.elements();
                stack.push(Work::TupleEnd(elems.len() as u32));
                stack.extend(elems.iter().rev().map(Work::Term));
                hash
            }
            Term::Map(_) => fold(hash, P[13], P[14]).wrapping_add(make_hash2(t)),
            Term::Binary(b) => fold_binary(hash, b),
            Term::Fun(f) => match f.as_ref() {
                Fun::Closure {
                    module,
                    index,
                    uniq,
                    env,
                    ..
                } => {
                    stack.extend(env.iter().rev().map(Work::Term));
                    let h = fold(hash, P[10], env.len() as u32);
                    let h = fold(h, P_ATOM, atom_hash(module.name()));
                    fold(fold(h, P_BYTE, *index), P_BYTE, *uniq)
                }
                Fun::External {
                    module,
                    function,
                    arity,
                } => {
                    let h = fold(hash, P[11], *arity);
                    let h = fold(h, P_ATOM, atom_hash(module.name()));
                    fold(h, P_ATOM, atom_hash(function.name()))
                }
            },
            Term::Pid(p) => fold_word(hash, p.0 as u32, P[5]).wrapping_mul(P[6]),
            Term::Ref(r) => fold_word(hash, r.counter(), P[9]).wrapping_mul(P[10]),
        };
    }
    hash
}

/// Folds in a list's leading bytes; the first other element (or the final
/// tail) is left on the stack, with the rest of the list after it.
fn list_from<'a>(mut hash: u32, mut cur: &'a Term, stack: &mut Vec<Work<'a>>) -> u32 {
    while let Term::Cons(cell) = cur {
        match cell.head {
            Term::Int(byte @ 0..=255) => {
                hash = fold(hash, P_BYTE, byte as u32);
                cur = &cell.tail;
            }
            _ => {
                stack.push(Work::ListFrom(&cell.tail));
                stack.push(Work::Term(&cell.head));
                return hash;
            }
        }
    }
    stack.push(Work::Term(cur));
    hash
}

/// `erlang:phash(T, Range)` for a range in 1..=2^32: the hash in 1..=Range;
/// `None` outside that range.
pub fn phash(t: &Term, range: u64) -> Option<u64> {
    match range {
        1..=0x1_0000_0000 => Some(u64::from(make_hash(t)) % range + 1),
        _ => None,
    }
}
