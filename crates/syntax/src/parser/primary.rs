//! `expr_max`: literals, variables, lists, tuples, maps, binaries,
//! comprehensions, parenthesized expressions, and the keyword-led constructs
//! (delegated to [`super::clauses`]).

use super::expr::prefix_op;
use super::limits::tree_depth;
use super::{first_pos, PResult, Parser};
use crate::ast::{BinElement, Expr, ExprKind, IntLit, MapAssoc, Qualifier, TypeSpec};
use crate::diag::DiagKind;
use crate::token::{Keyword, Punct, TokenKind};

impl Parser<'_> {
    pub(super) fn expr_max(&mut self) -> PResult<Expr> {
        let Some(token) = self.peek() else {
            return Err(self.error_expected("an expression"));
        };
        let pos = token.pos;
        let kind = match &token.kind {
            TokenKind::Var(v) => ExprKind::Var(v.clone()),
            TokenKind::Atom(a) => ExprKind::Atom(a.clone()),
            TokenKind::Integer(n) => ExprKind::Integer(n.clone()),
            TokenKind::Float(x) => ExprKind::Float(*x),
            TokenKind::Char(c) => ExprKind::Integer(IntLit::Small(i64::from(*c))),
            TokenKind::String(_) => return Ok(self.strings()),
            TokenKind::Punct(Punct::LBracket) => return self.list(),
            TokenKind::Punct(Punct::LBrace) => return self.tuple(),
            TokenKind::Punct(Punct::LtLt) => return self.binary_expr(),
            TokenKind::Punct(Punct::LParen) => {
                self.i += 1;
                let inner = self.expr()?;
                self.expect_punct(Punct::RParen, "')'")?;
                return Ok(inner);
            }
            TokenKind::Keyword(k) => match k {
                Keyword::Begin => return self.block(),
                Keyword::Case => return self.case_expr(),
                Keyword::If => return self.if_expr(),
                Keyword::Receive => return self.receive_expr(),
                Keyword::Try => return self.try_expr(),
                Keyword::Fun => return self.fun_expr(),
                Keyword::Maybe if self.maybe_block_follows() => {
                    return Err(self.error_at(
                        DiagKind::Unsupported,
                        pos,
                        "maybe expressions (maybe ... end) are not supported",
                    ));
                }
                Keyword::Maybe | Keyword::Else => ExprKind::Atom(k.as_str().to_string()),
                _ => return Err(self.error_expected("an expression")),
            },
            _ => return Err(self.error_expected("an expression")),
        };
        self.i += 1;
        Ok(Expr::new(pos, kind))
    }

    /// `maybe` is an atom in OTP 25 unless it opens a block: followed by
    /// something that starts an expression rather than by an operator.
    fn maybe_block_follows(&self) -> bool {
        match self.kind_at(1) {
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
    fn strings(&mut self) -> Expr {
        let pos = self.next_pos();
        let mut chars = Vec::new();
        while let Some(TokenKind::String(s)) = self.kind() {
            chars.extend_from_slice(s);
            self.i += 1;
        }
        Expr::new(pos, ExprKind::String(chars))
    }

    /// `[]`, `[A, B | T]`, `[T || Qualifiers]`.
    fn list(&mut self) -> PResult<Expr> {
        let open = self.expect_punct(Punct::LBracket, "'['")?;
        if self.eat_punct(Punct::RBracket).is_some() {
            return Ok(Expr::new(open, ExprKind::Nil));
        }
        let first = self.expr()?;
        if self.eat_punct(Punct::PipePipe).is_some() {
            let qualifiers = self.qualifiers()?;
            self.expect_punct(Punct::RBracket, "',' or ']'")?;
            return Ok(Expr::new(
                open,
                ExprKind::ListComp {
                    template: Box::new(first),
                    qualifiers,
                },
            ));
        }
        let mut elements = vec![first];
        while self.eat_punct(Punct::Comma).is_some() {
            elements.push(self.expr()?);
            self.check_depth(elements.len(), open)?;
        }
        let tail = if self.eat_punct(Punct::Pipe).is_some() {
            let tail = self.expr()?;
            self.expect_punct(Punct::RBracket, "']'")?;
            tail
        } else {
            let close = self.expect_punct(Punct::RBracket, "',', '|' or ']'")?;
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
        self.check_depth(depth, open)?;
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

    fn tuple(&mut self) -> PResult<Expr> {
        let open = self.expect_punct(Punct::LBrace, "'{'")?;
        if self.eat_punct(Punct::RBrace).is_some() {
            return Ok(Expr::new(open, ExprKind::Tuple(Vec::new())));
        }
        let elements = self.exprs()?;
        self.expect_punct(Punct::RBrace, "',' or '}'")?;
        Ok(Expr::new(open, ExprKind::Tuple(elements)))
    }

    /// `{K => V, K := V, ...}` after a `#`.
    pub(super) fn map_assocs(&mut self) -> PResult<Vec<MapAssoc>> {
        self.expect_punct(Punct::LBrace, "'{'")?;
        let mut assocs = Vec::new();
        if self.eat_punct(Punct::RBrace).is_some() {
            return Ok(assocs);
        }
        loop {
            let key = self.expr()?;
            let (exact, pos) = if let Some(pos) = self.eat_punct(Punct::FatArrow) {
                (false, pos)
            } else if let Some(pos) = self.eat_punct(Punct::ColonEq) {
                (true, pos)
            } else {
                return Err(self.error_expected("'=>' or ':='"));
            };
            let value = self.expr()?;
            assocs.push(MapAssoc {
                pos,
                key,
                value,
                exact,
            });
            if assocs.len() == 1 && self.at_punct(Punct::PipePipe) {
                return Err(self.error_at(
                    DiagKind::Unsupported,
                    self.next_pos(),
                    "map comprehensions (OTP 26) are not supported",
                ));
            }
            if self.eat_punct(Punct::Comma).is_none() {
                break;
            }
        }
        self.expect_punct(Punct::RBrace, "',' or '}'")?;
        Ok(assocs)
    }

    /// `<<Segments>>` or `<<Template || Qualifiers>>`.
    fn binary_expr(&mut self) -> PResult<Expr> {
        let open = self.expect_punct(Punct::LtLt, "'<<'")?;
        if self.eat_punct(Punct::GtGt).is_some() {
            return Ok(Expr::new(open, ExprKind::Binary(Vec::new())));
        }
        let mut elements = Vec::new();
        if self.kind().and_then(prefix_op).is_none() {
            let value = self.expr_max()?;
            if self.eat_punct(Punct::PipePipe).is_some() {
                let qualifiers = self.qualifiers()?;
                self.expect_punct(Punct::GtGt, "',' or '>>'")?;
                return Ok(Expr::new(
                    open,
                    ExprKind::BinComp {
                        template: Box::new(value),
                        qualifiers,
                    },
                ));
            }
            elements.push(self.bin_element_rest(value)?);
            if self.eat_punct(Punct::Comma).is_none() {
                self.expect_punct(Punct::GtGt, "',' or '>>'")?;
                return Ok(Expr::new(open, ExprKind::Binary(elements)));
            }
        }
        loop {
            let value = self.bit_expr()?;
            elements.push(self.bin_element_rest(value)?);
            if self.eat_punct(Punct::Comma).is_none() {
                break;
            }
        }
        self.expect_punct(Punct::GtGt, "',' or '>>'")?;
        Ok(Expr::new(open, ExprKind::Binary(elements)))
    }

    /// The `:Size/Type-Spec` after a segment's value.
    fn bin_element_rest(&mut self, value: Expr) -> PResult<BinElement> {
        let pos = first_pos(&value);
        let size = if self.eat_punct(Punct::Colon).is_some() {
            Some(self.expr_max()?)
        } else {
            None
        };
        let mut specs = Vec::new();
        if self.eat_punct(Punct::Slash).is_some() {
            loop {
                specs.push(self.type_spec()?);
                if self.eat_punct(Punct::Minus).is_none() {
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

    fn type_spec(&mut self) -> PResult<TypeSpec> {
        let (name, pos) = self.expect_atom("a type specifier such as integer or binary")?;
        if self.eat_punct(Punct::Colon).is_none() {
            return Ok(TypeSpec::Name(name));
        }
        let value = match self.kind() {
            Some(TokenKind::Integer(IntLit::Small(n))) => *n,
            _ => return Err(self.error_expected("an integer")),
        };
        self.i += 1;
        match u32::try_from(value) {
            Ok(unit) if name == "unit" => Ok(TypeSpec::Unit(unit)),
            _ => Err(self.error_at(
                DiagKind::Semantic,
                pos,
                format!("bit type {name}:{value} undefined"),
            )),
        }
    }

    /// The qualifiers of a comprehension: generators and filters.
    fn qualifiers(&mut self) -> PResult<Vec<Qualifier>> {
        let mut qualifiers = Vec::new();
        loop {
            let e = self.expr()?;
            let q = if let Some(pos) = self.eat_punct(Punct::LArrow) {
                let list = self.expr()?;
                Qualifier::Generator {
                    pos,
                    pattern: e,
                    list,
                }
            } else if self.at_punct(Punct::LDoubleArrow) {
                // erl_parse only accepts a binary literal before `<=`.
                if !matches!(e.kind, ExprKind::Binary(_)) {
                    return Err(self.error_expected(
                        "',' or ']' (the pattern of a bit generator must be a binary <<...>>)",
                    ));
                }
                let pos = self.expect_punct(Punct::LDoubleArrow, "'<='")?;
                let binary = self.expr()?;
                Qualifier::BitGenerator {
                    pos,
                    pattern: e,
                    binary,
                }
            } else if self.at_punct(Punct::ColonEq) {
                return Err(self.error_at(
                    DiagKind::Unsupported,
                    self.next_pos(),
                    "map generators (K := V <- Map, OTP 26) are not supported",
                ));
            } else {
                Qualifier::Filter(e)
            };
            qualifiers.push(q);
            if self.eat_punct(Punct::Comma).is_none() {
                return Ok(qualifiers);
            }
        }
    }
}
