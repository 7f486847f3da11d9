//! The filter of a receive (see [`RecvFilter`]): for each clause, the shape
//! its pattern demands of a message — tuples of given sizes, atoms and
//! integers, variables bound before the receive. Anything else (maps,
//! binaries, lists, records, fresh variables) is `Any`; a receive with a
//! clause of shape `Any` gets no filter, since every message may match it.

use super::builder::{BindState, FnBuilder};
use super::constant::int_lit;
use crate::ir::{RecvFilter, Shape};
use trace_syntax::ast::{Clause, Expr, ExprKind};
use trace_term::Term;

pub fn recv_filter(b: &FnBuilder, cs: &[Clause], before: &BindState) -> Option<Box<RecvFilter>> {
    let alts: Box<[Shape]> = cs
        .iter()
        .map(|c| {
            c.patterns
                .first()
                .map_or(Shape::Any, |p| shape(b, p, before))
        })
        .collect();
    if alts.is_empty() || alts.iter().any(|s| matches!(s, Shape::Any)) {
        return None;
    }
    Some(Box::new(RecvFilter { alts }))
}

fn shape(b: &FnBuilder, p: &Expr, before: &BindState) -> Shape {
    match &p.kind {
        ExprKind::Var(n) => match b.var_slot(n) {
            Some(s) if n != "_" && before.is_bound(s) && before.unsafe_info(s).is_none() => {
                Shape::Bound(s)
            }
            _ => Shape::Any,
        },
        ExprKind::Atom(a) => match Term::atom(a) {
            Term::Atom(x) => Shape::Atom(x),
            _ => Shape::Any,
        },
        ExprKind::Integer(i) => match int_lit(i) {
            Term::Int(v) => Shape::Int(v),
            big => Shape::Lit(big),
        },
        ExprKind::Tuple(ps) => Shape::Tuple(ps.iter().map(|p| shape(b, p, before)).collect()),
        // Both sides must match: either is a condition.
        ExprKind::Match(l, r) => match shape(b, l, before) {
            Shape::Any => shape(b, r, before),
            s => s,
        },
        _ => Shape::Any,
    }
}
