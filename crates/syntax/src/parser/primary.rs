//! `expr_max`: literals, variables, lists, tuples, maps, binaries,
//! comprehensions, parenthesized expressions, and the keyword-led constructs
//! (delegated to [`super::clauses`]).

use super::expr::prefix_op;
use super::limits::tree_depth;
use super::{clauses, expr, first_pos, limits, PResult, Parser};
use crate::ast::{BinElement, Expr, ExprKind, IntLit, MapAssoc, Qualifier, TypeSpec};
use crate::diag::DiagKind;
use crate::token::{Keyword, Punct, TokenKind};

pub(super) fn expr_max(p: &mut Parser<'_>) -> PResult<Expr> {
    let Some(token) = p.peek() else {
        return Err(p.error_expected("an expression"));
    };
    let pos = token.pos;
    let kind = match &token.kind {
        TokenKind::Var(v) => ExprKind::Var(v.clone()),
        TokenKind::Atom(a) => ExprKind::Atom(a.clone()),
        TokenKind::Integer(n) => ExprKind::Integer(n.clone()),
        TokenKind::Float(x) => ExprKind::Float(*x),
        TokenKind::Char(c) => ExprKind::Integer(IntLit::Small(i64::from(*c))),
        TokenKind::String(_) => return Ok(strings(p)),
        TokenKind::Punct(Punct::LBracket) => return list(p),
        TokenKind::Punct(Punct::LBrace) => return tuple(p),
        TokenKind::Punct(Punct::LtLt) => return binary_expr(p),
        TokenKind::Punct(Punct::LParen) => {
            p.i += 1;
            let inner = expr::expr(p)?;
            p.expect_punct(Punct::RParen, "')'")?;
            return Ok(inner);
        }
        TokenKind::Keyword(k) => match k {
            Keyword::Begin => return clauses::block(p),
            Keyword::Case => return clauses::case_expr(p),
            Keyword::If => return clauses::if_expr(p),
            Keyword::Receive => return clauses::receive_expr(p),
            Keyword::Try => return clauses::try_expr(p),
            Keyword::Fun => return clauses::fun_expr(p),
            Keyword::Maybe if maybe_block_follows(p) => {
                return Err(p.error_at(
                    DiagKind::Unsupported,
                    pos,
                    "maybe expressions (maybe ... end) are not supported",
                ));
            }
            Keyword::Maybe | Keyword::Else => ExprKind::Atom(k.as_str().to_string()),
            _ => return Err(p.error_expected("an expression")),
        },
        _ => return Err(p.error_expected("an expression")),
    };
    p.i += 1;
    Ok(Expr::new(pos, kind))
}

/// `maybe` is an atom in OTP 25 unless it opens a block: followed by
/// something that starts an expression rather than by an operator.
fn maybe_block_follows(p: &Parser<'_>) -> bool {
    match p.kind_at(1) {
        Some(TokenKind::Keyword(k)) => matches!(
            k,
            Keyword::Begin
                | Keyword::Case
                | Keyword::If
                | Keyword::Receive
                | Keyword::Try
                | Keyword::Fun
                | Keyword::Catch
                | Keyword::Not
                | Keyword::Bnot
                | Keyword::Maybe
        ),
        Some(TokenKind::Punct(p)) => {
            matches!(
                p,
                Punct::LBracket | Punct::LBrace | Punct::LtLt | Punct::Hash
            )
        }
        Some(TokenKind::Dot) | None => false,
        Some(TokenKind::Other(_)) => false,
        Some(_) => true,
    }
}

/// Adjacent string literals are one string.
fn strings(p: &mut Parser<'_>) -> Expr {
    let pos = p.next_pos();
    let mut chars = Vec::new();
    while let Some(TokenKind::String(s)) = p.kind() {
        chars.extend_from_slice(s);
        p.i += 1;
    }
    Expr::new(pos, ExprKind::String(chars))
}

/// `[]`, `[A, B | T]`, `[T || Qualifiers]`.
fn list(p: &mut Parser<'_>) -> PResult<Expr> {
    let open = p.expect_punct(Punct::LBracket, "'['")?;
    if p.eat_punct(Punct::RBracket).is_some() {
        return Ok(Expr::new(open, ExprKind::Nil));
    }
    let first = expr::expr(p)?;
    if p.eat_punct(Punct::PipePipe).is_some() {
        let qualifiers = qualifiers(p)?;
        p.expect_punct(Punct::RBracket, "',' or ']'")?;
        return Ok(Expr::new(
            open,
            ExprKind::ListComp {
                template: Box::new(first),
                qualifiers,
            },
        ));
    }
    let mut elements = vec![first];
    while p.eat_punct(Punct::Comma).is_some() {
        elements.push(expr::expr(p)?);
        limits::check_depth(p, elements.len(), open)?;
    }
    let tail = if p.eat_punct(Punct::Pipe).is_some() {
        let tail = expr::expr(p)?;
        p.expect_punct(Punct::RBracket, "']'")?;
        tail
    } else {
        let close = p.expect_punct(Punct::RBracket, "',', '|' or ']'")?;
        Expr::new(close, ExprKind::Nil)
    };
    // Element i sits under i + 1 cons cells.
    let depth = elements
        .iter()
        .enumerate()
        .map(|(i, e)| i + 1 + tree_depth(e))
        .chain(std::iter::once(elements.len() + tree_depth(&tail)))
        .max()
        .unwrap_or(0);
    limits::check_depth(p, depth, open)?;
    let count = elements.len();
    Ok(elements
        .into_iter()
        .rev()
        .enumerate()
        .fold(tail, |tail, (k, head)| {
            let pos = if k + 1 == count {
                open
            } else {
                first_pos(&head)
            };
            Expr::new(pos, ExprKind::Cons(Box::new(head), Box::new(tail)))
        }))
}

fn tuple(p: &mut Parser<'_>) -> PResult<Expr> {
    let open = p.expect_punct(Punct::LBrace, "'{'")?;
    if p.eat_punct(Punct::RBrace).is_some() {
        return Ok(Expr::new(open, ExprKind::Tuple(Vec::new())));
    }
    let elements = expr::exprs(p)?;
    p.expect_punct(Punct::RBrace, "',' or '}'")?;
    Ok(Expr::new(open, ExprKind::Tuple(elements)))
}

/// `{K => V, K := V, ...}` after a `#`.
pub(super) fn map_assocs(p: &mut Parser<'_>) -> PResult<Vec<MapAssoc>> {
    p.expect_punct(Punct::LBrace, "'{'")?;
    let mut assocs = Vec::new();
    if p.eat_punct(Punct::RBrace).is_some() {
        return Ok(assocs);
    }
    loop {
        let key = expr::expr(p)?;
        let (exact, pos) = if let Some(pos) = p.eat_punct(Punct::FatArrow) {
            (false, pos)
        } else if let Some(pos) = p.eat_punct(Punct::ColonEq) {
            (true, pos)
        } else {
            return Err(p.error_expected("'=>' or ':='"));
        };
        let value = expr::expr(p)?;
        assocs.push(MapAssoc {
            pos,
            key,
            value,
            exact,
        });
        if assocs.len() == 1 && p.at_punct(Punct::PipePipe) {
            return Err(p.error_at(
                DiagKind::Unsupported,
                p.next_pos(),
                "map comprehensions (OTP 26) are not supported",
            ));
        }
        if p.eat_punct(Punct::Comma).is_none() {
            break;
        }
    }
    p.expect_punct(Punct::RBrace, "',' or '}'")?;
    Ok(assocs)
}

/// `<<Segments>>` or `<<Template || Qualifiers>>`.
fn binary_expr(p: &mut Parser<'_>) -> PResult<Expr> {
    let open = p.expect_punct(Punct::LtLt, "'<<'")?;
    if p.eat_punct(Punct::GtGt).is_some() {
        return Ok(Expr::new(open, ExprKind::Binary(Vec::new())));
    }
    let mut elements = Vec::new();
    if p.kind().and_then(prefix_op).is_none() {
        let value = expr_max(p)?;
        if p.eat_punct(Punct::PipePipe).is_some() {
            let qualifiers = qualifiers(p)?;
            p.expect_punct(Punct::GtGt, "',' or '>>'")?;
            return Ok(Expr::new(
                open,
                ExprKind::BinComp {
                    template: Box::new(value),
                    qualifiers,
                },
            ));
        }
        elements.push(bin_element_rest(p, value)?);
        if p.eat_punct(Punct::Comma).is_none() {
            p.expect_punct(Punct::GtGt, "',' or '>>'")?;
            return Ok(Expr::new(open, ExprKind::Binary(elements)));
        }
    }
    loop {
        let value = expr::bit_expr(p)?;
        elements.push(bin_element_rest(p, value)?);
        if p.eat_punct(Punct::Comma).is_none() {
            break;
        }
    }
    p.expect_punct(Punct::GtGt, "',' or '>>'")?;
    Ok(Expr::new(open, ExprKind::Binary(elements)))
}

/// The `:Size/Type-Spec` after a segment's value.
fn bin_element_rest(p: &mut Parser<'_>, value: Expr) -> PResult<BinElement> {
    let pos = first_pos(&value);
    let size = if p.eat_punct(Punct::Colon).is_some() {
        Some(expr_max(p)?)
    } else {
        None
    };
    let mut specs = Vec::new();
    if p.eat_punct(Punct::Slash).is_some() {
        loop {
            specs.push(type_spec(p)?);
            if p.eat_punct(Punct::Minus).is_none() {
                break;
            }
        }
    }
    Ok(BinElement {
        pos,
        value,
        size,
        specs,
    })
}

fn type_spec(p: &mut Parser<'_>) -> PResult<TypeSpec> {
    let (name, pos) = p.expect_atom("a type specifier such as integer or binary")?;
    if p.eat_punct(Punct::Colon).is_none() {
        return Ok(TypeSpec::Name(name));
    }
    let value = match p.kind() {
        Some(TokenKind::Integer(IntLit::Small(n))) => *n,
        _ => return Err(p.error_expected("an integer")),
    };
    p.i += 1;
    match u32::try_from(value) {
        Ok(unit) if name == "unit" => Ok(TypeSpec::Unit(unit)),
        _ => Err(p.error_at(
            DiagKind::Semantic,
            pos,
            format!("bit type {name}:{value} undefined"),
        )),
    }
}

/// The qualifiers of a comprehension: generators and filters.
fn qualifiers(p: &mut Parser<'_>) -> PResult<Vec<Qualifier>> {
    let mut qualifiers = Vec::new();
    loop {
        let e = expr::expr(p)?;
        let q = if let Some(pos) = p.eat_punct(Punct::LArrow) {
            let list = expr::expr(p)?;
            Qualifier::Generator {
                pos,
                pattern: e,
                list,
            }
        } else if p.at_punct(Punct::LDoubleArrow) {
            // erl_parse only accepts a binary literal before `<=`.
            if !matches!(e.kind, ExprKind::Binary(_)) {
                return Err(p.error_expected(
                    "',' or ']' (the pattern of a bit generator must be a binary <<...>>)",
                ));
            }
            let pos = p.expect_punct(Punct::LDoubleArrow, "'<='")?;
            let binary = expr::expr(p)?;
            Qualifier::BitGenerator {
                pos,
                pattern: e,
                binary,
            }
        } else if p.at_punct(Punct::ColonEq) {
            return Err(p.error_at(
                DiagKind::Unsupported,
                p.next_pos(),
                "map generators (K := V <- Map, OTP 26) are not supported",
            ));
        } else {
            Qualifier::Filter(e)
        };
        qualifiers.push(q);
        if p.eat_punct(Punct::Comma).is_none() {
            return Ok(qualifiers);
        }
    }
}
