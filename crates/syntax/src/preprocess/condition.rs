//! The tests of `-ifdef`, `-ifndef`, `-if` and `-elif`. An `-if` expression
//! may use literals, `defined(Macro)`, macros, arithmetic, comparisons and
//! boolean operators; as in epp, only `true` takes the branch.

use super::directive;
use super::directive::{directive_args, macro_name};
use super::Preprocessor;
use crate::ast::{BinOp, Expr, ExprKind, IntLit, UnOp};
use crate::diag::DiagKind;
use crate::parser::Parser;
use crate::token::Token;
use std::cmp::Ordering;

#[derive(Clone, Debug, PartialEq)]
enum Value {
    Int(i64),
    Float(f64),
    Atom(String),
    Str(Vec<u32>),
}

type Eval = Result<Value, String>;

/// Whether the branch after this directive is taken; `None` after
/// reporting a badly formed directive.
pub(super) fn condition(pp: &mut Preprocessor<'_>, name: &str, form: &[Token]) -> Option<bool> {
    if name == "ifdef" || name == "ifndef" {
        return match directive_args(form) {
            Ok([token]) if macro_name(token).is_some() => {
                let defined = pp.macros.is_defined(macro_name(token).unwrap_or_default());
                Some(defined == (name == "ifdef"))
            }
            Ok(args) => {
                let pos = args.get(1).or(args.first()).map_or(form[2].pos, |t| t.pos);
                pp.error(DiagKind::Syntax, pos, format!("badly formed '{name}'"));
                None
            }
            Err(pos) => {
                pp.error(DiagKind::Syntax, pos, format!("badly formed '{name}'"));
                None
            }
        };
    }
    let args = directive::expanded_args(pp, name, form)?;
    let mut parser = Parser::new(&args, &pp.sources);
    parser.set_end_pos(form[form.len() - 1].pos);
    let expr = match parser.parse_expr() {
        Ok(e) if parser.at_end() => e,
        Ok(_) => {
            let d = parser.error_expected("')'");
            pp.items.push(super::Item::Error(d));
            return None;
        }
        Err(d) => {
            pp.items.push(super::Item::Error(d));
            return None;
        }
    };
    match eval(pp, &expr) {
        Ok(value) => Some(value == Value::Atom("true".into())),
        Err(why) => {
            let message = format!("bad -{name} expression: {why}");
            pp.error(DiagKind::Semantic, expr.pos, message);
            None
        }
    }
}

fn eval(pp: &Preprocessor<'_>, e: &Expr) -> Eval {
    match &e.kind {
        ExprKind::Integer(IntLit::Small(n)) => Ok(Value::Int(*n)),
        ExprKind::Integer(IntLit::Big(_)) => {
            Err("integers beyond 64 bits are not supported here".into())
        }
        ExprKind::Float(x) => Ok(Value::Float(*x)),
        ExprKind::Atom(a) => Ok(Value::Atom(a.clone())),
        ExprKind::String(s) => Ok(Value::Str(s.clone())),
        ExprKind::Nil => Ok(Value::Str(Vec::new())),
        ExprKind::Call { fun, args } => match (&fun.kind, args.as_slice()) {
            (ExprKind::Atom(f), [arg]) if f == "defined" => match &arg.kind {
                ExprKind::Atom(m) | ExprKind::Var(m) => Ok(boolean(pp.macros.is_defined(m))),
                _ => Err("defined/1 takes a macro name".into()),
            },
            _ => Err(unsupported()),
        },
        ExprKind::UnOp(op, x) => {
            let x = eval(pp, x)?;
            match (op, x) {
                (UnOp::Not, Value::Atom(a)) if a == "true" || a == "false" => {
                    Ok(boolean(a == "false"))
                }
                (UnOp::Neg, Value::Int(n)) => n.checked_neg().map(Value::Int).ok_or_else(overflow),
                (UnOp::Neg, Value::Float(x)) => Ok(Value::Float(-x)),
                (UnOp::Plus, v @ (Value::Int(_) | Value::Float(_))) => Ok(v),
                (UnOp::Bnot, Value::Int(n)) => Ok(Value::Int(!n)),
                _ => Err("badarg".into()),
            }
        }
        ExprKind::BinOp(op, a, b) => binop(pp, *op, a, b),
        _ => Err(unsupported()),
    }
}

fn binop(pp: &Preprocessor<'_>, op: BinOp, a: &Expr, b: &Expr) -> Eval {
    use BinOp::*;
    let truth = |v: &Value| match v {
        Value::Atom(a) if a == "true" => Ok(true),
        Value::Atom(a) if a == "false" => Ok(false),
        _ => Err("badarg".to_string()),
    };
    // Short-circuit operators evaluate their right side only when needed.
    match op {
        AndAlso => {
            return if truth(&eval(pp, a)?)? {
                eval(pp, b)
            } else {
                Ok(boolean(false))
            }
        }
        OrElse => {
            return if truth(&eval(pp, a)?)? {
                Ok(boolean(true))
            } else {
                eval(pp, b)
            }
        }
        _ => {}
    }
    let (x, y) = (eval(pp, a)?, eval(pp, b)?);
    match op {
        And => Ok(boolean(truth(&x)? & truth(&y)?)),
        Or => Ok(boolean(truth(&x)? | truth(&y)?)),
        Xor => Ok(boolean(truth(&x)? ^ truth(&y)?)),
        Eq => Ok(boolean(compare(&x, &y, false) == Ordering::Equal)),
        Neq => Ok(boolean(compare(&x, &y, false) != Ordering::Equal)),
        ExactEq => Ok(boolean(compare(&x, &y, true) == Ordering::Equal)),
        ExactNeq => Ok(boolean(compare(&x, &y, true) != Ordering::Equal)),
        Lt => Ok(boolean(compare(&x, &y, false) == Ordering::Less)),
        Le => Ok(boolean(compare(&x, &y, false) != Ordering::Greater)),
        Gt => Ok(boolean(compare(&x, &y, false) == Ordering::Greater)),
        Ge => Ok(boolean(compare(&x, &y, false) != Ordering::Less)),
        Add | Sub | Mul | FDiv => arith(op, &x, &y),
        IDiv | Rem | Band | Bor | Bxor | Bsl | Bsr => match (x, y) {
            (Value::Int(m), Value::Int(n)) => int_op(op, m, n),
            _ => Err("badarith".into()),
        },
        _ => Err(unsupported()),
    }
}

fn unsupported() -> String {
    "only literals, macros, defined(Name), arithmetic, comparisons and boolean operators \
     are supported"
        .into()
}

fn overflow() -> String {
    "integer overflow".into()
}

fn boolean(b: bool) -> Value {
    Value::Atom(if b { "true" } else { "false" }.into())
}

fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Int(n) => Some(*n as f64),
        Value::Float(x) => Some(*x),
        _ => None,
    }
}

/// Erlang's term order restricted to these values: number < atom < list.
fn compare(x: &Value, y: &Value, exact: bool) -> Ordering {
    let rank = |v: &Value| match v {
        Value::Int(_) | Value::Float(_) => 0,
        Value::Atom(_) => 1,
        Value::Str(_) => 2,
    };
    match (x, y) {
        (Value::Int(a), Value::Int(b)) => a.cmp(b),
        (Value::Atom(a), Value::Atom(b)) => a.cmp(b),
        (Value::Str(a), Value::Str(b)) => a.cmp(b),
        (Value::Float(_), Value::Int(_)) | (Value::Int(_), Value::Float(_)) if exact => {
            // 1 =:= 1.0 is false; order them by value, floats first on a tie.
            let (a, b) = (number(x).unwrap_or(0.0), number(y).unwrap_or(0.0));
            a.partial_cmp(&b)
                .unwrap_or(Ordering::Equal)
                .then(if matches!(x, Value::Float(_)) {
                    Ordering::Less
                } else {
                    Ordering::Greater
                })
        }
        _ => match (number(x), number(y)) {
            (Some(a), Some(b)) => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
            _ => rank(x).cmp(&rank(y)),
        },
    }
}

fn arith(op: BinOp, x: &Value, y: &Value) -> Eval {
    if let (Value::Int(a), Value::Int(b), false) = (x, y, op == BinOp::FDiv) {
        return int_op(op, *a, *b);
    }
    let (Some(a), Some(b)) = (number(x), number(y)) else {
        return Err("badarith".into());
    };
    let r = match op {
        BinOp::Add => a + b,
        BinOp::Sub => a - b,
        BinOp::Mul => a * b,
        _ if b == 0.0 => return Err("badarith".into()),
        _ => a / b,
    };
    Ok(Value::Float(r))
}

fn int_op(op: BinOp, a: i64, b: i64) -> Eval {
    use BinOp::*;
    let r = match op {
        Add => a.checked_add(b),
        Sub => a.checked_sub(b),
        Mul => a.checked_mul(b),
        IDiv => a.checked_div(b),
        Rem => a.checked_rem(b),
        Band => Some(a & b),
        Bor => Some(a | b),
        Bxor => Some(a ^ b),
        Bsl => u32::try_from(b).ok().and_then(|s| a.checked_shl(s)),
        Bsr => u32::try_from(b).ok().map(|s| a >> s.min(63)),
        _ => None,
    };
    r.map(Value::Int).ok_or_else(|| "badarith".into())
}
