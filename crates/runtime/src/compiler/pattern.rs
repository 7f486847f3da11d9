//! Patterns compile into tests that fall through on success and branch to a
//! failure label, plus moves that bind variables. A variable already bound is
//! compared with `=:=` instead (Erlang's repeated-variable rule).

use super::builder::{FnBuilder, L};
use super::{binary, constant, records, CResult, ModuleCtx};
use crate::ir::{Cmp, Instr, Slot};
use trace_syntax::ast::{Expr, ExprKind, Pos};
use trace_term::Term;

/// Matches the value in `src` against pattern `p`, branching to `fail` on mismatch.
pub fn pattern(cx: &mut ModuleCtx, b: &mut FnBuilder, p: &Expr, src: Slot, fail: L) -> CResult<()> {
    let mark = b.mark();
    let r = pat(cx, b, p, src, fail);
    b.release(mark);
    r
}

/// Checks that a variable may be used here, returning its slot.
pub fn var_use(cx: &ModuleCtx, b: &FnBuilder, name: &str, pos: Pos) -> CResult<Slot> {
    let Some(s) = b.var_slot(name) else {
        return cx.err(pos, format!("variable '{name}' is unbound"));
    };
    if let Some(u) = b.state.unsafe_info(s) {
        return cx.err(
            pos,
            format!(
                "variable '{name}' unsafe in '{}' (line {}, column {})",
                u.construct, u.pos.line, u.pos.col
            ),
        );
    }
    if !b.state.is_bound(s) {
        return cx.err(pos, format!("variable '{name}' is unbound"));
    }
    Ok(s)
}

fn pat(cx: &mut ModuleCtx, b: &mut FnBuilder, p: &Expr, src: Slot, fail: L) -> CResult<()> {
    use ExprKind::*;
    b.set_pos(p.pos);
    let f = b.lab(fail);
    match &p.kind {
        Var(name) if name == "_" => Ok(()),
        Var(name) => {
            let Some(s) = b.var_slot(name) else {
                return cx.err(p.pos, format!("variable '{name}' is unbound"));
            };
            if let Some(u) = b.state.unsafe_info(s) {
                return cx.err(
                    p.pos,
                    format!(
                        "variable '{name}' unsafe in '{}' (line {}, column {})",
                        u.construct, u.pos.line, u.pos.col
                    ),
                );
            }
            if b.state.is_bound(s) {
                b.emit(Instr::Compare {
                    cmp: Cmp::ExactEq,
                    a: src,
                    b: s,
                    fail: f,
                });
            } else {
                b.emit(Instr::Move { dst: s, src });
                b.state.bind(s);
            }
            Ok(())
        }
        Match(a, c) => {
            pat(cx, b, a, src, fail)?;
            pat(cx, b, c, src, fail)
        }
        Tuple(ps) => {
            let arity = super::builder::pattern_arity(cx, ps.len(), "tuple", p.pos)?;
            b.emit(Instr::TestTuple {
                a: src,
                arity,
                fail: f,
            });
            for (i, sub) in ps.iter().enumerate() {
                element(cx, b, sub, src, i as u16, fail)?;
            }
            Ok(())
        }
        Cons(h, t) => {
            if let Some(c) = constant::constant(p) {
                return test_const(cx, b, c, src, fail);
            }
            // Fresh variables receive the head and tail directly.
            let (hd, hd_done) = fresh_slot(b, h);
            let (tl, tl_done) = fresh_slot(b, t);
            b.emit(Instr::SplitCons {
                src,
                hd,
                tl,
                fail: f,
            });
            if !hd_done {
                pat(cx, b, h, hd, fail)?;
            }
            if !tl_done {
                pat(cx, b, t, tl, fail)?;
            }
            Ok(())
        }
        BinOp(trace_syntax::ast::BinOp::Append, prefix, rest) => {
            // "abc" ++ Rest: a list of known elements followed by a pattern.
            let Some(items) = prefix_items(prefix) else {
                return cx.err(p.pos, "illegal pattern");
            };
            let mut cur = src;
            for item in items {
                let (hs, ts) = (b.temp(), b.temp());
                b.emit(Instr::SplitCons {
                    src: cur,
                    hd: hs,
                    tl: ts,
                    fail: f,
                });
                test_const(cx, b, item, hs, fail)?;
                cur = ts;
            }
            pat(cx, b, rest, cur, fail)
        }
        Map { base: None, assocs } => {
            b.emit(Instr::TestMap { a: src, fail: f });
            for a in assocs {
                if !a.exact {
                    return cx.err(a.pos, "illegal pattern");
                }
                let key = super::guard::guard_value(cx, b, &a.key, fail)?;
                let v = b.temp();
                b.emit(Instr::GetMapValue {
                    dst: v,
                    map: src,
                    key,
                    fail: f,
                });
                pat(cx, b, &a.value, v, fail)?;
            }
            Ok(())
        }
        Record {
            base: None,
            name,
            fields,
        } => {
            let d = records::def(cx, name, p.pos)?;
            let n = d.fields.len();
            let inits = records::field_inits(cx, name, fields, p.pos)?;
            let arity = super::builder::pattern_arity(cx, n + 1, "record", p.pos)?;
            b.emit(Instr::TestRecord {
                a: src,
                tag: trace_term::Atom::intern(name),
                arity,
                fail: f,
            });
            for (i, init) in inits.into_iter().enumerate() {
                if let Some(e) = init {
                    element(cx, b, e, src, i as u16 + 1, fail)?;
                }
            }
            Ok(())
        }
        RecordIndex { name, field } => {
            let i = records::field_index(cx, name, field, p.pos)?;
            test_const(cx, b, Term::Int(i as i64 + 2), src, fail)
        }
        Binary(segs) => binary::pattern(cx, b, segs, src, fail),
        _ => match constant::constant(p) {
            Some(c) => test_const(cx, b, c, src, fail),
            None => cx.err(p.pos, "illegal pattern"),
        },
    }
}

/// Where to put a value matched against `p`: the slot of a variable seen
/// for the first time (then bound, and `true`: nothing left to match), or a
/// fresh temporary to match `p` against afterwards.
pub(crate) fn fresh_slot(b: &mut FnBuilder, p: &Expr) -> (Slot, bool) {
    if let ExprKind::Var(n) = &p.kind {
        if n == "_" {
            return (b.temp(), true);
        }
        if let Some(s) = b.var_slot(n) {
            if !b.state.is_bound(s) && b.state.unsafe_info(s).is_none() {
                b.state.bind(s);
                return (s, true);
            }
        }
    }
    (b.temp(), false)
}

/// Matches element `idx` (0-based) of the tuple in `src` against `sub`.
fn element(
    cx: &mut ModuleCtx,
    b: &mut FnBuilder,
    sub: &Expr,
    src: Slot,
    idx: u16,
    fail: L,
) -> CResult<()> {
    if matches!(&sub.kind, ExprKind::Var(n) if n == "_") {
        return Ok(());
    }
    let (dst, done) = fresh_slot(b, sub);
    b.emit(Instr::GetElem { dst, src, idx });
    if done {
        Ok(())
    } else {
        pat(cx, b, sub, dst, fail)
    }
}

/// Tests `src =:= c` with the cheapest instruction.
fn test_const(cx: &mut ModuleCtx, b: &mut FnBuilder, c: Term, src: Slot, fail: L) -> CResult<()> {
    let f = b.lab(fail);
    match c {
        Term::Atom(atom) => b.emit(Instr::TestAtom {
            a: src,
            atom,
            fail: f,
        }),
        Term::Int(val) => b.emit(Instr::TestInt {
            a: src,
            val,
            fail: f,
        }),
        Term::Nil => b.emit(Instr::TestNil { a: src, fail: f }),
        other => {
            let lit = cx.literal(other);
            b.emit(Instr::TestLit {
                a: src,
                lit,
                fail: f,
            })
        }
    }
    Ok(())
}

/// The elements of a constant list prefix (`"abc" ++ _`, `[a, 1] ++ _`).
fn prefix_items(e: &Expr) -> Option<Vec<Term>> {
    match constant::constant(e)? {
        t @ (Term::Nil | Term::Cons(_)) => t.to_vec(),
        _ => None,
    }
}

/// Matches a clause head against the argument slots `0..n`. A pattern that is
/// just a variable seen for the first time (or one of `fresh`, names that
/// shadow captured variables) becomes an alias of its argument slot rather
/// than a copy. Returns the aliased names, to [`FnBuilder::unshadow`] after the clause.
pub fn head(
    cx: &mut ModuleCtx,
    b: &mut FnBuilder,
    patterns: &[Expr],
    fail: L,
    fresh: &[String],
) -> CResult<Vec<String>> {
    let mut aliased: Vec<String> = Vec::new();
    for (i, p) in patterns.iter().enumerate() {
        if alias_var(b, p, i as Slot, fresh, &mut aliased) {
            continue;
        }
        // `[H | T] = L` (or `L = [H | T]`): L names the argument slot too.
        if let ExprKind::Match(l, r) = &p.kind {
            if alias_var(b, r, i as Slot, fresh, &mut aliased) {
                pattern(cx, b, l, i as Slot, fail)?;
                continue;
            }
            if alias_var(b, l, i as Slot, fresh, &mut aliased) {
                pattern(cx, b, r, i as Slot, fail)?;
                continue;
            }
        }
        pattern(cx, b, p, i as Slot, fail)?;
    }
    Ok(aliased)
}

/// Makes `p`, if it is a variable seen for the first time (or one of
/// `fresh`), an alias of argument slot `slot`.
fn alias_var(
    b: &mut FnBuilder,
    p: &Expr,
    slot: Slot,
    fresh: &[String],
    aliased: &mut Vec<String>,
) -> bool {
    let ExprKind::Var(n) = &p.kind else {
        return false;
    };
    if n == "_" || aliased.contains(n) {
        return false;
    }
    let bound = b.var_slot(n).is_some_and(|s| b.state.is_bound(s));
    if bound && !fresh.contains(n) {
        return false;
    }
    b.alias(n, slot);
    aliased.push(n.clone());
    true
}
