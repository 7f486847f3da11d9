//! Native `lists` built-ins (the higher-order ones are Erlang, in the prelude).

use super::Builder;
use crate::exception::{badarg, BifResult};
use trace_term::Term;

pub fn register(b: &mut Builder) {
    b.pure("lists", "reverse", 1, reverse, 0);
    b.pure("lists", "reverse", 2, reverse2, 0);
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
