//! Encoding terms to ETF. This runs for every recorded message, so it writes
//! straight into the caller's buffer and allocates nothing else.
//!
//! It recurses into tuple elements, list heads and map entries (list spines
//! are walked in a loop); past [`RECURSION_LIMIT`] levels of nesting it goes
//! on with an explicit stack, so no term can exhaust the thread's stack.

use super::*;
use crate::atom::Atom;
use crate::bits::Bitstring;
use crate::fun::Fun;
use crate::term::{Pid, Ref, Term};
use num_bigint::{BigInt, Sign};

/// How atoms and floats are written: `term_to_binary`'s `{minor_version, N}`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Style {
    /// Atoms whose characters are all below 256 as `ATOM_EXT` in latin1
    /// (minor versions 0 and 1; version 2 writes every atom in UTF-8).
    pub latin1_atoms: bool,
    /// Floats as 31 bytes of `%.20e` text, `FLOAT_EXT` (minor version 0).
    pub float_text: bool,
}

impl Style {
    /// `{minor_version, 2}`: what the log stores.
    pub const V2: Style = Style {
        latin1_atoms: false,
        float_text: false,
    };
    /// `{minor_version, 1}`: OTP 25's `term_to_binary/1`.
    pub const V1: Style = Style {
        latin1_atoms: true,
        float_text: false,
    };
    /// `{minor_version, 0}`.
    pub const V0: Style = Style {
        latin1_atoms: true,
        float_text: true,
    };
}

/// Appends the ETF encoding of `t` (minor version 2), starting with the version byte.
pub fn encode(t: &Term, out: &mut Vec<u8>) {
    encode_with(t, out, Style::V2);
}

/// Appends the ETF encoding of `t` in the given style.
pub fn encode_with(t: &Term, out: &mut Vec<u8>, st: Style) {
    if st == Style::V2 && super::flat::encode(t, out) {
        return;
    }
    encode_general(t, out, st);
}

/// [`encode_with`] without the flat path: every term, part by part.
pub(super) fn encode_general(t: &Term, out: &mut Vec<u8>, st: Style) {
    // Most recorded messages are small: one growth up front instead of one
    // capacity check after another.
    out.reserve(64);
    out.push(VERSION);
    encode_term(t, out, 0, st);
}

/// Nesting encoded by recursion; deeper parts use [`encode_deep`].
const RECURSION_LIMIT: usize = 256;

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

/// One term. Most message parts are scalars (atoms, small integers, pids,
/// references): they are written inline, without the call into the large
/// frame of the compound case.
#[inline(always)]
fn encode_term(t: &Term, out: &mut Vec<u8>, depth: usize, st: Style) {
    if !encode_scalar(t, out, st) {
        encode_compound(t, out, depth, st);
    }
}

/// Writes `t` if it is a scalar (no nested terms); returns whether it was.
#[inline(always)]
fn encode_scalar(t: &Term, out: &mut Vec<u8>, st: Style) -> bool {
    match t {
        Term::Int(i) => encode_int(*i, out),
        Term::Atom(a) => encode_atom(*a, out, st),
        Term::Nil => out.push(NIL_EXT),
        Term::Pid(p) => encode_pid(*p, out, st),
        Term::Ref(r) => encode_ref(*r, out, st),
        _ => return false,
    }
    true
}

#[inline(never)]
fn encode_compound(t: &Term, out: &mut Vec<u8>, depth: usize, st: Style) {
    if depth > RECURSION_LIMIT
        && matches!(
            t,
            Term::Cons(_) | Term::Tuple(_) | Term::Map(_) | Term::Fun(_)
        )
    {
        return encode_deep(t, out, st);
    }
    let depth = depth + 1;
    match t {
        Term::Big(b) => encode_big(b, out),
        Term::Float(f) if st.float_text => {
            out.push(FLOAT_EXT);
            let text = format!("{:.20e}", f);
            // C's "%.20e" writes a signed exponent of at least two digits.
            let (mant, exp) = text.split_once('e').unwrap_or((&text, "0"));
            let exp: i32 = exp.parse().unwrap_or(0);
            let text = format!("{mant}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs());
            let mut field = [0u8; 31];
            let n = text.len().min(31);
            field[..n].copy_from_slice(&text.as_bytes()[..n]);
            out.extend_from_slice(&field);
        }
        Term::Float(f) => {
            out.push(NEW_FLOAT_EXT);
            out.extend_from_slice(&f.to_bits().to_be_bytes());
        }
        Term::Cons(_) => {
            if !encode_byte_string(t, out) {
                let tail = list_header(t, out);
                for e in t.list_iter() {
                    encode_term(e, out, depth, st);
                }
                encode_term(tail, out, depth, st);
            }
        }
        Term::Tuple(tu) => {
            tuple_header(tu.elements().len(), out);
            for e in tu.elements() {
                encode_term(e, out, depth, st);
            }
        }
        Term::Map(m) => {
            out.push(MAP_EXT);
            u32_len(out, m.len());
            for (k, v) in m.iter() {
                encode_term(k, out, depth, st);
                encode_term(v, out, depth, st);
            }
        }
        Term::Binary(b) => encode_bits(b, out),
        Term::Fun(f) => {
            if let Some(size_at) = fun_header(f, out, st) {
                if let Fun::Closure { env, .. } = f.as_ref() {
                    for v in env.iter() {
                        encode_term(v, out, depth, st);
                    }
                }
                patch_fun_size(size_at, out);
            }
        }
        // Written by `encode_scalar`.
        Term::Int(_) | Term::Atom(_) | Term::Nil | Term::Pid(_) | Term::Ref(_) => {
            encode_scalar(t, out, st);
        }
    }
}

#[inline(always)]
fn encode_int(i: i64, out: &mut Vec<u8>) {
    match u8::try_from(i) {
        Ok(b) => out.extend_from_slice(&[SMALL_INTEGER_EXT, b]),
        Err(_) => encode_wide_int(i, out),
    }
}

fn encode_wide_int(i: i64, out: &mut Vec<u8>) {
    if let Ok(small) = i32::try_from(i) {
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

#[inline(always)]
pub(crate) fn encode_atom(a: Atom, out: &mut Vec<u8>, st: Style) {
    if st.latin1_atoms {
        return encode_atom_latin1(a, out);
    }
    // The atom table keeps the UTF-8 encoding ready.
    out.extend_from_slice(a.etf());
}

fn encode_atom_latin1(a: Atom, out: &mut Vec<u8>) {
    if !a.name().chars().all(|c| (c as u32) < 256) {
        return out.extend_from_slice(a.etf());
    }
    out.push(ATOM_EXT);
    u16_len(out, a.name().chars().count());
    out.extend(a.name().chars().map(|c| c as u32 as u8));
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

fn encode_byte_string(t: &Term, out: &mut Vec<u8>) -> bool {
    let Some(n) = as_byte_string(t) else {
        return false;
    };
    out.push(STRING_EXT);
    u16_len(out, n);
    out.extend(t.list_iter().map(|e| e.as_int().unwrap_or(0) as u8));
    true
}

/// Writes `LIST_EXT` and the element count; returns the list's tail.
fn list_header<'a>(t: &'a Term, out: &mut Vec<u8>) -> &'a Term {
    let mut it = t.list_iter();
    let n = (&mut it).count();
    out.push(LIST_EXT);
    u32_len(out, n);
    it.rest()
}

fn tuple_header(n: usize, out: &mut Vec<u8>) {
    if n <= 255 {
        out.push(SMALL_TUPLE_EXT);
        out.push(n as u8);
    } else {
        out.push(LARGE_TUPLE_EXT);
        u32_len(out, n);
    }
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

/// `'nonode@nohost'` as minor version 2 writes it: every pid and reference
/// of a log carries it, so it is written as one constant.
const NONODE_UTF8: &[u8; 15] = b"\x77\x0dnonode@nohost";

/// A pid or reference in latin1 atoms (minor version 1): `head`, the
/// node, `tail`.
fn encode_with_latin1_node(head: &[u8], tail: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(head);
    encode_atom_latin1(crate::atom::NONODE, out);
    out.extend_from_slice(tail);
}

/// `NEW_PID_EXT` as minor version 2 (the log's) writes it: the node, ID
/// and serial, creation 0, as one array of known size, so the write is a
/// few moves and one capacity check.
#[inline(always)]
pub(super) fn pid_utf8(p: Pid) -> [u8; 28] {
    let mut b = [0u8; 28];
    put_pid_utf8(p, &mut b);
    b
}

/// [`pid_utf8`] into `b`, which must be zeroed: the creation is left as
/// it is (the flat path writes into its zeroed buffer, without a copy).
#[inline(always)]
pub(super) fn put_pid_utf8(p: Pid, b: &mut [u8; 28]) {
    b[0] = NEW_PID_EXT;
    b[1..16].copy_from_slice(NONODE_UTF8);
    b[16..20].copy_from_slice(&(p.0 as u32).to_be_bytes());
    b[20..24].copy_from_slice(&((p.0 >> 32) as u32).to_be_bytes());
}

/// `NEWER_REFERENCE_EXT` as minor version 2 writes it: three ids, the
/// node, creation 0, the ids counter, creator, 0.
#[inline(always)]
pub(super) fn ref_utf8(r: Ref) -> [u8; 34] {
    let mut b = [0u8; 34];
    put_ref_utf8(r, &mut b);
    b
}

/// [`ref_utf8`] into `b`, which must be zeroed: the creation and the
/// third id are left as they are.
#[inline(always)]
pub(super) fn put_ref_utf8(r: Ref, b: &mut [u8; 34]) {
    b[..3].copy_from_slice(&[NEWER_REFERENCE_EXT, 0, 3]);
    b[3..18].copy_from_slice(NONODE_UTF8);
    b[22..26].copy_from_slice(&r.counter().to_be_bytes());
    b[26..30].copy_from_slice(&(r.creator() as u32).to_be_bytes());
}

#[inline(always)]
fn encode_pid(p: Pid, out: &mut Vec<u8>, st: Style) {
    if st.latin1_atoms {
        let b = pid_utf8(p);
        return encode_with_latin1_node(&b[..1], &b[16..], out);
    }
    out.extend_from_slice(&pid_utf8(p));
}

#[inline(always)]
fn encode_ref(r: Ref, out: &mut Vec<u8>, st: Style) {
    if st.latin1_atoms {
        let b = ref_utf8(r);
        return encode_with_latin1_node(&b[..3], &b[18..], out);
    }
    out.extend_from_slice(&ref_utf8(r));
}

/// Writes an external fun whole, or a closure up to its free variables;
/// for a closure, returns where its size field is, to patch once they follow.
fn fun_header(f: &Fun, out: &mut Vec<u8>, st: Style) -> Option<usize> {
    match f {
        Fun::External {
            module,
            function,
            arity,
        } => {
            out.push(EXPORT_EXT);
            encode_atom(*module, out, st);
            encode_atom(*function, out, st);
            out.push(SMALL_INTEGER_EXT);
            out.push(*arity as u8);
            None
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
            encode_atom(*module, out, st);
            encode_int(i64::from(*index), out);
            encode_int(i64::from(*uniq), out);
            encode_pid(Pid(0), out, st);
            Some(size_at)
        }
    }
}

fn patch_fun_size(size_at: usize, out: &mut [u8]) {
    let size = (out.len() - size_at) as u32;
    out[size_at..size_at + 4].copy_from_slice(&size.to_be_bytes());
}

enum Job<'a> {
    Term(&'a Term),
    FunSize(usize),
}

/// The same encoding with an explicit stack, for very deeply nested terms.
fn encode_deep(t: &Term, out: &mut Vec<u8>, st: Style) {
    let mut jobs = vec![Job::Term(t)];
    while let Some(job) = jobs.pop() {
        let t = match job {
            Job::FunSize(at) => {
                patch_fun_size(at, out);
                continue;
            }
            Job::Term(t) => t,
        };
        match t {
            Term::Cons(_) => {
                if !encode_byte_string(t, out) {
                    let tail = list_header(t, out);
                    jobs.push(Job::Term(tail));
                    let elems: Vec<&Term> = t.list_iter().collect();
                    jobs.extend(elems.into_iter().rev().map(Job::Term));
                }
            }
            Term::Tuple(tu) => {
                tuple_header(tu.elements().len(), out);
                jobs.extend(tu.elements().iter().rev().map(Job::Term));
            }
            Term::Map(m) => {
                out.push(MAP_EXT);
                u32_len(out, m.len());
                for (k, v) in m.iter().rev() {
                    jobs.push(Job::Term(v));
                    jobs.push(Job::Term(k));
                }
            }
            Term::Fun(f) => {
                if let Some(at) = fun_header(f, out, st) {
                    jobs.push(Job::FunSize(at));
                    if let Fun::Closure { env, .. } = f.as_ref() {
                        jobs.extend(env.iter().rev().map(Job::Term));
                    }
                }
            }
            // Scalars do not recurse.
            _ => encode_compound(t, out, 0, st),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn very_deep_terms_encode_without_recursing() {
        let mut t = Term::Nil;
        for i in 0..100_000 {
            t = match i % 3 {
                0 => Term::tuple(vec![Term::Int(i), t]),
                1 => Term::list(vec![t, Term::atom("x")]),
                _ => Term::Map(triomphe::Arc::new(crate::map::MapRepr::from_pairs([(
                    Term::Int(i),
                    t,
                )]))),
            };
        }
        let bytes = to_vec(&t);
        // Decoding refuses such nesting, with an error rather than a crash.
        let e = crate::etf::decode(&bytes).unwrap_err();
        assert!(e.message.contains("nested deeper"), "{e}");
        // Unwind the nesting iteratively so dropping it does not recurse either.
        let mut stack = vec![t];
        while let Some(t) = stack.pop() {
            match t {
                Term::Tuple(tu) => stack.extend(tu.elements().iter().cloned()),
                Term::Cons(_) => stack.extend(t.to_vec().unwrap_or_default()),
                Term::Map(m) => stack.extend(m.values().cloned()),
                _ => {}
            }
        }
    }

    /// A lone atom's short path writes what the general encoder writes.
    #[test]
    fn lone_atoms_encode_as_the_general_encoder_does() {
        for name in [
            "normal",
            "done",
            "",
            "é",
            &"ŧ".repeat(255),
            &"a".repeat(255),
        ] {
            let t = Term::atom(name);
            let mut general = vec![7];
            encode_general(&t, &mut general, Style::V2);
            let mut short = vec![7];
            encode(&t, &mut short);
            assert_eq!(short, general, "{name}");
        }
    }

    #[test]
    fn deep_and_recursive_encodings_agree() {
        let mut t = Term::Nil;
        for i in 0..(RECURSION_LIMIT as i64 + 50) {
            t = Term::tuple(vec![Term::Int(i), t, Term::string("ab")]);
        }
        let mut deep = vec![VERSION];
        encode_deep(&t, &mut deep, Style::V2);
        assert_eq!(to_vec(&t), deep);
    }
}
