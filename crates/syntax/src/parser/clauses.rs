//! Keyword-led constructs and their clauses: `begin`, `case`, `if`,
//! `receive`, `try`, `fun`; guards and clause bodies.

use super::{first_pos, PResult, Parser};
use crate::ast::{CatchClause, Clause, Expr, ExprKind, FunExpr, IntLit, Pos};
use crate::diag::DiagKind;
use crate::token::{Keyword, Punct, TokenKind};

impl Parser<'_> {
    pub(super) fn guard(&mut self) -> PResult<Vec<Vec<Expr>>> {
        let mut alternatives = vec![self.exprs()?];
        while self.eat_punct(Punct::Semi).is_some() {
            alternatives.push(self.exprs()?);
        }
        Ok(alternatives)
    }

    /// `[when Guard] -> Body` after a clause's patterns.
    pub(super) fn clause_tail(&mut self, pos: Pos, patterns: Vec<Expr>) -> PResult<Clause> {
        let (guards, body) = self.guard_and_body()?;
        Ok(Clause {
            pos,
            patterns,
            guards,
            body,
        })
    }

    fn guard_and_body(&mut self) -> PResult<(Vec<Vec<Expr>>, Vec<Expr>)> {
        let guards = if self.eat_keyword(Keyword::When).is_some() {
            self.guard()?
        } else {
            Vec::new()
        };
        let expected = if guards.is_empty() {
            "'when' or '->'"
        } else {
            "',', ';' or '->'"
        };
        self.expect_punct(Punct::Arrow, expected)?;
        let body = self.exprs()?;
        Ok((guards, body))
    }

    pub(super) fn block(&mut self) -> PResult<Expr> {
        let pos = self.expect_keyword(Keyword::Begin, "'begin'")?;
        let body = self.exprs()?;
        self.expect_keyword(Keyword::End, "',' or 'end'")?;
        Ok(Expr::new(pos, ExprKind::Block(body)))
    }

    /// `Pattern [when Guard] -> Body; ...` of `case`, `receive` and `try ... of`.
    fn cr_clauses(&mut self) -> PResult<Vec<Clause>> {
        let mut clauses = Vec::new();
        loop {
            let pattern = self.expr()?;
            let pos = first_pos(&pattern);
            clauses.push(self.clause_tail(pos, vec![pattern])?);
            if self.eat_punct(Punct::Semi).is_none() {
                return Ok(clauses);
            }
        }
    }

    pub(super) fn case_expr(&mut self) -> PResult<Expr> {
        let pos = self.expect_keyword(Keyword::Case, "'case'")?;
        let expr = self.expr()?;
        self.expect_keyword(Keyword::Of, "'of'")?;
        let clauses = self.cr_clauses()?;
        self.expect_keyword(Keyword::End, "';' or 'end'")?;
        Ok(Expr::new(
            pos,
            ExprKind::Case {
                expr: Box::new(expr),
                clauses,
            },
        ))
    }

    pub(super) fn if_expr(&mut self) -> PResult<Expr> {
        let pos = self.expect_keyword(Keyword::If, "'if'")?;
        let mut clauses = Vec::new();
        loop {
            let clause_pos = self.next_pos();
            let guards = self.guard()?;
            self.expect_punct(Punct::Arrow, "',', ';' or '->'")?;
            let body = self.exprs()?;
            clauses.push(Clause {
                pos: clause_pos,
                patterns: Vec::new(),
                guards,
                body,
            });
            if self.eat_punct(Punct::Semi).is_none() {
                break;
            }
        }
        self.expect_keyword(Keyword::End, "';' or 'end'")?;
        Ok(Expr::new(pos, ExprKind::If(clauses)))
    }

    pub(super) fn receive_expr(&mut self) -> PResult<Expr> {
        let pos = self.expect_keyword(Keyword::Receive, "'receive'")?;
        let clauses = if self.at_keyword(Keyword::After) {
            Vec::new()
        } else {
            self.cr_clauses()?
        };
        let after = if self.eat_keyword(Keyword::After).is_some() {
            let timeout = self.expr()?;
            self.expect_punct(Punct::Arrow, "'->'")?;
            let body = self.exprs()?;
            Some((Box::new(timeout), body))
        } else {
            None
        };
        let expected = if after.is_some() {
            "',' or 'end'"
        } else {
            "';', 'after' or 'end'"
        };
        self.expect_keyword(Keyword::End, expected)?;
        Ok(Expr::new(pos, ExprKind::Receive { clauses, after }))
    }

    pub(super) fn try_expr(&mut self) -> PResult<Expr> {
        let pos = self.expect_keyword(Keyword::Try, "'try'")?;
        let body = self.exprs()?;
        let of_clauses = if self.eat_keyword(Keyword::Of).is_some() {
            self.cr_clauses()?
        } else {
            Vec::new()
        };
        let mut catch_clauses = Vec::new();
        if self.eat_keyword(Keyword::Catch).is_some() {
            loop {
                catch_clauses.push(self.catch_clause()?);
                if self.eat_punct(Punct::Semi).is_none() {
                    break;
                }
            }
        }
        let after = if self.eat_keyword(Keyword::After).is_some() {
            self.exprs()?
        } else {
            Vec::new()
        };
        if catch_clauses.is_empty() && after.is_empty() {
            return Err(self.error_expected("'of', 'catch' or 'after'"));
        }
        self.expect_keyword(Keyword::End, "'end'")?;
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
    fn catch_clause(&mut self) -> PResult<CatchClause> {
        let pos = self.next_pos();
        let class_follows = matches!(
            (self.kind(), self.kind_at(1)),
            (
                Some(TokenKind::Atom(_) | TokenKind::Var(_)),
                Some(TokenKind::Punct(Punct::Colon))
            )
        );
        let class = if class_follows {
            let class = self.expr_max()?;
            self.i += 1;
            Some(class)
        } else {
            None
        };
        self.no_remote = true;
        let pattern = self.expr();
        self.no_remote = false;
        let pattern = pattern?;
        let mut stacktrace = None;
        if class.is_some() && self.eat_punct(Punct::Colon).is_some() {
            match self.kind() {
                Some(TokenKind::Var(v)) => {
                    if v != "_" {
                        stacktrace = Some(v.clone());
                    }
                    self.i += 1;
                }
                _ => return Err(self.error_expected("a stacktrace variable")),
            }
        }
        let (guards, body) = self.guard_and_body()?;
        Ok(CatchClause {
            pos,
            class,
            pattern,
            stacktrace,
            guards,
            body,
        })
    }

    pub(super) fn fun_expr(&mut self) -> PResult<Expr> {
        let pos = self.expect_keyword(Keyword::Fun, "'fun'")?;
        let fun = match (self.kind(), self.kind_at(1)) {
            (Some(TokenKind::Punct(Punct::LParen)), _) => self.fun_clauses(None)?,
            (Some(TokenKind::Var(name)), Some(TokenKind::Punct(Punct::LParen))) => {
                self.fun_clauses(Some(name.clone()))?
            }
            (
                Some(TokenKind::Var(_) | TokenKind::Atom(_)),
                Some(TokenKind::Punct(Punct::Colon)),
            ) => {
                let module = self.expr_max()?;
                self.i += 1;
                let function = self.atom_or_var("a function name")?;
                self.expect_punct(Punct::Slash, "'/'")?;
                let arity = match self.kind() {
                    Some(TokenKind::Integer(_) | TokenKind::Var(_)) => self.expr_max()?,
                    _ => return Err(self.error_expected("an arity")),
                };
                FunExpr::Remote {
                    module: Box::new(module),
                    function: Box::new(function),
                    arity: Box::new(arity),
                }
            }
            (Some(kind), Some(TokenKind::Punct(Punct::Slash)))
                if Self::atom_name(kind).is_some() =>
            {
                let (name, _) = self.expect_atom("a function name")?;
                self.i += 1;
                let arity = self.arity()?;
                FunExpr::Local { name, arity }
            }
            _ => return Err(self.error_expected("'(', Name/Arity or Module:Name/Arity")),
        };
        Ok(Expr::new(pos, ExprKind::Fun(fun)))
    }

    fn atom_or_var(&mut self, expected: &str) -> PResult<Expr> {
        match self.kind() {
            Some(TokenKind::Var(_)) => self.expr_max(),
            Some(kind) if Self::atom_name(kind).is_some() => {
                let (name, pos) = self.expect_atom(expected)?;
                Ok(Expr::new(pos, ExprKind::Atom(name)))
            }
            _ => Err(self.error_expected(expected)),
        }
    }

    /// A literal arity (`fun f/2`, `-export([f/2])`).
    pub(super) fn arity(&mut self) -> PResult<usize> {
        match self.kind() {
            Some(TokenKind::Integer(IntLit::Small(n))) if *n >= 0 => {
                let n = *n;
                self.i += 1;
                usize::try_from(n).map_err(|_| self.error_expected("an arity"))
            }
            _ => Err(self.error_expected("an arity (an integer)")),
        }
    }

    /// The clauses of `fun (...) -> ... end` or a named fun `fun Name(...) -> ... end`.
    fn fun_clauses(&mut self, name: Option<String>) -> PResult<FunExpr> {
        let mut clauses = Vec::new();
        loop {
            let pos = self.next_pos();
            if let Some(name) = &name {
                match self.kind() {
                    Some(TokenKind::Var(v)) if v == name => self.i += 1,
                    Some(TokenKind::Var(_)) => {
                        return Err(self.error_at(DiagKind::Syntax, pos, "head mismatch"))
                    }
                    _ => return Err(self.error_expected(&format!("'{name}'"))),
                }
            }
            let args = self.call_args()?;
            clauses.push(self.clause_tail(pos, args)?);
            if self.eat_punct(Punct::Semi).is_none() {
                break;
            }
        }
        self.expect_keyword(Keyword::End, "';' or 'end'")?;
        Ok(FunExpr::Clauses { name, clauses })
    }
}
