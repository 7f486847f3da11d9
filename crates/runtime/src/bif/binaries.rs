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
    b.pure(e, "iolist_to_binary", 1, iolist_to_binary1, AUTO);
    b.pure(e, "binary_to_list", 1, binary_to_list, AUTO);
    b.pure(e, "binary_to_list", 3, binary_to_list3, AUTO);
    b.pure(e, "bitstring_to_list", 1, bitstring_to_list, AUTO);
    b.pure(e, "iolist_size", 1, iolist_size, AUTO);
    b.pure(e, "split_binary", 2, split_binary, AUTO);
    b.pure(e, "binary_part", 2, binary_part2, GUARD | AUTO);
    b.pure(e, "binary_part", 3, binary_part3, GUARD | AUTO);
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

/// Walks an iolist (bytes, binaries, nested lists, a binary tail) in
/// order, handing each byte and each binary on; `None` if it is not one
/// (a bitstring counts only when `bits_ok`).
fn walk_iolist(
    t: &Term,
    bits_ok: bool,
    depth: usize,
    byte: &mut impl FnMut(u8),
    bin: &mut impl FnMut(&trace_term::Bitstring),
) -> Option<()> {
    if depth > 100_000 {
        return None;
    }
    match t {
        Term::Binary(b) => {
            if !bits_ok && !b.is_binary() {
                return None;
            }
            bin(b);
            Some(())
        }
        Term::Nil => Some(()),
        Term::Cons(_) => {
            let mut it = t.list_iter();
            for e in &mut it {
                match e {
                    Term::Int(i) if (0..256).contains(i) => byte(*i as u8),
                    Term::Int(_) => return None,
                    other => walk_iolist(other, bits_ok, depth + 1, byte, bin)?,
                }
            }
            match it.rest() {
                Term::Nil => Some(()),
                b @ Term::Binary(_) => walk_iolist(b, bits_ok, depth + 1, byte, bin),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Appends an iolist (or, with `bits_ok`, a bitstring list) to `w`.
fn push_iolist(w: &mut BitWriter, t: &Term, bits_ok: bool) -> Option<()> {
    let w = std::cell::RefCell::new(w);
    walk_iolist(
        t,
        bits_ok,
        0,
        &mut |b| w.borrow_mut().push_uint(b as u64, 8),
        &mut |bs| w.borrow_mut().push_bitstring(bs),
    )
}

pub fn iolist_to_binary(t: &Term) -> Option<Term> {
    let mut w = BitWriter::new();
    push_iolist(&mut w, t, false)?;
    Some(Term::Binary(Arc::new(w.finish())))
}

/// `list_to_binary/1` wants a list; `iolist_to_binary/1` also takes a binary.
fn list_to_binary(a: &[Term]) -> BifResult {
    if !a[0].is_list() {
        return Err(badarg());
    }
    iolist_to_binary1(a)
}

fn iolist_to_binary1(a: &[Term]) -> BifResult {
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
    push_iolist(&mut w, &a[0], true).ok_or_else(badarg)?;
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

fn binary_to_list3(a: &[Term]) -> BifResult {
    let (Term::Binary(b), Term::Int(start), Term::Int(stop)) = (&a[0], &a[1], &a[2]) else {
        return Err(badarg());
    };
    let n = b.byte_len() as i64;
    if !b.is_binary() || *start < 1 || *stop < *start || *stop > n {
        return Err(badarg());
    }
    Ok(Term::list(
        b.bytes()[*start as usize - 1..*stop as usize]
            .iter()
            .map(|&x| Term::Int(x as i64))
            .collect(),
    ))
}

/// The bytes, and a final bitstring element for a trailing partial byte.
fn bitstring_to_list(a: &[Term]) -> BifResult {
    let Term::Binary(b) = &a[0] else {
        return Err(badarg());
    };
    let whole = b.bit_len() / 8;
    let mut items: Vec<Term> = b.bytes()[..whole]
        .iter()
        .map(|&x| Term::Int(x as i64))
        .collect();
    if b.bit_len() % 8 != 0 {
        let rest = b.slice(whole * 8, b.bit_len() % 8).ok_or_else(badarg)?;
        items.push(Term::Binary(Arc::new(rest)));
    }
    Ok(Term::list(items))
}

/// The size in bytes of an iolist (or binary).
fn iolist_size(a: &[Term]) -> BifResult {
    let n = std::cell::Cell::new(0u64);
    walk_iolist(&a[0], false, 0, &mut |_| n.set(n.get() + 1), &mut |b| {
        n.set(n.get() + b.byte_len() as u64)
    })
    .ok_or_else(badarg)?;
    Ok(Term::Int(n.get() as i64))
}

/// A part of a binary: `len` may be negative (counting back from `start`).
fn part(bin: &Term, start: &Term, len: &Term) -> BifResult {
    let (Term::Binary(b), Term::Int(s), Term::Int(l)) = (bin, start, len) else {
        return Err(badarg());
    };
    if !b.is_binary() {
        return Err(badarg());
    }
    let end = s.checked_add(*l).ok_or_else(badarg)?;
    let (from, to) = if *l >= 0 { (*s, end) } else { (end, *s) };
    if from < 0 || to > b.byte_len() as i64 {
        return Err(badarg());
    }
    Ok(Term::binary(&b.bytes()[from as usize..to as usize]))
}

pub fn binary_part2(a: &[Term]) -> BifResult {
    match a[1].as_tuple() {
        Some([s, l]) => part(&a[0], s, l),
        _ => Err(badarg()),
    }
}

pub fn binary_part3(a: &[Term]) -> BifResult {
    part(&a[0], &a[1], &a[2])
}

fn split_binary(a: &[Term]) -> BifResult {
    let (Term::Binary(b), Term::Int(pos)) = (&a[0], &a[1]) else {
        return Err(badarg());
    };
    if !b.is_binary() || *pos < 0 || *pos as usize > b.byte_len() {
        return Err(badarg());
    }
    let (x, y) = b.bytes().split_at(*pos as usize);
    Ok(Term::tuple(vec![Term::binary(x), Term::binary(y)]))
}
