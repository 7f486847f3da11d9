//! One event predicate compiled: its canonical argument list split into
//! process arguments and term patterns, its guard, and which property
//! variables it binds.

use super::cx::Cx;
use crate::compiled::{CompiledGuard, CompiledPredicate, ProcArg, TermArg, Vars};
use crate::spec::{procname, ArgRole, Pred, PredicateKind, SpecError};
use std::path::Path;
use trace_pattern::{Guard, Pattern};
use trace_syntax::ast::{Expr, ExprKind, Pos};

/// Calls `f` on each variable name in `e` (not `_`).
pub(crate) fn vars_of(e: &Expr, f: &mut dyn FnMut(&str)) {
    match &e.kind {
        ExprKind::Var(v) if v != "_" => f(v),
        ExprKind::Cons(a, b) | ExprKind::Match(a, b) | ExprKind::BinOp(_, a, b) => {
            vars_of(a, f);
            vars_of(b, f);
        }
        ExprKind::UnOp(_, a) => vars_of(a, f),
        ExprKind::Tuple(es) => es.iter().for_each(|x| vars_of(x, f)),
        ExprKind::Map { base, assocs } => {
            if let Some(b) = base {
                vars_of(b, f);
            }
            for a in assocs {
                vars_of(&a.key, f);
                vars_of(&a.value, f);
            }
        }
        ExprKind::Call { fun, args } => {
            vars_of(fun, f);
            args.iter().for_each(|x| vars_of(x, f));
        }
        _ => {}
    }
}

/// The position of the sub-expression of `es` at column `col` (the pattern
/// and guard compilers report columns only), else the first one's.
fn locate(es: &[&Expr], col: u32) -> Pos {
    fn find(e: &Expr, col: u32) -> Option<Pos> {
        if e.pos.col == col {
            return Some(e.pos);
        }
        let mut found = None;
        let mut visit = |x: &Expr| {
            if found.is_none() {
                found = find(x, col);
            }
        };
        match &e.kind {
            ExprKind::Cons(a, b) | ExprKind::Match(a, b) | ExprKind::BinOp(_, a, b) => {
                visit(a);
                visit(b);
            }
            ExprKind::UnOp(_, a) => visit(a),
            ExprKind::Tuple(xs) => xs.iter().for_each(visit),
            ExprKind::Call { fun, args } => {
                visit(fun);
                args.iter().for_each(visit);
            }
            ExprKind::Map { assocs, .. } => {
                for a in assocs {
                    visit(&a.key);
                    visit(&a.value);
                }
            }
            _ => {}
        }
        found
    }
    es.iter()
        .find_map(|e| find(e, col))
        .or_else(|| es.first().map(|e| e.pos))
        .unwrap_or(Pos {
            file: 0,
            line: 0,
            col,
        })
}

/// Compiles a term pattern; its variables become property variables and
/// process names become constants.
pub(crate) fn pattern(
    path: &Path,
    e: &Expr,
    vars: &mut Vars,
) -> Result<(Pattern, Vec<usize>), SpecError> {
    let p = trace_pattern::compile(e)
        .map_err(|err| crate::spec::error::at(path, locate(&[e], err.col), err.message))?;
    let map = p
        .variables()
        .iter()
        .map(|v| match procname::from_placeholder(v) {
            Some(r) => vars.constant(v, r),
            None => vars.index(v),
        })
        .collect();
    Ok((p, map))
}

fn canonical(p: &Pred) -> Option<Vec<Expr>> {
    let forms = p.kind.forms();
    let any = |pos| Expr::new(pos, ExprKind::Var("_".into()));
    if p.args.len() == forms[0].len() {
        return Some(p.args.clone());
    }
    match (p.kind, p.args.len()) {
        (PredicateKind::Receive | PredicateKind::Deliver, 2) => Some(vec![
            p.args[0].clone(),
            any(p.args[0].pos),
            p.args[1].clone(),
        ]),
        (PredicateKind::Exit, 1) => Some(vec![p.args[0].clone(), any(p.pos)]),
        (PredicateKind::Ets, 3) => {
            let mut a = p.args.clone();
            a.push(any(p.pos));
            Some(a)
        }
        _ => None,
    }
}

pub(super) fn compile(
    p: &Pred,
    cx: &mut Cx<'_>,
    visible: &[usize],
) -> Result<CompiledPredicate, SpecError> {
    let Some(args) = canonical(p) else {
        return cx.err(
            p.pos,
            format!(
                "{}/{} is not an event: write {}",
                p.kind.name(),
                p.args.len(),
                p.kind.usage()
            ),
        );
    };
    let mut procs = Vec::new();
    let mut terms = Vec::new();
    let mut binds = Vec::new();
    for (a, role) in args.iter().zip(p.kind.forms()[0].iter()) {
        match role {
            ArgRole::Process => {
                let arg = process(a, cx)?;
                if let ProcArg::Var(v) = arg {
                    binds.push(v);
                }
                procs.push(arg);
            }
            ArgRole::Term => {
                let single_use = match &a.kind {
                    ExprKind::Var(v) if v == "_" => true,
                    ExprKind::Var(v) if procname::from_placeholder(v).is_none() => {
                        cx.uses.get(v).copied().unwrap_or(0) <= 1
                    }
                    _ => false,
                };
                let (pattern, map) = pattern(cx.path, a, &mut cx.vars)?;
                if !single_use {
                    binds.extend(map.iter());
                }
                terms.push(TermArg {
                    pattern,
                    map,
                    trivial: single_use,
                    pos: a.pos,
                });
            }
        }
    }
    binds.sort_unstable();
    binds.dedup();
    let mut guard = None;
    let mut local_guard = true;
    if !p.guard.is_empty() {
        // Process names in the guard are constants; find them first.
        let mut names = Vec::new();
        for alt in &p.guard {
            for g in alt {
                vars_of(g, &mut |v| names.push(v.to_string()));
            }
        }
        for n in &names {
            if let Some(r) = procname::from_placeholder(n) {
                cx.vars.constant(n, r);
            }
        }
        let vars = &cx.vars;
        let mut used = Vec::new();
        let mut unbound = None;
        let g = Guard::compile(&p.guard, &mut |name: &str| {
            let i = vars.names.iter().position(|n| n == name)?;
            if binds.contains(&i) || visible.contains(&i) || vars.is_constant(i) {
                used.push(i);
                Some(i)
            } else {
                unbound.get_or_insert(name.to_string());
                None
            }
        });
        let exprs: Vec<&Expr> = p.guard.iter().flatten().collect();
        let g = match g {
            Ok(g) => g,
            Err(e) => {
                let msg = match (&unbound, e.message.contains("is unbound")) {
                    (Some(v), true) => format!(
                        "variable '{v}' is unbound: a guard may use the variables of its \
                         event and of the events before it"
                    ),
                    _ => e.message,
                };
                return Err(crate::spec::error::at(cx.path, locate(&exprs, e.col), msg));
            }
        };
        used.sort_unstable();
        used.dedup();
        // Decided at match time only when every variable it uses is bound
        // by the event itself (named processes included).
        local_guard = used.iter().all(|v| binds.contains(v));
        guard = Some(CompiledGuard {
            guard: g,
            vars: used,
        });
    }
    let structural = terms.iter().all(|t| t.trivial) && (guard.is_none() || !local_guard);
    Ok(CompiledPredicate {
        kind: p.kind,
        pos: p.pos,
        text: p.text.clone(),
        procs,
        terms,
        guard,
        local_guard,
        binds,
        sees: visible.to_vec(),
        structural,
    })
}

fn process(a: &Expr, cx: &mut Cx<'_>) -> Result<ProcArg, SpecError> {
    match &a.kind {
        ExprKind::Var(v) if v == "_" => Ok(ProcArg::Any),
        ExprKind::Var(v) => Ok(match procname::from_placeholder(v) {
            Some(r) => ProcArg::Var(cx.vars.constant(v, r)),
            None => ProcArg::Var(cx.vars.index(v)),
        }),
        ExprKind::Atom(name) => Ok(ProcArg::Var(cx.vars.registered(cx.registered, name))),
        _ => cx.err(
            a.pos,
            "expected a process: _, a variable, a symbolic name like <P.2>, \
             a pid like <0.83.0> or a registered name",
        ),
    }
}
