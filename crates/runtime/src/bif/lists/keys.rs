//! Lists of tuples looked up by the key in element N: `keyfind`, `keystore`
//! and friends. Keys compare with `==` (so `1` finds `1.0`); list elements
//! that are not tuples of at least N elements are skipped.

use super::super::Builder;
use super::fc;
use crate::exception::{badarg, BifResult, Fault};
use trace_term::order::compare;
use trace_term::{atom, Term};

pub fn register(b: &mut Builder) {
    let l = "lists";
    b.pure(l, "keyfind", 3, keyfind, 0);
    b.pure(
        l,
        "keymember",
        3,
        |a| Ok(Term::bool(bif_find(a)?.is_some())),
        0,
    );
    b.pure(l, "keysearch", 3, keysearch, 0);
    b.pure(l, "keydelete", 3, keydelete, 0);
    b.pure(l, "keyreplace", 4, keyreplace, 0);
    b.pure(l, "keystore", 4, keystore, 0);
    b.pure(l, "keytake", 3, keytake, 0);
}

/// Whether `t` is a tuple whose element `n` (1-based) equals `key`.
pub(super) fn has_key(t: &Term, n: usize, key: &Term) -> bool {
    matches!(t, Term::Tuple(tp) if tp.arity() >= n && compare(&tp.elements()[n - 1], key).is_eq())
}

/// The position argument of the key functions written in Erlang in OTP
/// (`when is_integer(N), N > 0`).
pub(super) fn key_pos(t: &Term) -> Result<usize, Fault> {
    match t {
        Term::Int(n) if *n > 0 => Ok(*n as usize),
        _ => Err(fc()),
    }
}

/// The search of the keyfind/keymember/keysearch BIFs: `badarg` for a bad
/// position or an improper list walked to its end.
fn bif_find(a: &[Term]) -> Result<Option<Term>, Fault> {
    let n = match &a[1] {
        Term::Int(n) if *n > 0 => *n as usize,
        _ => return Err(badarg()),
    };
    let mut it = a[2].list_iter();
    for e in &mut it {
        if has_key(e, n, &a[0]) {
            return Ok(Some(e.clone()));
        }
    }
    if it.is_proper() {
        Ok(None)
    } else {
        Err(badarg())
    }
}

fn keyfind(a: &[Term]) -> BifResult {
    Ok(bif_find(a)?.unwrap_or(Term::FALSE))
}

fn keysearch(a: &[Term]) -> BifResult {
    Ok(match bif_find(a)? {
        Some(t) => Term::tuple(vec![Term::Atom(atom::VALUE), t]),
        None => Term::FALSE,
    })
}

/// A list split at the first tuple with the key: the elements before it,
/// and the tuple with what follows it (if found).
type KeySplit = (Vec<Term>, Option<(Term, Term)>);

/// Splits `l` at the first tuple with the key. Improper lists are a
/// `function_clause`.
fn split_at_key(l: &Term, n: usize, key: &Term) -> Result<KeySplit, Fault> {
    let mut before = Vec::new();
    let mut cur = l;
    loop {
        match cur {
            Term::Cons(c) if has_key(&c.head, n, key) => {
                return Ok((before, Some((c.head.clone(), c.tail.clone()))))
            }
            Term::Cons(c) => {
                before.push(c.head.clone());
                cur = &c.tail;
            }
            Term::Nil => return Ok((before, None)),
            _ => return Err(fc()),
        }
    }
}

fn keydelete(a: &[Term]) -> BifResult {
    let n = key_pos(&a[1])?;
    let (before, found) = split_at_key(&a[2], n, &a[0])?;
    Ok(match found {
        Some((_, rest)) => Term::list_with_tail(before, rest),
        None => Term::list(before),
    })
}

fn keyreplace(a: &[Term]) -> BifResult {
    let n = key_pos(&a[1])?;
    if !matches!(a[3], Term::Tuple(_)) {
        return Err(fc());
    }
    let (before, found) = split_at_key(&a[2], n, &a[0])?;
    Ok(match found {
        Some((_, rest)) => Term::list_with_tail(before, Term::cons(a[3].clone(), rest)),
        None => Term::list(before),
    })
}

fn keystore(a: &[Term]) -> BifResult {
    let n = key_pos(&a[1])?;
    if !matches!(a[3], Term::Tuple(_)) {
        return Err(fc());
    }
    let (mut before, found) = split_at_key(&a[2], n, &a[0])?;
    Ok(match found {
        Some((_, rest)) => Term::list_with_tail(before, Term::cons(a[3].clone(), rest)),
        None => {
            before.push(a[3].clone());
            Term::list(before)
        }
    })
}

fn keytake(a: &[Term]) -> BifResult {
    let n = key_pos(&a[1])?;
    let (before, found) = split_at_key(&a[2], n, &a[0])?;
    Ok(match found {
        Some((t, rest)) => Term::tuple(vec![
            Term::Atom(atom::VALUE),
            t,
            Term::list_with_tail(before, rest),
        ]),
        None => Term::FALSE,
    })
}

/// For the sorting functions: every element must be a tuple with element `n`.
pub(super) fn key_of(t: &Term, n: usize) -> Result<&Term, Fault> {
    match t {
        Term::Tuple(tp) if tp.arity() >= n => Ok(&tp.elements()[n - 1]),
        _ => Err(badarg()),
    }
}
