//! Native `lists` built-ins (the higher-order ones are Erlang, in the
//! prelude). Each follows OTP 25's clauses closely enough that bad arguments
//! raise what BEAM raises: `function_clause` where OTP's Erlang code has no
//! matching clause, `badarg` where OTP uses a BIF, `badarith` where OTP's
//! code does arithmetic on an element.
//!
//! [`sort`] holds the sorting and merging family, [`keys`] the tuple-list
//! functions (`keyfind`, `keystore`, ...).

mod keys;
mod sort;

use super::Builder;
use crate::exception::{badarg, error_atom, BifResult, Fault};
use crate::vm::arith;
use num_bigint::BigInt;
use trace_term::order::{compare, exact_eq};
use trace_term::{atom, Term};

pub fn register(b: &mut Builder) {
    let l = "lists";
    b.pure(l, "reverse", 1, reverse, 0);
    b.pure(l, "reverse", 2, reverse2, 0);
    b.pure(l, "split", 2, split, 0);
    b.pure(l, "seq", 2, seq2, 0);
    b.pure(l, "seq", 3, seq3, 0);
    b.pure(l, "nth", 2, nth, 0);
    b.pure(l, "nthtail", 2, nthtail, 0);
    b.pure(l, "member", 2, member, 0);
    b.pure(l, "append", 1, append1, 0);
    b.pure(l, "append", 2, |a| arith::append(&a[0], &a[1]), 0);
    b.pure(l, "subtract", 2, |a| arith::subtract(&a[0], &a[1]), 0);
    b.pure(l, "concat", 1, concat, 0);
    b.pure(l, "flatten", 1, |a| flatten(&a[0], Term::Nil), 0);
    b.pure(l, "flatten", 2, flatten2, 0);
    b.pure(l, "flatlength", 1, flatlength, 0);
    b.pure(l, "sum", 1, sum, 0);
    b.pure(l, "max", 1, |a| extreme(&a[0], true), 0);
    b.pure(l, "min", 1, |a| extreme(&a[0], false), 0);
    b.pure(l, "last", 1, last, 0);
    b.pure(l, "delete", 2, delete, 0);
    b.pure(l, "duplicate", 2, duplicate, 0);
    b.pure(l, "zip", 2, zip, 0);
    b.pure(l, "zip3", 3, zip3, 0);
    b.pure(l, "unzip", 1, |a| unzip(&a[0], 2), 0);
    b.pure(l, "unzip3", 1, |a| unzip(&a[0], 3), 0);
    b.pure(l, "sublist", 2, sublist2, 0);
    b.pure(l, "sublist", 3, sublist3, 0);
    b.pure(l, "prefix", 2, prefix, 0);
    b.pure(l, "suffix", 2, suffix, 0);
    b.pure(l, "join", 2, join, 0);
    b.pure(l, "droplast", 1, droplast, 0);
    b.pure(l, "enumerate", 1, |a| enumerate(&Term::Int(1), &a[0]), 0);
    b.pure(l, "enumerate", 2, |a| enumerate(&a[0], &a[1]), 0);
    b.pure(l, "uniq", 1, uniq, 0);
    keys::register(b);
    sort::register(b);
}

/// The most elements one call may build (about 13 GB of list cells): past
/// it BEAM would run out of memory and die; the engine raises
/// `system_limit` instead of failing to allocate.
pub(crate) const MAX_BUILT: i64 = 1 << 28;

/// `error:system_limit`.
pub(crate) fn system_limit() -> Fault {
    error_atom(atom::SYSTEM_LIMIT)
}

/// `error:function_clause`: OTP's Erlang code had no clause for the arguments.
pub(crate) fn fc() -> Fault {
    error_atom(atom::FUNCTION_CLAUSE)
}

/// The elements of a proper list, or `function_clause`.
pub(super) fn proper(t: &Term) -> Result<Vec<Term>, Fault> {
    t.to_vec().ok_or_else(fc)
}

fn reverse(a: &[Term]) -> BifResult {
    // OTP's reverse/1 matches `[]`, `[_]`, `[A, B]` and `[A, B | L]` in
    // Erlang, then hands `L` to the reverse/2 BIF: an improper tail right
    // after the first element is a function_clause, later ones a badarg.
    match &a[0] {
        Term::Nil => Ok(Term::Nil),
        Term::Cons(c) if c.tail.is_list() => reverse2(&[a[0].clone(), Term::Nil]),
        _ => Err(fc()),
    }
}

fn reverse2(a: &[Term]) -> BifResult {
    let mut acc = a[1].clone();
    let mut it = a[0].list_iter();
    for e in &mut it {
        acc = Term::cons(e.clone(), acc);
    }
    if !it.is_proper() {
        return Err(badarg());
    }
    Ok(acc)
}

/// `split(N, L)`: the first N elements copied, the rest shared.
fn split(a: &[Term]) -> BifResult {
    let Term::Int(n) = a[0] else {
        return Err(badarg());
    };
    if n < 0 || a[1].list_len().is_none_or(|len| n as usize > len) {
        return Err(badarg());
    }
    let mut front = trace_term::ListBuilder::new();
    let mut rest = &a[1];
    for _ in 0..n {
        let Term::Cons(c) = rest else {
            unreachable!("length checked")
        };
        front.push(c.head.clone());
        rest = &c.tail;
    }
    Ok(Term::tuple(vec![front.finish(Term::Nil), rest.clone()]))
}

/// An integer argument as a BigInt (for the rare huge `seq`).
fn big(t: &Term) -> BigInt {
    match t {
        Term::Int(i) => BigInt::from(*i),
        Term::Big(b) => (**b).clone(),
        _ => BigInt::from(0),
    }
}

fn seq2(a: &[Term]) -> BifResult {
    if !a[0].is_integer() || !a[1].is_integer() {
        return Err(fc());
    }
    if let (Term::Int(f), Term::Int(l)) = (&a[0], &a[1]) {
        if l.checked_sub(*f).is_some_and(|n| n > MAX_BUILT) {
            return Err(system_limit());
        }
        if f.checked_sub(1).is_some_and(|f1| f1 <= *l) {
            let mut acc = Term::Nil;
            let mut i = *l;
            while i >= *f {
                acc = Term::cons(Term::Int(i), acc);
                i -= 1;
            }
            return Ok(acc);
        }
    }
    seq_big(&big(&a[0]), &big(&a[1]), &BigInt::from(1))?.ok_or_else(fc)
}

fn seq3(a: &[Term]) -> BifResult {
    if !a.iter().all(Term::is_integer) {
        return Err(fc());
    }
    let (f, l, inc) = (big(&a[0]), big(&a[1]), big(&a[2]));
    let zero = BigInt::from(0);
    if inc == zero {
        return if f == l {
            Ok(Term::list(vec![a[0].clone()]))
        } else {
            Err(badarg())
        };
    }
    seq_big(&f, &l, &inc)?.ok_or_else(badarg)
}

/// `[F, F+Inc, ...]` up to `L`, or `None` when `F - Inc` is already past `L`.
fn seq_big(f: &BigInt, l: &BigInt, inc: &BigInt) -> Result<Option<Term>, Fault> {
    let zero = BigInt::from(0);
    let ok = if *inc > zero {
        f - inc <= *l
    } else {
        f - inc >= *l
    };
    if !ok {
        return Ok(None);
    }
    let n: BigInt = (l - f + inc) / inc;
    if n > BigInt::from(MAX_BUILT) {
        return Err(system_limit());
    }
    let mut acc = Term::Nil;
    let mut k = n;
    while k > zero {
        k -= 1;
        acc = Term::cons(Term::from_bigint(f + inc * &k), acc);
    }
    Ok(Some(acc))
}

/// The 1-based position argument of nth/nthtail: OTP counts down with `N - 1`
/// while `N > 1`, so a non-number that sorts above 1 ends in `badarith`.
fn position(n: &Term) -> Result<Option<usize>, Fault> {
    match n {
        Term::Int(i) if *i >= 0 => Ok(Some(*i as usize)),
        Term::Int(_) | Term::Float(_) | Term::Big(_) => Ok(None),
        _ => Err(error_atom(atom::BADARITH)),
    }
}

fn nth(a: &[Term]) -> BifResult {
    let n = match position(&a[0]) {
        Ok(Some(n)) if n >= 1 => n,
        Err(e) if matches!(a[1], Term::Cons(_)) => return Err(e),
        _ => return Err(fc()),
    };
    a[1].list_iter().nth(n - 1).cloned().ok_or_else(fc)
}

fn nthtail(a: &[Term]) -> BifResult {
    let n = match position(&a[0]) {
        Ok(Some(n)) => n,
        Err(e) if matches!(a[1], Term::Cons(_)) => return Err(e),
        _ => return Err(fc()),
    };
    let mut cur = &a[1];
    for _ in 0..n {
        match cur {
            Term::Cons(c) => cur = &c.tail,
            _ => return Err(fc()),
        }
    }
    if n == 0 && !cur.is_list() {
        return Err(fc());
    }
    Ok(cur.clone())
}

fn member(a: &[Term]) -> BifResult {
    let mut it = a[1].list_iter();
    for e in &mut it {
        if exact_eq(e, &a[0]) {
            return Ok(Term::TRUE);
        }
    }
    if it.is_proper() {
        Ok(Term::FALSE)
    } else {
        Err(badarg())
    }
}

/// `append([L1, L2, ..., Ln])`: the last list is shared, not copied, and
/// need not be a list at all.
fn append1(a: &[Term]) -> BifResult {
    let lists = proper(&a[0])?;
    let Some((last, init)) = lists.split_last() else {
        return Ok(Term::Nil);
    };
    let mut items = Vec::new();
    for l in init {
        let mut it = l.list_iter();
        items.extend(&mut it.by_ref().cloned());
        if !it.is_proper() {
            return Err(badarg());
        }
    }
    Ok(Term::list_with_tail(items, last.clone()))
}

fn concat(a: &[Term]) -> BifResult {
    let mut out = Vec::new();
    for t in proper(&a[0])? {
        match &t {
            Term::Atom(x) => out.extend(x.name().chars().map(|c| Term::Int(c as i64))),
            Term::Int(_) | Term::Big(_) => {
                let s = trace_term::numtext::integer_to_text(&t, 10).map_err(|_| fc())?;
                out.extend(s.bytes().map(|c| Term::Int(c as i64)));
            }
            Term::Float(f) => {
                let s = trace_term::numtext::float_to_text(*f);
                out.extend(s.bytes().map(|c| Term::Int(c as i64)));
            }
            Term::Nil | Term::Cons(_) => {
                let mut it = t.list_iter();
                out.extend(it.by_ref().cloned());
                if !it.is_proper() {
                    return Err(badarg());
                }
            }
            _ => return Err(fc()),
        }
    }
    Ok(Term::list(out))
}

fn flatten2(a: &[Term]) -> BifResult {
    if !a[1].is_list() {
        return Err(fc());
    }
    flatten(&a[0], a[1].clone())
}

/// Flattens a deep list onto `tail`; an improper list at any depth is a
/// `function_clause`, as in OTP.
fn flatten(t: &Term, tail: Term) -> BifResult {
    if !t.is_list() {
        return Err(fc());
    }
    let mut out = Vec::new();
    // An explicit stack of list iterators: deep lists must not recurse.
    let mut stack = vec![t.list_iter()];
    while let Some(it) = stack.last_mut() {
        match it.next() {
            Some(e) if e.is_list() => stack.push(e.list_iter()),
            Some(e) => out.push(e.clone()),
            None => {
                if !it.is_proper() {
                    return Err(fc());
                }
                stack.pop();
            }
        }
    }
    Ok(Term::list_with_tail(out, tail))
}

fn flatlength(a: &[Term]) -> BifResult {
    if !a[0].is_list() {
        return Err(fc());
    }
    let mut n: i64 = 0;
    let mut stack = vec![a[0].list_iter()];
    while let Some(it) = stack.last_mut() {
        match it.next() {
            Some(e) if e.is_list() => stack.push(e.list_iter()),
            Some(_) => n += 1,
            None => {
                if !it.is_proper() {
                    return Err(fc());
                }
                stack.pop();
            }
        }
    }
    Ok(Term::Int(n))
}

fn sum(a: &[Term]) -> BifResult {
    let mut acc = Term::Int(0);
    let mut it = a[0].list_iter();
    for e in &mut it {
        acc = match (&acc, e) {
            (Term::Int(x), Term::Int(y)) if x.checked_add(*y).is_some() => Term::Int(x + y),
            _ => arith::add(&acc, e)?,
        };
    }
    if it.is_proper() {
        Ok(acc)
    } else {
        Err(fc())
    }
}

/// `lists:max/1` and `min/1`: the first of equal extremes wins.
fn extreme(l: &Term, max: bool) -> BifResult {
    pick(l, |e, best| {
        let o = compare(e, best);
        (max && o.is_gt()) || (!max && o.is_lt())
    })
}

fn last(a: &[Term]) -> BifResult {
    pick(&a[0], |_, _| true)
}

/// Walks a non-empty proper list keeping the element for which
/// `better(element, kept)` last held (the first element to start with).
fn pick(l: &Term, better: impl Fn(&Term, &Term) -> bool) -> BifResult {
    let mut it = l.list_iter();
    let mut kept = it.next().ok_or_else(fc)?;
    for e in &mut it {
        if better(e, kept) {
            kept = e;
        }
    }
    if it.is_proper() {
        Ok(kept.clone())
    } else {
        Err(fc())
    }
}

fn delete(a: &[Term]) -> BifResult {
    let mut before = Vec::new();
    let mut cur = &a[1];
    loop {
        match cur {
            Term::Cons(c) if exact_eq(&c.head, &a[0]) => {
                return Ok(Term::list_with_tail(before, c.tail.clone()))
            }
            Term::Cons(c) => {
                before.push(c.head.clone());
                cur = &c.tail;
            }
            Term::Nil => return Ok(Term::list(before)),
            _ => return Err(fc()),
        }
    }
}

fn duplicate(a: &[Term]) -> BifResult {
    match &a[0] {
        Term::Int(n) if *n > MAX_BUILT => Err(system_limit()),
        Term::Int(n) if *n >= 0 => {
            let mut acc = Term::Nil;
            for _ in 0..*n {
                acc = Term::cons(a[1].clone(), acc);
            }
            Ok(acc)
        }
        _ => Err(fc()),
    }
}

fn zip(a: &[Term]) -> BifResult {
    let (xs, ys) = (proper(&a[0])?, proper(&a[1])?);
    if xs.len() != ys.len() {
        return Err(fc());
    }
    Ok(Term::list(
        xs.into_iter()
            .zip(ys)
            .map(|(x, y)| Term::tuple(vec![x, y]))
            .collect(),
    ))
}

fn zip3(a: &[Term]) -> BifResult {
    let (xs, ys, zs) = (proper(&a[0])?, proper(&a[1])?, proper(&a[2])?);
    if xs.len() != ys.len() || ys.len() != zs.len() {
        return Err(fc());
    }
    Ok(Term::list(
        xs.into_iter()
            .zip(ys)
            .zip(zs)
            .map(|((x, y), z)| Term::tuple(vec![x, y, z]))
            .collect(),
    ))
}

fn unzip(l: &Term, n: usize) -> BifResult {
    let mut cols: Vec<Vec<Term>> = vec![Vec::new(); n];
    for t in proper(l)? {
        match t.as_tuple() {
            Some(es) if es.len() == n => {
                for (c, e) in cols.iter_mut().zip(es) {
                    c.push(e.clone());
                }
            }
            _ => return Err(fc()),
        }
    }
    Ok(Term::tuple(cols.into_iter().map(Term::list).collect()))
}

fn sublist2(a: &[Term]) -> BifResult {
    let Term::Int(n) = a[1] else {
        return Err(fc());
    };
    if n < 0 || !a[0].is_list() {
        return Err(fc());
    }
    take(&a[0], n as usize)
}

/// The first `n` elements (fewer if the list is shorter); OTP checks the
/// list's shape only as far as it walks.
fn take(l: &Term, n: usize) -> BifResult {
    let mut out = Vec::new();
    let mut cur = l;
    while out.len() < n {
        match cur {
            Term::Cons(c) => {
                out.push(c.head.clone());
                cur = &c.tail;
            }
            Term::Nil => break,
            _ => return Err(fc()),
        }
    }
    if out.len() < n && !cur.is_list() {
        return Err(fc());
    }
    Ok(Term::list(out))
}

fn sublist3(a: &[Term]) -> BifResult {
    let (Term::Int(s), Term::Int(n)) = (&a[1], &a[2]) else {
        return Err(fc());
    };
    if *n < 0 || *s < 1 || !a[0].is_list() {
        return Err(fc());
    }
    let mut cur = &a[0];
    for _ in 1..*s {
        match cur {
            Term::Cons(c) => cur = &c.tail,
            Term::Nil => return Ok(Term::Nil),
            _ => return Err(fc()),
        }
    }
    take(cur, *n as usize)
}

fn prefix(a: &[Term]) -> BifResult {
    let (mut p, mut l) = (&a[0], &a[1]);
    loop {
        match (p, l) {
            (Term::Cons(x), Term::Cons(y)) if exact_eq(&x.head, &y.head) => {
                p = &x.tail;
                l = &y.tail;
            }
            (Term::Nil, l) if l.is_list() => return Ok(Term::TRUE),
            (Term::Cons(_), l) if l.is_list() => return Ok(Term::FALSE),
            _ => return Err(fc()),
        }
    }
}

fn suffix(a: &[Term]) -> BifResult {
    let (Some(s), Some(l)) = (a[0].list_len(), a[1].list_len()) else {
        return Err(badarg());
    };
    if l < s {
        return Ok(Term::FALSE);
    }
    let mut cur = &a[1];
    for _ in 0..l - s {
        if let Term::Cons(c) = cur {
            cur = &c.tail;
        }
    }
    Ok(Term::bool(exact_eq(cur, &a[0])))
}

fn join(a: &[Term]) -> BifResult {
    let items = proper(&a[1])?;
    let mut out = Vec::with_capacity(items.len() * 2);
    for (i, x) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(a[0].clone());
        }
        out.push(x);
    }
    Ok(Term::list(out))
}

fn droplast(a: &[Term]) -> BifResult {
    let mut items = proper(&a[0])?;
    if items.pop().is_none() {
        return Err(fc());
    }
    Ok(Term::list(items))
}

fn enumerate(start: &Term, l: &Term) -> BifResult {
    if !start.is_integer() {
        return Err(fc());
    }
    let items = proper(l)?;
    let mut out = Vec::with_capacity(items.len());
    let mut i = start.clone();
    for x in items {
        out.push(Term::tuple(vec![i.clone(), x]));
        i = arith::add(&i, &Term::Int(1))?;
    }
    Ok(Term::list(out))
}

/// `uniq/1`: the first occurrence of each value (by `=:=`) in list order.
fn uniq(a: &[Term]) -> BifResult {
    let items = proper(&a[0])?;
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for x in items {
        if seen.insert(trace_term::map::MapKey(x.clone())) {
            out.push(x);
        }
    }
    Ok(Term::list(out))
}
