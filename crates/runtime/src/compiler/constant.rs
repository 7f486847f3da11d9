//! Constant folding: expressions that denote a fixed term (literals, and
//! tuples, lists and maps of them, arithmetic on numbers) become one literal,
//! built once at load time and shared by every evaluation.

use std::str::FromStr;
use trace_syntax::ast::{BinOp, Expr, ExprKind, IntLit, TypeSpec};
use trace_term::{BigInt, BitWriter, MapRepr, Term};

/// The integer value of a literal.
pub fn int_lit(i: &IntLit) -> Term {
    match i {
        IntLit::Small(v) => Term::Int(*v),
        IntLit::Big(s) => BigInt::from_str(s)
            .map(Term::from_bigint)
            .unwrap_or(Term::Int(0)),
    }
}

/// A string literal as a list of character codes.
pub fn string_lit(cs: &[u32]) -> Term {
    Term::list(cs.iter().map(|&c| Term::Int(c as i64)).collect())
}

/// The term `e` denotes, if it is a constant.
pub fn constant(e: &Expr) -> Option<Term> {
    use ExprKind::*;
    Some(match &e.kind {
        Atom(a) => Term::atom(a),
        Integer(i) => int_lit(i),
        Float(f) => Term::Float(*f),
        String(cs) => string_lit(cs),
        Nil => Term::Nil,
        Cons(h, t) => Term::cons(constant(h)?, constant(t)?),
        Tuple(es) => Term::tuple(es.iter().map(constant).collect::<Option<Vec<_>>>()?),
        Map { base: None, assocs } => {
            let mut m = MapRepr::new();
            for a in assocs {
                if a.exact {
                    return None;
                }
                m.insert(constant(&a.key)?, constant(&a.value)?);
            }
            Term::Map(trace_term::Arc::new(m))
        }
        UnOp(op, x) => {
            let v = constant(x)?;
            match (op, v) {
                (trace_syntax::ast::UnOp::Neg, Term::Int(i)) => i
                    .checked_neg()
                    .map(Term::Int)
                    .unwrap_or_else(|| Term::from_bigint(-BigInt::from(i))),
                (trace_syntax::ast::UnOp::Neg, Term::Big(b)) => Term::from_bigint(-(*b).clone()),
                (trace_syntax::ast::UnOp::Neg, Term::Float(f)) => Term::Float(-f),
                (
                    trace_syntax::ast::UnOp::Plus,
                    v @ (Term::Int(_) | Term::Big(_) | Term::Float(_)),
                ) => v,
                (trace_syntax::ast::UnOp::Bnot, Term::Int(i)) => Term::Int(!i),
                _ => return None,
            }
        }
        BinOp(op, a, b) => {
            let (x, y) = (constant(a)?, constant(b)?);
            fold_arith(*op, &x, &y)?
        }
        Binary(segs) => {
            let mut w = BitWriter::new();
            for s in segs {
                if !s.specs.is_empty() {
                    return None;
                }
                match (&s.value.kind, &s.size) {
                    (String(cs), None) => {
                        for &c in cs {
                            w.push_uint(c as u64 & 0xff, 8);
                        }
                    }
                    (Integer(IntLit::Small(v)), None) => w.push_uint(*v as u64, 8),
                    _ => return None,
                }
            }
            Term::Binary(trace_term::Arc::new(w.finish()))
        }
        _ => return None,
    })
}

/// Folds integer arithmetic on small constants (enough for patterns like `1 bsl 8`).
fn fold_arith(op: BinOp, x: &Term, y: &Term) -> Option<Term> {
    let (Term::Int(a), Term::Int(b)) = (x, y) else {
        return None;
    };
    let (a, b) = (*a, *b);
    Some(Term::Int(match op {
        BinOp::Add => a.checked_add(b)?,
        BinOp::Sub => a.checked_sub(b)?,
        BinOp::Mul => a.checked_mul(b)?,
        BinOp::IDiv if b != 0 => a.checked_div(b)?,
        BinOp::Rem if b != 0 => a.checked_rem(b)?,
        BinOp::Band => a & b,
        BinOp::Bor => a | b,
        BinOp::Bxor => a ^ b,
        BinOp::Bsl if (0..62).contains(&b) => a.checked_mul(1i64.checked_shl(b as u32)?)?,
        BinOp::Bsr if (0..64).contains(&b) => a >> b,
        _ => return None,
    }))
}

/// True if the compile-option expression is or contains the atom `name`.
pub fn mentions_atom(e: &Expr, name: &str) -> bool {
    match &e.kind {
        ExprKind::Atom(a) => a == name,
        ExprKind::Cons(h, t) => mentions_atom(h, name) || mentions_atom(t, name),
        ExprKind::Tuple(es) => es.iter().any(|x| mentions_atom(x, name)),
        _ => false,
    }
}

/// The unit given by a segment's type specifiers, if any.
pub fn spec_unit(specs: &[TypeSpec]) -> Option<u32> {
    specs.iter().find_map(|s| match s {
        TypeSpec::Unit(u) => Some(*u),
        _ => None,
    })
}
