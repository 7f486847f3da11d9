//! `atomics` and `counters`: arrays of 64-bit integers shared by reference
//! ([`crate::shared::arrays`]). Every call on an array is a shared-state
//! operation: its order among the array's operations is recorded.
//! A `counters` array is `{atomics, Ref}` or `{write_concurrency, Ref}`,
//! as on BEAM, and `Ref` is also an `atomics` reference.

use super::{Builder, Ctx};
use crate::exception::{badarg, error_atom, BifResult, Fault};
use crate::hooks::SharedTurn;
use crate::shared::arrays::{Array, ArrayState, MAX_ARITY};
use crate::shared::{Access, SharedId, SharedKind, SharedOp};
use num_bigint::BigInt;
use num_traits::ToPrimitive;
use std::sync::Arc;
use trace_term::{atom, MapRepr, Ref, Term};

pub fn register(b: &mut Builder) {
    let a = "atomics";
    b.proc(a, "new", 2, atomics_new, 0);
    b.proc(
        a,
        "get",
        2,
        |cx, x| {
            update(cx, &x[0], "get", &x[1], Access::Read, |_, v| {
                (v, UpdateResult::Value(v))
            })
        },
        0,
    );
    b.proc(a, "put", 3, |cx, x| put(cx, &x[0], "put", &x[1], &x[2]), 0);
    b.proc(
        a,
        "add",
        3,
        |cx, x| add(cx, &x[0], "add", &x[1], &x[2], false, false),
        0,
    );
    b.proc(
        a,
        "add_get",
        3,
        |cx, x| add(cx, &x[0], "add_get", &x[1], &x[2], false, true),
        0,
    );
    b.proc(
        a,
        "sub",
        3,
        |cx, x| add(cx, &x[0], "sub", &x[1], &x[2], true, false),
        0,
    );
    b.proc(
        a,
        "sub_get",
        3,
        |cx, x| add(cx, &x[0], "sub_get", &x[1], &x[2], true, true),
        0,
    );
    b.proc(a, "exchange", 3, exchange, 0);
    b.proc(a, "compare_exchange", 4, compare_exchange, 0);
    b.proc(a, "info", 1, |cx, x| info(cx, &x[0], false), 0);
    let c = "counters";
    b.proc(c, "new", 2, counters_new, 0);
    b.proc(
        c,
        "get",
        2,
        |cx, x| {
            update(cx, &x[0], "get", &x[1], Access::Read, |_, v| {
                (v, UpdateResult::Value(v))
            })
        },
        0,
    );
    b.proc(c, "put", 3, |cx, x| put(cx, &x[0], "put", &x[1], &x[2]), 0);
    b.proc(
        c,
        "add",
        3,
        |cx, x| add(cx, &x[0], "add", &x[1], &x[2], false, false),
        0,
    );
    b.proc(
        c,
        "sub",
        3,
        |cx, x| add(cx, &x[0], "sub", &x[1], &x[2], true, false),
        0,
    );
    b.proc(c, "info", 1, |cx, x| info(cx, &x[0], true), 0);
}

/// The reference of an `atomics` array or a `counters` tuple.
fn reference(t: &Term) -> Option<Ref> {
    match t {
        Term::Ref(r) => Some(*r),
        Term::Tuple(tp) => match tp.elements() {
            [Term::Atom(k), Term::Ref(r)]
                if matches!(k.name(), "atomics" | "write_concurrency") =>
            {
                Some(*r)
            }
            _ => None,
        },
        _ => None,
    }
}

fn arity(t: &Term) -> Result<usize, Fault> {
    match t {
        Term::Int(n) if *n >= 1 => {
            let n = *n as usize;
            if n > MAX_ARITY {
                return Err(error_atom(atom::SYSTEM_LIMIT));
            }
            Ok(n)
        }
        _ => Err(badarg()),
    }
}

/// Makes an array: `kind` and its serial among the caller's arrays of that
/// kind (`made[slot]`) give it its identity.
fn create(
    cx: &mut Ctx,
    kind: SharedKind,
    size: usize,
    signed: bool,
    wc: bool,
    arg: &Term,
) -> Result<Ref, Fault> {
    let turn = cx.shared_turn("new", arg)?;
    let slot = if kind == SharedKind::Atomics { 1 } else { 2 };
    let id = SharedId {
        kind,
        creator: cx.proc.pid,
        serial: cx.proc.made[slot],
    };
    if turn == SharedTurn::Missing {
        return Err(badarg());
    }
    cx.proc.made[slot] += 1;
    let r = cx.proc.make_ref();
    let array = Arc::new(Array::new(id, size, signed, wc));
    let seq = array.lock().ops.take(None, cx.proc.pid).unwrap_or(0);
    let waiting = cx.rt.arrays.add(r, array);
    cx.shared_done(
        &SharedOp {
            object: Some(id),
            name: None,
            access: Access::Create,
            function: "new",
            target: arg,
            key: None,
            seq,
        },
        waiting,
    );
    Ok(r)
}

fn atomics_new(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let size = arity(&a[0])?;
    let mut signed = true;
    for o in a[1].to_vec().ok_or_else(badarg)? {
        match o.as_tuple() {
            Some([Term::Atom(k), Term::Atom(v @ (atom::TRUE | atom::FALSE))])
                if k.name() == "signed" =>
            {
                signed = *v == atom::TRUE
            }
            _ => return Err(badarg()),
        }
    }
    Ok(Term::Ref(create(
        cx,
        SharedKind::Atomics,
        size,
        signed,
        false,
        &a[0],
    )?))
}

fn counters_new(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let size = arity(&a[0])?;
    let mut wc = false;
    for o in a[1].to_vec().ok_or_else(badarg)? {
        match o.as_atom().map(|x| x.name()) {
            Some("atomics") => wc = false,
            Some("write_concurrency") => wc = true,
            _ => return Err(badarg()),
        }
    }
    let r = create(cx, SharedKind::Counters, size, true, wc, &a[0])?;
    let tag = if wc { "write_concurrency" } else { "atomics" };
    Ok(Term::tuple(vec![Term::atom(tag), Term::Ref(r)]))
}

/// What an update returns.
enum UpdateResult {
    Ok,
    Value(u64),
}

/// Runs `f` on element `ix` of the array `target` names, in this process's
/// turn: `f` gets the array and the element's bits and returns the new
/// bits and what to return.
fn update(
    cx: &mut Ctx,
    target: &Term,
    function: &'static str,
    ix: &Term,
    access: Access,
    f: impl FnOnce(&Array, u64) -> (u64, UpdateResult),
) -> BifResult {
    on_array(cx, target, function, access, Some(ix), |a, st| {
        let i = index(ix, st)?;
        let (new, got) = f(a, st.values[i]);
        st.values[i] = new;
        Ok(match got {
            UpdateResult::Ok => Term::OK,
            UpdateResult::Value(bits) => int(a.value(bits)),
        })
    })
}

fn on_array(
    cx: &mut Ctx,
    target: &Term,
    function: &'static str,
    access: Access,
    key: Option<&Term>,
    f: impl FnOnce(&Array, &mut ArrayState) -> BifResult,
) -> BifResult {
    let r = reference(target).ok_or_else(badarg)?;
    let turn = cx.shared_turn(function, target)?;
    let (array, want) = match turn {
        SharedTurn::Now => match cx.rt.arrays.get(r) {
            Some(a) => (a, None),
            None => return missing(cx, target, function, access, key),
        },
        SharedTurn::At { object, seq, .. } => {
            match cx.rt.arrays.by_id_or_await(object, cx.proc.pid) {
                Some(a) => (a, Some(seq)),
                None => return Err(Fault::Block),
            }
        }
        SharedTurn::Missing => return missing(cx, target, function, access, key),
    };
    let mut st = array.lock();
    let Some(seq) = st.ops.take(want, cx.proc.pid) else {
        return Err(Fault::Block);
    };
    let result = f(&array, &mut st);
    let waiting = st.ops.wakeups();
    drop(st);
    cx.shared_done(
        &SharedOp {
            object: Some(array.id),
            name: None,
            access,
            function,
            target,
            key,
            seq,
        },
        waiting,
    );
    result
}

fn missing(
    cx: &mut Ctx,
    target: &Term,
    function: &'static str,
    access: Access,
    key: Option<&Term>,
) -> BifResult {
    cx.shared_done(
        &SharedOp {
            object: None,
            name: None,
            access,
            function,
            target,
            key,
            seq: 0,
        },
        Vec::new(),
    );
    Err(badarg())
}

fn index(ix: &Term, st: &ArrayState) -> Result<usize, Fault> {
    match ix {
        Term::Int(i) if *i >= 1 && (*i as u64) <= st.values.len() as u64 => Ok(*i as usize - 1),
        _ => Err(badarg()),
    }
}

fn wide(t: &Term) -> Option<i128> {
    match t {
        Term::Int(i) => Some(*i as i128),
        Term::Big(b) => b.to_i128(),
        _ => None,
    }
}

fn int(v: i128) -> Term {
    match i64::try_from(v) {
        Ok(i) => Term::Int(i),
        Err(_) => Term::from_bigint(BigInt::from(v)),
    }
}

/// A value an element of `a` can hold, as its bits; `badarg` otherwise.
fn bits_of(a: &Array, v: &Term) -> Result<u64, Fault> {
    let v = wide(v).ok_or_else(badarg)?;
    let (lo, hi) = a.range();
    if v < lo || v > hi {
        return Err(badarg());
    }
    Ok(v as u64)
}

fn put(cx: &mut Ctx, target: &Term, function: &'static str, ix: &Term, v: &Term) -> BifResult {
    let v = v.clone();
    on_array(cx, target, function, Access::Write, Some(ix), |a, st| {
        let i = index(ix, st)?;
        st.values[i] = bits_of(a, &v)?;
        Ok(Term::OK)
    })
}

/// `add`, `add_get`, `sub`, `sub_get`: the increment may be anything from
/// -2^63 to 2^64-1 (the decrement its negation), and the sum wraps.
fn add(
    cx: &mut Ctx,
    target: &Term,
    function: &'static str,
    ix: &Term,
    by: &Term,
    sub: bool,
    get: bool,
) -> BifResult {
    let by = wide(by).ok_or_else(badarg)?;
    let by = if sub { -by } else { by };
    if by < i64::MIN as i128 || by > u64::MAX as i128 {
        return Err(badarg());
    }
    let access = if get {
        Access::ReadWrite
    } else {
        Access::Write
    };
    update(cx, target, function, ix, access, |_, old| {
        let new = old.wrapping_add(by as u64);
        (
            new,
            if get {
                UpdateResult::Value(new)
            } else {
                UpdateResult::Ok
            },
        )
    })
}

fn exchange(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let v = a[2].clone();
    on_array(
        cx,
        &a[0],
        "exchange",
        Access::ReadWrite,
        Some(&a[1]),
        |arr, st| {
            let i = index(&a[1], st)?;
            let new = bits_of(arr, &v)?;
            let old = std::mem::replace(&mut st.values[i], new);
            Ok(int(arr.value(old)))
        },
    )
}

fn compare_exchange(cx: &mut Ctx, a: &[Term]) -> BifResult {
    on_array(
        cx,
        &a[0],
        "compare_exchange",
        Access::ReadWrite,
        Some(&a[1]),
        |arr, st| {
            let i = index(&a[1], st)?;
            let expected = bits_of(arr, &a[2])?;
            let desired = bits_of(arr, &a[3])?;
            let old = st.values[i];
            if old == expected {
                st.values[i] = desired;
                Ok(Term::OK)
            } else {
                Ok(int(arr.value(old)))
            }
        },
    )
}

fn info(cx: &mut Ctx, target: &Term, counters: bool) -> BifResult {
    on_array(cx, target, "info", Access::Read, None, |arr, st| {
        let size = st.values.len() as i128;
        let mut m = MapRepr::new();
        m.insert(Term::atom("size"), int(size));
        if counters && arr.write_concurrency {
            m.insert(Term::atom("memory"), int(160 + 64 * size));
        } else {
            let (lo, hi) = arr.range();
            m.insert(Term::atom("max"), int(hi));
            m.insert(Term::atom("min"), int(lo));
            m.insert(Term::atom("memory"), int(40 + 8 * size));
        }
        Ok(Term::Map(trace_term::Arc::new(m)))
    })
}
