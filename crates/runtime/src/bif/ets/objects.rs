//! Reading and writing objects by key: insert, insert_new, lookup,
//! lookup_element, member, delete/2, delete_object, delete_all_objects,
//! take, update_counter, update_element.

use super::{on_table, op, Key, Op};
use crate::bif::{Builder, Ctx};
use crate::ets::store::element;
use crate::ets::{update, Table};
use crate::exception::{badarg, BifResult, Fault};
use crate::shared::Access;
use trace_term::Term;

pub fn register(b: &mut Builder) {
    let m = "ets";
    b.proc(m, "insert", 2, |cx, a| insert(cx, a, false), 0);
    b.proc(m, "insert_new", 2, |cx, a| insert(cx, a, true), 0);
    b.proc(m, "lookup", 2, lookup, 0);
    b.proc(m, "lookup_element", 3, lookup_element, 0);
    b.proc(m, "member", 2, member, 0);
    b.proc(m, "delete", 2, delete_key, 0);
    b.proc(m, "delete_object", 2, delete_object, 0);
    b.proc(m, "delete_all_objects", 1, delete_all, 0);
    b.proc(m, "take", 2, take, 0);
    b.proc(
        m,
        "update_counter",
        3,
        |cx, a| update_counter(cx, a, None),
        0,
    );
    b.proc(
        m,
        "update_counter",
        4,
        |cx, a| update_counter(cx, a, Some(&a[3])),
        0,
    );
    b.proc(m, "update_element", 3, update_element, 0);
}

/// The objects of an insert: one tuple or a proper list of them, each with
/// at least `keypos` elements.
fn objects(arg: &Term, keypos: usize) -> Result<std::borrow::Cow<'_, [Term]>, Fault> {
    let objs = match arg {
        Term::Tuple(_) => std::borrow::Cow::Borrowed(std::slice::from_ref(arg)),
        _ => std::borrow::Cow::Owned(arg.to_vec().ok_or_else(badarg)?),
    };
    if objs.iter().all(|o| element(o, keypos).is_some()) {
        Ok(objs)
    } else {
        Err(badarg())
    }
}

fn insert(cx: &mut Ctx, a: &[Term], only_new: bool) -> BifResult {
    let (function, access) = if only_new {
        ("insert_new", Access::ReadWrite)
    } else {
        ("insert", Access::Write)
    };
    let key = match &a[1] {
        Term::Tuple(_) => Key::Of(&a[1]),
        _ => Key::None,
    };
    on_table(cx, &a[0], op(function, access, key), |cx, t, st| {
        st.check_write(cx.proc.pid)?;
        let objs = objects(&a[1], t.keypos)?;
        if only_new
            && objs
                .iter()
                .any(|o| element(o, t.keypos).is_some_and(|k| st.store.contains(k)))
        {
            return Ok(Term::FALSE);
        }
        st.store.insert(t.kind, t.keypos, &objs);
        Ok(Term::TRUE)
    })
}

fn lookup(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let key = &a[1];
    on_table(
        cx,
        &a[0],
        op("lookup", Access::Read, Key::Arg(key)),
        |cx, _, st| {
            st.check_read(cx.proc.pid)?;
            Ok(Term::list_from_iter(
                st.store.lookup(key).iter().cloned(),
                Term::Nil,
            ))
        },
    )
}

fn position(t: &Term) -> Result<usize, Fault> {
    match t {
        Term::Int(i) if *i >= 1 => Ok(*i as usize),
        _ => Err(badarg()),
    }
}

fn lookup_element(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let key = &a[1];
    let pos = position(&a[2])?;
    on_table(
        cx,
        &a[0],
        op("lookup_element", Access::Read, Key::Arg(key)),
        |cx, t, st| {
            st.check_read(cx.proc.pid)?;
            let objs = st.store.lookup(key);
            let values = objs
                .iter()
                .map(|o| element(o, pos).cloned().ok_or_else(badarg))
                .collect::<Result<Vec<_>, _>>()?;
            match values.len() {
                0 => Err(badarg()),
                1 if t.kind.is_set() => Ok(values.into_iter().next().unwrap_or(Term::Nil)),
                _ => Ok(Term::list(values)),
            }
        },
    )
}

fn member(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let key = &a[1];
    on_table(
        cx,
        &a[0],
        op("member", Access::Read, Key::Arg(key)),
        |cx, _, st| {
            st.check_read(cx.proc.pid)?;
            Ok(Term::bool(st.store.contains(key)))
        },
    )
}

fn delete_key(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let key = &a[1];
    on_table(
        cx,
        &a[0],
        op("delete", Access::Write, Key::Arg(key)),
        |cx, _, st| {
            st.check_write(cx.proc.pid)?;
            st.store.remove(key);
            Ok(Term::TRUE)
        },
    )
}

fn delete_object(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let obj = &a[1];
    on_table(
        cx,
        &a[0],
        op("delete_object", Access::Write, Key::Of(obj)),
        |cx, t, st| {
            st.check_write(cx.proc.pid)?;
            let key = element(obj, t.keypos).ok_or_else(badarg)?;
            st.store.remove_object(key, obj);
            Ok(Term::TRUE)
        },
    )
}

fn delete_all(cx: &mut Ctx, a: &[Term]) -> BifResult {
    on_table(
        cx,
        &a[0],
        Op::new("delete_all_objects", Access::Write),
        |cx, _, st| {
            st.check_write(cx.proc.pid)?;
            st.store.clear();
            Ok(Term::TRUE)
        },
    )
}

fn take(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let key = &a[1];
    on_table(
        cx,
        &a[0],
        op("take", Access::ReadWrite, Key::Arg(key)),
        |cx, _, st| {
            st.check_write(cx.proc.pid)?;
            Ok(Term::list(st.store.remove(key)))
        },
    )
}

/// `update_counter` and `update_element` work on sets and ordered sets only.
fn check_set(t: &Table) -> Result<(), Fault> {
    if t.kind.is_set() {
        Ok(())
    } else {
        Err(badarg())
    }
}

fn update_counter(cx: &mut Ctx, a: &[Term], default: Option<&Term>) -> BifResult {
    let key = &a[1];
    let spec = &a[2];
    let op = op("update_counter", Access::ReadWrite, Key::Arg(key));
    on_table(cx, &a[0], op, |cx, t, st| {
        st.check_write(cx.proc.pid)?;
        check_set(t)?;
        if let Some(old) = st.store.one_mut(key) {
            let (obj, result) = update::counter(old, spec, t.keypos)?;
            *old = obj;
            return Ok(result);
        }
        let d = default.ok_or_else(badarg)?;
        let start = update::default_object(d, key, t.keypos)?;
        let (obj, result) = update::counter(&start, spec, t.keypos)?;
        st.store
            .insert(t.kind, t.keypos, std::slice::from_ref(&obj));
        Ok(result)
    })
}

fn update_element(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let key = &a[1];
    let spec = &a[2];
    on_table(
        cx,
        &a[0],
        op("update_element", Access::ReadWrite, Key::Arg(key)),
        |cx, t, st| {
            st.check_write(cx.proc.pid)?;
            check_set(t)?;
            let Some(old) = st.store.lookup(key).first() else {
                return Ok(Term::FALSE);
            };
            let obj = update::element(old, spec, t.keypos)?;
            st.store.replace(key, obj);
            Ok(Term::TRUE)
        },
    )
}
