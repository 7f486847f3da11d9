//! Walking a table: first/next, last/prev, slot and tab2list. An
//! `ordered_set` is walked in term order; other tables in the order their
//! keys were first inserted (BEAM: hash order), where `last` is `first` and
//! `prev` is `next`, as BEAM has it.

use super::{on_table, op, Key, Op};
use crate::bif::{Builder, Ctx};
use crate::ets::store::Store;
use crate::exception::{badarg, BifResult, Fault};
use crate::shared::Access;
use trace_term::Term;

pub fn register(b: &mut Builder) {
    let m = "ets";
    b.proc(m, "first", 1, |cx, a| end(cx, a, false), 0);
    b.proc(m, "last", 1, |cx, a| end(cx, a, true), 0);
    b.proc(m, "next", 2, |cx, a| step(cx, a, false), 0);
    b.proc(m, "prev", 2, |cx, a| step(cx, a, true), 0);
    b.proc(m, "slot", 2, slot, 0);
    b.proc(m, "tab2list", 1, tab2list, 0);
}

pub fn end_of_table() -> Term {
    Term::atom("$end_of_table")
}

fn or_end(k: Option<&Term>) -> Term {
    k.cloned().unwrap_or_else(end_of_table)
}

fn end(cx: &mut Ctx, a: &[Term], last: bool) -> BifResult {
    let f = if last { "last" } else { "first" };
    on_table(cx, &a[0], Op::new(f, Access::Read), |cx, _, st| {
        st.check_read(cx.proc.pid)?;
        Ok(match &st.store {
            Store::Ordered(o) if last => or_end(o.last().map(|(k, _)| k)),
            Store::Ordered(o) => or_end(o.first().map(|(k, _)| k)),
            Store::Hashed(h) => or_end(h.at_or_after(0).map(|(_, k, _)| k)),
        })
    })
}

fn step(cx: &mut Ctx, a: &[Term], back: bool) -> BifResult {
    let key = &a[1];
    let f = if back { "prev" } else { "next" };
    on_table(
        cx,
        &a[0],
        op(f, Access::Read, Key::Arg(key)),
        |cx, _, st| {
            st.check_read(cx.proc.pid)?;
            Ok(match &st.store {
                Store::Ordered(o) if back => or_end(o.before(key).map(|(k, _)| k)),
                Store::Ordered(o) => or_end(o.after(key).map(|(k, _)| k)),
                Store::Hashed(h) => {
                    // A key that is not in the table has no successor.
                    let at = h.position(key).ok_or_else(badarg)?;
                    or_end(h.at_or_after(at + 1).map(|(_, k, _)| k))
                }
            })
        },
    )
}

fn slot(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let i = match &a[1] {
        Term::Int(i) if *i >= 0 => *i as usize,
        _ => return Err(badarg()),
    };
    on_table(cx, &a[0], Op::new("slot", Access::Read), |cx, _, st| {
        st.check_read(cx.proc.pid)?;
        let (count, objs): (usize, Option<Vec<Term>>) = match &st.store {
            Store::Ordered(o) => (o.len(), o.iter().nth(i).map(|(_, v)| vec![v.clone()])),
            Store::Hashed(h) => (
                h.keys(),
                h.iter().nth(i).map(|(_, objs)| objs.as_slice().to_vec()),
            ),
        };
        match objs {
            Some(v) => Ok(Term::list(v)),
            None if i == count => Ok(end_of_table()),
            None => Err(badarg()),
        }
    })
}

fn tab2list(cx: &mut Ctx, a: &[Term]) -> BifResult {
    on_table(cx, &a[0], Op::new("tab2list", Access::Read), |cx, _, st| {
        st.check_read(cx.proc.pid)?;
        Ok(Term::list(st.store.objects()))
    })
}

/// `badarg` unless `t` is a non-negative integer: a limit, a slot.
pub fn non_negative(t: &Term) -> Result<usize, Fault> {
    match t {
        Term::Int(i) if *i >= 0 => Ok(*i as usize),
        _ => Err(badarg()),
    }
}
