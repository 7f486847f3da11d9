//! List and binary comprehensions, compiled inline as nested loops that
//! accumulate results in reverse and reverse them at the end (no recursion,
//! so a comprehension over a million elements needs no deep stack).
//! Generator patterns bind fresh variables that shadow outer ones; nothing
//! bound inside a comprehension is visible after it.

use super::builder::{FnBuilder, L};
use super::expr::{expr_any, expr_into};
use super::{binary, guard, pattern, vars, CResult, ModuleCtx};
use crate::bif;
use crate::ir::{ErrKind, Instr, Slot, RAISE};
use trace_syntax::ast::{Expr, ExprKind, Pos, Qualifier};
use trace_term::atom;

pub fn list(
    cx: &mut ModuleCtx,
    b: &mut FnBuilder,
    template: &Expr,
    qs: &[Qualifier],
    dst: Slot,
    pos: Pos,
) -> CResult<()> {
    comprehension(cx, b, template, qs, dst, pos, false)
}

pub fn binary(
    cx: &mut ModuleCtx,
    b: &mut FnBuilder,
    template: &Expr,
    qs: &[Qualifier],
    dst: Slot,
    pos: Pos,
) -> CResult<()> {
    comprehension(cx, b, template, qs, dst, pos, true)
}

fn comprehension(
    cx: &mut ModuleCtx,
    b: &mut FnBuilder,
    template: &Expr,
    qs: &[Qualifier],
    dst: Slot,
    pos: Pos,
    binary_result: bool,
) -> CResult<()> {
    let mark = b.mark();
    let before = b.state.clone();
    let acc = b.temp();
    // A binary template grows one binary; anything else is collected in a list.
    let grow = binary_result && matches!(template.kind, ExprKind::Binary(_));
    if grow {
        let empty = cx.literal(trace_term::Term::binary(&[]));
        b.emit(Instr::Lit {
            dst: acc,
            lit: empty,
        });
    } else {
        b.emit(Instr::Nil { dst: acc });
    }
    let end = b.new_label();
    quals(cx, b, template, qs, acc, end, grow)?;
    b.bind_label(end);
    b.set_pos(pos);
    if grow {
        b.emit(Instr::Move { dst, src: acc });
        b.state = before;
        b.release(mark);
        return Ok(());
    }
    let reverse = bif::registry()
        .lookup("lists", "reverse", 1)
        .expect("lists:reverse/1 is a built-in");
    let target = if binary_result { acc } else { dst };
    b.emit(Instr::CallBif {
        bif: reverse,
        args: acc,
        arity: 1,
        dst: target,
        fail: RAISE,
    });
    if binary_result {
        let concat = bif::registry()
            .lookup("erlang", "list_to_bitstring", 1)
            .expect("list_to_bitstring/1 is a built-in");
        b.emit(Instr::CallBif {
            bif: concat,
            args: acc,
            arity: 1,
            dst,
            fail: RAISE,
        });
    }
    b.state = before;
    b.release(mark);
    Ok(())
}

/// Compiles qualifiers from the first; `cont` is where to go for the next
/// iteration of the innermost enclosing generator (or the end).
#[allow(clippy::too_many_arguments)]
fn quals(
    cx: &mut ModuleCtx,
    b: &mut FnBuilder,
    template: &Expr,
    qs: &[Qualifier],
    acc: Slot,
    cont: L,
    grow: bool,
) -> CResult<()> {
    let Some((q, rest)) = qs.split_first() else {
        if let (true, ExprKind::Binary(segs)) = (grow, &template.kind) {
            // Innermost: append the template's segments to the result.
            binary::append(cx, b, acc, segs)?;
            b.emit(Instr::Jump { to: b.lab(cont) });
            return Ok(());
        }
        // Innermost: push the template's value.
        let mark = b.mark();
        let v = expr_any(cx, b, template)?;
        b.emit(Instr::Cons {
            dst: acc,
            head: v,
            tail: acc,
            take: 0,
        });
        b.emit(Instr::Jump { to: b.lab(cont) });
        b.release(mark);
        return Ok(());
    };
    match q {
        Qualifier::Generator {
            pos,
            pattern: pat,
            list,
        } => {
            let mark = b.mark();
            let cur = b.temp();
            expr_into(cx, b, list, cur)?;
            let (lp, check_end, bad, done) =
                (b.new_label(), b.new_label(), b.new_label(), b.new_label());
            in_pattern_scope(b, pat, |b| {
                // A plain variable pattern receives each element directly.
                let (h, matched) = match &pat.kind {
                    ExprKind::Var(n) if n != "_" => {
                        let s = b.var_slot(n).expect("shadowed above");
                        b.state.bind(s);
                        (s, true)
                    }
                    _ => (b.temp(), false),
                };
                b.bind_label(lp);
                b.set_pos(*pos);
                // The tail replaces the list being walked (SplitCons reads both
                // halves before writing either).
                b.emit(Instr::SplitCons {
                    src: cur,
                    hd: h,
                    tl: cur,
                    fail: b.lab(check_end),
                });
                if !matched {
                    pattern::pattern(cx, b, pat, h, lp)?;
                }
                quals(cx, b, template, rest, acc, lp, grow)
            })?;
            b.bind_label(check_end);
            b.emit(Instr::TestNil {
                a: cur,
                fail: b.lab(bad),
            });
            b.emit(Instr::Jump { to: b.lab(done) });
            generator_end(b, bad, cur, done, cont);
            b.release(mark);
            Ok(())
        }
        Qualifier::BitGenerator {
            pos,
            pattern: pat,
            binary: bin,
        } => {
            let ExprKind::Binary(segs) = &pat.kind else {
                return cx.err(pat.pos, "illegal pattern in bit generator");
            };
            let mark = b.mark();
            let src = b.temp();
            expr_into(cx, b, bin, src)?;
            let at = b.temp();
            let (lp, bad, done) = (b.new_label(), b.new_label(), b.new_label());
            b.set_pos(*pos);
            b.emit(Instr::BsStart {
                src,
                pos: at,
                fail: b.lab(bad),
            });
            b.bind_label(lp);
            in_pattern_scope(b, pat, |b| {
                // When the remaining bits do not match, the generator is exhausted.
                binary::segments(cx, b, segs, src, at, done)?;
                quals(cx, b, template, rest, acc, lp, grow)
            })?;
            generator_end(b, bad, src, done, cont);
            b.release(mark);
            Ok(())
        }
        Qualifier::Filter(e) => {
            let mark = b.mark();
            if is_guard(e) {
                guard::test(cx, b, e, cont)?;
            } else {
                let v = b.temp();
                expr_into(cx, b, e, v)?;
                let (not_true, bad) = (b.new_label(), b.new_label());
                b.emit(Instr::TestAtom {
                    a: v,
                    atom: atom::TRUE,
                    fail: b.lab(not_true),
                });
                let inner_mark = b.mark();
                b.release(inner_mark);
                let after_true = b.new_label();
                b.emit(Instr::Jump {
                    to: b.lab(after_true),
                });
                b.bind_label(not_true);
                b.emit(Instr::TestAtom {
                    a: v,
                    atom: atom::FALSE,
                    fail: b.lab(bad),
                });
                b.emit(Instr::Jump { to: b.lab(cont) });
                b.bind_label(bad);
                b.emit(Instr::Error {
                    kind: ErrKind::BadFilter,
                    val: v,
                });
                b.bind_label(after_true);
            }
            quals(cx, b, template, rest, acc, cont, grow)?;
            b.release(mark);
            Ok(())
        }
    }
}

/// Compiles `inner` with the variables of a generator's pattern fresh (they
/// shadow the outer ones of the same names), and forgets them after it: a
/// generator binds them anew for each element.
fn in_pattern_scope(
    b: &mut FnBuilder,
    pat: &Expr,
    inner: impl FnOnce(&mut FnBuilder) -> CResult<()>,
) -> CResult<()> {
    let state = b.state.clone();
    let names = vars::pattern_names(pat);
    for n in &names {
        b.shadow(n);
    }
    inner(b)?;
    for n in &names {
        b.unshadow(n);
    }
    b.state = state;
    Ok(())
}

/// A generator's exits: at `bad`, its source `src` was no list (binary);
/// at `done`, it is exhausted and the enclosing loop goes on at `cont`.
fn generator_end(b: &mut FnBuilder, bad: L, src: Slot, done: L, cont: L) {
    b.bind_label(bad);
    b.emit(Instr::Error {
        kind: ErrKind::BadGenerator,
        val: src,
    });
    b.bind_label(done);
    b.emit(Instr::Jump { to: b.lab(cont) });
}

/// True if `e` can be compiled as a guard test (then exceptions mean "false",
/// as for guard filters in Erlang).
fn is_guard(e: &Expr) -> bool {
    use ExprKind::*;
    match &e.kind {
        Var(_) | Atom(_) | Integer(_) | Float(_) | String(_) | Nil | RecordIndex { .. } => true,
        Cons(h, t) => is_guard(h) && is_guard(t),
        Tuple(es) => es.iter().all(is_guard),
        BinOp(op, l, r) => {
            !matches!(
                op,
                trace_syntax::ast::BinOp::Send
                    | trace_syntax::ast::BinOp::Append
                    | trace_syntax::ast::BinOp::Subtract
            ) && is_guard(l)
                && is_guard(r)
        }
        UnOp(_, x) => is_guard(x),
        RecordField { expr, .. } => is_guard(expr),
        Call { fun, args } => {
            let name = match &fun.kind {
                Atom(n) => Some(n.as_str()),
                Remote { module, function } => match (&module.kind, &function.kind) {
                    (Atom(m), Atom(f)) if m == "erlang" => Some(f.as_str()),
                    _ => None,
                },
                _ => None,
            };
            let Some(name) = name else { return false };
            let guard_bif = guard::type_test(name, args.len()).is_some()
                || matches!(name, "is_record" | "is_function")
                || bif::registry()
                    .lookup("erlang", name, args.len())
                    .is_some_and(|id| bif::registry().def(id).guard);
            guard_bif && args.iter().all(is_guard)
        }
        _ => false,
    }
}
