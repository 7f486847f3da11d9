//! Bounds on the shape of what the parser builds, so that neither the parser
//! nor anything walking the tree recursively (the compiler, `Drop`) can
//! overflow a thread's stack on hostile input.
//!
//! Two limits: the parser's own recursion ([`MAX_NESTING`], one level per
//! bracket, operand of a right-associative operator, `catch`, ...), and the
//! depth of the tree ([`MAX_TREE_DEPTH`]), which loops also deepen: a list
//! `[a, b, c]` is a chain of `Cons`, `a + b + c` a chain of `BinOp`. Every loop
//! that extends a chain checks the depth as it goes, so no tree deeper than
//! `MAX_TREE_DEPTH` plus a few levels per nesting ever exists.

use super::{PResult, Parser};
use crate::ast::{Clause, Expr, ExprKind, FunExpr, Pos, Qualifier};
use crate::diag::DiagKind;

/// How deeply constructs may nest in the source.
pub const MAX_NESTING: usize = 200;

/// How deep an expression tree may be (a list literal has one level per element).
pub const MAX_TREE_DEPTH: usize = 2_000;

/// Fails when a tree of `depth` levels would be too deep.
pub(super) fn check_depth(p: &Parser<'_>, depth: usize, pos: Pos) -> PResult<()> {
    if depth > MAX_TREE_DEPTH {
        Err(p.error_at(
            DiagKind::Unsupported,
            pos,
            format!(
                "expression too deep (more than {MAX_TREE_DEPTH} levels; \
                 long lists and operator chains count one level per element)"
            ),
        ))
    } else {
        Ok(())
    }
}

/// The depth of `e` in expression levels, without recursion.
pub(crate) fn tree_depth(e: &Expr) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(e, 1usize)];
    while let Some((e, depth)) = stack.pop() {
        deepest = deepest.max(depth);
        for_each_child(e, &mut |child| stack.push((child, depth + 1)));
    }
    deepest
}

fn clause_children<'e>(c: &'e Clause, f: &mut dyn FnMut(&'e Expr)) {
    c.patterns.iter().for_each(&mut *f);
    c.guards.iter().flatten().for_each(&mut *f);
    c.body.iter().for_each(f);
}

/// Calls `f` on every expression directly inside `e` (through clauses,
/// segments, fields and qualifiers).
pub(crate) fn for_each_child<'e>(e: &'e Expr, f: &mut dyn FnMut(&'e Expr)) {
    use ExprKind::*;
    match &e.kind {
        Var(_) | Atom(_) | Integer(_) | Float(_) | String(_) | Nil | RecordIndex { .. } => {}
        Cons(h, t) | Match(h, t) | BinOp(_, h, t) => {
            f(h);
            f(t);
        }
        Remote { module, function } => {
            f(module);
            f(function);
        }
        UnOp(_, x) | Catch(x) | RecordField { expr: x, .. } => f(x),
        Tuple(xs) | Block(xs) => xs.iter().for_each(f),
        Map { base, assocs } => {
            base.iter().for_each(|b| f(b));
            for a in assocs {
                f(&a.key);
                f(&a.value);
            }
        }
        Record { base, fields, .. } => {
            base.iter().for_each(|b| f(b));
            fields.iter().for_each(|fld| f(&fld.value));
        }
        Binary(elements) => {
            for el in elements {
                f(&el.value);
                el.size.iter().for_each(&mut *f);
            }
        }
        Call { fun, args } => {
            f(fun);
            args.iter().for_each(f);
        }
        Case { expr, clauses } => {
            f(expr);
            clauses.iter().for_each(|c| clause_children(c, f));
        }
        If(clauses) => clauses.iter().for_each(|c| clause_children(c, f)),
        Receive { clauses, after } => {
            clauses.iter().for_each(|c| clause_children(c, &mut *f));
            if let Some((timeout, body)) = after {
                f(timeout);
                body.iter().for_each(f);
            }
        }
        Try {
            body,
            of_clauses,
            catch_clauses,
            after,
        } => {
            body.iter().for_each(&mut *f);
            of_clauses.iter().for_each(|c| clause_children(c, &mut *f));
            for c in catch_clauses {
                c.class.iter().for_each(&mut *f);
                f(&c.pattern);
                c.guards.iter().flatten().for_each(&mut *f);
                c.body.iter().for_each(&mut *f);
            }
            after.iter().for_each(f);
        }
        Fun(FunExpr::Clauses { clauses, .. }) => clauses.iter().for_each(|c| clause_children(c, f)),
        Fun(FunExpr::Local { .. }) => {}
        Fun(FunExpr::Remote {
            module,
            function,
            arity,
        }) => {
            f(module);
            f(function);
            f(arity);
        }
        ListComp {
            template,
            qualifiers,
        }
        | BinComp {
            template,
            qualifiers,
        } => {
            f(template);
            for q in qualifiers {
                match q {
                    Qualifier::Generator {
                        pattern, list: e, ..
                    }
                    | Qualifier::BitGenerator {
                        pattern, binary: e, ..
                    } => {
                        f(pattern);
                        f(e);
                    }
                    Qualifier::Filter(e) => f(e),
                }
            }
        }
    }
}
