//! Control constructs: match, case, if, receive, try, catch, andalso/orelse.
//! Each tracks which variables it binds in every branch (then bound after
//! it) and which only in some (then unsafe, as erlc reports).

use super::builder::{BindState, FnBuilder};
use super::expr::{body, deliver, expr_any, expr_into, Dest};
use super::{guard, pattern, CResult, ModuleCtx};
use crate::ir::{Cmp, ErrKind, Instr, Slot, RAISE};
use trace_syntax::ast::{BinOp, CatchClause, Clause, Expr, ExprKind, Pos};
use trace_term::atom;

fn value_slot(b: &mut FnBuilder, dest: Dest) -> Slot {
    match dest {
        Dest::Into(d) => d,
        Dest::Tail | Dest::Effect => b.temp(),
    }
}

/// `Pattern = Expr`.
pub fn matching(
    cx: &mut ModuleCtx,
    b: &mut FnBuilder,
    p: &Expr,
    x: &Expr,
    dest: Dest,
    pos: Pos,
) -> CResult<()> {
    if let ExprKind::Var(name) = &p.kind {
        if let Some(s) = b.var_slot(name) {
            if name != "_" && !b.state.is_bound(s) && b.state.unsafe_info(s).is_none() {
                expr_into(cx, b, x, s)?;
                b.state.bind(s);
                deliver(b, s, dest);
                return Ok(());
            }
        }
    }
    let mark = b.mark();
    let v = b.temp();
    expr_into(cx, b, x, v)?;
    b.set_pos(pos);
    let fail = b.new_label();
    let ok = b.new_label();
    pattern::pattern(cx, b, p, v, fail)?;
    b.emit(Instr::Jump { to: b.lab(ok) });
    b.bind_label(fail);
    b.set_pos(pos);
    b.emit(Instr::Error {
        kind: ErrKind::Badmatch,
        val: v,
    });
    b.bind_label(ok);
    deliver(b, v, dest);
    b.release(mark);
    Ok(())
}

/// What a run of clauses matches against: a value, or (for `receive`) the
/// message under the cursor, which a matching clause must take out of the
/// mailbox before its body runs.
#[derive(Copy, Clone)]
struct Subject {
    slot: Slot,
    receive: bool,
}

impl Subject {
    fn value(slot: Slot) -> Subject {
        Subject {
            slot,
            receive: false,
        }
    }
}

/// Clauses with one pattern each (case, receive, try-of) matched against the
/// subject. Returns the binding state at the end of each clause body.
fn clauses(
    cx: &mut ModuleCtx,
    b: &mut FnBuilder,
    cs: &[Clause],
    subject: Subject,
    dest: Dest,
    end: super::builder::L,
    before: &BindState,
) -> CResult<Vec<BindState>> {
    let Subject { slot: v, receive } = subject;
    let mut states = Vec::new();
    for c in cs {
        b.state = before.clone();
        b.set_pos(c.pos);
        let next = b.new_label();
        if let Some(p) = c.patterns.first() {
            pattern::pattern(cx, b, p, v, next)?;
        }
        guard::guard_seq(cx, b, &c.guards, next)?;
        if receive {
            b.emit(Instr::RecvAccept);
        }
        body(cx, b, &c.body, dest)?;
        if !matches!(dest, Dest::Tail) {
            b.emit(Instr::Jump { to: b.lab(end) });
        }
        states.push(b.state.clone());
        b.bind_label(next);
    }
    Ok(states)
}

pub fn case(
    cx: &mut ModuleCtx,
    b: &mut FnBuilder,
    x: &Expr,
    cs: &[Clause],
    dest: Dest,
    pos: Pos,
) -> CResult<()> {
    if let Some(on) = compare_case(x, cs) {
        return case_of_compare(cx, b, on, cs, dest, pos);
    }
    let mark = b.mark();
    let v = expr_any(cx, b, x)?;
    let before = b.state.clone();
    let end = b.new_label();
    let states = clauses(cx, b, cs, Subject::value(v), dest, end, &before)?;
    b.set_pos(pos);
    b.emit(Instr::Error {
        kind: ErrKind::CaseClause,
        val: v,
    });
    b.bind_label(end);
    b.state = BindState::merge(&before, &states, "case", pos);
    b.release(mark);
    Ok(())
}

/// What [`case_of_compare`] branches on: the comparison with its operands,
/// turned so that it holds when the first clause runs.
struct CompareCase<'e> {
    cmp: Cmp,
    l: &'e Expr,
    r: &'e Expr,
}

/// `case A op B of true -> ...; false -> ... end` (either order, no
/// guards), `op` a comparison: what to branch on, else `None`.
fn compare_case<'e>(x: &'e Expr, cs: &[Clause]) -> Option<CompareCase<'e>> {
    let ExprKind::BinOp(op, l, r) = &x.kind else {
        return None;
    };
    let cmp = guard::cmp_of(*op)?;
    let boolean = |c: &Clause| match (c.patterns.as_slice(), c.guards.is_empty()) {
        ([p], true) => match &p.kind {
            ExprKind::Atom(a) if a == "true" => Some(true),
            ExprKind::Atom(a) if a == "false" => Some(false),
            _ => None,
        },
        _ => None,
    };
    let [first, second] = cs else {
        return None;
    };
    let (first, second) = (boolean(first)?, boolean(second)?);
    if first == second {
        return None;
    }
    let cmp = if first { cmp } else { negated(cmp) };
    Some(CompareCase { cmp, l, r })
}

/// The comparison that holds exactly when `cmp` does not (terms are totally
/// ordered).
fn negated(cmp: Cmp) -> Cmp {
    match cmp {
        Cmp::Eq => Cmp::Neq,
        Cmp::Neq => Cmp::Eq,
        Cmp::ExactEq => Cmp::ExactNeq,
        Cmp::ExactNeq => Cmp::ExactEq,
        Cmp::Lt => Cmp::Ge,
        Cmp::Ge => Cmp::Lt,
        Cmp::Le => Cmp::Gt,
        Cmp::Gt => Cmp::Le,
    }
}

/// A `case` on a comparison (see [`compare_case`]) as a branch on it, as a
/// guard's test is, not a boolean built and then tested against each
/// clause's atom: a comparison gives `true` or `false` and never fails, so
/// no `case_clause` can arise.
fn case_of_compare(
    cx: &mut ModuleCtx,
    b: &mut FnBuilder,
    on: CompareCase<'_>,
    cs: &[Clause],
    dest: Dest,
    pos: Pos,
) -> CResult<()> {
    let mark = b.mark();
    let x = expr_any(cx, b, on.l)?;
    let y = expr_any(cx, b, on.r)?;
    let before = b.state.clone();
    let (second, end) = (b.new_label(), b.new_label());
    b.set_pos(pos);
    b.emit(Instr::Compare {
        cmp: on.cmp,
        a: x,
        b: y,
        fail: b.lab(second),
    });
    let mut states = Vec::new();
    for (i, c) in cs.iter().enumerate() {
        b.state = before.clone();
        b.set_pos(c.pos);
        body(cx, b, &c.body, dest)?;
        if i == 0 && !matches!(dest, Dest::Tail) {
            b.emit(Instr::Jump { to: b.lab(end) });
        }
        states.push(b.state.clone());
        if i == 0 {
            b.bind_label(second);
        }
    }
    b.bind_label(end);
    b.state = BindState::merge(&before, &states, "case", pos);
    b.release(mark);
    Ok(())
}

pub fn if_(
    cx: &mut ModuleCtx,
    b: &mut FnBuilder,
    cs: &[Clause],
    dest: Dest,
    pos: Pos,
) -> CResult<()> {
    let before = b.state.clone();
    let end = b.new_label();
    let states = clauses(cx, b, cs, Subject::value(0), dest, end, &before)?;
    b.set_pos(pos);
    b.emit(Instr::Error {
        kind: ErrKind::IfClause,
        val: 0,
    });
    b.bind_label(end);
    b.state = BindState::merge(&before, &states, "if", pos);
    Ok(())
}

/// A variable bound before the receive that every clause's pattern uses, so
/// that no message without its value can match (see `Instr::RecvRef`).
fn needed_var(b: &FnBuilder, cs: &[Clause], before: &BindState) -> Option<Slot> {
    let bound_in = |c: &Clause| -> Vec<String> {
        c.patterns
            .first()
            .map(super::vars::pattern_names)
            .unwrap_or_default()
            .into_iter()
            .filter(|n| n != "_" && b.var_slot(n).is_some_and(|s| before.is_bound(s)))
            .collect()
    };
    let (first, rest) = cs.split_first()?;
    let rest: Vec<Vec<String>> = rest.iter().map(bound_in).collect();
    let name = bound_in(first)
        .into_iter()
        .find(|n| rest.iter().all(|names| names.contains(n)))?;
    b.var_slot(&name)
}

pub fn receive(
    cx: &mut ModuleCtx,
    b: &mut FnBuilder,
    cs: &[Clause],
    after: Option<&(Box<Expr>, Vec<Expr>)>,
    dest: Dest,
    pos: Pos,
) -> CResult<()> {
    let mark = b.mark();
    let timeout = match after {
        Some((t, _)) => {
            let s = b.temp();
            expr_into(cx, b, t, s)?;
            Some(s)
        }
        None => None,
    };
    let before = b.state.clone();
    let (lp, wait, end, after_l) = (b.new_label(), b.new_label(), b.new_label(), b.new_label());
    b.set_pos(pos);
    b.emit(Instr::RecvStart {
        after: if timeout.is_some() {
            b.lab(after_l)
        } else {
            RAISE
        },
    });
    if let Some(src) = needed_var(b, cs, &before) {
        b.emit(Instr::RecvRef { src });
    }
    b.bind_label(lp);
    let m = b.temp();
    b.emit(Instr::RecvPeek {
        dst: m,
        wait: b.lab(wait),
        filter: super::recv_filter::recv_filter(b, cs, &before),
    });
    let mut states = clauses(
        cx,
        b,
        cs,
        Subject {
            slot: m,
            receive: true,
        },
        dest,
        end,
        &before,
    )?;
    b.set_pos(pos);
    b.emit(Instr::RecvNext { lp: b.lab(lp) });
    b.bind_label(wait);
    match (timeout, after) {
        (Some(t), Some((_, after_body))) => {
            b.emit(Instr::RecvWaitTimeout {
                timeout: t,
                lp: b.lab(lp),
                after: b.lab(after_l),
            });
            b.bind_label(after_l);
            b.state = before.clone();
            body(cx, b, after_body, dest)?;
            states.push(b.state.clone());
        }
        _ => b.emit(Instr::RecvWait { lp: b.lab(lp) }),
    }
    b.bind_label(end);
    b.state = BindState::merge(&before, &states, "receive", pos);
    b.release(mark);
    Ok(())
}

#[allow(clippy::too_many_arguments)]
pub fn try_(
    cx: &mut ModuleCtx,
    b: &mut FnBuilder,
    tb: &[Expr],
    of: &[Clause],
    catches: &[CatchClause],
    after: &[Expr],
    dest: Dest,
    pos: Pos,
) -> CResult<()> {
    let mark = b.mark();
    let res = value_slot(b, dest);
    let before = b.state.clone();
    let has_after = !after.is_empty();
    let (h_after, done, end) = (b.new_label(), b.new_label(), b.new_label());
    let areg = b.temps(3);
    b.set_pos(pos);
    if has_after {
        b.emit(Instr::Try {
            handler: b.lab(h_after),
            reg: areg,
        });
        b.protected += 1;
    }
    let reg = b.temps(3);
    let h_catch = b.new_label();
    let has_catch = !catches.is_empty();
    if has_catch {
        b.emit(Instr::Try {
            handler: b.lab(h_catch),
            reg,
        });
        b.protected += 1;
    }
    let v = b.temp();
    body(cx, b, tb, Dest::Into(v))?;
    if has_catch {
        b.emit(Instr::TryEnd);
        b.protected -= 1;
    }
    let body_state = b.state.clone();
    let mut states = Vec::new();
    if of.is_empty() {
        b.emit(Instr::Move { dst: res, src: v });
        b.emit(Instr::Jump { to: b.lab(done) });
        states.push(body_state.clone());
    } else {
        states.extend(clauses(
            cx,
            b,
            of,
            Subject::value(v),
            Dest::Into(res),
            done,
            &body_state,
        )?);
        b.set_pos(pos);
        b.emit(Instr::Error {
            kind: ErrKind::TryClause,
            val: v,
        });
    }
    if has_catch {
        b.bind_label(h_catch);
        for c in catches {
            b.state = before.clone();
            b.set_pos(c.pos);
            let next = b.new_label();
            match &c.class {
                Some(cl) => pattern::pattern(cx, b, cl, reg, next)?,
                None => b.emit(Instr::TestAtom {
                    a: reg,
                    atom: atom::THROW,
                    fail: b.lab(next),
                }),
            }
            pattern::pattern(cx, b, &c.pattern, reg + 1, next)?;
            if let Some(st) = &c.stacktrace {
                if st != "_" {
                    let s = b.var_slot(st).expect("stacktrace variable has a slot");
                    if b.state.is_bound(s) {
                        return cx.err(
                            c.pos,
                            format!("stacktrace variable '{st}' must not be previously bound"),
                        );
                    }
                    b.emit(Instr::Move {
                        dst: s,
                        src: reg + 2,
                    });
                    b.state.bind(s);
                }
            }
            guard::guard_seq(cx, b, &c.guards, next)?;
            body(cx, b, &c.body, Dest::Into(res))?;
            b.emit(Instr::Jump { to: b.lab(done) });
            states.push(b.state.clone());
            b.bind_label(next);
        }
        b.emit(Instr::Raise { reg });
    }
    b.bind_label(done);
    if has_after {
        b.emit(Instr::TryEnd);
        b.protected -= 1;
        let t = b.temp();
        body(cx, b, after, Dest::Into(t))?;
        b.emit(Instr::Jump { to: b.lab(end) });
        b.bind_label(h_after);
        b.state = before.clone();
        let t2 = b.temp();
        body(cx, b, after, Dest::Into(t2))?;
        b.emit(Instr::Raise { reg: areg });
    }
    b.bind_label(end);
    // Nothing bound inside a try is usable after it (erlc: "unsafe in 'try'").
    let mut merged = BindState::merge(&before, &states, "try", pos);
    merged.make_new_unsafe(&before, "try", pos);
    b.state = merged;
    deliver(b, res, dest);
    b.release(mark);
    Ok(())
}

pub fn catch(cx: &mut ModuleCtx, b: &mut FnBuilder, x: &Expr, dest: Dest, pos: Pos) -> CResult<()> {
    let mark = b.mark();
    let t = value_slot(b, dest);
    let before = b.state.clone();
    let h = b.new_label();
    b.set_pos(pos);
    b.emit(Instr::Catch {
        handler: b.lab(h),
        dst: t,
    });
    b.protected += 1;
    expr_into(cx, b, x, t)?;
    b.emit(Instr::CatchEnd);
    b.protected -= 1;
    b.bind_label(h);
    b.state.make_new_unsafe(&before, "catch", pos);
    deliver(b, t, dest);
    b.release(mark);
    Ok(())
}

/// `A andalso B`, `A orelse B`: B is evaluated only when A does not decide;
/// A must be a boolean (`{badarg, A}` otherwise), B may be anything.
pub fn short_circuit(
    cx: &mut ModuleCtx,
    b: &mut FnBuilder,
    op: BinOp,
    l: &Expr,
    r: &Expr,
    dest: Dest,
    pos: Pos,
) -> CResult<()> {
    let mark = b.mark();
    let t = value_slot(b, dest);
    let a = expr_any(cx, b, l)?;
    let (decided, not_bool, end) = (b.new_label(), b.new_label(), b.new_label());
    let (go_on, stop) = if op == BinOp::AndAlso {
        (atom::TRUE, atom::FALSE)
    } else {
        (atom::FALSE, atom::TRUE)
    };
    b.set_pos(pos);
    b.emit(Instr::TestAtom {
        a,
        atom: go_on,
        fail: b.lab(decided),
    });
    let before = b.state.clone();
    expr_into(cx, b, r, t)?;
    let after_r = b.state.clone();
    b.emit(Instr::Jump { to: b.lab(end) });
    b.bind_label(decided);
    b.emit(Instr::TestAtom {
        a,
        atom: stop,
        fail: b.lab(not_bool),
    });
    b.emit(Instr::Atom { dst: t, atom: stop });
    b.emit(Instr::Jump { to: b.lab(end) });
    b.bind_label(not_bool);
    b.emit(Instr::Error {
        kind: ErrKind::BadBool,
        val: a,
    });
    b.bind_label(end);
    b.state = BindState::merge(
        &before,
        &[after_r, before.clone()],
        if op == BinOp::AndAlso {
            "andalso"
        } else {
            "orelse"
        },
        pos,
    );
    deliver(b, t, dest);
    b.release(mark);
    Ok(())
}
