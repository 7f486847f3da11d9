//! Binaries: conversions to and from lists, sizes, parts.

use super::{Builder, AUTO, GUARD};
use crate::exception::{badarg, BifResult};
use trace_term::{Arc, BitWriter, Term};

pub fn register(b: &mut Builder) {
    let e = "erlang";
    b.pure(e, "byte_size", 1, byte_size, GUARD | AUTO);
    b.pure(e, "bit_size", 1, bit_size, GUARD | AUTO);
    b.pure(e, "list_to_bitstring", 1, list_to_bitstring, AUTO);
    b.pure(e, "list_to_binary", 1, list_to_binary, AUTO);
    b.pure(e, "iolist_to_binary", 1, list_to_binary, AUTO);
    b.pure(e, "binary_to_list", 1, binary_to_list, AUTO);
}

fn byte_size(a: &[Term]) -> BifResult {
    match &a[0] {
        Term::Binary(b) => Ok(Term::Int(b.byte_len() as i64)),
        _ => Err(badarg()),
    }
}

fn bit_size(a: &[Term]) -> BifResult {
    match &a[0] {
        Term::Binary(b) => Ok(Term::Int(b.bit_len() as i64)),
        _ => Err(badarg()),
    }
}

/// Appends an iolist/bitstring list to `w`.
fn push_iolist(w: &mut BitWriter, t: &Term, bits_ok: bool, depth: usize) -> Option<()> {
    if depth > 100_000 {
        return None;
    }
    match t {
        Term::Binary(b) => {
            if !bits_ok && !b.is_binary() {
                return None;
            }
            w.push_bitstring(b);
            Some(())
        }
        Term::Nil => Some(()),
        Term::Cons(_) => {
            let mut it = t.list_iter();
            for e in &mut it {
                match e {
                    Term::Int(i) if (0..256).contains(i) => w.push_uint(*i as u64, 8),
                    Term::Int(_) => return None,
                    other => push_iolist(w, other, bits_ok, depth + 1)?,
                }
            }
            match it.rest() {
                Term::Nil => Some(()),
                b @ Term::Binary(_) => push_iolist(w, b, bits_ok, depth + 1),
                _ => None,
            }
        }
        _ => None,
    }
}

pub fn iolist_to_binary(t: &Term) -> Option<Term> {
    let mut w = BitWriter::new();
    push_iolist(&mut w, t, false, 0)?;
    Some(Term::Binary(Arc::new(w.finish())))
}

fn list_to_binary(a: &[Term]) -> BifResult {
    if let Term::Binary(b) = &a[0] {
        return if b.is_binary() {
            Ok(a[0].clone())
        } else {
            Err(badarg())
        };
    }
    if !a[0].is_list() {
        return Err(badarg());
    }
    iolist_to_binary(&a[0]).ok_or_else(badarg)
}

fn list_to_bitstring(a: &[Term]) -> BifResult {
    let mut w = BitWriter::new();
    push_iolist(&mut w, &a[0], true, 0).ok_or_else(badarg)?;
    Ok(Term::Binary(Arc::new(w.finish())))
}

fn binary_to_list(a: &[Term]) -> BifResult {
    match &a[0] {
        Term::Binary(b) if b.is_binary() => Ok(Term::list(
            b.bytes().iter().map(|&x| Term::Int(x as i64)).collect(),
        )),
        _ => Err(badarg()),
    }
}
