//! Sorting and merging: `sort/1`, `usort/1`, `keysort/2`, `ukeysort/2` and
//! the `merge` family. Sorts are stable (equal elements keep their order)
//! and compare with term order, where `1 == 1.0`; the `u` variants keep the
//! first of equal elements. Merges take from the earlier list on ties, as
//! OTP's do.

use super::super::Builder;
use super::keys::{key_of, key_pos};
use super::proper;
use crate::exception::BifResult;
use std::cmp::Ordering;
use trace_term::order::compare;
use trace_term::Term;

pub fn register(b: &mut Builder) {
    let l = "lists";
    b.pure(l, "sort", 1, sort, 0);
    b.pure(l, "usort", 1, usort, 0);
    b.pure(l, "keysort", 2, |a| keysort(a, false), 0);
    b.pure(l, "ukeysort", 2, |a| keysort(a, true), 0);
    b.pure(
        l,
        "merge",
        2,
        |a| merge_all(&[&a[0], &a[1]], Order::Plain, false),
        0,
    );
    b.pure(
        l,
        "merge3",
        3,
        |a| merge_all(&[&a[0], &a[1], &a[2]], Order::Plain, false),
        0,
    );
    b.pure(
        l,
        "umerge",
        2,
        |a| merge_all(&[&a[0], &a[1]], Order::Plain, true),
        0,
    );
    b.pure(
        l,
        "umerge3",
        3,
        |a| merge_all(&[&a[0], &a[1], &a[2]], Order::Plain, true),
        0,
    );
    b.pure(l, "merge", 1, |a| merge_list(&a[0], false), 0);
    b.pure(l, "umerge", 1, |a| merge_list(&a[0], true), 0);
    b.pure(l, "keymerge", 3, |a| keymerge(a, false), 0);
    b.pure(l, "ukeymerge", 3, |a| keymerge(a, true), 0);
}

/// How elements are compared: whole, or by the key in element N.
#[derive(Copy, Clone)]
enum Order {
    Plain,
    Key(usize),
}

impl Order {
    fn cmp(self, a: &Term, b: &Term) -> Ordering {
        match self {
            Order::Plain => compare(a, b),
            // Keys were checked to exist before comparing.
            Order::Key(n) => compare(&a.as_tuple().unwrap()[n - 1], &b.as_tuple().unwrap()[n - 1]),
        }
    }
}

/// Drops every element equal to the one kept before it.
fn dedup(items: &mut Vec<Term>, ord: Order) {
    items.dedup_by(|later, kept| ord.cmp(kept, later).is_eq());
}

fn sort(a: &[Term]) -> BifResult {
    let mut items = proper(&a[0])?;
    items.sort_by(compare);
    Ok(Term::list(items))
}

fn usort(a: &[Term]) -> BifResult {
    let mut items = proper(&a[0])?;
    items.sort_by(compare);
    dedup(&mut items, Order::Plain);
    Ok(Term::list(items))
}

fn keysort(a: &[Term], unique: bool) -> BifResult {
    let n = key_pos(&a[0])?;
    let mut items = proper(&a[1])?;
    // OTP returns lists of fewer than two elements without looking at them.
    if items.len() < 2 {
        return Ok(a[1].clone());
    }
    for t in &items {
        key_of(t, n)?;
    }
    let ord = Order::Key(n);
    items.sort_by(|x, y| ord.cmp(x, y));
    if unique {
        dedup(&mut items, ord);
    }
    Ok(Term::list(items))
}

/// Merges already sorted lists; on ties the element of the earlier list
/// comes first (and, when `unique`, the later equal ones are dropped).
fn merge_all(lists: &[&Term], ord: Order, unique: bool) -> BifResult {
    let mut acc = proper(lists[0])?;
    for l in &lists[1..] {
        let next = proper(l)?;
        acc = merge2(acc, next, ord, unique);
    }
    Ok(Term::list(acc))
}

fn merge2(xs: Vec<Term>, ys: Vec<Term>, ord: Order, unique: bool) -> Vec<Term> {
    let mut out = Vec::with_capacity(xs.len() + ys.len());
    let mut xs = xs.into_iter().peekable();
    let mut ys = ys.into_iter().peekable();
    loop {
        let o = match (xs.peek(), ys.peek()) {
            (Some(x), Some(y)) => ord.cmp(x, y),
            (Some(_), None) => {
                out.extend(xs);
                break;
            }
            (None, _) => {
                out.extend(ys);
                break;
            }
        };
        match o {
            Ordering::Greater => out.extend(ys.next()),
            Ordering::Equal if unique => {
                out.extend(xs.next());
                ys.next();
            }
            _ => out.extend(xs.next()),
        }
    }
    out
}

fn merge_list(lists: &Term, unique: bool) -> BifResult {
    let lists = proper(lists)?;
    if lists.is_empty() {
        return Ok(Term::Nil);
    }
    let refs: Vec<&Term> = lists.iter().collect();
    merge_all(&refs, Order::Plain, unique)
}

fn keymerge(a: &[Term], unique: bool) -> BifResult {
    let n = key_pos(&a[0])?;
    for l in [&a[1], &a[2]] {
        for t in proper(l)? {
            key_of(&t, n)?;
        }
    }
    merge_all(&[&a[1], &a[2]], Order::Key(n), unique)
}
