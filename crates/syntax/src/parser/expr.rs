//! Operators: binary operators by precedence climbing, prefix operators,
//! `catch`, and the postfix forms (remote names, calls, record and map
//! operations), with erl_parse's levels:
//!
//! | level | operators | assoc |
//! |---|---|---|
//! | 0 | `catch` (prefix, operand is a whole expression) | |
//! | 100 | `=` `!` | right |
//! | 150 | `orelse` | right |
//! | 160 | `andalso` | right |
//! | 200 | `==` `/=` `=<` `<` `>=` `>` `=:=` `=/=` | none |
//! | 300 | `++` `--` | right |
//! | 400 | `+` `-` `bor` `bxor` `bsl` `bsr` `or` `xor` | left |
//! | 500 | `*` `/` `div` `rem` `band` `and` | left |
//! | 600 | prefix `+` `-` `bnot` `not` | |
//! | 700 | calls, `#` record and map operations | |
//! | 800 | `:` remote | |

use super::limits::tree_depth;
use super::{first_pos, limits, primary, PResult, Parser};
use crate::ast::{BinOp, Expr, ExprKind, IntLit, Pos, RecordFieldInit, UnOp};
use crate::diag::DiagKind;
use crate::token::{Keyword, Punct, TokenKind};

#[derive(Copy, Clone, PartialEq, Eq)]
enum Assoc {
    Left,
    Right,
    Non,
}

/// What a binary operator token builds.
#[derive(Copy, Clone)]
enum Infix {
    Match,
    Op(BinOp),
}

fn infix(kind: &TokenKind) -> Option<(u32, Assoc, Infix)> {
    use Assoc::*;
    use BinOp::*;
    let op = |level, assoc, op| Some((level, assoc, Infix::Op(op)));
    match kind {
        TokenKind::Punct(p) => match p {
            Punct::Match => Some((100, Right, Infix::Match)),
            Punct::Bang => op(100, Right, Send),
            Punct::EqEq => op(200, Non, Eq),
            Punct::NotEq => op(200, Non, Neq),
            Punct::LtEq => op(200, Non, Le),
            Punct::Lt => op(200, Non, Lt),
            Punct::GtEq => op(200, Non, Ge),
            Punct::Gt => op(200, Non, Gt),
            Punct::ExactEq => op(200, Non, ExactEq),
            Punct::ExactNotEq => op(200, Non, ExactNeq),
            Punct::PlusPlus => op(300, Right, Append),
            Punct::MinusMinus => op(300, Right, Subtract),
            Punct::Plus => op(400, Left, Add),
            Punct::Minus => op(400, Left, Sub),
            Punct::Star => op(500, Left, Mul),
            Punct::Slash => op(500, Left, FDiv),
            _ => None,
        },
        TokenKind::Keyword(k) => match k {
            Keyword::Orelse => op(150, Right, OrElse),
            Keyword::Andalso => op(160, Right, AndAlso),
            Keyword::Bor => op(400, Left, Bor),
            Keyword::Bxor => op(400, Left, Bxor),
            Keyword::Bsl => op(400, Left, Bsl),
            Keyword::Bsr => op(400, Left, Bsr),
            Keyword::Or => op(400, Left, Or),
            Keyword::Xor => op(400, Left, Xor),
            Keyword::Div => op(500, Left, IDiv),
            Keyword::Rem => op(500, Left, Rem),
            Keyword::Band => op(500, Left, Band),
            Keyword::And => op(500, Left, And),
            _ => None,
        },
        _ => None,
    }
}

pub(super) fn prefix_op(kind: &TokenKind) -> Option<UnOp> {
    match kind {
        TokenKind::Punct(Punct::Minus) => Some(UnOp::Neg),
        TokenKind::Punct(Punct::Plus) => Some(UnOp::Plus),
        TokenKind::Keyword(Keyword::Bnot) => Some(UnOp::Bnot),
        TokenKind::Keyword(Keyword::Not) => Some(UnOp::Not),
        _ => None,
    }
}

pub(super) fn expr(p: &mut Parser<'_>) -> PResult<Expr> {
    binary(p, 0)
}

pub(super) fn exprs(p: &mut Parser<'_>) -> PResult<Vec<Expr>> {
    let mut exprs = vec![expr(p)?];
    while p.eat_punct(Punct::Comma).is_some() {
        exprs.push(expr(p)?);
    }
    Ok(exprs)
}

/// Operators of at least `min_level`, by precedence climbing.
fn binary(p: &mut Parser<'_>, min_level: u32) -> PResult<Expr> {
    p.enter()?;
    let result = binary_inner(p, min_level);
    p.leave();
    result
}

fn binary_inner(p: &mut Parser<'_>, min_level: u32) -> PResult<Expr> {
    let mut lhs = unary(p)?;
    // Depth of `lhs`, tracked only along left-associative chains (the
    // others recurse, and recursion is bounded by MAX_NESTING).
    let mut depth: Option<usize> = None;
    let mut last_level = None;
    while let Some((level, assoc, infix)) = p.kind().and_then(infix) {
        if level < min_level {
            break;
        }
        if assoc == Assoc::Non && last_level == Some(level) {
            let t = &p.tokens[p.i];
            return Err(p.error_at(
                DiagKind::Syntax,
                t.pos,
                format!(
                    "syntax error before: {}: comparison operators do not chain",
                    t.kind
                ),
            ));
        }
        let op_pos = p.tokens[p.i].pos;
        p.i += 1;
        let next_min = if assoc == Assoc::Right {
            level
        } else {
            level + 1
        };
        let rhs = binary(p, next_min)?;
        if assoc != Assoc::Right {
            let d = depth.get_or_insert_with(|| tree_depth(&lhs));
            *d = (*d).max(tree_depth(&rhs)) + 1;
            limits::check_depth(p, *d, op_pos)?;
        }
        lhs = match infix {
            Infix::Match => Expr::new(
                first_pos(&lhs),
                ExprKind::Match(Box::new(lhs), Box::new(rhs)),
            ),
            Infix::Op(op) => Expr::new(op_pos, ExprKind::BinOp(op, Box::new(lhs), Box::new(rhs))),
        };
        last_level = Some(level);
    }
    Ok(lhs)
}

/// Prefix operators, `catch`, then a postfix expression.
fn unary(p: &mut Parser<'_>) -> PResult<Expr> {
    let mut ops = Vec::new();
    while let Some(op) = p.kind().and_then(prefix_op) {
        ops.push((op, p.tokens[p.i].pos));
        p.i += 1;
    }
    let operand = if let Some(pos) = p.eat_keyword(Keyword::Catch) {
        let body = binary(p, 0)?;
        Expr::new(pos, ExprKind::Catch(Box::new(body)))
    } else {
        postfix(p)?
    };
    if let Some(&(_, pos)) = ops.first() {
        limits::check_depth(p, tree_depth(&operand) + ops.len(), pos)?;
    }
    Ok(ops
        .into_iter()
        .rev()
        .fold(operand, |e, (op, pos)| apply_prefix(op, pos, e)))
}

/// A prefix operator and its operand, as allowed in a binary segment.
pub(super) fn bit_expr(p: &mut Parser<'_>) -> PResult<Expr> {
    match p.kind().and_then(prefix_op) {
        Some(op) => {
            let pos = p.tokens[p.i].pos;
            p.i += 1;
            let operand = primary::expr_max(p)?;
            Ok(apply_prefix(op, pos, operand))
        }
        None => primary::expr_max(p),
    }
}

/// `expr_max`, then at most one `:` and one call, or a chain of record
/// or map operations (erl_parse's levels 700 and 800).
fn postfix(p: &mut Parser<'_>) -> PResult<Expr> {
    if p.at_punct(Punct::Hash) {
        return hash_chain(p, None);
    }
    let e = primary::expr_max(p)?;
    if !p.no_remote && p.at_punct(Punct::Colon) {
        let colon = p.tokens[p.i].pos;
        p.i += 1;
        let function = primary::expr_max(p)?;
        let remote = Expr::new(
            colon,
            ExprKind::Remote {
                module: Box::new(e),
                function: Box::new(function),
            },
        );
        return if p.at_punct(Punct::LParen) {
            call(p, remote)
        } else {
            Ok(remote)
        };
    }
    if p.at_punct(Punct::LParen) {
        return call(p, e);
    }
    if p.at_punct(Punct::Hash) {
        return hash_chain(p, Some(e));
    }
    Ok(e)
}

fn call(p: &mut Parser<'_>, fun: Expr) -> PResult<Expr> {
    let args = call_args(p)?;
    Ok(Expr::new(
        first_pos(&fun),
        ExprKind::Call {
            fun: Box::new(fun),
            args,
        },
    ))
}

pub(super) fn call_args(p: &mut Parser<'_>) -> PResult<Vec<Expr>> {
    p.expect_punct(Punct::LParen, "'('")?;
    if p.eat_punct(Punct::RParen).is_some() {
        return Ok(Vec::new());
    }
    let args = exprs(p)?;
    p.expect_punct(Punct::RParen, "',' or ')'")?;
    Ok(args)
}

/// `#{...}`, `#r{...}`, `#r.f`, and chains of them on `base`. Map and
/// record operations do not mix in one chain (erl_parse's grammar).
fn hash_chain(p: &mut Parser<'_>, mut base: Option<Expr>) -> PResult<Expr> {
    let is_map = p.kind_at(1).is_some_and(|k| k.is_punct(Punct::LBrace));
    let mut depth = base.as_ref().map_or(0, tree_depth);
    while let Some(hash) = p.eat_punct(Punct::Hash) {
        let kind = if is_map {
            if !p.at_punct(Punct::LBrace) {
                return Err(p.error_expected("'{' (a map)"));
            }
            let assocs = primary::map_assocs(p)?;
            depth = depth.max(
                assocs
                    .iter()
                    .map(|a| tree_depth(&a.key).max(tree_depth(&a.value)))
                    .max()
                    .unwrap_or(0),
            );
            ExprKind::Map {
                base: base.map(Box::new),
                assocs,
            }
        } else {
            let (name, _) = p.expect_atom("a record name")?;
            if p.eat_punct(Punct::Period).is_some() {
                let (field, _) = p.expect_atom("a record field name")?;
                match base {
                    Some(b) => ExprKind::RecordField {
                        expr: Box::new(b),
                        name,
                        field,
                    },
                    None => ExprKind::RecordIndex { name, field },
                }
            } else if p.at_punct(Punct::LBrace) {
                let fields = record_fields(p)?;
                depth = depth.max(
                    fields
                        .iter()
                        .map(|f| tree_depth(&f.value))
                        .max()
                        .unwrap_or(0),
                );
                ExprKind::Record {
                    base: base.map(Box::new),
                    name,
                    fields,
                }
            } else {
                return Err(p.error_expected("'.' or '{' after the record name"));
            }
        };
        depth += 1;
        limits::check_depth(p, depth, hash)?;
        base = Some(Expr::new(hash, kind));
    }
    base.ok_or_else(|| p.error_expected("'#'"))
}

/// `{field = Value, _ = Value, ...}`
fn record_fields(p: &mut Parser<'_>) -> PResult<Vec<RecordFieldInit>> {
    p.expect_punct(Punct::LBrace, "'{'")?;
    let mut fields = Vec::new();
    if p.eat_punct(Punct::RBrace).is_some() {
        return Ok(fields);
    }
    loop {
        let (name, pos) = match p.kind() {
            Some(TokenKind::Var(v)) if v == "_" => {
                let pos = p.tokens[p.i].pos;
                p.i += 1;
                ("_".to_string(), pos)
            }
            _ => p.expect_atom("a record field name")?,
        };
        p.expect_punct(Punct::Match, "'='")?;
        let value = expr(p)?;
        fields.push(RecordFieldInit { pos, name, value });
        if p.eat_punct(Punct::Comma).is_none() {
            break;
        }
    }
    p.expect_punct(Punct::RBrace, "',' or '}'")?;
    Ok(fields)
}

/// Applies a prefix operator; on a number literal the sign is folded into it,
/// so `-1` is the integer -1 (at the position of the `-`).
pub(super) fn apply_prefix(op: UnOp, pos: Pos, operand: Expr) -> Expr {
    match (op, operand.kind) {
        (UnOp::Neg, ExprKind::Integer(n)) => Expr::new(pos, ExprKind::Integer(negate(n))),
        (UnOp::Neg, ExprKind::Float(x)) => Expr::new(pos, ExprKind::Float(-x)),
        (UnOp::Plus, kind @ (ExprKind::Integer(_) | ExprKind::Float(_))) => Expr::new(pos, kind),
        (op, kind) => Expr::new(
            pos,
            ExprKind::UnOp(
                op,
                Box::new(Expr {
                    pos: operand.pos,
                    kind,
                }),
            ),
        ),
    }
}

fn negate(n: IntLit) -> IntLit {
    match n {
        IntLit::Small(v) => match v.checked_neg() {
            Some(v) => IntLit::Small(v),
            None => IntLit::Big(v.unsigned_abs().to_string()),
        },
        IntLit::Big(digits) => {
            let negated = match digits.strip_prefix('-') {
                Some(positive) => positive.to_string(),
                None => format!("-{digits}"),
            };
            match negated.parse::<i64>() {
                Ok(v) => IntLit::Small(v),
                Err(_) => IntLit::Big(negated),
            }
        }
    }
}
