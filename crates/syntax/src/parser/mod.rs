//! The parser: tokens → [`ast`](crate::ast), following `erl_parse` (OTP 25):
//! the same grammar, precedence and position conventions.
//!
//! Positions: an expression's `pos` is its first token's, except binary
//! operators (the operator's), remote names `m:f` (the `:`), record and map
//! operations on a base expression (the `#`) and generators (`<-`, `<=`).
//! A call and a match carry the position of their leftmost token, as
//! `erl_parse:first_anno` gives.
//!
//! [`Parser`] is public so that another syntax (the `trace check`
//! specification language) can embed Erlang expressions, patterns and guards:
//! build it over a token slice, parse, then continue from [`Parser::index`].
//!
//! `Parser` itself, here, is the cursor; each area of the grammar is a module
//! of free functions over `&mut Parser` (`forms`, `clauses`, `expr`,
//! `primary`), as rust-analyzer's grammar is written.

mod clauses;
mod expr;
mod forms;
mod limits;
mod primary;

pub use limits::{MAX_NESTING, MAX_TREE_DEPTH};

use crate::ast::{Expr, Form, Pos};
use crate::diag::{DiagKind, Diagnostic, SourceMap};
use crate::token::{Keyword, Punct, Token, TokenKind};

pub(crate) type PResult<T> = Result<T, Diagnostic>;

/// A cursor over a token slice with Erlang's grammar on top.
pub struct Parser<'a> {
    tokens: &'a [Token],
    i: usize,
    sources: &'a SourceMap,
    /// Current recursion depth, bounded by [`MAX_NESTING`].
    nesting: usize,
    /// Set while parsing a `catch` clause pattern, where `:` separates the
    /// class, pattern and stacktrace instead of naming a remote function.
    no_remote: bool,
    end_pos: Option<Pos>,
}

impl<'a> Parser<'a> {
    /// A parser over `tokens`; `sources` names the files the positions refer to.
    pub fn new(tokens: &'a [Token], sources: &'a SourceMap) -> Parser<'a> {
        Parser {
            tokens,
            i: 0,
            sources,
            nesting: 0,
            no_remote: false,
            end_pos: None,
        }
    }

    /// Where errors about running out of tokens point (default: the last token).
    pub fn set_end_pos(&mut self, pos: Pos) {
        self.end_pos = Some(pos);
    }

    /// One expression (also a pattern: they share the syntax).
    pub fn parse_expr(&mut self) -> Result<Expr, Diagnostic> {
        expr::expr(self)
    }

    /// Expressions separated by `,` (a clause body).
    pub fn parse_exprs(&mut self) -> Result<Vec<Expr>, Diagnostic> {
        expr::exprs(self)
    }

    /// A guard sequence: alternatives separated by `;`, each a list of tests
    /// separated by `,` (what follows `when`, without the `when`).
    pub fn parse_guard(&mut self) -> Result<Vec<Vec<Expr>>, Diagnostic> {
        clauses::guard(self)
    }

    /// One form, up to and including its dot.
    pub fn parse_form(&mut self) -> Result<Form, Diagnostic> {
        forms::form(self)
    }

    /// The next token, if any.
    pub fn peek(&self) -> Option<&'a Token> {
        self.tokens.get(self.i)
    }

    /// The token `n` places ahead (0 = next).
    pub fn peek_nth(&self, n: usize) -> Option<&'a Token> {
        self.tokens.get(self.i + n)
    }

    /// Index of the next token in the slice.
    pub fn index(&self) -> usize {
        self.i
    }

    pub fn at_end(&self) -> bool {
        self.i >= self.tokens.len()
    }

    /// Consumes and returns the next token.
    pub fn advance(&mut self) -> Option<&'a Token> {
        let token = self.tokens.get(self.i);
        if token.is_some() {
            self.i += 1;
        }
        token
    }

    /// Position of the next token, or where the input ends.
    pub fn next_pos(&self) -> Pos {
        match self.peek() {
            Some(t) => t.pos,
            None => self.eof_pos(),
        }
    }

    /// "syntax error before: TOKEN: expected WHAT", at the next token.
    pub fn error_expected(&self, expected: &str) -> Diagnostic {
        match self.peek() {
            Some(t) => self.sources.diag(
                DiagKind::Syntax,
                t.pos,
                format!("syntax error before: {}: expected {expected}", t.kind),
            ),
            None => self.sources.diag(
                DiagKind::Syntax,
                self.eof_pos(),
                format!("syntax error before: end of input: expected {expected}"),
            ),
        }
    }

    fn eof_pos(&self) -> Pos {
        self.end_pos
            .or_else(|| self.tokens.last().map(|t| t.pos))
            .unwrap_or(Pos {
                file: 0,
                line: 1,
                col: 1,
            })
    }

    fn kind(&self) -> Option<&'a TokenKind> {
        self.peek().map(|t| &t.kind)
    }

    fn kind_at(&self, n: usize) -> Option<&'a TokenKind> {
        self.peek_nth(n).map(|t| &t.kind)
    }

    fn at_punct(&self, p: Punct) -> bool {
        self.kind().is_some_and(|k| k.is_punct(p))
    }

    fn at_keyword(&self, k: Keyword) -> bool {
        self.kind().is_some_and(|t| t.is_keyword(k))
    }

    /// Consumes the punctuation `p` if it is next.
    fn eat_punct(&mut self, p: Punct) -> Option<Pos> {
        if self.at_punct(p) {
            self.advance().map(|t| t.pos)
        } else {
            None
        }
    }

    fn eat_keyword(&mut self, k: Keyword) -> Option<Pos> {
        if self.at_keyword(k) {
            self.advance().map(|t| t.pos)
        } else {
            None
        }
    }

    fn expect_punct(&mut self, p: Punct, expected: &str) -> PResult<Pos> {
        self.eat_punct(p)
            .ok_or_else(|| self.error_expected(expected))
    }

    fn expect_keyword(&mut self, k: Keyword, expected: &str) -> PResult<Pos> {
        self.eat_keyword(k)
            .ok_or_else(|| self.error_expected(expected))
    }

    /// An atom where the grammar wants a name. `maybe` and `else` are atoms
    /// in OTP 25 unless the `maybe_expr` feature is enabled.
    fn atom_name(kind: &TokenKind) -> Option<&str> {
        match kind {
            TokenKind::Atom(a) => Some(a),
            TokenKind::Keyword(k @ (Keyword::Maybe | Keyword::Else)) => Some(k.as_str()),
            _ => None,
        }
    }

    fn expect_atom(&mut self, expected: &str) -> PResult<(String, Pos)> {
        match self.peek() {
            Some(t) => match Self::atom_name(&t.kind) {
                Some(name) => {
                    self.i += 1;
                    Ok((name.to_string(), t.pos))
                }
                None => Err(self.error_expected(expected)),
            },
            None => Err(self.error_expected(expected)),
        }
    }

    fn error_at(&self, kind: DiagKind, pos: Pos, message: impl Into<String>) -> Diagnostic {
        self.sources.diag(kind, pos, message)
    }

    /// Guards recursion: every nested construct passes through here.
    fn enter(&mut self) -> PResult<()> {
        if self.nesting >= MAX_NESTING {
            return Err(self.error_at(
                DiagKind::Unsupported,
                self.next_pos(),
                format!("expression nested too deeply (more than {MAX_NESTING} levels)"),
            ));
        }
        self.nesting += 1;
        Ok(())
    }

    fn leave(&mut self) {
        self.nesting = self.nesting.saturating_sub(1);
    }
}

/// The position of the leftmost token of `e` (`erl_parse:first_anno`).
pub(crate) fn first_pos(mut e: &Expr) -> Pos {
    use crate::ast::ExprKind::*;
    loop {
        e = match &e.kind {
            BinOp(_, lhs, _) => lhs,
            Remote { module, .. } => module,
            RecordField { expr, .. } => expr,
            Map { base: Some(b), .. } | Record { base: Some(b), .. } => b,
            _ => return e.pos,
        };
    }
}
