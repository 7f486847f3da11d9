//! Guards over pattern bindings: comparisons, type tests, arithmetic and
//! boolean operators, as Erlang guards allow (a failing guard is false).

use crate::compile::literal;
use crate::matching::Bindings;
use crate::pattern::Pattern;
use trace_syntax::ast::{BinOp, Expr, ExprKind, UnOp};
use trace_term::order::{compare, exact_eq};
use trace_term::Term;

/// A compiled guard sequence (`G1; G2` of `T1, T2`).
#[derive(Clone, Debug)]
pub struct Guard {
    alts: Vec<Vec<G>>,
}

#[derive(Clone, Debug)]
enum G {
    Lit(Term),
    Var(usize),
    Bin(BinOp, Box<G>, Box<G>),
    Not(Box<G>),
    Neg(Box<G>),
    Call(String, Vec<G>),
    Tuple(Vec<G>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GuardError {
    pub col: u32,
    pub message: String,
}

impl std::fmt::Display for GuardError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "column {}: {}", self.col, self.message)
    }
}

impl Guard {
    /// Compiles a guard sequence whose variables are those of `p` (or new ones,
    /// appended, for variables bound elsewhere: see `var`).
    pub fn compile(
        guards: &[Vec<Expr>],
        var: &mut dyn FnMut(&str) -> Option<usize>,
    ) -> Result<Guard, GuardError> {
        let mut alts = Vec::new();
        for alt in guards {
            let mut tests = Vec::new();
            for e in alt {
                tests.push(g(e, var)?);
            }
            alts.push(tests);
        }
        Ok(Guard { alts })
    }

    /// A guard over one pattern's variables.
    pub fn for_pattern(guards: &[Vec<Expr>], p: &Pattern) -> Result<Guard, GuardError> {
        Guard::compile(guards, &mut |n| p.var_index(n))
    }

    /// True if some alternative has every test `true`.
    pub fn holds(&self, b: &Bindings) -> bool {
        self.alts.is_empty()
            || self.alts.iter().any(|alt| {
                alt.iter()
                    .all(|t| matches!(eval(t, b), Some(Term::Atom(a)) if a.name() == "true"))
            })
    }
}

fn g(e: &Expr, var: &mut dyn FnMut(&str) -> Option<usize>) -> Result<G, GuardError> {
    if let Some(t) = literal(e) {
        return Ok(G::Lit(t));
    }
    let bad = |m: &str| GuardError {
        col: e.pos.col,
        message: m.to_string(),
    };
    Ok(match &e.kind {
        ExprKind::Var(v) => {
            G::Var(var(v).ok_or_else(|| bad(&format!("variable '{v}' is unbound")))?)
        }
        ExprKind::BinOp(op, a, b2) if !matches!(op, BinOp::Send) => {
            G::Bin(*op, Box::new(g(a, var)?), Box::new(g(b2, var)?))
        }
        ExprKind::UnOp(UnOp::Not, x) => G::Not(Box::new(g(x, var)?)),
        ExprKind::UnOp(UnOp::Neg, x) => G::Neg(Box::new(g(x, var)?)),
        ExprKind::Tuple(es) => G::Tuple(es.iter().map(|x| g(x, var)).collect::<Result<_, _>>()?),
        ExprKind::Call { fun, args } => {
            let name = match &fun.kind {
                ExprKind::Atom(n) => n.clone(),
                ExprKind::Remote { module, function } => match (&module.kind, &function.kind) {
                    (ExprKind::Atom(m), ExprKind::Atom(f)) if m == "erlang" => f.clone(),
                    _ => return Err(bad("illegal guard expression")),
                },
                _ => return Err(bad("illegal guard expression")),
            };
            if !GUARD_BIFS.contains(&(name.as_str(), args.len())) {
                return Err(bad(&format!(
                    "{name}/{} is not a guard function",
                    args.len()
                )));
            }
            G::Call(
                name,
                args.iter().map(|x| g(x, var)).collect::<Result<_, _>>()?,
            )
        }
        _ => return Err(bad("illegal guard expression")),
    })
}

const GUARD_BIFS: &[(&str, usize)] = &[
    ("is_atom", 1),
    ("is_binary", 1),
    ("is_boolean", 1),
    ("is_float", 1),
    ("is_function", 1),
    ("is_integer", 1),
    ("is_list", 1),
    ("is_map", 1),
    ("is_number", 1),
    ("is_pid", 1),
    ("is_reference", 1),
    ("is_tuple", 1),
    ("abs", 1),
    ("element", 2),
    ("hd", 1),
    ("tl", 1),
    ("length", 1),
    ("tuple_size", 1),
    ("map_size", 1),
    ("map_get", 2),
    ("is_map_key", 2),
    ("byte_size", 1),
    ("min", 2),
    ("max", 2),
];

fn eval(t: &G, b: &Bindings) -> Option<Term> {
    let bool_of = |x: &Term| match x {
        Term::Atom(a) if a.name() == "true" => Some(true),
        Term::Atom(a) if a.name() == "false" => Some(false),
        _ => None,
    };
    Some(match t {
        G::Lit(l) => l.clone(),
        G::Var(i) => b.get(*i)?.clone(),
        G::Tuple(es) => Term::tuple(es.iter().map(|x| eval(x, b)).collect::<Option<_>>()?),
        G::Not(x) => Term::bool(!bool_of(&eval(x, b)?)?),
        G::Neg(x) => match eval(x, b)? {
            Term::Int(i) => Term::Int(i.checked_neg()?),
            Term::Float(f) => Term::Float(-f),
            _ => return None,
        },
        G::Bin(BinOp::AndAlso, x, y) => {
            if bool_of(&eval(x, b)?)? {
                Term::bool(bool_of(&eval(y, b)?)?)
            } else {
                Term::bool(false)
            }
        }
        G::Bin(BinOp::OrElse, x, y) => {
            if bool_of(&eval(x, b)?)? {
                Term::bool(true)
            } else {
                Term::bool(bool_of(&eval(y, b)?)?)
            }
        }
        G::Bin(op, x, y) => {
            let (x, y) = (eval(x, b)?, eval(y, b)?);
            match op {
                BinOp::Eq => Term::bool(compare(&x, &y).is_eq()),
                BinOp::Neq => Term::bool(!compare(&x, &y).is_eq()),
                BinOp::ExactEq => Term::bool(exact_eq(&x, &y)),
                BinOp::ExactNeq => Term::bool(!exact_eq(&x, &y)),
                BinOp::Lt => Term::bool(compare(&x, &y).is_lt()),
                BinOp::Le => Term::bool(compare(&x, &y).is_le()),
                BinOp::Gt => Term::bool(compare(&x, &y).is_gt()),
                BinOp::Ge => Term::bool(compare(&x, &y).is_ge()),
                BinOp::And => Term::bool(bool_of(&x)? && bool_of(&y)?),
                BinOp::Or => Term::bool(bool_of(&x)? || bool_of(&y)?),
                BinOp::Xor => Term::bool(bool_of(&x)? ^ bool_of(&y)?),
                BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::IDiv | BinOp::Rem => {
                    let (Term::Int(a), Term::Int(c)) = (x, y) else {
                        return None;
                    };
                    Term::Int(match op {
                        BinOp::Add => a.checked_add(c)?,
                        BinOp::Sub => a.checked_sub(c)?,
                        BinOp::Mul => a.checked_mul(c)?,
                        BinOp::IDiv => a.checked_div(c)?,
                        _ => a.checked_rem(c)?,
                    })
                }
                _ => return None,
            }
        }
        G::Call(name, args) => {
            let a: Vec<Term> = args.iter().map(|x| eval(x, b)).collect::<Option<_>>()?;
            call(name, &a)?
        }
    })
}

fn call(name: &str, a: &[Term]) -> Option<Term> {
    Some(match (name, a) {
        ("is_atom", [x]) => Term::bool(matches!(x, Term::Atom(_))),
        ("is_binary", [x]) => Term::bool(matches!(x, Term::Binary(b) if b.is_binary())),
        ("is_boolean", [x]) => {
            Term::bool(matches!(x, Term::Atom(a) if a.name() == "true" || a.name() == "false"))
        }
        ("is_float", [x]) => Term::bool(matches!(x, Term::Float(_))),
        ("is_function", [x]) => Term::bool(matches!(x, Term::Fun(_))),
        ("is_integer", [x]) => Term::bool(x.is_integer()),
        ("is_list", [x]) => Term::bool(x.is_list()),
        ("is_map", [x]) => Term::bool(matches!(x, Term::Map(_))),
        ("is_number", [x]) => Term::bool(x.is_number()),
        ("is_pid", [x]) => Term::bool(matches!(x, Term::Pid(_))),
        ("is_reference", [x]) => Term::bool(matches!(x, Term::Ref(_))),
        ("is_tuple", [x]) => Term::bool(matches!(x, Term::Tuple(_))),
        ("abs", [Term::Int(i)]) => Term::Int(i.checked_abs()?),
        ("element", [Term::Int(i), Term::Tuple(t)]) => {
            t.elements().get((*i as usize).checked_sub(1)?)?.clone()
        }
        ("hd", [Term::Cons(c)]) => c.head.clone(),
        ("tl", [Term::Cons(c)]) => c.tail.clone(),
        ("length", [l]) => Term::Int(l.list_len()? as i64),
        ("tuple_size", [Term::Tuple(t)]) => Term::Int(t.arity() as i64),
        ("map_size", [Term::Map(m)]) => Term::Int(m.len() as i64),
        ("map_get", [k, Term::Map(m)]) => m.get(k)?.clone(),
        ("is_map_key", [k, Term::Map(m)]) => Term::bool(m.contains_key(k)),
        ("byte_size", [Term::Binary(b)]) => Term::Int(b.byte_len() as i64),
        ("min", [x, y]) => {
            if compare(y, x).is_lt() {
                y.clone()
            } else {
                x.clone()
            }
        }
        ("max", [x, y]) => {
            if compare(y, x).is_gt() {
                y.clone()
            } else {
                x.clone()
            }
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile_str;

    #[test]
    fn guards_over_bindings() {
        let p = compile_str("{N, L}").unwrap();
        let path = std::path::Path::new("<test>");
        let toks = trace_syntax::lexer::tokenize("N > 2, is_list(L); N =:= 0", 0, path).unwrap();
        let sources = trace_syntax::SourceMap {
            files: vec![path.to_path_buf()],
        };
        let mut parser = trace_syntax::Parser::new(&toks, &sources);
        let gs = parser.parse_guard().unwrap();
        let gd = Guard::for_pattern(&gs, &p).unwrap();
        let t = |n: i64| Term::tuple(vec![Term::Int(n), Term::Nil]);
        assert!(gd.holds(&p.matches(&t(3)).unwrap()));
        assert!(!gd.holds(&p.matches(&t(1)).unwrap()));
        assert!(gd.holds(&p.matches(&t(0)).unwrap()));
    }
}
