//! The `ets` module's built-ins (the tables themselves are in
//! [`crate::ets`]). Every call that touches a table goes through
//! [`with_table`]: the shared-state protocol of [`crate::shared::turn`]
//! around the work done under the table's lock.
//!
//! - [`objects`]: insert, lookup, delete, take, update_counter, ...;
//! - [`walk`]: first/next/last/prev, slot, tab2list;
//! - [`select`]: match, select and their continuations, match specs;
//! - [`admin`]: new, delete, rename, give_away, setopts, info, whereis, all.
//!
//! `foldl/3` and `foldr/3` are Erlang, in the prelude's `ets` module.

mod admin;
mod objects;
mod select;
mod walk;

use super::{Builder, Ctx};
use crate::ets::store::element;
use crate::ets::{is_table_name, Table, TableState};
use crate::exception::{badarg, Fault};
use crate::hooks::SharedTurn;
use crate::shared::{Access, SharedOp};
use std::sync::Arc;
use trace_term::Term;

pub fn register(b: &mut Builder) {
    objects::register(b);
    walk::register(b);
    select::register(b);
    admin::register(b);
}

/// What an operation is, for the hooks.
pub(super) struct Op<'a> {
    pub function: &'static str,
    pub access: Access,
    pub key: Key<'a>,
}

/// Which key an operation is about.
pub(super) enum Key<'a> {
    None,
    /// An argument of the call.
    Arg(&'a Term),
    /// The key of an object argument (found with the table's key position).
    Of(&'a Term),
}

impl Op<'_> {
    pub fn new(function: &'static str, access: Access) -> Op<'static> {
        Op {
            function,
            access,
            key: Key::None,
        }
    }
}

pub(super) fn op<'a>(function: &'static str, access: Access, key: Key<'a>) -> Op<'a> {
    Op {
        function,
        access,
        key,
    }
}

/// The table `tab` names, by the process's last table or the registry.
fn find(cx: &mut Ctx, tab: &Term) -> Result<Option<Arc<Table>>, Fault> {
    let same = |k: &Term| match (k, tab) {
        (Term::Ref(a), Term::Ref(b)) => a == b,
        (Term::Atom(a), Term::Atom(b)) => a == b,
        _ => false,
    };
    match cx.proc.ets_cache.take() {
        Some((k, t)) if same(&k) => Ok(Some(t)),
        _ => cx.rt.ets.resolve(tab),
    }
}

/// A table found through a stale reference: deleted since, or no longer
/// holding the name it was found by.
fn stale(st: &TableState, tab: &Term) -> bool {
    st.deleted || matches!(tab, Term::Atom(a) if !(st.named && st.name == *a))
}

/// Runs `f` on the table `tab` names, in this process's turn for it, and
/// reports the operation. `Ok(None)`: no such table (reported too); the
/// caller fails as BEAM does (`badarg`, or `undefined` for `info`).
pub(super) fn with_table<R>(
    cx: &mut Ctx,
    tab: &Term,
    op: Op<'_>,
    f: impl FnOnce(&mut Ctx, &Arc<Table>, &mut TableState) -> Result<R, Fault>,
) -> Result<Option<R>, Fault> {
    if !is_table_name(tab) {
        return Err(badarg());
    }
    let turn = cx.shared_turn(op.function, tab)?;
    cx.proc.placed_name = None;
    let (table, want) = match turn {
        SharedTurn::Now => match find(cx, tab)? {
            Some(t) => (t, None),
            None => return missing(cx, tab, &op),
        },
        SharedTurn::At { object, seq, name } => {
            match cx.rt.ets.by_id_or_await(object, cx.proc.pid) {
                Some(t) => {
                    cx.proc.placed_name = name;
                    (t, Some(seq))
                }
                None => return Err(Fault::Block),
            }
        }
        SharedTurn::Missing => return missing(cx, tab, &op),
    };
    let mut table = table;
    let mut st = table.lock();
    if want.is_none() && stale(&st, tab) {
        drop(st);
        table = match cx.rt.ets.resolve(tab)? {
            Some(t) => t,
            None => return missing(cx, tab, &op),
        };
        st = table.lock();
    }
    if st.deleted {
        drop(st);
        return missing(cx, tab, &op);
    }
    let Some(seq) = st.ops.take(want, cx.proc.pid) else {
        drop(st);
        cx.proc.ets_cache = Some((tab.clone(), table));
        return Err(Fault::Block);
    };
    cx.proc.placed = want.is_some();
    let r = f(cx, &table, &mut st);
    let name = st.named.then_some(st.name);
    let waiting = st.ops.wakeups();
    drop(st);
    let key = match op.key {
        Key::None => None,
        Key::Arg(k) => Some(k),
        Key::Of(obj) => element(obj, table.keypos),
    };
    cx.shared_done(
        &SharedOp {
            object: Some(table.id),
            name,
            access: op.access,
            function: op.function,
            target: tab,
            key,
            seq,
        },
        waiting,
    );
    cx.proc.ets_cache = Some((tab.clone(), table));
    r.map(Some)
}

/// Reports an operation that found no table.
fn missing<R>(cx: &mut Ctx, tab: &Term, op: &Op<'_>) -> Result<Option<R>, Fault> {
    let key = match op.key {
        Key::Arg(k) => Some(k),
        _ => None,
    };
    cx.shared_done(
        &SharedOp {
            object: None,
            name: tab.as_atom(),
            access: op.access,
            function: op.function,
            target: tab,
            key,
            seq: 0,
        },
        Vec::new(),
    );
    Ok(None)
}

/// [`with_table`] for calls that fail with `badarg` on a missing table.
pub(super) fn on_table<R>(
    cx: &mut Ctx,
    tab: &Term,
    op: Op<'_>,
    f: impl FnOnce(&mut Ctx, &Arc<Table>, &mut TableState) -> Result<R, Fault>,
) -> Result<R, Fault> {
    with_table(cx, tab, op, f)?.ok_or_else(badarg)
}
