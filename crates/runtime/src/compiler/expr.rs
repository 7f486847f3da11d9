//! Expressions: each compiles to code that leaves its value in a slot (or,
//! in tail position, returns it / tail-calls).

use super::builder::{self, FnBuilder};
use super::{binary, comprehension, constant, control, funs, pattern, records, CResult, ModuleCtx};
use crate::bif;
use crate::ir::{Entry, ErrKind, Instr, Op1, Op2, Slot, RAISE};
use trace_syntax::ast::{self, BinOp, Expr, ExprKind, Pos};
use trace_term::{Atom, Term};

/// Where an expression's value goes.
#[derive(Copy, Clone, Debug)]
pub enum Dest {
    /// The function returns it (calls become tail calls).
    Tail,
    Into(Slot),
    /// Evaluated for its effects only; the value is dropped.
    Effect,
}

/// A body `E1, ..., En`: earlier values are discarded, the last goes to `dest`.
pub fn body(cx: &mut ModuleCtx, b: &mut FnBuilder, es: &[Expr], dest: Dest) -> CResult<()> {
    let Some((last, init)) = es.split_last() else {
        return cx.err(Pos::default(), "empty body");
    };
    for e in init {
        let mark = b.mark();
        expr_dest(cx, b, e, Dest::Effect)?;
        b.release(mark);
    }
    expr_dest(cx, b, last, dest)
}

/// Compiles `e` so that its value ends up in `dst`.
pub fn expr_into(cx: &mut ModuleCtx, b: &mut FnBuilder, e: &Expr, dst: Slot) -> CResult<()> {
    expr_dest(cx, b, e, Dest::Into(dst))
}

/// Compiles `e` and returns a slot holding its value (a variable's own slot
/// when `e` is a variable: read it, never write it).
pub fn expr_any(cx: &mut ModuleCtx, b: &mut FnBuilder, e: &Expr) -> CResult<Slot> {
    if let ExprKind::Var(v) = &e.kind {
        if v != "_" {
            return pattern::var_use(cx, b, v, e.pos);
        }
    }
    let t = b.temp();
    expr_into(cx, b, e, t)?;
    Ok(t)
}

/// Puts the value in `src` where `dest` wants it.
pub fn deliver(b: &mut FnBuilder, src: Slot, dest: Dest) {
    match dest {
        Dest::Tail => b.emit(Instr::Return { src }),
        Dest::Into(dst) if dst != src => b.emit(Instr::Move { dst, src }),
        Dest::Into(_) | Dest::Effect => {}
    }
}

/// Computes a value with `into` into the slot it is given (`dest`'s own,
/// or a temporary) and delivers it to `dest`.
fn via_slot(
    b: &mut FnBuilder,
    dest: Dest,
    into: impl FnOnce(&mut FnBuilder, Slot) -> CResult<()>,
) -> CResult<()> {
    let t = target(b, dest);
    into(b, t)?;
    deliver(b, t, dest);
    Ok(())
}

/// The slot a non-tail computation should write into.
fn target(b: &mut FnBuilder, dest: Dest) -> Slot {
    match dest {
        Dest::Into(d) => d,
        Dest::Tail | Dest::Effect => b.temp(),
    }
}

pub fn expr_dest(cx: &mut ModuleCtx, b: &mut FnBuilder, e: &Expr, dest: Dest) -> CResult<()> {
    use ExprKind::*;
    b.set_pos(e.pos);
    if let Some(c) = constant::constant(e) {
        return via_slot(b, dest, |b, t| {
            load_const(cx, b, c, t);
            Ok(())
        });
    }
    match &e.kind {
        Var(v) => {
            if v == "_" {
                return cx.err(e.pos, "variable '_' is unbound");
            }
            let s = pattern::var_use(cx, b, v, e.pos)?;
            deliver(b, s, dest);
            Ok(())
        }
        Cons(..) => via_slot(b, dest, |b, t| list(cx, b, e, t)),
        Tuple(es) => via_slot(b, dest, |b, t| {
            let mark = b.mark();
            let start = builder::elements(cx, b, es.len(), ("a tuple", "elements"), e.pos)?;
            for (i, x) in es.iter().enumerate() {
                expr_into(cx, b, x, start + i as Slot)?;
            }
            b.set_pos(e.pos);
            b.emit(Instr::Tuple {
                dst: t,
                start,
                arity: es.len() as u16,
            });
            b.release(mark);
            Ok(())
        }),
        Map { base, assocs } => via_slot(b, dest, |b, t| {
            map(cx, b, base.as_deref(), assocs, t, e.pos)
        }),
        Record { base, name, fields } => via_slot(b, dest, |b, t| {
            record(cx, b, base.as_deref(), name, fields, t, e.pos)
        }),
        RecordIndex { name, field } => {
            let i = records::field_index(cx, name, field, e.pos)?;
            via_slot(b, dest, |b, t| {
                b.emit(Instr::Int {
                    dst: t,
                    val: i as i32 + 2,
                });
                Ok(())
            })
        }
        RecordField {
            expr: x,
            name,
            field,
        } => via_slot(b, dest, |b, t| {
            let mark = b.mark();
            let v = expr_any(cx, b, x)?;
            record_field(cx, b, v, name, field, t, e.pos)?;
            b.release(mark);
            Ok(())
        }),
        Binary(segs) => via_slot(b, dest, |b, t| binary::construct(cx, b, segs, t)),
        Match(p, x) => control::matching(cx, b, p, x, dest, e.pos),
        BinOp(op, l, r) => binop(cx, b, *op, l, r, dest, e.pos),
        UnOp(op, x) => via_slot(b, dest, |b, t| {
            let mark = b.mark();
            let v = expr_any(cx, b, x)?;
            let op = match op {
                trace_syntax::ast::UnOp::Neg => Op1::Neg,
                trace_syntax::ast::UnOp::Plus => Op1::Plus,
                trace_syntax::ast::UnOp::Bnot => Op1::Bnot,
                trace_syntax::ast::UnOp::Not => Op1::Not,
            };
            b.set_pos(e.pos);
            b.emit(Instr::Op1 {
                op,
                dst: t,
                a: v,
                fail: RAISE,
            });
            b.release(mark);
            Ok(())
        }),
        Call { fun, args } => call(cx, b, fun, args, dest, e.pos),
        Remote { .. } => cx.err(e.pos, "illegal expression"),
        Case { expr: x, clauses } => control::case(cx, b, x, clauses, dest, e.pos),
        If(clauses) => control::if_(cx, b, clauses, dest, e.pos),
        Receive { clauses, after } => control::receive(cx, b, clauses, after.as_ref(), dest, e.pos),
        Try {
            body: tb,
            of_clauses,
            catch_clauses,
            after,
        } => control::try_(cx, b, tb, of_clauses, catch_clauses, after, dest, e.pos),
        Catch(x) => control::catch(cx, b, x, dest, e.pos),
        Block(es) => body(cx, b, es, dest),
        Fun(f) => via_slot(b, dest, |b, t| funs::fun_expr(cx, b, f, t, e.pos)),
        ListComp {
            template,
            qualifiers,
        } => via_slot(b, dest, |b, t| {
            comprehension::list(cx, b, template, qualifiers, t, e.pos)
        }),
        BinComp {
            template,
            qualifiers,
        } => via_slot(b, dest, |b, t| {
            comprehension::binary(cx, b, template, qualifiers, t, e.pos)
        }),
        Atom(_) | Integer(_) | Float(_) | String(_) | Nil => {
            unreachable!("constants handled above")
        }
    }
}

/// Loads a constant with the cheapest instruction.
pub fn load_const(cx: &mut ModuleCtx, b: &mut FnBuilder, c: Term, dst: Slot) {
    match c {
        Term::Atom(atom) => b.emit(Instr::Atom { dst, atom }),
        Term::Nil => b.emit(Instr::Nil { dst }),
        Term::Int(i) if i32::try_from(i).is_ok() => b.emit(Instr::Int { dst, val: i as i32 }),
        other => {
            let lit = cx.literal(other);
            b.emit(Instr::Lit { dst, lit });
        }
    }
}

/// A list expression `[E1, ..., En | Tail]`, built without recursing on its length.
fn list(cx: &mut ModuleCtx, b: &mut FnBuilder, e: &Expr, dst: Slot) -> CResult<()> {
    let mut items = Vec::new();
    let mut cur = e;
    while let ExprKind::Cons(h, t) = &cur.kind {
        items.push(h.as_ref());
        cur = t;
    }
    let mark = b.mark();
    // Variables are read where they live; other elements go to temporaries,
    // evaluated left to right.
    let mut heads = Vec::with_capacity(items.len());
    for x in &items {
        heads.push(expr_any(cx, b, x)?);
    }
    let tail = expr_any(cx, b, cur)?;
    let acc = if items.len() > 1 { b.temp() } else { tail };
    b.set_pos(e.pos);
    for (i, &head) in heads.iter().enumerate().rev() {
        b.emit(Instr::Cons {
            dst: if i == 0 { dst } else { acc },
            head,
            tail: if i + 1 == heads.len() { tail } else { acc },
            take: 0,
        });
    }
    b.release(mark);
    Ok(())
}

fn map(
    cx: &mut ModuleCtx,
    b: &mut FnBuilder,
    base: Option<&Expr>,
    assocs: &[ast::MapAssoc],
    dst: Slot,
    pos: Pos,
) -> CResult<()> {
    let mark = b.mark();
    match base {
        None => {
            let start =
                builder::elements(cx, b, assocs.len() * 2, ("a map", "keys and values"), pos)?;
            for (i, a) in assocs.iter().enumerate() {
                if a.exact {
                    return cx.err(
                        a.pos,
                        "illegal map key in construction: ':=' needs an existing map",
                    );
                }
                expr_into(cx, b, &a.key, start + 2 * i as Slot)?;
                expr_into(cx, b, &a.value, start + 2 * i as Slot + 1)?;
            }
            b.set_pos(pos);
            b.emit(Instr::MapNew {
                dst,
                start,
                n: assocs.len() as u16,
            });
        }
        Some(base) => {
            let m = expr_any(cx, b, base)?;
            let start =
                builder::elements(cx, b, assocs.len() * 2, ("a map", "keys and values"), pos)?;
            for (i, a) in assocs.iter().enumerate() {
                expr_into(cx, b, &a.key, start + 2 * i as Slot)?;
                expr_into(cx, b, &a.value, start + 2 * i as Slot + 1)?;
            }
            b.set_pos(pos);
            let mut cur = m;
            for (i, a) in assocs.iter().enumerate() {
                b.emit(Instr::MapPut {
                    dst,
                    map: cur,
                    key: start + 2 * i as Slot,
                    val: start + 2 * i as Slot + 1,
                    exact: a.exact,
                    fail: RAISE,
                    take: false,
                });
                cur = dst;
            }
            if assocs.is_empty() {
                // `M#{}` only checks that M is a map.
                let ok = b.new_label();
                let bad = b.new_label();
                b.emit(Instr::TestMap {
                    a: m,
                    fail: b.lab(bad),
                });
                b.emit(Instr::Move { dst, src: m });
                b.emit(Instr::Jump { to: b.lab(ok) });
                b.bind_label(bad);
                b.emit(Instr::Error {
                    kind: ErrKind::Badmap,
                    val: m,
                });
                b.bind_label(ok);
            }
        }
    }
    b.release(mark);
    Ok(())
}

fn record(
    cx: &mut ModuleCtx,
    b: &mut FnBuilder,
    base: Option<&Expr>,
    name: &str,
    fields: &[ast::RecordFieldInit],
    dst: Slot,
    pos: Pos,
) -> CResult<()> {
    let def = records::def(cx, name, pos)?.clone();
    let inits = records::field_inits(cx, name, fields, pos)?;
    let n = def.fields.len();
    let mark = b.mark();
    let base_slot = match base {
        Some(x) => {
            let v = expr_any(cx, b, x)?;
            let ok = b.new_label();
            let bad = b.new_label();
            b.emit(Instr::TestRecord {
                a: v,
                tag: Atom::intern(name),
                arity: n as u16 + 1,
                fail: b.lab(bad),
            });
            b.emit(Instr::Jump { to: b.lab(ok) });
            b.bind_label(bad);
            badrecord(b, v);
            b.bind_label(ok);
            Some(v)
        }
        None => None,
    };
    let start = builder::elements(
        cx,
        b,
        n + 1,
        (&format!("a record #{name}{{}}"), "elements"),
        pos,
    )?;
    b.emit(Instr::Atom {
        dst: start,
        atom: Atom::intern(name),
    });
    for (i, init) in inits.iter().enumerate() {
        let slot = start + 1 + i as Slot;
        match (init, base_slot) {
            (Some(x), _) => expr_into(cx, b, x, slot)?,
            (None, Some(v)) => b.emit(Instr::GetElem {
                dst: slot,
                src: v,
                idx: i as u16 + 1,
            }),
            (None, None) => match &def.fields[i].default {
                Some(d) => expr_into(cx, b, d, slot)?,
                None => b.emit(Instr::Atom {
                    dst: slot,
                    atom: trace_term::atom::UNDEFINED,
                }),
            },
        }
    }
    b.set_pos(pos);
    b.emit(Instr::Tuple {
        dst,
        start,
        arity: n as u16 + 1,
    });
    b.release(mark);
    Ok(())
}

/// Raises `{badrecord, Value}` (OTP 25 reports the offending value).
pub fn badrecord(b: &mut FnBuilder, v: Slot) {
    b.emit(Instr::Error {
        kind: ErrKind::Badrecord,
        val: v,
    });
}

/// `V#name.field` into `dst`, raising `{badrecord, name}` when `V` is not such a record.
fn record_field(
    cx: &mut ModuleCtx,
    b: &mut FnBuilder,
    v: Slot,
    name: &str,
    field: &str,
    dst: Slot,
    pos: Pos,
) -> CResult<()> {
    let i = records::field_index(cx, name, field, pos)?;
    let n = records::def(cx, name, pos)?.fields.len();
    let ok = b.new_label();
    let bad = b.new_label();
    b.emit(Instr::TestRecord {
        a: v,
        tag: Atom::intern(name),
        arity: n as u16 + 1,
        fail: b.lab(bad),
    });
    b.emit(Instr::GetElem {
        dst,
        src: v,
        idx: i as u16 + 1,
    });
    b.emit(Instr::Jump { to: b.lab(ok) });
    b.bind_label(bad);
    badrecord(b, v);
    b.bind_label(ok);
    Ok(())
}

fn op2(op: BinOp) -> Op2 {
    match op {
        BinOp::Add => Op2::Add,
        BinOp::Sub => Op2::Sub,
        BinOp::Mul => Op2::Mul,
        BinOp::FDiv => Op2::FDiv,
        BinOp::IDiv => Op2::IDiv,
        BinOp::Rem => Op2::Rem,
        BinOp::Band => Op2::Band,
        BinOp::Bor => Op2::Bor,
        BinOp::Bxor => Op2::Bxor,
        BinOp::Bsl => Op2::Bsl,
        BinOp::Bsr => Op2::Bsr,
        BinOp::And => Op2::And,
        BinOp::Or => Op2::Or,
        BinOp::Xor => Op2::Xor,
        BinOp::Eq => Op2::Eq,
        BinOp::Neq => Op2::Neq,
        BinOp::ExactEq => Op2::ExactEq,
        BinOp::ExactNeq => Op2::ExactNeq,
        BinOp::Lt => Op2::Lt,
        BinOp::Le => Op2::Le,
        BinOp::Gt => Op2::Gt,
        BinOp::Ge => Op2::Ge,
        BinOp::Append => Op2::Append,
        BinOp::Subtract => Op2::Subtract,
        BinOp::AndAlso | BinOp::OrElse | BinOp::Send => unreachable!(),
    }
}

/// Converts a guard/expression operator to an [`Op2`] (public for guards).
pub fn arith_op(op: BinOp) -> Op2 {
    op2(op)
}

fn binop(
    cx: &mut ModuleCtx,
    b: &mut FnBuilder,
    op: BinOp,
    l: &Expr,
    r: &Expr,
    dest: Dest,
    pos: Pos,
) -> CResult<()> {
    match op {
        BinOp::AndAlso | BinOp::OrElse => control::short_circuit(cx, b, op, l, r, dest, pos),
        BinOp::Send => {
            let args = vec![l.clone(), r.clone()];
            call_bif(cx, b, "erlang", "send", &args, dest, pos)
        }
        _ => {
            // Result slots are taken after the operands, and constant
            // operands loaded last (they have no effects), so that nothing
            // holds a slot across a call in the other operand: a body
            // recursion such as `1 + depth(N - 1)` then needs a small frame.
            let mark = b.mark();
            // N + 1, N - 1, 1 + N: the immediate forms skip a slot load.
            let int = |e: &Expr| match constant::constant(e) {
                Some(Term::Int(k)) => i32::try_from(k).ok(),
                _ => None,
            };
            let imm = match op {
                BinOp::Add => int(r).map(|k| (l, k)).or_else(|| int(l).map(|k| (r, k))),
                BinOp::Sub => int(r).and_then(|k| k.checked_neg()).map(|k| (l, k)),
                _ => None,
            };
            if let Some((x, imm)) = imm {
                let a = expr_any(cx, b, x)?;
                let t = target(b, dest);
                b.set_pos(pos);
                b.emit(Instr::AddImm {
                    dst: t,
                    a,
                    imm,
                    fail: RAISE,
                });
                deliver(b, t, dest);
                b.release(mark);
                return Ok(());
            }
            let (a, c) = if constant::constant(l).is_some() && constant::constant(r).is_none() {
                let c = expr_any(cx, b, r)?;
                (expr_any(cx, b, l)?, c)
            } else {
                let a = expr_any(cx, b, l)?;
                (a, expr_any(cx, b, r)?)
            };
            let t = target(b, dest);
            b.set_pos(pos);
            b.emit(Instr::Op2 {
                op: op2(op),
                dst: t,
                a,
                b: c,
                fail: RAISE,
            });
            deliver(b, t, dest);
            b.release(mark);
            Ok(())
        }
    }
}

/// Evaluates `args` into consecutive fresh temporaries; returns the first.
pub fn args_into(cx: &mut ModuleCtx, b: &mut FnBuilder, args: &[Expr]) -> CResult<Slot> {
    let pos = args.first().map_or_else(Pos::default, |a| a.pos);
    let start = builder::elements(cx, b, args.len(), ("a call", "arguments"), pos)?;
    for (i, a) in args.iter().enumerate() {
        expr_into(cx, b, a, start + i as Slot)?;
    }
    Ok(start)
}

fn call(
    cx: &mut ModuleCtx,
    b: &mut FnBuilder,
    fun: &Expr,
    args: &[Expr],
    dest: Dest,
    pos: Pos,
) -> CResult<()> {
    let arity = args.len();
    if arity > 255 {
        return cx.unsupported(pos, "calls with more than 255 arguments");
    }
    match &fun.kind {
        ExprKind::Atom(name) => {
            if let Some(&id) = cx.functions.get(&(name.clone(), arity)) {
                return call_with_args(cx, b, CallKind::Local(id), args, dest, pos);
            }
            if let Some(m) = cx.imports.get(&(name.clone(), arity)).cloned() {
                return call_remote(cx, b, &m, name, args, dest, pos);
            }
            if bif::registry().autoimported(name, arity) {
                return call_bif(cx, b, "erlang", name, args, dest, pos);
            }
            if name == "record_info" && arity == 2 {
                let info = records::record_info(cx, &args[0], &args[1], pos)?;
                return via_slot(b, dest, |b, t| {
                    load_const(cx, b, info, t);
                    Ok(())
                });
            }
            if crate::otp::is_autoimported(name, arity as u32) {
                // erlc would call the BIF (e.g. spawn/4 on a node).
                return cx.unsupported(pos, format!("erlang:{name}/{arity}"));
            }
            cx.err(pos, format!("function {name}/{arity} undefined"))
        }
        ExprKind::Remote { module, function } => match (&module.kind, &function.kind) {
            (ExprKind::Atom(m), ExprKind::Atom(f)) => call_remote(cx, b, m, f, args, dest, pos),
            _ => {
                let mark = b.mark();
                let ms = b.temp();
                expr_into(cx, b, module, ms)?;
                let fs = b.temp();
                expr_into(cx, b, function, fs)?;
                let start = args_into(cx, b, args)?;
                b.set_pos(pos);
                emit_call(b, CallKind::Dyn(ms, fs), start, arity as u8, dest);
                b.release(mark);
                Ok(())
            }
        },
        _ => {
            let mark = b.mark();
            let fs = b.temp();
            expr_into(cx, b, fun, fs)?;
            let start = args_into(cx, b, args)?;
            b.set_pos(pos);
            emit_call(b, CallKind::Fun(fs), start, arity as u8, dest);
            b.release(mark);
            Ok(())
        }
    }
}

fn call_remote(
    cx: &mut ModuleCtx,
    b: &mut FnBuilder,
    m: &str,
    f: &str,
    args: &[Expr],
    dest: Dest,
    pos: Pos,
) -> CResult<()> {
    // Calls to our own module's functions go direct (as BEAM does for local
    // exported functions called remotely, minus hot code loading).
    let arity = args.len();
    if m == cx.name_str {
        if let Some(&id) = cx.functions.get(&(f.to_string(), arity)) {
            return call_with_args(cx, b, CallKind::Local(id), args, dest, pos);
        }
    }
    let ext = cx.ext(Atom::intern(m), Atom::intern(f), arity as u32, pos);
    call_with_args(cx, b, CallKind::Ext(ext), args, dest, pos)
}

/// A call to a function known at compile time: `args` evaluated into fresh
/// temporaries, left to right, then the call.
fn call_with_args(
    cx: &mut ModuleCtx,
    b: &mut FnBuilder,
    kind: CallKind,
    args: &[Expr],
    dest: Dest,
    pos: Pos,
) -> CResult<()> {
    let mark = b.mark();
    let start = args_into(cx, b, args)?;
    b.set_pos(pos);
    emit_call(b, kind, start, args.len() as u8, dest);
    b.release(mark);
    Ok(())
}

/// A call to a built-in known at compile time.
pub fn call_bif(
    cx: &mut ModuleCtx,
    b: &mut FnBuilder,
    m: &str,
    f: &str,
    args: &[Expr],
    dest: Dest,
    pos: Pos,
) -> CResult<()> {
    let Some(id) = bif::registry().lookup(m, f, args.len()) else {
        return call_remote(cx, b, m, f, args, dest, pos);
    };
    via_slot(b, dest, |b, t| {
        let mark = b.mark();
        let start = args_into(cx, b, args)?;
        b.set_pos(pos);
        b.emit(Instr::CallBif {
            bif: id,
            args: start,
            arity: args.len() as u8,
            dst: t,
            fail: RAISE,
        });
        b.release(mark);
        Ok(())
    })
}

enum CallKind {
    Local(u32),
    Ext(u32),
    Fun(Slot),
    Dyn(Slot, Slot),
}

fn emit_call(b: &mut FnBuilder, k: CallKind, args: Slot, arity: u8, dest: Dest) {
    let tail = matches!(dest, Dest::Tail) && b.protected == 0;
    if tail {
        b.emit(match k {
            CallKind::Local(fun) => Instr::TailCall {
                fun,
                args,
                arity,
                entry: Entry::UNLINKED,
            },
            CallKind::Ext(ext) => Instr::TailCallExt { ext, args, arity },
            CallKind::Fun(fun) => Instr::TailCallFun { fun, args, arity },
            CallKind::Dyn(module, function) => Instr::TailCallDyn {
                module,
                function,
                args,
                arity,
            },
        });
        return;
    }
    let dst = match dest {
        Dest::Into(d) => d,
        // Inside try/catch a call in tail position cannot be a tail call. The
        // result slot may sit above the arguments: it is written only after the
        // callee's window is gone.
        Dest::Tail | Dest::Effect => b.temp(),
    };
    b.emit(match k {
        CallKind::Local(fun) => Instr::Call {
            fun,
            args,
            arity,
            dst,
            entry: Entry::UNLINKED,
        },
        CallKind::Ext(ext) => Instr::CallExt {
            ext,
            args,
            arity,
            dst,
        },
        CallKind::Fun(fun) => Instr::CallFun {
            fun,
            args,
            arity,
            dst,
        },
        CallKind::Dyn(module, function) => Instr::CallDyn {
            module,
            function,
            args,
            arity,
            dst,
        },
    });
    if let Dest::Tail = dest {
        b.emit(Instr::Return { src: dst });
    }
}
