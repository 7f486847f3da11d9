//! Tables as wholes: new, delete/1, rename, give_away, setopts,
//! safe_fixtable, info/1,2, whereis, all.

use super::{on_table, with_table, Op};
use crate::bif::processes::clock;
use crate::bif::{Builder, Ctx};
use crate::ets::owner::{self, transfer_message};
use crate::ets::table::{Spec, Tuning};
use crate::ets::{Kind, Protection, Table, TableState};
use crate::exception::{badarg, BifResult, Fault};
use crate::hooks::{NondetBif, SharedTurn};
use crate::sched::signals;
use crate::shared::{Access, SharedId, SharedKind, SharedOp};
use std::sync::Arc;
use trace_term::{atom, Atom, Pid, Term};

pub fn register(b: &mut Builder) {
    let m = "ets";
    b.proc(m, "new", 2, new, 0);
    b.proc(m, "delete", 1, delete, 0);
    b.proc(m, "rename", 2, rename, 0);
    b.proc(m, "give_away", 3, give_away, 0);
    b.proc(m, "setopts", 2, setopts, 0);
    b.proc(m, "safe_fixtable", 2, safe_fixtable, 0);
    b.proc(m, "info", 1, info_all, 0);
    b.proc(m, "info", 2, info_item, 0);
    b.proc(m, "whereis", 1, whereis, 0);
    b.proc(m, "all", 0, all, 0);
}

fn boolean(t: &Term) -> Result<bool, Fault> {
    match t {
        Term::Atom(atom::TRUE) => Ok(true),
        Term::Atom(atom::FALSE) => Ok(false),
        _ => Err(badarg()),
    }
}

/// `{heir, Pid, Data}` or `{heir, none}`.
fn heir(o: &[Term]) -> Result<Option<(Pid, Term)>, Fault> {
    match o {
        [_, Term::Atom(atom::NONE)] => Ok(None),
        [_, Term::Pid(p), data] => Ok(Some((*p, data.clone()))),
        _ => Err(badarg()),
    }
}

/// `ets:new/2`'s options; a later option of a kind overrides an earlier one.
fn spec(opts: &Term) -> Result<Spec, Fault> {
    let mut s = Spec {
        kind: Kind::Set,
        keypos: 1,
        protection: Protection::Protected,
        named: false,
        heir: None,
        tuning: Tuning {
            read_concurrency: false,
            write_concurrency: Term::FALSE,
            compressed: false,
            decentralized_counters: false,
        },
    };
    for o in opts.to_vec().ok_or_else(badarg)? {
        match &o {
            Term::Atom(a) => match a.name() {
                "set" => s.kind = Kind::Set,
                "ordered_set" => s.kind = Kind::OrderedSet,
                "bag" => s.kind = Kind::Bag,
                "duplicate_bag" => s.kind = Kind::DuplicateBag,
                "public" => s.protection = Protection::Public,
                "protected" => s.protection = Protection::Protected,
                "private" => s.protection = Protection::Private,
                "named_table" => s.named = true,
                "compressed" => s.tuning.compressed = true,
                _ => return Err(badarg()),
            },
            Term::Tuple(t) => match t.elements() {
                [Term::Atom(k), Term::Int(p)] if k.name() == "keypos" && *p >= 1 => {
                    s.keypos = *p as usize
                }
                [Term::Atom(k), v] if k.name() == "read_concurrency" => {
                    s.tuning.read_concurrency = boolean(v)?
                }
                [Term::Atom(k), v] if k.name() == "write_concurrency" => {
                    if !v.is_atom(Atom::intern("auto")) {
                        boolean(v)?;
                    }
                    s.tuning.write_concurrency = v.clone();
                }
                [Term::Atom(k), v] if k.name() == "decentralized_counters" => {
                    s.tuning.decentralized_counters = boolean(v)?
                }
                [Term::Atom(k), ..] if k.name() == "heir" => s.heir = heir(t.elements())?,
                _ => return Err(badarg()),
            },
            _ => return Err(badarg()),
        }
    }
    Ok(s)
}

fn new(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let Term::Atom(name) = a[0] else {
        return Err(badarg());
    };
    let spec = spec(&a[1])?;
    let turn = cx.shared_turn("new", &a[0])?;
    if turn == SharedTurn::Missing {
        return failed_new(cx, &a[0]);
    }
    let me = cx.proc.pid;
    let id = SharedId {
        kind: SharedKind::Table,
        creator: me,
        serial: cx.proc.made[0],
    };
    let named = spec.named.then_some(name);
    // The reference is made only once the name is known to be free, so a
    // failed call uses none up (as it makes no table).
    if named.is_some_and(|n| cx.rt.ets.resolve(&Term::Atom(n)).ok().flatten().is_some())
        && turn == SharedTurn::Now
    {
        return failed_new(cx, &a[0]);
    }
    let tid = cx.proc.make_ref();
    let table = Arc::new(Table::new(id, tid, name, me, spec));
    let seq = table.lock().ops.take(None, me).unwrap_or(0);
    let forced = matches!(turn, SharedTurn::At { .. });
    let Some(waiting) = cx.rt.ets.register(table.clone(), named, me, forced) else {
        // Another process took the name meanwhile.
        return failed_new(cx, &a[0]);
    };
    cx.proc.made[0] += 1;
    let result = table.lock().id_term(&table);
    cx.shared_done(
        &SharedOp {
            object: Some(id),
            name: named,
            access: Access::Create,
            function: "new",
            target: &a[0],
            key: None,
            seq,
        },
        waiting,
    );
    Ok(result)
}

/// `ets:new/2` with a name another table holds.
fn failed_new(cx: &mut Ctx, name: &Term) -> BifResult {
    cx.shared_done(
        &SharedOp {
            object: None,
            name: name.as_atom(),
            access: Access::Create,
            function: "new",
            target: name,
            key: None,
            seq: 0,
        },
        Vec::new(),
    );
    Err(badarg())
}

fn delete(cx: &mut Ctx, a: &[Term]) -> BifResult {
    on_table(cx, &a[0], Op::new("delete", Access::Delete), |cx, t, st| {
        if st.protection != Protection::Public {
            st.check_owner(cx.proc.pid)?;
        }
        owner::delete(cx.rt, t, st);
        Ok(Term::TRUE)
    })
}

fn rename(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let Term::Atom(new) = a[1] else {
        return Err(badarg());
    };
    on_table(cx, &a[0], Op::new("rename", Access::Write), |cx, t, st| {
        st.check_write(cx.proc.pid)?;
        // Replay: the recorded run refused this rename (the name was taken).
        if cx.proc.placed && cx.proc.placed_name.is_some_and(|n| n != new) {
            return Err(badarg());
        }
        if st.named && !cx.rt.ets.rename(t, st, new, cx.proc.placed) {
            return Err(badarg());
        }
        st.name = new;
        Ok(st.id_term(t))
    })
}

fn give_away(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let Term::Pid(to) = a[1] else {
        return Err(badarg());
    };
    let data = a[2].clone();
    let tab = on_table(
        cx,
        &a[0],
        Op::new("give_away", Access::Transfer),
        |cx, t, st| {
            let me = cx.proc.pid;
            st.check_owner(me)?;
            if to == me {
                return Err(badarg());
            }
            let rt = cx.rt;
            let alive = |cx: &mut Ctx| {
                let now = rt.table.get(to).is_some_and(|s| !s.is_exited());
                cx.decide(NondetBif::IsProcessAlive, Term::bool(now))
                    .is_ok_and(|v| v.is_atom(atom::TRUE))
            };
            if !rt.ets.transfer(t, me, to, || alive(cx)) {
                return Err(badarg());
            }
            st.owner = to;
            Ok(st.id_term(t))
        },
    )?;
    let msg = transfer_message(&tab, cx.proc.pid, data);
    signals::send_message(cx.proc, cx.rt, cx.wk, to, msg, None);
    Ok(Term::TRUE)
}

fn setopts(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let opts = match &a[1] {
        Term::Tuple(_) => vec![a[1].clone()],
        other => other.to_vec().ok_or_else(badarg)?,
    };
    let mut heirs = None;
    let mut protection = None;
    for o in &opts {
        match o.as_tuple() {
            Some(t @ [Term::Atom(k), ..]) if k.name() == "heir" => heirs = Some(heir(t)?),
            Some([Term::Atom(k), Term::Atom(p)]) if k.name() == "protection" => {
                protection = Some(match p.name() {
                    "public" => Protection::Public,
                    "protected" => Protection::Protected,
                    "private" => Protection::Private,
                    _ => return Err(badarg()),
                })
            }
            _ => return Err(badarg()),
        }
    }
    on_table(cx, &a[0], Op::new("setopts", Access::Write), |cx, _, st| {
        st.check_owner(cx.proc.pid)?;
        if let Some(h) = heirs {
            st.heir = h;
        }
        if let Some(p) = protection {
            st.protection = p;
        }
        Ok(Term::TRUE)
    })
}

fn safe_fixtable(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let fix = boolean(&a[1])?;
    let op = Op::new("safe_fixtable", Access::Write);
    on_table(cx, &a[0], op, |cx, t, st| {
        st.check_read(cx.proc.pid)?;
        let me = cx.proc.pid;
        match (fix, st.fixes.iter().position(|(p, _)| *p == me)) {
            (true, Some(i)) => st.fixes[i].1 += 1,
            (true, None) => {
                if st.fixes.is_empty() {
                    let mono = clock::monotonic_ns(cx.rt);
                    st.fixed_at = (clock::timestamp_now(), i64::try_from(mono).unwrap_or(0));
                }
                st.fixes.push((me, 1));
                cx.proc.ets_fixed.push(t.clone());
            }
            (false, Some(i)) => {
                st.fixes[i].1 -= 1;
                if st.fixes[i].1 == 0 {
                    st.fixes.remove(i);
                    cx.proc.ets_fixed.retain(|x| !Arc::ptr_eq(x, t));
                }
            }
            (false, None) => {}
        }
        let fixed = !st.fixes.is_empty();
        st.store.set_fixed(fixed);
        Ok(Term::TRUE)
    })
}

/// The items of `ets:info/1`, in BEAM's order.
const ITEMS: &[&str] = &[
    "id",
    "decentralized_counters",
    "read_concurrency",
    "write_concurrency",
    "compressed",
    "memory",
    "owner",
    "heir",
    "name",
    "size",
    "node",
    "named_table",
    "type",
    "keypos",
    "protection",
];

/// One `ets:info/2` item; `None` for an item BEAM does not have.
fn item(t: &Table, st: &TableState, name: &str) -> Option<Term> {
    Some(match name {
        "id" => Term::Ref(t.tid),
        "decentralized_counters" => Term::bool(t.tuning.decentralized_counters),
        "read_concurrency" => Term::bool(t.tuning.read_concurrency),
        "write_concurrency" => t.tuning.write_concurrency.clone(),
        "compressed" => Term::bool(t.tuning.compressed),
        "memory" => Term::Int(memory_words(t, st)),
        "owner" => Term::Pid(st.owner),
        "heir" => st
            .heir
            .as_ref()
            .map_or(Term::Atom(atom::NONE), |(p, _)| Term::Pid(*p)),
        "name" => Term::Atom(st.name),
        "size" => Term::Int(st.store.len() as i64),
        "node" => Term::Atom(atom::NONODE),
        "named_table" => Term::bool(st.named),
        "type" => Term::atom(t.kind.name()),
        "keypos" => Term::Int(t.keypos as i64),
        "protection" => Term::atom(st.protection.name()),
        "fixed" => Term::bool(!st.fixes.is_empty()),
        "safe_fixed" | "safe_fixed_monotonic_time" if st.fixes.is_empty() => Term::FALSE,
        "safe_fixed" | "safe_fixed_monotonic_time" => Term::tuple(vec![
            if name == "safe_fixed" {
                st.fixed_at.0.clone()
            } else {
                Term::Int(st.fixed_at.1)
            },
            Term::list(
                st.fixes
                    .iter()
                    .map(|(p, n)| Term::tuple(vec![Term::Pid(*p), Term::Int(*n as i64)]))
                    .collect(),
            ),
        ]),
        _ => return None,
    })
}

/// An estimate of the table's size in words (BEAM counts its own layout).
fn memory_words(t: &Table, st: &TableState) -> i64 {
    let base = if t.kind == Kind::OrderedSet { 147 } else { 305 };
    let mut words = base;
    st.store
        .for_each(|o| words += 4 + o.as_tuple().map_or(0, |e| e.len() as i64));
    words
}

fn info_all(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let r = with_table(cx, &a[0], Op::new("info", Access::Read), |_, t, st| {
        Ok(Term::list(
            ITEMS
                .iter()
                .filter_map(|i| Some(Term::tuple(vec![Term::atom(i), item(t, st, i)?])))
                .collect(),
        ))
    })?;
    Ok(r.unwrap_or(Term::UNDEFINED))
}

fn info_item(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let Term::Atom(it) = a[1] else {
        return Err(badarg());
    };
    match it.name() {
        "stats" | "binary" => {
            return Err(Fault::Unsupported(format!(
                "ets:info/2 item '{}' is not implemented by trace",
                it.name()
            )))
        }
        n if !ITEMS.contains(&n)
            && !matches!(n, "fixed" | "safe_fixed" | "safe_fixed_monotonic_time") =>
        {
            return Err(badarg())
        }
        _ => {}
    }
    let r = with_table(cx, &a[0], Op::new("info", Access::Read), |_, t, st| {
        item(t, st, it.name()).ok_or_else(badarg)
    })?;
    Ok(r.unwrap_or(Term::UNDEFINED))
}

fn whereis(cx: &mut Ctx, a: &[Term]) -> BifResult {
    if !matches!(a[0], Term::Atom(_)) {
        return Err(badarg());
    }
    let r = with_table(cx, &a[0], Op::new("whereis", Access::Read), |_, t, _| {
        Ok(Term::Ref(t.tid))
    })?;
    Ok(r.unwrap_or(Term::UNDEFINED))
}

fn all(cx: &mut Ctx, _: &[Term]) -> BifResult {
    let tables: Vec<Term> = cx
        .rt
        .ets
        .all()
        .iter()
        .filter_map(|t| {
            let st = t.lock();
            (!st.deleted).then(|| st.id_term(t))
        })
        .collect();
    cx.nondet(NondetBif::Other("ets:all"), Term::list(tables))
}
