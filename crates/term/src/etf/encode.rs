//! Encoding terms to ETF. This runs for every recorded message, so it writes
//! straight into the caller's buffer and allocates nothing else.
//!
//! It recurses into tuple elements, list heads and map entries (list spines
//! are walked in a loop), so its stack use grows with the term's nesting, as
//! the engine's own term operations do.

use super::*;
use crate::atom::Atom;
use crate::bits::Bitstring;
use crate::fun::Fun;
use crate::term::{Pid, Ref, Term};
use num_bigint::{BigInt, Sign};

/// Appends the ETF encoding of `t`, starting with the version byte.
pub fn encode(t: &Term, out: &mut Vec<u8>) {
    out.push(VERSION);
    encode_term(t, out);
}

/// The ETF encoding of `t`.
pub fn to_vec(t: &Term) -> Vec<u8> {
    let mut out = Vec::with_capacity(32);
    encode(t, &mut out);
    out
}

fn u16_len(out: &mut Vec<u8>, n: usize) {
    out.extend_from_slice(&(n as u16).to_be_bytes());
}

fn u32_len(out: &mut Vec<u8>, n: usize) {
    out.extend_from_slice(&(n as u32).to_be_bytes());
}

fn encode_term(t: &Term, out: &mut Vec<u8>) {
    match t {
        Term::Int(i) => encode_int(*i, out),
        Term::Big(b) => encode_big(b, out),
        Term::Float(f) => {
            out.push(NEW_FLOAT_EXT);
            out.extend_from_slice(&f.to_bits().to_be_bytes());
        }
        Term::Atom(a) => encode_atom(*a, out),
        Term::Nil => out.push(NIL_EXT),
        Term::Cons(_) => encode_list(t, out),
        Term::Tuple(tu) => {
            let elems = tu.elements();
            if elems.len() <= 255 {
                out.push(SMALL_TUPLE_EXT);
                out.push(elems.len() as u8);
            } else {
                out.push(LARGE_TUPLE_EXT);
                u32_len(out, elems.len());
            }
            for e in elems {
                encode_term(e, out);
            }
        }
        Term::Map(m) => {
            out.push(MAP_EXT);
            u32_len(out, m.len());
            for (k, v) in m.iter() {
                encode_term(k, out);
                encode_term(v, out);
            }
        }
        Term::Binary(b) => encode_bits(b, out),
        Term::Fun(f) => encode_fun(f, out),
        Term::Pid(p) => encode_pid(*p, out),
        Term::Ref(r) => encode_ref(*r, out),
    }
}

fn encode_int(i: i64, out: &mut Vec<u8>) {
    if (0..=255).contains(&i) {
        out.push(SMALL_INTEGER_EXT);
        out.push(i as u8);
    } else if let Ok(small) = i32::try_from(i) {
        out.push(INTEGER_EXT);
        out.extend_from_slice(&small.to_be_bytes());
    } else {
        let mag = i.unsigned_abs();
        let n = 8 - (mag.leading_zeros() / 8) as usize;
        out.push(SMALL_BIG_EXT);
        out.push(n as u8);
        out.push(u8::from(i < 0));
        out.extend_from_slice(&mag.to_le_bytes()[..n]);
    }
}

fn encode_big(b: &BigInt, out: &mut Vec<u8>) {
    let mag = b.magnitude();
    let n = (mag.bits() as usize).div_ceil(8);
    if n <= 255 {
        out.push(SMALL_BIG_EXT);
        out.push(n as u8);
    } else {
        out.push(LARGE_BIG_EXT);
        u32_len(out, n);
    }
    out.push(u8::from(b.sign() == Sign::Minus));
    let mut left = n;
    for digit in mag.iter_u64_digits() {
        let take = left.min(8);
        out.extend_from_slice(&digit.to_le_bytes()[..take]);
        left -= take;
    }
}

pub(crate) fn encode_atom(a: Atom, out: &mut Vec<u8>) {
    let name = a.name().as_bytes();
    if name.len() <= 255 {
        out.push(SMALL_ATOM_UTF8_EXT);
        out.push(name.len() as u8);
    } else {
        out.push(ATOM_UTF8_EXT);
        u16_len(out, name.len());
    }
    out.extend_from_slice(name);
}

/// Erlang writes a proper list of at most 65535 bytes as `STRING_EXT`.
fn as_byte_string(t: &Term) -> Option<usize> {
    let mut n = 0usize;
    let mut it = t.list_iter();
    for e in &mut it {
        match e {
            Term::Int(0..=255) if n < 65535 => n += 1,
            _ => return None,
        }
    }
    it.is_proper().then_some(n)
}

fn encode_list(t: &Term, out: &mut Vec<u8>) {
    if let Some(n) = as_byte_string(t) {
        out.push(STRING_EXT);
        u16_len(out, n);
        out.extend(t.list_iter().map(|e| e.as_int().unwrap_or(0) as u8));
        return;
    }
    out.push(LIST_EXT);
    let len_at = out.len();
    u32_len(out, 0);
    let mut n = 0usize;
    let mut it = t.list_iter();
    for e in &mut it {
        encode_term(e, out);
        n += 1;
    }
    out[len_at..len_at + 4].copy_from_slice(&(n as u32).to_be_bytes());
    encode_term(it.rest(), out);
}

fn encode_bits(b: &Bitstring, out: &mut Vec<u8>) {
    let bytes = b.bytes();
    if b.is_binary() {
        out.push(BINARY_EXT);
        u32_len(out, bytes.len());
    } else {
        out.push(BIT_BINARY_EXT);
        u32_len(out, bytes.len());
        out.push((b.bit_len() % 8) as u8);
    }
    out.extend_from_slice(bytes);
}

fn encode_node(out: &mut Vec<u8>) {
    encode_atom(crate::atom::NONODE, out);
}

fn encode_pid(p: Pid, out: &mut Vec<u8>) {
    out.push(NEW_PID_EXT);
    encode_node(out);
    out.extend_from_slice(&(p.0 as u32).to_be_bytes());
    out.extend_from_slice(&((p.0 >> 32) as u32).to_be_bytes());
    out.extend_from_slice(&0u32.to_be_bytes());
}

fn encode_ref(r: Ref, out: &mut Vec<u8>) {
    out.push(NEWER_REFERENCE_EXT);
    u16_len(out, 3);
    encode_node(out);
    out.extend_from_slice(&0u32.to_be_bytes());
    out.extend_from_slice(&r.counter().to_be_bytes());
    out.extend_from_slice(&(r.creator() as u32).to_be_bytes());
    out.extend_from_slice(&0u32.to_be_bytes());
}

fn encode_fun(f: &Fun, out: &mut Vec<u8>) {
    match f {
        Fun::External {
            module,
            function,
            arity,
        } => {
            out.push(EXPORT_EXT);
            encode_atom(*module, out);
            encode_atom(*function, out);
            out.push(SMALL_INTEGER_EXT);
            out.push(*arity as u8);
        }
        Fun::Closure {
            module,
            index,
            uniq,
            arity,
            env,
            ..
        } => {
            out.push(NEW_FUN_EXT);
            let size_at = out.len();
            u32_len(out, 0);
            out.push(*arity as u8);
            out.extend_from_slice(&uniq.to_be_bytes());
            out.extend_from_slice(&[0u8; 12]);
            out.extend_from_slice(&index.to_be_bytes());
            u32_len(out, env.len());
            encode_atom(*module, out);
            encode_int(i64::from(*index), out);
            encode_int(i64::from(*uniq), out);
            encode_pid(Pid(0), out);
            for v in env.iter() {
                encode_term(v, out);
            }
            let size = out.len() - size_at;
            out[size_at..size_at + 4].copy_from_slice(&(size as u32).to_be_bytes());
        }
    }
}
