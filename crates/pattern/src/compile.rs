//! From an AST pattern to a [`Pattern`].

use crate::node::Node;
use crate::pattern::Pattern;
use std::collections::HashMap;
use trace_syntax::ast::{BinOp, Expr, ExprKind, IntLit, UnOp};
use trace_term::{Atom, BigInt, Term};

/// Why a text is not a pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatternError {
    pub col: u32,
    pub message: String,
}

impl std::fmt::Display for PatternError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.col > 0 {
            write!(f, "column {}: {}", self.col, self.message)
        } else {
            f.write_str(&self.message)
        }
    }
}

impl std::error::Error for PatternError {}

/// Parses and compiles a pattern written as text (e.g. a command-line argument).
pub fn compile_str(text: &str) -> Result<Pattern, PatternError> {
    let e = trace_syntax::parse_expr(text).map_err(|d| PatternError {
        col: d.col,
        message: d.message,
    })?;
    compile(&e)
}

/// Compiles an AST pattern.
pub fn compile(e: &Expr) -> Result<Pattern, PatternError> {
    let mut vars = HashMap::new();
    let mut order = Vec::new();
    let node = node(e, &mut vars, &mut order)?;
    let quick = crate::etf::Quick::of(&node);
    Ok(Pattern {
        node,
        vars: order,
        quick,
    })
}

fn err<T>(e: &Expr, message: &str) -> Result<T, PatternError> {
    Err(PatternError {
        col: e.pos.col,
        message: message.to_string(),
    })
}

fn node(
    e: &Expr,
    vars: &mut HashMap<String, usize>,
    order: &mut Vec<String>,
) -> Result<Node, PatternError> {
    Ok(match &e.kind {
        ExprKind::Var(v) if v == "_" => Node::Any,
        ExprKind::Var(v) => {
            let n = order.len();
            let i = *vars.entry(v.clone()).or_insert_with(|| {
                order.push(v.clone());
                n
            });
            Node::Var(i)
        }
        ExprKind::Atom(a) => Node::Lit(Term::Atom(Atom::intern(a))),
        ExprKind::Integer(IntLit::Small(i)) => Node::Lit(Term::Int(*i)),
        ExprKind::Integer(IntLit::Big(s)) => match s.parse::<BigInt>() {
            Ok(b) => Node::Lit(Term::from_bigint(b)),
            Err(_) => return err(e, "bad integer"),
        },
        ExprKind::Float(f) => Node::Lit(Term::Float(*f)),
        ExprKind::String(cs) => Node::Lit(Term::list(
            cs.iter().map(|&c| Term::Int(c as i64)).collect(),
        )),
        ExprKind::Nil => Node::Lit(Term::Nil),
        ExprKind::Cons(h, t) => Node::Cons(
            Box::new(node(h, vars, order)?),
            Box::new(node(t, vars, order)?),
        ),
        ExprKind::Tuple(es) => Node::Tuple(
            es.iter()
                .map(|x| node(x, vars, order))
                .collect::<Result<_, _>>()?,
        ),
        ExprKind::Map { base: None, assocs } => {
            let mut items = Vec::new();
            for a in assocs {
                let Some(k) = literal(&a.key) else {
                    return err(&a.key, "map keys in patterns must be literals");
                };
                items.push((k, node(&a.value, vars, order)?));
            }
            Node::Map(items)
        }
        ExprKind::Match(a, b) => Node::Both(
            Box::new(node(a, vars, order)?),
            Box::new(node(b, vars, order)?),
        ),
        ExprKind::UnOp(UnOp::Neg, x) => match literal(x) {
            Some(Term::Int(i)) => Node::Lit(Term::Int(-i)),
            Some(Term::Float(f)) => Node::Lit(Term::Float(-f)),
            _ => return err(e, "illegal pattern"),
        },
        ExprKind::BinOp(BinOp::Append, a, rest) => {
            let Some(prefix) = literal(a).and_then(|t| t.to_vec()) else {
                return err(e, "illegal pattern");
            };
            let mut n = node(rest, vars, order)?;
            for x in prefix.into_iter().rev() {
                n = Node::Cons(Box::new(Node::Lit(x)), Box::new(n));
            }
            n
        }
        _ => match literal(e) {
            Some(t) => Node::Lit(t),
            None if matches!(e.kind, ExprKind::Binary(_)) => {
                return err(e, "binary patterns are not supported")
            }
            None => return err(e, "illegal pattern"),
        },
    })
}

/// The constant term an expression denotes, if any.
pub(crate) fn literal(e: &Expr) -> Option<Term> {
    Some(match &e.kind {
        ExprKind::Atom(a) => Term::Atom(Atom::intern(a)),
        ExprKind::Integer(IntLit::Small(i)) => Term::Int(*i),
        ExprKind::Integer(IntLit::Big(s)) => Term::from_bigint(s.parse().ok()?),
        ExprKind::Float(f) => Term::Float(*f),
        ExprKind::String(cs) => Term::list(cs.iter().map(|&c| Term::Int(c as i64)).collect()),
        ExprKind::Nil => Term::Nil,
        ExprKind::Cons(h, t) => Term::cons(literal(h)?, literal(t)?),
        ExprKind::Tuple(es) => Term::tuple(es.iter().map(literal).collect::<Option<Vec<_>>>()?),
        ExprKind::UnOp(UnOp::Neg, x) => match literal(x)? {
            Term::Int(i) => Term::Int(-i),
            Term::Float(f) => Term::Float(-f),
            _ => return None,
        },
        _ => return None,
    })
}
