//! Native `lists` built-ins (the higher-order ones are Erlang, in the prelude).

use super::Builder;
use crate::exception::{badarg, BifResult};
use trace_term::Term;

pub fn register(b: &mut Builder) {
    b.pure("lists", "reverse", 1, reverse, 0);
    b.pure("lists", "reverse", 2, reverse2, 0);
    b.pure("lists", "split", 2, split, 0);
}

fn split(a: &[Term]) -> BifResult {
    let Term::Int(n) = a[0] else {
        return Err(badarg());
    };
    let items = a[1].to_vec().ok_or_else(badarg)?;
    if n < 0 || n as usize > items.len() {
        return Err(badarg());
    }
    let (x, y) = items.split_at(n as usize);
    Ok(Term::tuple(vec![
        Term::list(x.to_vec()),
        Term::list(y.to_vec()),
    ]))
}

fn reverse(a: &[Term]) -> BifResult {
    reverse2(&[a[0].clone(), Term::Nil])
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
