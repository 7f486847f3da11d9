//! Native `maps` built-ins (the ones taking funs are Erlang, in the prelude).
//! A map argument that is not a map raises `{badmap, Term}`; a missing key
//! where one is required raises `{badkey, Key}`, as in OTP 25.
//!
//! Iterators are `[Index | Map]`: the position of the next key in the map's
//! order, then the map (OTP's flatmap iterators have the same shape).

use super::Builder;
use crate::exception::{badarg, error_tagged, BifResult, Fault};
use trace_term::{atom, Arc, MapRepr, Term};

pub fn register(b: &mut Builder) {
    let m = "maps";
    b.pure(m, "to_list", 1, to_list, 0);
    b.pure(m, "from_list", 1, from_list, 0);
    b.pure(m, "from_keys", 2, from_keys, 0);
    b.pure(m, "new", 0, |_| Ok(Term::Map(Arc::new(MapRepr::new()))), 0);
    b.pure(m, "get", 2, get2, 0);
    b.pure(m, "get", 3, get3, 0);
    b.pure(m, "find", 2, find, 0);
    b.pure(
        m,
        "is_key",
        2,
        |a| Ok(Term::bool(map(&a[1])?.contains_key(&a[0]))),
        0,
    );
    b.pure(m, "size", 1, |a| Ok(Term::Int(map(&a[0])?.len() as i64)), 0);
    b.pure(
        m,
        "keys",
        1,
        |a| Ok(Term::list(map(&a[0])?.keys().cloned().collect())),
        0,
    );
    b.pure(
        m,
        "values",
        1,
        |a| Ok(Term::list(map(&a[0])?.values().cloned().collect())),
        0,
    );
    b.pure(m, "put", 3, put, 0);
    b.pure(m, "update", 3, update, 0);
    b.pure(m, "remove", 2, remove, 0);
    b.pure(m, "take", 2, take, 0);
    b.pure(m, "merge", 2, merge, 0);
    b.pure(m, "intersect", 2, intersect, 0);
    b.pure(m, "with", 2, |a| select(a, true), 0);
    b.pure(m, "without", 2, |a| select(a, false), 0);
    b.pure(m, "iterator", 1, iterator, 0);
    b.pure(m, "next", 1, next, 0);
}

/// The map inside a map argument, or `{badmap, Term}`.
pub fn map(t: &Term) -> Result<&Arc<MapRepr>, Fault> {
    match t {
        Term::Map(m) => Ok(m),
        other => Err(error_tagged(atom::BADMAP, other.clone())),
    }
}

fn with_map(m: MapRepr) -> Term {
    Term::Map(Arc::new(m))
}

fn to_list(a: &[Term]) -> BifResult {
    Ok(Term::list(
        map(&a[0])?
            .iter()
            .map(|(k, v)| Term::tuple(vec![k.clone(), v.clone()]))
            .collect(),
    ))
}

fn from_list(a: &[Term]) -> BifResult {
    let mut m = MapRepr::new();
    for e in a[0].to_vec().ok_or_else(badarg)? {
        match e.as_tuple() {
            Some([k, v]) => {
                m.insert(k.clone(), v.clone());
            }
            _ => return Err(badarg()),
        }
    }
    Ok(with_map(m))
}

fn from_keys(a: &[Term]) -> BifResult {
    let mut m = MapRepr::new();
    for k in a[0].to_vec().ok_or_else(badarg)? {
        m.insert(k, a[1].clone());
    }
    Ok(with_map(m))
}

fn get2(a: &[Term]) -> BifResult {
    map(&a[1])?
        .get(&a[0])
        .cloned()
        .ok_or_else(|| error_tagged(atom::BADKEY, a[0].clone()))
}

fn get3(a: &[Term]) -> BifResult {
    Ok(map(&a[1])?
        .get(&a[0])
        .cloned()
        .unwrap_or_else(|| a[2].clone()))
}

fn find(a: &[Term]) -> BifResult {
    Ok(match map(&a[1])?.get(&a[0]) {
        Some(v) => Term::tuple(vec![Term::OK, v.clone()]),
        None => Term::Atom(atom::ERROR),
    })
}

fn put(a: &[Term]) -> BifResult {
    let mut m = map(&a[2])?.clone();
    Arc::make_mut(&mut m).insert(a[0].clone(), a[1].clone());
    Ok(Term::Map(m))
}

fn update(a: &[Term]) -> BifResult {
    let m = map(&a[2])?;
    if !m.contains_key(&a[0]) {
        return Err(error_tagged(atom::BADKEY, a[0].clone()));
    }
    let mut m = m.clone();
    Arc::make_mut(&mut m).insert(a[0].clone(), a[1].clone());
    Ok(Term::Map(m))
}

fn remove(a: &[Term]) -> BifResult {
    let m = map(&a[1])?;
    if !m.contains_key(&a[0]) {
        return Ok(a[1].clone());
    }
    let mut m = m.clone();
    Arc::make_mut(&mut m).remove(&a[0]);
    Ok(Term::Map(m))
}

fn take(a: &[Term]) -> BifResult {
    let m = map(&a[1])?;
    let Some(v) = m.get(&a[0]).cloned() else {
        return Ok(Term::Atom(atom::ERROR));
    };
    let mut m = m.clone();
    Arc::make_mut(&mut m).remove(&a[0]);
    Ok(Term::tuple(vec![v, Term::Map(m)]))
}

fn merge(a: &[Term]) -> BifResult {
    let (x, y) = (map(&a[0])?, map(&a[1])?);
    // Insert the smaller map into a copy of the larger one.
    if x.len() >= y.len() {
        let mut out = x.clone();
        let o = Arc::make_mut(&mut out);
        for (k, v) in y.iter() {
            o.insert(k.clone(), v.clone());
        }
        Ok(Term::Map(out))
    } else {
        let mut out = y.clone();
        let o = Arc::make_mut(&mut out);
        for (k, v) in x.iter() {
            if !o.contains_key(k) {
                o.insert(k.clone(), v.clone());
            }
        }
        Ok(Term::Map(out))
    }
}

fn intersect(a: &[Term]) -> BifResult {
    let (x, y) = (map(&a[0])?, map(&a[1])?);
    Ok(with_map(MapRepr::from_pairs(
        y.iter()
            .filter(|(k, _)| x.contains_key(k))
            .map(|(k, v)| (k.clone(), v.clone())),
    )))
}

/// `maps:with/2` (`keep`) and `maps:without/2`.
fn select(a: &[Term], keep: bool) -> BifResult {
    let m = map(&a[1])?;
    let keys = a[0].to_vec().ok_or_else(badarg)?;
    if keep {
        Ok(with_map(MapRepr::from_pairs(keys.into_iter().filter_map(
            |k| m.get(&k).map(|v| (k.clone(), v.clone())),
        ))))
    } else {
        let mut out = m.clone();
        let o = Arc::make_mut(&mut out);
        for k in keys {
            o.remove(&k);
        }
        Ok(Term::Map(out))
    }
}

fn iterator(a: &[Term]) -> BifResult {
    map(&a[0])?;
    Ok(Term::cons(Term::Int(0), a[0].clone()))
}

fn next(a: &[Term]) -> BifResult {
    match &a[0] {
        Term::Atom(atom::NONE) => Ok(Term::Atom(atom::NONE)),
        Term::Tuple(t) if t.arity() == 3 => Ok(a[0].clone()),
        Term::Cons(c) => match (&c.head, &c.tail) {
            (Term::Int(i), Term::Map(m)) if *i >= 0 => match m.iter().nth(*i as usize) {
                Some((k, v)) => Ok(Term::tuple(vec![
                    k.clone(),
                    v.clone(),
                    Term::cons(Term::Int(i + 1), c.tail.clone()),
                ])),
                None => Ok(Term::Atom(atom::NONE)),
            },
            _ => Err(badarg()),
        },
        _ => Err(badarg()),
    }
}
