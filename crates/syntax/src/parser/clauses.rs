//! Keyword-led constructs and their clauses: `begin`, `case`, `if`,
//! `receive`, `try`, `fun`; guards and clause bodies.

use super::{expr, first_pos, primary, PResult, Parser};
use crate::ast::{CatchClause, Clause, Expr, ExprKind, FunExpr, IntLit, Pos};
use crate::diag::DiagKind;
use crate::token::{Keyword, Punct, TokenKind};

pub(super) fn guard(p: &mut Parser<'_>) -> PResult<Vec<Vec<Expr>>> {
    let mut alternatives = vec![expr::exprs(p)?];
    while p.eat_punct(Punct::Semi).is_some() {
        alternatives.push(expr::exprs(p)?);
    }
    Ok(alternatives)
}

/// `[when Guard] -> Body` after a clause's patterns.
pub(super) fn clause_tail(p: &mut Parser<'_>, pos: Pos, patterns: Vec<Expr>) -> PResult<Clause> {
    let (guards, body) = guard_and_body(p)?;
    Ok(Clause {
        pos,
        patterns,
        guards,
        body,
    })
}

fn guard_and_body(p: &mut Parser<'_>) -> PResult<(Vec<Vec<Expr>>, Vec<Expr>)> {
    let guards = if p.eat_keyword(Keyword::When).is_some() {
        guard(p)?
    } else {
        Vec::new()
    };
    let expected = if guards.is_empty() {
        "'when' or '->'"
    } else {
        "',', ';' or '->'"
    };
    p.expect_punct(Punct::Arrow, expected)?;
    let body = expr::exprs(p)?;
    Ok((guards, body))
}

pub(super) fn block(p: &mut Parser<'_>) -> PResult<Expr> {
    let pos = p.expect_keyword(Keyword::Begin, "'begin'")?;
    let body = expr::exprs(p)?;
    p.expect_keyword(Keyword::End, "',' or 'end'")?;
    Ok(Expr::new(pos, ExprKind::Block(body)))
}

/// `Pattern [when Guard] -> Body; ...` of `case`, `receive` and `try ... of`.
fn cr_clauses(p: &mut Parser<'_>) -> PResult<Vec<Clause>> {
    let mut clauses = Vec::new();
    loop {
        let pattern = expr::expr(p)?;
        let pos = first_pos(&pattern);
        clauses.push(clause_tail(p, pos, vec![pattern])?);
        if p.eat_punct(Punct::Semi).is_none() {
            return Ok(clauses);
        }
    }
}

pub(super) fn case_expr(p: &mut Parser<'_>) -> PResult<Expr> {
    let pos = p.expect_keyword(Keyword::Case, "'case'")?;
    let expr = expr::expr(p)?;
    p.expect_keyword(Keyword::Of, "'of'")?;
    let clauses = cr_clauses(p)?;
    p.expect_keyword(Keyword::End, "';' or 'end'")?;
    Ok(Expr::new(
        pos,
        ExprKind::Case {
            expr: Box::new(expr),
            clauses,
        },
    ))
}

pub(super) fn if_expr(p: &mut Parser<'_>) -> PResult<Expr> {
    let pos = p.expect_keyword(Keyword::If, "'if'")?;
    let mut clauses = Vec::new();
    loop {
        let clause_pos = p.next_pos();
        let guards = guard(p)?;
        p.expect_punct(Punct::Arrow, "',', ';' or '->'")?;
        let body = expr::exprs(p)?;
        clauses.push(Clause {
            pos: clause_pos,
            patterns: Vec::new(),
            guards,
            body,
        });
        if p.eat_punct(Punct::Semi).is_none() {
            break;
        }
    }
    p.expect_keyword(Keyword::End, "';' or 'end'")?;
    Ok(Expr::new(pos, ExprKind::If(clauses)))
}

pub(super) fn receive_expr(p: &mut Parser<'_>) -> PResult<Expr> {
    let pos = p.expect_keyword(Keyword::Receive, "'receive'")?;
    let clauses = if p.at_keyword(Keyword::After) {
        Vec::new()
    } else {
        cr_clauses(p)?
    };
    let after = if p.eat_keyword(Keyword::After).is_some() {
        let timeout = expr::expr(p)?;
        p.expect_punct(Punct::Arrow, "'->'")?;
        let body = expr::exprs(p)?;
        Some((Box::new(timeout), body))
    } else {
        None
    };
    let expected = if after.is_some() {
        "',' or 'end'"
    } else {
        "';', 'after' or 'end'"
    };
    p.expect_keyword(Keyword::End, expected)?;
    Ok(Expr::new(pos, ExprKind::Receive { clauses, after }))
}

pub(super) fn try_expr(p: &mut Parser<'_>) -> PResult<Expr> {
    let pos = p.expect_keyword(Keyword::Try, "'try'")?;
    let body = expr::exprs(p)?;
    let of_clauses = if p.eat_keyword(Keyword::Of).is_some() {
        cr_clauses(p)?
    } else {
        Vec::new()
    };
    let mut catch_clauses = Vec::new();
    if p.eat_keyword(Keyword::Catch).is_some() {
        loop {
            catch_clauses.push(catch_clause(p)?);
            if p.eat_punct(Punct::Semi).is_none() {
                break;
            }
        }
    }
    let after = if p.eat_keyword(Keyword::After).is_some() {
        expr::exprs(p)?
    } else {
        Vec::new()
    };
    if catch_clauses.is_empty() && after.is_empty() {
        return Err(p.error_expected("'of', 'catch' or 'after'"));
    }
    p.expect_keyword(Keyword::End, "'end'")?;
    Ok(Expr::new(
        pos,
        ExprKind::Try {
            body,
            of_clauses,
            catch_clauses,
            after,
        },
    ))
}

/// `[Class:]Pattern[:Stacktrace] [when Guard] -> Body`; the class is an
/// atom or a variable, the stacktrace a variable.
fn catch_clause(p: &mut Parser<'_>) -> PResult<CatchClause> {
    let pos = p.next_pos();
    let class_follows = matches!(
        (p.kind(), p.kind_at(1)),
        (
            Some(TokenKind::Atom(_) | TokenKind::Var(_)),
            Some(TokenKind::Punct(Punct::Colon))
        )
    );
    let class = if class_follows {
        let class = primary::expr_max(p)?;
        p.i += 1;
        Some(class)
    } else {
        None
    };
    p.no_remote = true;
    let pattern = expr::expr(p);
    p.no_remote = false;
    let pattern = pattern?;
    let mut stacktrace = None;
    if class.is_some() && p.eat_punct(Punct::Colon).is_some() {
        match p.kind() {
            Some(TokenKind::Var(v)) => {
                if v != "_" {
                    stacktrace = Some(v.clone());
                }
                p.i += 1;
            }
            _ => return Err(p.error_expected("a stacktrace variable")),
        }
    }
    let (guards, body) = guard_and_body(p)?;
    Ok(CatchClause {
        pos,
        class,
        pattern,
        stacktrace,
        guards,
        body,
    })
}

pub(super) fn fun_expr(p: &mut Parser<'_>) -> PResult<Expr> {
    let pos = p.expect_keyword(Keyword::Fun, "'fun'")?;
    let fun = match (p.kind(), p.kind_at(1)) {
        (Some(TokenKind::Punct(Punct::LParen)), _) => fun_clauses(p, None)?,
        (Some(TokenKind::Var(name)), Some(TokenKind::Punct(Punct::LParen))) => {
            fun_clauses(p, Some(name.clone()))?
        }
        (Some(TokenKind::Var(_) | TokenKind::Atom(_)), Some(TokenKind::Punct(Punct::Colon))) => {
            let module = primary::expr_max(p)?;
            p.i += 1;
            let function = atom_or_var(p, "a function name")?;
            p.expect_punct(Punct::Slash, "'/'")?;
            let arity = match p.kind() {
                Some(TokenKind::Integer(_) | TokenKind::Var(_)) => primary::expr_max(p)?,
                _ => return Err(p.error_expected("an arity")),
            };
            FunExpr::Remote {
                module: Box::new(module),
                function: Box::new(function),
                arity: Box::new(arity),
            }
        }
        (Some(kind), Some(TokenKind::Punct(Punct::Slash))) if Parser::atom_name(kind).is_some() => {
            let (name, _) = p.expect_atom("a function name")?;
            p.i += 1;
            let arity = arity(p)?;
            FunExpr::Local { name, arity }
        }
        _ => return Err(p.error_expected("'(', Name/Arity or Module:Name/Arity")),
    };
    Ok(Expr::new(pos, ExprKind::Fun(fun)))
}

fn atom_or_var(p: &mut Parser<'_>, expected: &str) -> PResult<Expr> {
    match p.kind() {
        Some(TokenKind::Var(_)) => primary::expr_max(p),
        Some(kind) if Parser::atom_name(kind).is_some() => {
            let (name, pos) = p.expect_atom(expected)?;
            Ok(Expr::new(pos, ExprKind::Atom(name)))
        }
        _ => Err(p.error_expected(expected)),
    }
}

/// A literal arity (`fun f/2`, `-export([f/2])`).
pub(super) fn arity(p: &mut Parser<'_>) -> PResult<usize> {
    match p.kind() {
        Some(TokenKind::Integer(IntLit::Small(n))) if *n >= 0 => {
            let n = *n;
            p.i += 1;
            usize::try_from(n).map_err(|_| p.error_expected("an arity"))
        }
        _ => Err(p.error_expected("an arity (an integer)")),
    }
}

/// The clauses of `fun (...) -> ... end` or a named fun `fun Name(...) -> ... end`.
fn fun_clauses(p: &mut Parser<'_>, name: Option<String>) -> PResult<FunExpr> {
    let mut clauses = Vec::new();
    loop {
        let pos = p.next_pos();
        if let Some(name) = &name {
            match p.kind() {
                Some(TokenKind::Var(v)) if v == name => p.i += 1,
                Some(TokenKind::Var(_)) => {
                    return Err(p.error_at(DiagKind::Syntax, pos, "head mismatch"))
                }
                _ => return Err(p.error_expected(&format!("'{name}'"))),
            }
        }
        let args = expr::call_args(p)?;
        clauses.push(clause_tail(p, pos, args)?);
        if p.eat_punct(Punct::Semi).is_none() {
            break;
        }
    }
    p.expect_keyword(Keyword::End, "';' or 'end'")?;
    Ok(FunExpr::Clauses { name, clauses })
}
