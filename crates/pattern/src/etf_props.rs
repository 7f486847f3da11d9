//! A property test: matching a pattern in the ETF bytes (as the checker
//! does, falling back to decoding when the bytes cannot tell) agrees with
//! decoding the whole term and matching it, on generated terms, each
//! encoded in one of the several ways ETF allows, and generated patterns.

use crate::{compile_str, Bindings, EtfMatch, Pattern};
use trace_term::etf::*;
use trace_term::order::exact_eq;
use trace_term::Term;

/// A small deterministic generator (xorshift), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A term as generated, before it is encoded.
#[derive(Clone, Debug)]
enum T {
    Atom(&'static str),
    Int(i64),
    Float(f64),
    Tuple(Vec<T>),
    List(Vec<T>),
    Bin(Vec<u8>),
    Bits(Vec<u8>, u8),
}

/// Names whose encodings collide: `Ã©` in Latin-1 is the bytes of `é` in
/// UTF-8.
const ATOMS: [&str; 6] = ["a", "ok", "ping", "é", "Ã©", "ÿ"];
const INTS: [i64; 12] = [
    0,
    1,
    7,
    255,
    256,
    -1,
    -129,
    i32::MAX as i64,
    i32::MIN as i64,
    i32::MAX as i64 + 1,
    1 << 40,
    i64::MIN,
];

fn gen(r: &mut Rng, depth: usize) -> T {
    let leaf = depth == 0 || r.below(3) == 0;
    match if leaf { r.below(5) } else { 5 + r.below(2) } {
        0 => T::Atom(ATOMS[r.below(ATOMS.len())]),
        1 => T::Int(INTS[r.below(INTS.len())]),
        2 => T::Float([1.0, 0.0, 7.0, -1.5][r.below(4)]),
        3 => T::Bin((0..r.below(3)).map(|i| i as u8 + 1).collect()),
        4 => match r.below(2) {
            0 => T::Bits(vec![0xa0], 3),
            _ => T::List(Vec::new()),
        },
        5 => {
            let n = [0, 1, 2, 3, 4][r.below(5)];
            T::Tuple((0..n).map(|_| gen(r, depth - 1)).collect())
        }
        _ => {
            let n = r.below(4);
            T::List((0..n).map(|_| gen(r, depth - 1)).collect())
        }
    }
}

/// Appends `t` in one of its encodings, picked by `r`.
fn encode(t: &T, r: &mut Rng, out: &mut Vec<u8>) {
    match t {
        T::Atom(name) => {
            let latin1: Option<Vec<u8>> = name
                .chars()
                .map(|c| u8::try_from(u32::from(c)).ok())
                .collect();
            let (bytes, small, big) = match (latin1, r.below(2)) {
                (Some(l), 0) => (l, SMALL_ATOM_EXT, ATOM_EXT),
                _ => (name.as_bytes().to_vec(), SMALL_ATOM_UTF8_EXT, ATOM_UTF8_EXT),
            };
            if r.below(2) == 0 {
                out.extend([small, bytes.len() as u8]);
            } else {
                out.push(big);
                out.extend((bytes.len() as u16).to_be_bytes());
            }
            out.extend(bytes);
        }
        T::Int(i) => match (i32::try_from(*i), r.below(3)) {
            (Ok(_), 0) if (0..256).contains(i) => out.extend([SMALL_INTEGER_EXT, *i as u8]),
            (Ok(v), 0 | 1) => {
                out.push(INTEGER_EXT);
                out.extend(v.to_be_bytes());
            }
            _ => {
                let mag = i.unsigned_abs().to_le_bytes();
                let n = mag.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1);
                out.extend([SMALL_BIG_EXT, n as u8, u8::from(*i < 0)]);
                out.extend(&mag[..n]);
            }
        },
        T::Float(f) => {
            out.push(NEW_FLOAT_EXT);
            out.extend(f.to_bits().to_be_bytes());
        }
        T::Tuple(es) => {
            if r.below(2) == 0 {
                out.extend([SMALL_TUPLE_EXT, es.len() as u8]);
            } else {
                out.push(LARGE_TUPLE_EXT);
                out.extend((es.len() as u32).to_be_bytes());
            }
            es.iter().for_each(|e| encode(e, r, out));
        }
        T::List(es) => {
            let bytes: Option<Vec<u8>> = es
                .iter()
                .map(|e| match e {
                    T::Int(i) => u8::try_from(*i).ok(),
                    _ => None,
                })
                .collect();
            match (bytes, r.below(3)) {
                (Some(s), 0) => {
                    out.push(STRING_EXT);
                    out.extend((s.len() as u16).to_be_bytes());
                    out.extend(s);
                }
                _ if es.is_empty() && r.below(2) == 0 => out.push(NIL_EXT),
                _ => {
                    out.push(LIST_EXT);
                    out.extend((es.len() as u32).to_be_bytes());
                    es.iter().for_each(|e| encode(e, r, out));
                    out.push(NIL_EXT);
                }
            }
        }
        T::Bin(b) => {
            out.push(BINARY_EXT);
            out.extend((b.len() as u32).to_be_bytes());
            out.extend(b);
        }
        T::Bits(b, bits) => {
            out.push(BIT_BINARY_EXT);
            out.extend((b.len() as u32).to_be_bytes());
            out.push(*bits);
            out.extend(b);
        }
    }
}

/// Pattern text for `t`, with parts replaced by variables, `_` or other
/// literals as `r` picks; `vars` counts the variables named so far.
fn pattern(t: &T, r: &mut Rng, vars: &mut usize, out: &mut String) {
    match r.below(10) {
        0 | 1 => {
            *vars += 1;
            out.push_str(&format!("V{vars}"));
            return;
        }
        // A variable named before: repeated.
        2 if *vars > 0 => return out.push_str(&format!("V{}", 1 + r.below(*vars))),
        3 => return out.push('_'),
        4 => return literal(&gen(r, 1), out),
        _ => {}
    }
    match t {
        T::Tuple(es) => {
            out.push('{');
            for (k, e) in es.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                pattern(e, r, vars, out);
            }
            out.push('}');
        }
        T::List(es) => {
            out.push('[');
            for (k, e) in es.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                pattern(e, r, vars, out);
            }
            out.push(']');
        }
        // Binary patterns are not taken.
        T::Bin(_) | T::Bits(..) => out.push('_'),
        // Another atom, often one whose bytes collide with this one's.
        T::Atom(_) if r.below(3) == 0 => literal(&T::Atom(ATOMS[r.below(ATOMS.len())]), out),
        _ => literal(t, out),
    }
}

fn literal(t: &T, out: &mut String) {
    match t {
        T::Atom(a) => out.push_str(&format!("'{a}'")),
        T::Int(i) => out.push_str(&i.to_string()),
        T::Float(f) => out.push_str(&format!("{f:?}")),
        T::Tuple(es) | T::List(es) => {
            let (open, close) = if matches!(t, T::Tuple(_)) {
                ('{', '}')
            } else {
                ('[', ']')
            };
            out.push(open);
            for (k, e) in es.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                literal(e, out);
            }
            out.push(close);
        }
        T::Bin(_) | T::Bits(..) => out.push('_'),
    }
}

/// What the checker's matcher does: the bytes first, decoding when they
/// cannot tell.
fn by_bytes(p: &Pattern, etf: &[u8], b: Bindings) -> Option<Bindings> {
    match p.match_etf_with(etf, b) {
        EtfMatch::No => None,
        EtfMatch::Yes(b) => Some(b),
        EtfMatch::Unknown(b) => p.matches_with(&decode(etf).ok()?, b),
    }
}

fn by_decoding(p: &Pattern, etf: &[u8], b: Bindings) -> Option<Bindings> {
    p.matches_with(&decode(etf).ok()?, b)
}

fn same(a: &Option<Bindings>, b: &Option<Bindings>, n: usize) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(x), Some(y)) => (0..n).all(|i| match (x.get(i), y.get(i)) {
            (None, None) => true,
            (Some(s), Some(t)) => exact_eq(s, t),
            _ => false,
        }),
        _ => false,
    }
}

/// Bindings given beforehand: some of the values a match binds (or an
/// integer where it bound a float), as a property's earlier events bind.
fn prebound(p: &Pattern, etf: &[u8], r: &mut Rng) -> Bindings {
    let n = p.variables().len();
    let mut b = Bindings::new(n);
    let Some(full) = by_decoding(p, etf, Bindings::new(n)) else {
        if n > 0 && r.below(2) == 0 {
            b.set(r.below(n), Term::Int(1));
        }
        return b;
    };
    for i in 0..n {
        match (full.get(i), r.below(4)) {
            (Some(v), 0) => b.set(i, v.clone()),
            (Some(Term::Float(f)), 1) => b.set(i, Term::Int(*f as i64)),
            (Some(_), 2) => b.set(i, Term::atom("ok")),
            _ => {}
        }
    }
    b
}

#[test]
fn matching_in_the_bytes_agrees_with_decoding_on_generated_terms() {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    let mut decided = 0;
    for _ in 0..20_000 {
        let t = gen(&mut r, 3);
        let mut etf = vec![VERSION];
        encode(&t, &mut r, &mut etf);
        // The pattern is made from this term or from another.
        let source = if r.below(4) == 0 {
            gen(&mut r, 3)
        } else {
            t.clone()
        };
        let mut text = String::new();
        pattern(&source, &mut r, &mut 0, &mut text);
        let p = compile_str(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let n = p.variables().len();
        let b = prebound(&p, &etf, &mut r);
        let want = by_decoding(&p, &etf, b.clone());
        let got = by_bytes(&p, &etf, b.clone());
        assert!(
            same(&got, &want, n),
            "{text} on {t:?} as {etf:?} given {b:?}: bytes {got:?}, decoding {want:?}"
        );
        decided += usize::from(matches!(p.match_etf_with(&etf, b), EtfMatch::Yes(_)));
    }
    assert!(decided > 1000, "the bytes decided only {decided} matches");
}

#[test]
fn a_latin1_atom_is_not_the_utf8_atom_of_the_same_bytes() {
    // 'Ã©' in Latin-1 is the bytes C3 A9, which spell 'é' in UTF-8.
    let etf = [
        VERSION,
        SMALL_TUPLE_EXT,
        2,
        SMALL_ATOM_EXT,
        2,
        0xc3,
        0xa9,
        SMALL_INTEGER_EXT,
        1,
    ];
    let term = decode(&etf).unwrap();
    for text in ["{'é', X}", "{'é', 1}", "{'é', _}"] {
        let p = compile_str(text).unwrap();
        let n = p.variables().len();
        assert!(p.matches(&term).is_none(), "{text}");
        assert!(by_bytes(&p, &etf, Bindings::new(n)).is_none(), "{text}");
        assert!(p.may_match_etf(&etf) || p.matches(&term).is_none());
        assert_ne!(p.test_etf(&etf), crate::EtfTest::Yes, "{text}");
    }
}

#[test]
fn bytes_the_decoder_refuses_give_the_bindings_back_as_they_came() {
    // {1, 'x\xff'}: the atom's name is not UTF-8; skipping it is no check.
    let etf = [
        VERSION,
        SMALL_TUPLE_EXT,
        2,
        SMALL_INTEGER_EXT,
        1,
        SMALL_ATOM_UTF8_EXT,
        2,
        b'x',
        0xff,
    ];
    assert!(decode(&etf).is_err());
    let p = compile_str("{X, Y}").unwrap();
    match p.match_etf_with(&etf, Bindings::new(2)) {
        EtfMatch::Unknown(b) => assert!(b.get(0).is_none() && b.get(1).is_none(), "{b:?}"),
        _ => panic!("the bytes decided a term that does not decode"),
    }
}
