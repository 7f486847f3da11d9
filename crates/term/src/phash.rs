//! `erlang:phash2/1,2`: OTP's portable term hash (`make_hash2`), bit for bit,
//! so that programs that spread work with `phash2(T) rem N` behave as on BEAM.
//!
//! It is Bob Jenkins' lookup2 mixing over a walk of the term: each kind of
//! term mixes its parts with its own constant, strings four bytes at a time,
//! binaries as blocks of twelve bytes, and maps as the xor of their pairs'
//! hashes so that the order of the pairs does not matter. Atoms hash by
//! their name (the atom table's hash, `hashpjw`).
//!
//! Known gap: BEAM hashes a pid by its internal number; ours are mapped as
//! `<0.N.0>` with `N` in that place, which matches BEAM for pids whose serial
//! is 0.

use crate::bits::Bitstring;
use crate::fun::Fun;
use crate::term::Term;

const HCONST: u32 = 0x9e37_79b9;
const HCONST_2: u32 = 0x3c6e_f372;
const HCONST_3: u32 = 0xdaa6_6d2b;
const HCONST_4: u32 = 0x78dd_e6e4;
const HCONST_5: u32 = 0x1715_609d;
const HCONST_7: u32 = 0x5384_540f;
const HCONST_9: u32 = 0x8ff3_4781;
const HCONST_10: u32 = 0x2e2a_c13a;
const HCONST_11: u32 = 0xcc62_3af3;
const HCONST_12: u32 = 0x6a99_b4ac;
const HCONST_13: u32 = 0x08d1_2e65;
const HCONST_14: u32 = 0xa708_a81e;
const HCONST_15: u32 = 0x4540_21d7;
const HCONST_16: u32 = 0xe377_9b90;
const HCONST_19: u32 = 0xbe1e_08bb;

/// The hash of `[]` when it is the whole term (OTP's precomputed value).
const NIL_ALONE: u32 = 3_468_870_702;
/// What `[]` mixes in inside a larger term (BEAM's `NIL_DEF` type code).
const NIL_WORD: u32 = 2;

fn mix(a: &mut u32, b: &mut u32, c: &mut u32) {
    macro_rules! step {
        ($x:ident, $y:ident, $z:ident, $op:tt, $s:expr) => {
            *$x = $x.wrapping_sub(*$y).wrapping_sub(*$z);
            *$x ^= *$z $op $s;
        };
    }
    step!(a, b, c, >>, 13);
    step!(b, c, a, <<, 8);
    step!(c, a, b, >>, 13);
    step!(a, b, c, >>, 12);
    step!(b, c, a, <<, 16);
    step!(c, a, b, >>, 5);
    step!(a, b, c, >>, 3);
    step!(b, c, a, <<, 10);
    step!(c, a, b, >>, 15);
}

fn hash2(hash: &mut u32, x: u32, y: u32, k: u32) {
    let (mut a, mut b) = (k.wrapping_add(x), k.wrapping_add(y));
    mix(&mut a, &mut b, hash);
}

fn hash1(hash: &mut u32, x: u32, k: u32) {
    hash2(hash, x, 0, k)
}

/// The atom table's hash of a name: hashpjw over its bytes, where a UTF-8
/// encoded latin1 character counts as one byte (as atoms hashed before OTP 20).
pub(crate) fn atom_hash(name: &str) -> u32 {
    let b = name.as_bytes();
    let mut h: u32 = 0;
    let mut i = 0;
    while i < b.len() {
        let mut v = b[i];
        i += 1;
        if i < b.len() && (v & 0xFE) == 0xC2 && (b[i] & 0xC0) == 0x80 {
            v = (v << 6) | (b[i] & 0x3F);
            i += 1;
        }
        h = (h << 4).wrapping_add(u32::from(v));
        let g = h & 0xf000_0000;
        if g != 0 {
            h ^= g >> 24;
            h ^= g;
        }
    }
    h
}

/// Little-endian 32-bit word of `k[i..i + 4]`.
fn word(k: &[u8]) -> u32 {
    u32::from_le_bytes([k[0], k[1], k[2], k[3]])
}

/// lookup2's `hash()` over a byte block, as `block_hash` runs it.
fn block_hash(k: &[u8], initval: u32) -> u32 {
    let (mut a, mut b, mut c) = (HCONST, HCONST, initval);
    let mut chunks = k.chunks_exact(12);
    for ch in &mut chunks {
        a = a.wrapping_add(word(&ch[0..4]));
        b = b.wrapping_add(word(&ch[4..8]));
        c = c.wrapping_add(word(&ch[8..12]));
        mix(&mut a, &mut b, &mut c);
    }
    let rest = chunks.remainder();
    c = c.wrapping_add(k.len() as u32);
    // The first byte of c is reserved for the length.
    for (i, &byte) in rest.iter().enumerate() {
        let v = u32::from(byte);
        match i {
            0..=3 => a = a.wrapping_add(v << (8 * i)),
            4..=7 => b = b.wrapping_add(v << (8 * (i - 4))),
            _ => c = c.wrapping_add(v << (8 * (i - 7))),
        }
    }
    mix(&mut a, &mut b, &mut c);
    c
}

fn hash_small(hash: &mut u32, i: i64) {
    if (-(1 << 27)..(1 << 27)).contains(&i) {
        let y = i as i32;
        if y < 0 {
            // Negative numbers are mixed twice, as in OTP.
            hash1(hash, y.wrapping_neg() as u32, HCONST);
        }
        hash1(hash, y as u32, HCONST);
    } else {
        let (con, t) = if i < 0 {
            (HCONST_10, i.unsigned_abs())
        } else {
            (HCONST_11, i as u64)
        };
        hash2(hash, t as u32, (t >> 32) as u32, con);
    }
}

fn hash_binary(hash: &mut u32, b: &Bitstring) {
    let con = HCONST_13.wrapping_add(*hash);
    let whole = b.bit_len() / 8;
    let tail_bits = (b.bit_len() % 8) as u32;
    if b.bit_len() == 0 {
        *hash = con;
        return;
    }
    let bytes = b.bytes();
    *hash = block_hash(&bytes[..whole], con);
    if tail_bits > 0 {
        let last = u32::from(bytes[whole]) >> (8 - tail_bits);
        hash2(hash, tail_bits, last, HCONST_15);
    }
}

enum Work<'a> {
    Term(&'a Term),
    /// The rest of a list whose head was not a byte.
    ListFrom(&'a Term),
    /// A map pair is done: fold its hash into the pairs' xor.
    PairDone,
    /// All of a map's pairs are done: restore the outer state and mix the xor in.
    MapDone {
        outer_hash: u32,
        outer_xor: u32,
    },
}

/// `make_hash2`: the full 32-bit hash.
pub fn make_hash2(t: &Term) -> u32 {
    let mut hash: u32 = 0;
    let mut xor_pairs: u32 = 0;
    match t {
        Term::Atom(a) => return atom_hash(a.name()),
        Term::Int(i) => {
            hash_small(&mut hash, *i);
            return hash;
        }
        _ => {}
    }
    let mut stack = vec![Work::Term(t)];
    while let Some(w) = stack.pop() {
        let t = match w {
            Work::Term(t) => t,
            Work::ListFrom(t) => t,
            Work::PairDone => {
                xor_pairs ^= hash;
                hash = 0;
                continue;
            }
            Work::MapDone {
                outer_hash,
                outer_xor,
            } => {
                hash = outer_hash;
                hash1(&mut hash, xor_pairs, HCONST_19);
                xor_pairs = outer_xor;
                continue;
            }
        };
        match t {
            Term::Int(i) => hash_small(&mut hash, *i),
            Term::Big(b) => {
                let con = if b.sign() == num_bigint::Sign::Minus {
                    HCONST_10
                } else {
                    HCONST_11
                };
                for d in b.magnitude().iter_u64_digits() {
                    hash2(&mut hash, d as u32, (d >> 32) as u32, con);
                }
            }
            Term::Float(f) => {
                let bits = if *f == 0.0 { 0 } else { f.to_bits() };
                hash2(&mut hash, (bits >> 32) as u32, bits as u32, HCONST_12);
            }
            Term::Atom(a) => {
                let h = atom_hash(a.name());
                if hash == 0 {
                    hash = h;
                } else {
                    hash1(&mut hash, h, HCONST_3);
                }
            }
            Term::Nil => {
                if hash == 0 {
                    hash = NIL_ALONE;
                } else {
                    hash1(&mut hash, NIL_WORD, HCONST_2);
                }
            }
            Term::Cons(_) => {
                // Leading bytes go in four at a time; a non-byte head is hashed
                // as a term of its own, then the rest of the list.
                let (mut c, mut sh) = (0u32, 0u32);
                let mut cur = t;
                while let Term::Cons(cell) = cur {
                    match cell.head {
                        Term::Int(byte @ 0..=255) => {
                            sh = (sh << 8).wrapping_add(byte as u32);
                            if c == 3 {
                                hash1(&mut hash, sh, HCONST_4);
                                c = 0;
                                sh = 0;
                            } else {
                                c += 1;
                            }
                            cur = &cell.tail;
                        }
                        _ => break,
                    }
                }
                if c > 0 {
                    hash1(&mut hash, sh, HCONST_4);
                }
                match cur {
                    Term::Cons(cell) => {
                        stack.push(Work::ListFrom(&cell.tail));
                        stack.push(Work::Term(&cell.head));
                    }
                    tail => stack.push(Work::Term(tail)),
                }
            }
            Term::Tuple(tu) => {
                let elems = tu.elements();
                hash1(&mut hash, elems.len() as u32, HCONST_9);
                stack.extend(elems.iter().rev().map(Work::Term));
            }
            Term::Map(m) => {
                hash1(&mut hash, m.len() as u32, HCONST_16);
                if m.is_empty() {
                    continue;
                }
                stack.push(Work::MapDone {
                    outer_hash: hash,
                    outer_xor: xor_pairs,
                });
                hash = 0;
                xor_pairs = 0;
                for (k, v) in m.iter().rev() {
                    stack.push(Work::PairDone);
                    stack.push(Work::Term(v));
                    stack.push(Work::Term(k));
                }
            }
            Term::Binary(b) => hash_binary(&mut hash, b),
            Term::Fun(f) => match f.as_ref() {
                Fun::Closure {
                    module,
                    index,
                    uniq,
                    env,
                    ..
                } => {
                    hash2(
                        &mut hash,
                        env.len() as u32,
                        atom_hash(module.name()),
                        HCONST,
                    );
                    hash2(&mut hash, *index, *uniq, HCONST);
                    stack.extend(env.iter().rev().map(Work::Term));
                }
                Fun::External {
                    module,
                    function,
                    arity,
                } => {
                    hash2(&mut hash, *arity, atom_hash(module.name()), HCONST);
                    hash1(&mut hash, atom_hash(function.name()), HCONST_14);
                }
            },
            Term::Pid(p) => hash1(&mut hash, p.0 as u32, HCONST_5),
            Term::Ref(r) => hash1(&mut hash, r.counter(), HCONST_7),
        }
    }
    hash
}

/// `erlang:phash2(T)`: the hash in 0..2^27.
pub fn phash2(t: &Term) -> u32 {
    make_hash2(t) & ((1 << 27) - 1)
}

/// `erlang:phash2(T, Range)` for a range in 1..=2^32; `None` outside it.
pub fn phash2_range(t: &Term, range: u64) -> Option<u32> {
    match range {
        1..=0xFFFF_FFFF => Some((u64::from(make_hash2(t)) % range) as u32),
        0x1_0000_0000 => Some(make_hash2(t)),
        _ => None,
    }
}
