//! Variable-name analysis over the AST: which names a function's own code
//! mentions (to give each a slot), and which names a `fun` uses from its
//! surroundings (to capture them).

use std::collections::HashSet;
use trace_syntax::ast::*;

/// Collects names in first-appearance order, without duplicates.
#[derive(Default)]
pub struct Names {
    pub order: Vec<String>,
    seen: HashSet<String>,
}

impl Names {
    fn add(&mut self, n: &str) {
        if n != "_" && !self.seen.contains(n) {
            self.seen.insert(n.to_string());
            self.order.push(n.to_string());
        }
    }
    pub fn contains(&self, n: &str) -> bool {
        self.seen.contains(n)
    }
}

/// Every variable name in `clauses` outside nested `fun`s.
pub fn clause_names(clauses: &[Clause]) -> Vec<String> {
    let mut n = Names::default();
    for c in clauses {
        clause(&mut n, c, false);
    }
    n.order
}

/// Names used anywhere inside the clauses of a `fun` (including nested funs)
/// that are not bound by that clause's head: candidates for capture.
pub fn fun_free_names(clauses: &[Clause], self_name: Option<&str>) -> Vec<String> {
    let mut out = Names::default();
    for c in clauses {
        let mut head = Names::default();
        for p in &c.patterns {
            expr(&mut head, p, true);
        }
        let mut used = Names::default();
        clause(&mut used, c, true);
        for name in used.order {
            if !head.contains(&name) && Some(name.as_str()) != self_name {
                out.add(&name);
            }
        }
    }
    out.order
}

fn clause(n: &mut Names, c: &Clause, into_funs: bool) {
    for p in &c.patterns {
        expr(n, p, into_funs);
    }
    for g in &c.guards {
        for e in g {
            expr(n, e, into_funs);
        }
    }
    for e in &c.body {
        expr(n, e, into_funs);
    }
}

fn exprs(n: &mut Names, es: &[Expr], into_funs: bool) {
    for e in es {
        expr(n, e, into_funs);
    }
}

fn quals(n: &mut Names, qs: &[Qualifier], into_funs: bool) {
    for q in qs {
        match q {
            Qualifier::Generator { pattern, list, .. } => {
                expr(n, pattern, into_funs);
                expr(n, list, into_funs);
            }
            Qualifier::BitGenerator {
                pattern, binary, ..
            } => {
                expr(n, pattern, into_funs);
                expr(n, binary, into_funs);
            }
            Qualifier::Filter(e) => expr(n, e, into_funs),
        }
    }
}

/// Walks one expression, adding variable names.
pub fn expr(n: &mut Names, e: &Expr, into_funs: bool) {
    use ExprKind::*;
    match &e.kind {
        Var(v) => n.add(v),
        Atom(_) | Integer(_) | Float(_) | String(_) | Nil | RecordIndex { .. } => {}
        Cons(h, t) => {
            expr(n, h, into_funs);
            expr(n, t, into_funs);
        }
        Tuple(es) | Block(es) => exprs(n, es, into_funs),
        Map { base, assocs } => {
            if let Some(b) = base {
                expr(n, b, into_funs);
            }
            for a in assocs {
                expr(n, &a.key, into_funs);
                expr(n, &a.value, into_funs);
            }
        }
        Record { base, fields, .. } => {
            if let Some(b) = base {
                expr(n, b, into_funs);
            }
            for f in fields {
                expr(n, &f.value, into_funs);
            }
        }
        RecordField { expr: x, .. } => expr(n, x, into_funs),
        Binary(segs) => {
            for s in segs {
                expr(n, &s.value, into_funs);
                if let Some(sz) = &s.size {
                    expr(n, sz, into_funs);
                }
            }
        }
        Match(a, b) | BinOp(_, a, b) => {
            expr(n, a, into_funs);
            expr(n, b, into_funs);
        }
        UnOp(_, a) | Catch(a) => expr(n, a, into_funs),
        Call { fun, args } => {
            expr(n, fun, into_funs);
            exprs(n, args, into_funs);
        }
        Remote { module, function } => {
            expr(n, module, into_funs);
            expr(n, function, into_funs);
        }
        Case { expr: x, clauses } => {
            expr(n, x, into_funs);
            for c in clauses {
                clause(n, c, into_funs);
            }
        }
        If(clauses) => {
            for c in clauses {
                clause(n, c, into_funs);
            }
        }
        Receive { clauses, after } => {
            for c in clauses {
                clause(n, c, into_funs);
            }
            if let Some((t, body)) = after {
                expr(n, t, into_funs);
                exprs(n, body, into_funs);
            }
        }
        Try {
            body,
            of_clauses,
            catch_clauses,
            after,
        } => {
            exprs(n, body, into_funs);
            for c in of_clauses {
                clause(n, c, into_funs);
            }
            for c in catch_clauses {
                if let Some(cl) = &c.class {
                    expr(n, cl, into_funs);
                }
                expr(n, &c.pattern, into_funs);
                if let Some(s) = &c.stacktrace {
                    n.add(s);
                }
                for g in &c.guards {
                    exprs(n, g, into_funs);
                }
                exprs(n, &c.body, into_funs);
            }
            exprs(n, after, into_funs);
        }
        Fun(f) => match f {
            FunExpr::Clauses { name, clauses } => {
                if into_funs {
                    if let Some(nm) = name {
                        n.add(nm);
                    }
                    for c in clauses {
                        clause(n, c, true);
                    }
                }
            }
            FunExpr::Local { .. } => {}
            FunExpr::Remote {
                module,
                function,
                arity,
            } => {
                expr(n, module, into_funs);
                expr(n, function, into_funs);
                expr(n, arity, into_funs);
            }
        },
        ListComp {
            template,
            qualifiers,
        }
        | BinComp {
            template,
            qualifiers,
        } => {
            quals(n, qualifiers, into_funs);
            expr(n, template, into_funs);
        }
    }
}

/// Variable names bound by a pattern (every variable in it).
pub fn pattern_names(p: &Expr) -> Vec<String> {
    let mut n = Names::default();
    expr(&mut n, p, false);
    n.order
}
