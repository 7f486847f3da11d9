//! Guards: sequences of tests that never raise. Any failure inside a guard
//! (an exception from an operator or built-in, a non-`true` result) makes the
//! guard fail, so every instruction emitted here branches to a failure label
//! instead of raising. Only guard expressions are accepted, as in erlc.

use super::builder::{FnBuilder, L};
use super::expr::{arith_op, load_const};
use super::{constant, pattern, records, CResult, ModuleCtx};
use crate::bif;
use crate::ir::{Cmp, Instr, Op1, Slot, TypeTest};
use trace_syntax::ast::{BinOp, Expr, ExprKind, MapAssoc, Pos, UnOp};
use trace_term::{atom, Atom, Term};

/// `G1; G2; ...` where each `Gi` is `T1, T2, ...`: branches to `fail` unless some
/// alternative has all its tests true.
pub fn guard_seq(
    cx: &mut ModuleCtx,
    b: &mut FnBuilder,
    guards: &[Vec<Expr>],
    fail: L,
) -> CResult<()> {
    if guards.is_empty() {
        return Ok(());
    }
    let ok = b.new_label();
    for (i, alt) in guards.iter().enumerate() {
        let last = i + 1 == guards.len();
        let next = if last { fail } else { b.new_label() };
        for t in alt {
            let mark = b.mark();
            test(cx, b, t, next)?;
            b.release(mark);
        }
        if !last {
            b.emit(Instr::Jump { to: b.lab(ok) });
            b.bind_label(next);
        }
    }
    b.bind_label(ok);
    Ok(())
}

pub(super) fn cmp_of(op: BinOp) -> Option<Cmp> {
    Some(match op {
        BinOp::Eq => Cmp::Eq,
        BinOp::Neq => Cmp::Neq,
        BinOp::ExactEq => Cmp::ExactEq,
        BinOp::ExactNeq => Cmp::ExactNeq,
        BinOp::Lt => Cmp::Lt,
        BinOp::Le => Cmp::Le,
        BinOp::Gt => Cmp::Gt,
        BinOp::Ge => Cmp::Ge,
        _ => return None,
    })
}

/// `l cmp r` as `x cmp' imm` when one side is a small integer constant
/// (the comparison turned around when the constant is on the left).
/// Guards have no side effects, so the operands' order of evaluation does
/// not matter.
fn int_compare<'e>(cmp: Cmp, l: &'e Expr, r: &'e Expr) -> Option<(Cmp, &'e Expr, i32)> {
    let small = |e: &Expr| match constant::constant(e) {
        Some(Term::Int(i)) => i32::try_from(i).ok(),
        _ => None,
    };
    if let Some(imm) = small(r) {
        return Some((cmp, l, imm));
    }
    let turned = match cmp {
        Cmp::Lt => Cmp::Gt,
        Cmp::Le => Cmp::Ge,
        Cmp::Gt => Cmp::Lt,
        Cmp::Ge => Cmp::Le,
        symmetric => symmetric,
    };
    small(l).map(|imm| (turned, r, imm))
}

/// The type test a guard BIF name stands for.
pub fn type_test(name: &str, arity: usize) -> Option<TypeTest> {
    if arity != 1 {
        return None;
    }
    Some(match name {
        "is_integer" => TypeTest::Integer,
        "is_float" => TypeTest::Float,
        "is_number" => TypeTest::Number,
        "is_atom" => TypeTest::Atom,
        "is_boolean" => TypeTest::Boolean,
        "is_tuple" => TypeTest::Tuple,
        "is_list" => TypeTest::List,
        "is_map" => TypeTest::Map,
        "is_binary" => TypeTest::Binary,
        "is_bitstring" => TypeTest::Bitstring,
        "is_function" => TypeTest::Function,
        "is_pid" => TypeTest::Pid,
        "is_reference" => TypeTest::Reference,
        "is_port" => TypeTest::Port,
        _ => return None,
    })
}

/// The name of a guard call `f(...)` or `erlang:f(...)`.
fn guard_call_name(fun: &Expr) -> Option<&str> {
    match &fun.kind {
        ExprKind::Atom(n) => Some(n),
        ExprKind::Remote { module, function } => match (&module.kind, &function.kind) {
            (ExprKind::Atom(m), ExprKind::Atom(f)) if m == "erlang" => Some(f),
            _ => None,
        },
        _ => None,
    }
}

/// One guard test: falls through when `e` is `true`, branches to `fail` otherwise.
pub fn test(cx: &mut ModuleCtx, b: &mut FnBuilder, e: &Expr, fail: L) -> CResult<()> {
    b.set_pos(e.pos);
    let f = b.lab(fail);
    match &e.kind {
        ExprKind::Atom(a) if a == "true" => Ok(()),
        ExprKind::BinOp(op, l, r) if cmp_of(*op).is_some() => {
            if let Some((cmp, x, imm)) = int_compare(cmp_of(*op).unwrap(), l, r) {
                let a = guard_value(cx, b, x, fail)?;
                b.emit(Instr::CompareInt {
                    cmp,
                    a,
                    imm,
                    fail: f,
                });
                return Ok(());
            }
            let a = guard_value(cx, b, l, fail)?;
            let c = guard_value(cx, b, r, fail)?;
            b.emit(Instr::Compare {
                cmp: cmp_of(*op).unwrap(),
                a,
                b: c,
                fail: f,
            });
            Ok(())
        }
        ExprKind::BinOp(BinOp::AndAlso, l, r) => {
            test(cx, b, l, fail)?;
            test(cx, b, r, fail)
        }
        ExprKind::BinOp(BinOp::OrElse, l, r) => {
            let (right, ok) = (b.new_label(), b.new_label());
            test(cx, b, l, right)?;
            b.emit(Instr::Jump { to: b.lab(ok) });
            b.bind_label(right);
            test(cx, b, r, fail)?;
            b.bind_label(ok);
            Ok(())
        }
        ExprKind::UnOp(UnOp::Not, x) => {
            // `not X` is true when X is `false`; X must still be a boolean.
            let v = guard_value(cx, b, x, fail)?;
            b.emit(Instr::TestAtom {
                a: v,
                atom: atom::FALSE,
                fail: f,
            });
            Ok(())
        }
        ExprKind::Call { fun, args } => {
            let name = guard_call_name(fun);
            if let Some(t) = name.and_then(|n| type_test(n, args.len())) {
                let v = guard_value(cx, b, &args[0], fail)?;
                b.emit(Instr::TestType {
                    test: t,
                    a: v,
                    fail: f,
                });
                return Ok(());
            }
            if name == Some("is_function") && args.len() == 2 {
                let v = guard_value(cx, b, &args[0], fail)?;
                let n = guard_value(cx, b, &args[1], fail)?;
                b.emit(Instr::TestFunArity {
                    a: v,
                    arity: n,
                    fail: f,
                });
                return Ok(());
            }
            if name == Some("is_record") && (args.len() == 2 || args.len() == 3) {
                if let ExprKind::Atom(rec) = &args[1].kind {
                    let arity = match args.get(2).and_then(constant::constant) {
                        Some(Term::Int(n)) => n as u16,
                        Some(_) => return cx.err(e.pos, "illegal guard expression"),
                        None if args.len() == 3 => {
                            return cx.err(e.pos, "illegal guard expression")
                        }
                        None => records::def(cx, rec, args[1].pos)?.fields.len() as u16 + 1,
                    };
                    let v = guard_value(cx, b, &args[0], fail)?;
                    b.emit(Instr::TestRecord {
                        a: v,
                        tag: Atom::intern(rec),
                        arity,
                        fail: f,
                    });
                    return Ok(());
                }
            }
            is_true(cx, b, e, fail)
        }
        _ => is_true(cx, b, e, fail),
    }
}

/// The general test: `e`'s value must be the atom `true`.
fn is_true(cx: &mut ModuleCtx, b: &mut FnBuilder, e: &Expr, fail: L) -> CResult<()> {
    let v = guard_value(cx, b, e, fail)?;
    b.emit(Instr::TestAtom {
        a: v,
        atom: atom::TRUE,
        fail: b.lab(fail),
    });
    Ok(())
}

/// A test's outcome as a value: a fresh slot that holds `true` when the
/// code `emit_test` emits falls through, `false` when it branches to the
/// label it is given.
fn test_value(
    b: &mut FnBuilder,
    emit_test: impl FnOnce(&mut FnBuilder, L) -> CResult<()>,
) -> CResult<Slot> {
    let t = b.temp();
    let (no, end) = (b.new_label(), b.new_label());
    emit_test(b, no)?;
    b.emit(Instr::Atom {
        dst: t,
        atom: atom::TRUE,
    });
    b.emit(Instr::Jump { to: b.lab(end) });
    b.bind_label(no);
    b.emit(Instr::Atom {
        dst: t,
        atom: atom::FALSE,
    });
    b.bind_label(end);
    Ok(t)
}

/// Evaluates a guard expression into a slot; any error branches to `fail`.
pub fn guard_value(cx: &mut ModuleCtx, b: &mut FnBuilder, e: &Expr, fail: L) -> CResult<Slot> {
    b.set_pos(e.pos);
    if let Some(c) = constant::constant(e) {
        let t = b.temp();
        load_const(cx, b, c, t);
        return Ok(t);
    }
    let f = b.lab(fail);
    match &e.kind {
        ExprKind::Var(v) if v != "_" => pattern::var_use(cx, b, v, e.pos),
        ExprKind::Tuple(es) => {
            let start = super::builder::elements(cx, b, es.len(), ("a tuple", "elements"), e.pos)?;
            for (i, x) in es.iter().enumerate() {
                let v = guard_value(cx, b, x, fail)?;
                b.emit(Instr::Move {
                    dst: start + i as Slot,
                    src: v,
                });
            }
            let t = b.temp();
            b.emit(Instr::Tuple {
                dst: t,
                start,
                arity: es.len() as u16,
            });
            Ok(t)
        }
        ExprKind::Cons(h, tl) => {
            let hv = guard_value(cx, b, h, fail)?;
            let tv = guard_value(cx, b, tl, fail)?;
            let t = b.temp();
            b.emit(Instr::Cons {
                dst: t,
                head: hv,
                tail: tv,
                take: 0,
            });
            Ok(t)
        }
        ExprKind::Map { base, assocs } => guard_map(cx, b, base.as_deref(), assocs, e.pos, fail),
        ExprKind::RecordField { expr, name, field } => {
            guard_record_field(cx, b, expr, name, field, e.pos, fail)
        }
        ExprKind::RecordIndex { name, field } => {
            let i = records::field_index(cx, name, field, e.pos)?;
            let t = b.temp();
            b.emit(Instr::Int {
                dst: t,
                val: i as i32 + 2,
            });
            Ok(t)
        }
        ExprKind::Record { base: None, .. } => {
            // Record construction is allowed in guards when all values are guard expressions.
            let t = b.temp();
            super::expr::expr_into(cx, b, e, t)?;
            Ok(t)
        }
        ExprKind::BinOp(BinOp::AndAlso | BinOp::OrElse, _, _) => {
            test_value(b, |b, no| test(cx, b, e, no))
        }
        ExprKind::BinOp(BinOp::Send | BinOp::Append | BinOp::Subtract, ..) => {
            cx.err(e.pos, "illegal guard expression")
        }
        ExprKind::BinOp(op, l, r) => {
            let a = guard_value(cx, b, l, fail)?;
            let c = guard_value(cx, b, r, fail)?;
            let t = b.temp();
            b.set_pos(e.pos);
            b.emit(Instr::Op2 {
                op: arith_op(*op),
                dst: t,
                a,
                b: c,
                fail: f,
            });
            Ok(t)
        }
        ExprKind::UnOp(op, x) => {
            let a = guard_value(cx, b, x, fail)?;
            let t = b.temp();
            b.emit(Instr::Op1 {
                op: match op {
                    UnOp::Neg => Op1::Neg,
                    UnOp::Plus => Op1::Plus,
                    UnOp::Bnot => Op1::Bnot,
                    UnOp::Not => Op1::Not,
                },
                dst: t,
                a,
                fail: f,
            });
            Ok(t)
        }
        ExprKind::Call { fun, args } => guard_call(cx, b, e, fun, args, fail),
        ExprKind::Binary(_) => {
            let t = b.temp();
            super::binary::construct_guard(cx, b, e, t, fail)?;
            Ok(t)
        }
        _ => cx.err(e.pos, "illegal guard expression"),
    }
}

/// A map built or updated in a guard.
fn guard_map(
    cx: &mut ModuleCtx,
    b: &mut FnBuilder,
    base: Option<&Expr>,
    assocs: &[MapAssoc],
    pos: Pos,
    fail: L,
) -> CResult<Slot> {
    let f = b.lab(fail);
    let t = b.temp();
    match base {
        None => {
            let n = assocs.len() * 2;
            let start = super::builder::elements(cx, b, n, ("a map", "keys and values"), pos)?;
            for (i, a) in assocs.iter().enumerate() {
                let k = guard_value(cx, b, &a.key, fail)?;
                let v = guard_value(cx, b, &a.value, fail)?;
                b.emit(Instr::Move {
                    dst: start + 2 * i as Slot,
                    src: k,
                });
                b.emit(Instr::Move {
                    dst: start + 2 * i as Slot + 1,
                    src: v,
                });
            }
            b.emit(Instr::MapNew {
                dst: t,
                start,
                n: assocs.len() as u16,
            });
        }
        Some(m) => {
            let mut cur = guard_value(cx, b, m, fail)?;
            for a in assocs {
                let k = guard_value(cx, b, &a.key, fail)?;
                let v = guard_value(cx, b, &a.value, fail)?;
                b.emit(Instr::MapPut {
                    dst: t,
                    map: cur,
                    key: k,
                    val: v,
                    exact: a.exact,
                    fail: f,
                    take: false,
                });
                cur = t;
            }
        }
    }
    Ok(t)
}

/// `Expr#name.field` in a guard: fails unless `Expr` is such a record.
fn guard_record_field(
    cx: &mut ModuleCtx,
    b: &mut FnBuilder,
    expr: &Expr,
    name: &str,
    field: &str,
    pos: Pos,
    fail: L,
) -> CResult<Slot> {
    let f = b.lab(fail);
    let v = guard_value(cx, b, expr, fail)?;
    let i = records::field_index(cx, name, field, pos)?;
    let n = records::def(cx, name, pos)?.fields.len();
    b.emit(Instr::TestRecord {
        a: v,
        tag: Atom::intern(name),
        arity: n as u16 + 1,
        fail: f,
    });
    let t = b.temp();
    b.emit(Instr::GetElem {
        dst: t,
        src: v,
        idx: i as u16 + 1,
    });
    Ok(t)
}

/// A call in a guard: a type test, `is_record`/`is_function`, or a guard BIF.
fn guard_call(
    cx: &mut ModuleCtx,
    b: &mut FnBuilder,
    e: &Expr,
    fun: &Expr,
    args: &[Expr],
    fail: L,
) -> CResult<Slot> {
    let f = b.lab(fail);
    let Some(name) = guard_call_name(fun) else {
        return cx.err(e.pos, "illegal guard expression");
    };
    if let Some(tt) = type_test(name, args.len()) {
        // The argument's errors fail the guard; only the test gives false.
        let v = guard_value(cx, b, &args[0], fail)?;
        return test_value(b, |b, no| {
            b.emit(Instr::TestType {
                test: tt,
                a: v,
                fail: b.lab(no),
            });
            Ok(())
        });
    }
    if matches!(name, "is_record" | "is_function") {
        // Only the forms `test` compiles (a record named by an atom, a
        // fun's arity): any other would come back here through `is_true`.
        let compiled = match name {
            "is_record" => matches!(args.len(), 2 | 3) && matches!(args[1].kind, ExprKind::Atom(_)),
            _ => args.len() == 2,
        };
        if !compiled {
            return cx.err(e.pos, "illegal guard expression");
        }
        return test_value(b, |b, no| test(cx, b, e, no));
    }
    let reg = bif::registry();
    let Some(id) = reg
        .lookup("erlang", name, args.len())
        .filter(|&id| reg.def(id).guard)
    else {
        return cx.err(e.pos, "illegal guard expression");
    };
    let start = b.temps(args.len());
    for (i, a) in args.iter().enumerate() {
        let v = guard_value(cx, b, a, fail)?;
        b.emit(Instr::Move {
            dst: start + i as Slot,
            src: v,
        });
    }
    let t = b.temp();
    b.set_pos(e.pos);
    b.emit(Instr::CallBif {
        bif: id,
        args: start,
        arity: args.len() as u8,
        dst: t,
        fail: f,
    });
    Ok(t)
}
