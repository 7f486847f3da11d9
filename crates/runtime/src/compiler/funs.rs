//! `fun` expressions. A fun's clauses are lifted into a function of their
//! own (named as BEAM names them, `-f/1-fun-0-`); the closure value carries
//! the captured variables, which the VM places after the arguments.
//!
//! Window of a lifted fun: `[arguments | captured values | itself (named funs) | variables | temps]`.

use super::builder::FnBuilder;
use super::expr::{body, load_const, Dest};
use super::{constant, guard, new_builder, pattern, vars, CResult, ModuleCtx};
use crate::code::ClosureInfo;
use crate::ir::{ErrKind, Instr, Slot};
use trace_syntax::ast::{Clause, ExprKind, FunExpr, Pos};
use trace_term::{Atom, Fun, Term};

pub fn fun_expr(
    cx: &mut ModuleCtx,
    b: &mut FnBuilder,
    f: &FunExpr,
    dst: Slot,
    pos: Pos,
) -> CResult<()> {
    match f {
        FunExpr::Local { name, arity } => {
            let Some(&id) = cx.functions.get(&(name.clone(), *arity)) else {
                // `fun is_integer/1` names the auto-imported BIF (an external fun).
                if crate::bif::registry().autoimported(name, *arity) {
                    let t = Term::Fun(trace_term::Arc::new(Fun::External {
                        module: trace_term::atom::ERLANG,
                        function: Atom::intern(name),
                        arity: *arity as u32,
                    }));
                    load_const(cx, b, t, dst);
                    return Ok(());
                }
                return cx.err(pos, format!("function {name}/{arity} undefined"));
            };
            let index = cx.fun_counter;
            cx.fun_counter += 1;
            cx.closures.push(ClosureInfo {
                code: id,
                module: cx.name,
                index,
                uniq: cx.uniq,
                arity: *arity as u32,
                nfree: 0,
                named: false,
            });
            b.emit(Instr::MakeFun {
                dst,
                fun: cx.closures.len() as u32 - 1,
                start: 0,
                nfree: 0,
            });
            Ok(())
        }
        FunExpr::Remote {
            module,
            function,
            arity,
        } => {
            if let (Some(Term::Atom(m)), Some(Term::Atom(fun)), Some(Term::Int(a))) = (
                constant::constant(module),
                constant::constant(function),
                constant::constant(arity),
            ) {
                if (0..=255).contains(&a) {
                    let t = Term::Fun(trace_term::Arc::new(Fun::External {
                        module: m,
                        function: fun,
                        arity: a as u32,
                    }));
                    load_const(cx, b, t, dst);
                    return Ok(());
                }
            }
            let args = vec![(**module).clone(), (**function).clone(), (**arity).clone()];
            super::expr::call_bif(cx, b, "erlang", "make_fun", &args, Dest::Into(dst), pos)
        }
        FunExpr::Clauses { name, clauses } => closure(cx, b, name.as_deref(), clauses, dst, pos),
    }
}

fn closure(
    cx: &mut ModuleCtx,
    b: &mut FnBuilder,
    self_name: Option<&str>,
    clauses: &[Clause],
    dst: Slot,
    pos: Pos,
) -> CResult<()> {
    let arity = clauses.first().map(|c| c.patterns.len()).unwrap_or(0);
    if let Some(c) = clauses.iter().find(|c| c.patterns.len() != arity) {
        return cx.err(c.pos, "head mismatch");
    }
    // Captured: names the fun uses that are bound here.
    let mut free: Vec<(String, Slot)> = Vec::new();
    for n in vars::fun_free_names(clauses, self_name) {
        if let Some(s) = b.var_slot(&n) {
            if b.state.is_bound(s) {
                free.push((n, s));
            } else if let Some(u) = b.state.unsafe_info(s) {
                // Using an unsafe variable inside the fun is the same error as outside.
                let _ = u;
                pattern::var_use(cx, b, &n, pos)?;
            }
        }
    }
    let index = cx.fun_counter;
    cx.fun_counter += 1;
    let (outer_name, outer_arity) = cx.current.clone();
    let lifted_name = Atom::intern(&format!("-{outer_name}/{outer_arity}-fun-{index}-"));

    let mut names: Vec<String> = free.iter().map(|(n, _)| n.clone()).collect();
    if let Some(sn) = self_name {
        names.push(sn.to_string());
    }
    names.extend(vars::clause_names(clauses));
    let mut ib = new_builder(cx, arity, &names, pos)?;
    ib.set_pos(pos);
    for (n, _) in &free {
        let s = ib.var_slot(n).expect("captured variable has a slot");
        ib.state.bind(s);
    }
    if let Some(sn) = self_name {
        let s = ib.var_slot(sn).expect("fun name has a slot");
        ib.state.bind(s);
    }
    let initial = ib.state.clone();
    for c in clauses {
        ib.state = initial.clone();
        ib.set_pos(c.pos);
        // Head variables shadow captured ones of the same name within this clause.
        let captured: Vec<String> = free
            .iter()
            .map(|(f, _)| f.clone())
            .chain(self_name.map(str::to_string))
            .collect();
        let mut shadowed = Vec::new();
        for p in &c.patterns {
            if matches!(p.kind, ExprKind::Var(_)) {
                continue; // simple head variables alias their argument slot
            }
            for n in vars::pattern_names(p) {
                if captured.contains(&n) && !shadowed.contains(&n) {
                    ib.shadow(&n);
                    shadowed.push(n);
                }
            }
        }
        let next = ib.new_label();
        let aliased = pattern::head(cx, &mut ib, &c.patterns, next, &captured)?;
        guard::guard_seq(cx, &mut ib, &c.guards, next)?;
        body(cx, &mut ib, &c.body, Dest::Tail)?;
        ib.bind_label(next);
        for n in aliased.iter().chain(&shadowed) {
            ib.unshadow(n);
        }
    }
    ib.set_pos(pos);
    ib.emit(Instr::Error {
        kind: ErrKind::FunctionClause,
        val: 0,
    });
    let code = super::finish_fun(cx, ib, lifted_name, arity as u32, pos)?;
    let code_id = cx.add_lifted(code);
    cx.closures.push(ClosureInfo {
        code: code_id,
        module: cx.name,
        index,
        uniq: cx.uniq,
        arity: arity as u32,
        nfree: free.len() as u32,
        named: self_name.is_some(),
    });
    let tmpl = cx.closures.len() as u32 - 1;

    let mark = b.mark();
    let start =
        super::builder::elements(cx, b, free.len(), ("a closure", "captured variables"), pos)?;
    for (i, (_, s)) in free.iter().enumerate() {
        b.emit(Instr::Move {
            dst: start + i as Slot,
            src: *s,
        });
    }
    b.set_pos(pos);
    b.emit(Instr::MakeFun {
        dst,
        fun: tmpl,
        start,
        nfree: free.len() as u16,
    });
    b.release(mark);
    Ok(())
}
