//! `persistent_term`: put, get, erase and info on the run's one store of
//! terms ([`crate::shared::persistent`]). Every call is an operation on
//! that store, so its order among other processes' calls is recorded.

use super::{Builder, Ctx};
use crate::ets::key::ExactKey;
use crate::exception::{badarg, BifResult, Fault};
use crate::hooks::SharedTurn;
use crate::shared::persistent::Terms;
use crate::shared::{Access, SharedId, SharedOp};
use trace_term::order::compare;
use trace_term::{MapRepr, Term};

pub fn register(b: &mut Builder) {
    let m = "persistent_term";
    b.proc(m, "put", 2, put, 0);
    b.proc(m, "get", 1, |cx, a| get(cx, &a[0], None), 0);
    b.proc(m, "get", 2, |cx, a| get(cx, &a[0], Some(&a[1])), 0);
    b.proc(m, "get", 0, get_all, 0);
    b.proc(m, "erase", 1, erase, 0);
    b.proc(m, "info", 0, info, 0);
}

/// Runs `f` on the store in this process's turn and reports it.
fn on_store(
    cx: &mut Ctx,
    function: &'static str,
    access: Access,
    key: Option<&Term>,
    f: impl FnOnce(&mut Terms) -> BifResult,
) -> BifResult {
    let target = Term::Nil;
    let want = match cx.shared_turn(function, key.unwrap_or(&target))? {
        SharedTurn::At { seq, .. } => Some(seq),
        // The store always exists.
        SharedTurn::Now | SharedTurn::Missing => None,
    };
    let mut st = cx.rt.persistent.lock();
    let Some(seq) = st.ops.take(want, cx.proc.pid) else {
        return Err(Fault::Block);
    };
    let result = f(&mut st);
    let waiting = st.ops.wakeups();
    drop(st);
    cx.shared_done(
        &SharedOp {
            object: Some(SharedId::PERSISTENT_TERM),
            name: None,
            access,
            function,
            target: &target,
            key,
            seq,
        },
        waiting,
    );
    result
}

fn put(cx: &mut Ctx, a: &[Term]) -> BifResult {
    on_store(cx, "put", Access::Write, Some(&a[0]), |st| {
        st.map.insert(ExactKey(a[0].clone()), a[1].clone());
        Ok(Term::OK)
    })
}

fn get(cx: &mut Ctx, key: &Term, default: Option<&Term>) -> BifResult {
    on_store(cx, "get", Access::Read, Some(key), |st| {
        match (st.map.get(ExactKey::from_ref(key)), default) {
            (Some(v), _) => Ok(v.clone()),
            (None, Some(d)) => Ok(d.clone()),
            (None, None) => Err(badarg()),
        }
    })
}

/// Every `{Key, Value}`, in key order (BEAM: hash order).
fn get_all(cx: &mut Ctx, _: &[Term]) -> BifResult {
    on_store(cx, "get", Access::Read, None, |st| {
        let mut all: Vec<(&Term, &Term)> = st.map.iter().map(|(k, v)| (&k.0, v)).collect();
        all.sort_by(|x, y| compare(x.0, y.0));
        Ok(Term::list(
            all.into_iter()
                .map(|(k, v)| Term::tuple(vec![k.clone(), v.clone()]))
                .collect(),
        ))
    })
}

fn erase(cx: &mut Ctx, a: &[Term]) -> BifResult {
    on_store(cx, "erase", Access::ReadWrite, Some(&a[0]), |st| {
        Ok(Term::bool(
            st.map.remove(ExactKey::from_ref(&a[0])).is_some(),
        ))
    })
}

fn info(cx: &mut Ctx, _: &[Term]) -> BifResult {
    on_store(cx, "info", Access::Read, None, |st| {
        let words: usize = st
            .map
            .iter()
            .map(|(k, v)| 3 + flat_words(&k.0) + flat_words(v))
            .sum();
        let mut m = MapRepr::new();
        m.insert(Term::atom("count"), Term::Int(st.map.len() as i64));
        m.insert(Term::atom("memory"), Term::Int(8 * words as i64));
        Ok(Term::Map(trace_term::Arc::new(m)))
    })
}

/// A rough size of a term in words (for `info/0`'s memory figure).
fn flat_words(t: &Term) -> usize {
    match t {
        Term::Tuple(tp) => 1 + tp.elements().iter().map(flat_words).sum::<usize>(),
        Term::Cons(_) => t.list_iter().map(|e| 2 + flat_words(e)).sum(),
        Term::Binary(b) => 3 + b.byte_len().div_ceil(8),
        _ => 1,
    }
}
