//! From tokens to [`Spec`]: statements end at a dot, as Erlang forms do; the
//! language's own words (`never`, `every ... is followed by`, `after`, ...)
//! are read here, and every Erlang term, pattern and guard inside is handed
//! to the Erlang parser of `trace-syntax`, so positions and messages are the
//! ones Erlang users know.

use super::error::SpecError;
use super::history::{Consumed, HistItem, ListItem, ListPattern, StepPattern};
use super::procname;
use super::tree::{
    Body, Builtin, Occurrence, OrderKind, Pred, PredicateKind, Property, Registered, Scope, Spec,
    Subject,
};
use std::path::Path;
use trace_syntax::ast::{Expr, ExprKind, IntLit, Pos};
use trace_syntax::{Keyword, Parser, Punct, SourceMap, Token, TokenKind};

type R<T> = Result<T, SpecError>;

pub(super) fn spec(path: &Path, text: &str) -> Result<Spec, Vec<SpecError>> {
    let rewritten = procname::rewrite(text);
    let tokens = trace_syntax::lexer::tokenize(&rewritten, 0, path)
        .map_err(|d| vec![crate::spec::error::from_diag(path, d)])?;
    let sources = SourceMap {
        files: vec![path.to_path_buf()],
    };
    let lines = Lines::new(text);
    let mut spec = Spec {
        path: path.to_path_buf(),
        properties: Vec::new(),
        registered: Vec::new(),
    };
    let mut errors = Vec::new();
    let mut start = 0;
    while start < tokens.len() {
        let end = tokens[start..]
            .iter()
            .position(|t| t.kind == TokenKind::Dot)
            .map(|k| start + k);
        let stop = end.unwrap_or(tokens.len());
        let mut c = Cur {
            toks: &tokens[..stop],
            i: start,
            path,
            sources: &sources,
            lines: &lines,
            end_pos: end.map_or_else(|| lines.end(), |e| tokens[e].pos),
        };
        let result = if end.is_none() {
            Err(crate::spec::error::at(
                path,
                lines.end(),
                "syntax error before: end of input: expected '.' ending the statement",
            ))
        } else {
            c.statement(&mut spec)
        };
        if let Err(e) = result {
            errors.push(e);
        }
        start = stop + 1;
    }
    if errors.is_empty() {
        check_names(&spec, &mut errors);
    }
    if errors.is_empty() {
        Ok(spec)
    } else {
        Err(errors)
    }
}

fn check_names(spec: &Spec, errors: &mut Vec<SpecError>) {
    let mut seen = std::collections::HashMap::new();
    for p in &spec.properties {
        if let Some(first) = seen.insert(p.name.clone(), p.pos) {
            errors.push(crate::spec::error::at(
                &spec.path,
                p.pos,
                format!(
                    "property {} is defined twice (first at line {})",
                    trace_syntax::text::atom(&p.name),
                    first.line
                ),
            ));
        }
    }
}

/// Line starts of the original text, to quote what a user wrote.
struct Lines {
    chars: Vec<char>,
    starts: Vec<usize>,
}

impl Lines {
    fn new(text: &str) -> Lines {
        let chars: Vec<char> = text.chars().collect();
        let mut starts = vec![0];
        for (i, &c) in chars.iter().enumerate() {
            if c == '\n' {
                starts.push(i + 1);
            }
        }
        Lines { chars, starts }
    }

    fn offset(&self, p: Pos) -> usize {
        let line = (p.line as usize)
            .saturating_sub(1)
            .min(self.starts.len() - 1);
        (self.starts[line] + (p.col as usize).saturating_sub(1)).min(self.chars.len())
    }

    fn end(&self) -> Pos {
        let line = self.starts.len() as u32;
        let col = (self.chars.len() - self.starts[self.starts.len() - 1]) as u32 + 1;
        Pos { file: 0, line, col }
    }

    /// The text from `a` up to `b`, comments dropped and whitespace folded.
    fn quote(&self, a: Pos, b: Pos) -> String {
        let (from, to) = (self.offset(a), self.offset(b));
        let mut out = String::new();
        let mut quote: Option<char> = None;
        let mut comment = false;
        let mut space = false;
        for &c in &self.chars[from..to.max(from)] {
            if comment {
                if c == '\n' {
                    comment = false;
                } else {
                    continue;
                }
            }
            match quote {
                Some(q) => {
                    out.push(c);
                    if c == q {
                        quote = None;
                    }
                    continue;
                }
                None if c == '%' => {
                    comment = true;
                    continue;
                }
                None if c == '"' || c == '\'' => quote = Some(c),
                None => {}
            }
            if c.is_whitespace() {
                space = true;
            } else {
                if space && !out.is_empty() {
                    out.push(' ');
                }
                space = false;
                out.push(c);
            }
        }
        out
    }
}

/// A cursor over one statement's tokens (the dot excluded).
struct Cur<'a> {
    toks: &'a [Token],
    i: usize,
    path: &'a Path,
    sources: &'a SourceMap,
    lines: &'a Lines,
    /// Where the statement's dot is.
    end_pos: Pos,
}

fn describe(k: &TokenKind) -> String {
    k.to_string()
}

impl<'a> Cur<'a> {
    fn peek(&self) -> Option<&'a Token> {
        self.toks.get(self.i)
    }

    fn pos(&self) -> Pos {
        self.peek().map_or(self.end_pos, |t| t.pos)
    }

    fn err<T>(&self, expected: &str) -> R<T> {
        let before = match self.peek() {
            Some(t) => describe(&t.kind),
            None => "'.'".to_string(),
        };
        Err(crate::spec::error::at(
            self.path,
            self.pos(),
            format!(
                "syntax error before: {before}: expected {expected}{}",
                self.hint()
            ),
        ))
    }

    /// What a user most likely meant, when the tokens at the error show it:
    /// `P.1` written bare, where a specification names a process `<P.1>`.
    fn hint(&self) -> String {
        let at = |k: usize| self.i.checked_sub(k).and_then(|j| self.toks.get(j));
        let period = self
            .peek()
            .is_some_and(|t| t.kind == TokenKind::Punct(Punct::Period));
        let after = self.toks.get(self.i + 1).map(|t| &t.kind);
        match (at(1).map(|t| &t.kind), period, after) {
            (Some(TokenKind::Var(v)), true, Some(TokenKind::Integer(IntLit::Small(n)))) => {
                format!(" (a process is written <{v}.{n}> in a specification)")
            }
            _ => String::new(),
        }
    }

    /// True when the next token is the word `w` (an atom or a keyword).
    fn at_word(&self, w: &str) -> bool {
        self.peek().is_some_and(|t| is_word(&t.kind, w))
    }

    fn eat_word(&mut self, w: &str) -> bool {
        let yes = self.at_word(w);
        if yes {
            self.i += 1;
        }
        yes
    }

    fn expect_word(&mut self, w: &str, expected: &str) -> R<()> {
        if self.eat_word(w) {
            Ok(())
        } else {
            self.err(expected)
        }
    }

    fn at_punct(&self, p: Punct) -> bool {
        self.peek().is_some_and(|t| t.kind == TokenKind::Punct(p))
    }

    fn eat_punct(&mut self, p: Punct) -> bool {
        let yes = self.at_punct(p);
        if yes {
            self.i += 1;
        }
        yes
    }

    fn expect_punct(&mut self, p: Punct, expected: &str) -> R<()> {
        if self.eat_punct(p) {
            Ok(())
        } else {
            self.err(expected)
        }
    }

    fn at_end(&self) -> bool {
        self.i >= self.toks.len()
    }

    /// Text from token `from` to the cursor.
    fn quote_from(&self, from: usize) -> String {
        let a = self.toks.get(from).map_or(self.end_pos, |t| t.pos);
        self.lines.quote(a, self.pos())
    }

    /// Runs the Erlang parser on the tokens from the cursor up to `limit`.
    fn erlang<T>(
        &mut self,
        limit: usize,
        f: impl FnOnce(&mut Parser<'a>) -> Result<T, trace_syntax::Diagnostic>,
    ) -> R<T> {
        let limit = limit.min(self.toks.len()).max(self.i);
        let mut p = Parser::new(&self.toks[self.i..limit], self.sources);
        p.set_end_pos(self.toks.get(limit).map_or(self.end_pos, |t| t.pos));
        let v = f(&mut p).map_err(|d| crate::spec::error::from_diag(self.path, d))?;
        self.i += p.index();
        Ok(v)
    }

    fn expr(&mut self) -> R<Expr> {
        self.erlang(self.toks.len(), |p| p.parse_expr())
    }

    fn statement(&mut self, spec: &mut Spec) -> R<()> {
        let start = self.i;
        // A lone '.' (an empty statement) names nothing.
        let Some(first) = self.peek() else {
            return self.err("a property (NAME: BODY.), a built-in's name or a declaration");
        };
        match &first.kind {
            TokenKind::Punct(Punct::Minus) => {
                self.i += 1;
                self.declaration(spec)
            }
            TokenKind::Atom(name) => {
                self.i += 1;
                if self.at_end() {
                    return match Builtin::from_name(name) {
                        Some(b) => {
                            spec.properties.push(Property {
                                name: name.clone(),
                                pos: first.pos,
                                text: b.meaning().to_string(),
                                body: Body::Builtin(b),
                            });
                            Ok(())
                        }
                        None => Err(crate::spec::error::at(
                            self.path,
                            first.pos,
                            format!(
                                "no built-in check named {}; the built-ins are {}; \
                                 a property is written NAME: BODY.",
                                trace_syntax::text::atom(name),
                                builtin_names()
                            ),
                        )),
                    };
                }
                self.expect_punct(
                    Punct::Colon,
                    "':' after the property's name (NAME: BODY.), or '.' after a built-in's name",
                )?;
                let body_start = self.i;
                let body = self.body()?;
                if !self.at_end() {
                    return self.err(match body {
                        Body::Occurrence { .. } | Body::Order { .. } => {
                            "a scope (before, after, between) or '.' ending the property"
                        }
                        _ => "'.' ending the property",
                    });
                }
                let _ = start;
                spec.properties.push(Property {
                    name: name.clone(),
                    pos: first.pos,
                    text: self.quote_from(body_start),
                    body,
                });
                Ok(())
            }
            _ => self.err("a property (NAME: BODY.), a built-in's name or a declaration"),
        }
    }

    fn declaration(&mut self, spec: &mut Spec) -> R<()> {
        let pos = self.pos();
        match self.peek().map(|t| &t.kind) {
            Some(TokenKind::Atom(a)) if a == "registered" => self.i += 1,
            Some(TokenKind::Atom(a)) => {
                return Err(crate::spec::error::at(
                    self.path,
                    pos,
                    format!(
                        "unknown declaration -{a}: the declaration is \
                         -registered(Name, Process)"
                    ),
                ))
            }
            _ => return self.err("a declaration: -registered(Name, Process)"),
        }
        self.expect_punct(Punct::LParen, "'('")?;
        let name = match self.peek().map(|t| &t.kind) {
            Some(TokenKind::Atom(a)) => a.clone(),
            _ => return self.err("the registered name, an atom"),
        };
        self.i += 1;
        self.expect_punct(Punct::Comma, "','")?;
        let process = self.expr()?;
        self.expect_punct(Punct::RParen, "')'")?;
        if !self.at_end() {
            return self.err("'.'");
        }
        spec.registered.push(Registered { name, process, pos });
        Ok(())
    }

    fn body(&mut self) -> R<Body> {
        let occurrence = |kind| kind;
        let kind = if self.eat_word("never") {
            Some(occurrence(Occurrence::Absence))
        } else if self.eat_word("eventually") {
            Some(Occurrence::Existence)
        } else if self.eat_word("always") {
            Some(Occurrence::Universality)
        } else if self.eat_word("at") {
            if self.eat_word("most") {
                Some(Occurrence::AtMost(self.count()?))
            } else if self.eat_word("least") {
                Some(Occurrence::AtLeast(self.count()?))
            } else {
                return self.err("'most' or 'least' after 'at'");
            }
        } else if self.eat_word("exactly") {
            Some(Occurrence::Exactly(self.count()?))
        } else {
            None
        };
        if let Some(kind) = kind {
            let event = self.pred(false)?;
            let scope = self.scope()?;
            return Ok(Body::Occurrence { kind, event, scope });
        }
        if self.eat_word("every") {
            let trigger = self.chain()?;
            self.expect_word(
                "is",
                "'then' and another event, or 'is followed by' / 'is preceded by'",
            )?;
            let kind = if self.eat_word("followed") {
                OrderKind::Response
            } else if self.eat_word("preceded") {
                OrderKind::Precedence
            } else {
                return self.err("'followed by' or 'preceded by'");
            };
            self.expect_word("by", "'by'")?;
            let other = self.chain()?;
            let scope = self.scope()?;
            return Ok(Body::Order {
                kind,
                trigger,
                other,
                scope,
            });
        }
        if self.eat_word("history") {
            let subject = if self.eat_word("global") {
                Subject::Global
            } else {
                // One token: `Module:Fun` would swallow the colon that follows.
                let t = match self.peek() {
                    Some(t) if matches!(t.kind, TokenKind::Var(_) | TokenKind::Atom(_)) => t,
                    _ => {
                        return self
                            .err("whose history: global, <P.1>, a registered name or a variable")
                    }
                };
                self.i += 1;
                let kind = match &t.kind {
                    TokenKind::Var(v) => ExprKind::Var(v.clone()),
                    TokenKind::Atom(a) => ExprKind::Atom(a.clone()),
                    _ => unreachable!("checked above"),
                };
                Subject::Process(Expr::new(t.pos, kind))
            };
            self.expect_punct(Punct::Colon, "':' before the history's list of steps")?;
            let items = self.history()?;
            return Ok(Body::History { subject, items });
        }
        if ["before", "after", "between"]
            .iter()
            .any(|w| self.at_word(w))
        {
            return self.err(
                "a pattern first: a scope comes after it, at the end of the property \
                 (NAME: never E between Q and R.)",
            );
        }
        self.err(
            "a pattern: never, eventually, always, at most N, at least N, exactly N, \
             every ... is followed by / is preceded by ..., or history",
        )
    }

    fn count(&mut self) -> R<u64> {
        match self.peek().map(|t| &t.kind) {
            Some(TokenKind::Integer(IntLit::Small(n))) if *n >= 0 => {
                self.i += 1;
                Ok(*n as u64)
            }
            _ => self.err("a count (a non-negative integer)"),
        }
    }

    fn chain(&mut self) -> R<Vec<Pred>> {
        let mut preds = vec![self.pred(false)?];
        while self.eat_word("then") {
            preds.push(self.pred(false)?);
        }
        Ok(preds)
    }

    fn scope(&mut self) -> R<Scope> {
        if self.eat_word("before") {
            return Ok(Scope::Before(self.pred(false)?));
        }
        if self.eat_word("after") {
            let q = self.pred(false)?;
            if self.eat_word("until") {
                return Ok(Scope::AfterUntil(q, self.pred(false)?));
            }
            return Ok(Scope::After(q));
        }
        if self.eat_word("between") {
            let q = self.pred(true)?;
            self.expect_word("and", "'and' and the event closing the scope")?;
            return Ok(Scope::Between(q, self.pred(false)?));
        }
        Ok(Scope::Global)
    }

    /// `name(Args) [when Guard]`. With `stop_at_and`, a guard ends at the
    /// first `and` outside brackets: it separates `between Q and R`.
    fn pred(&mut self, stop_at_and: bool) -> R<Pred> {
        let start = self.i;
        let pos = self.pos();
        let kind = match self.peek().map(|t| &t.kind) {
            Some(TokenKind::Atom(a)) => match PredicateKind::from_name(a) {
                Some(k) => k,
                None => {
                    return Err(crate::spec::error::at(
                        self.path,
                        pos,
                        format!(
                            "unknown event {}: events are {}",
                            trace_syntax::text::atom(a),
                            PredicateKind::ALL.map(|k| k.name()).join(", ")
                        ),
                    ))
                }
            },
            Some(TokenKind::Keyword(Keyword::Receive)) => PredicateKind::Receive,
            _ => return self.err("an event, such as send(From, To, Msg)"),
        };
        self.i += 1;
        self.expect_punct(Punct::LParen, &format!("'(': {}", kind.usage()))?;
        let mut args = Vec::new();
        if !self.eat_punct(Punct::RParen) {
            loop {
                args.push(self.expr()?);
                if self.eat_punct(Punct::RParen) {
                    break;
                }
                self.expect_punct(Punct::Comma, "',' or ')'")?;
            }
        }
        let mut guard = Vec::new();
        if self.eat_word("when") {
            let limit = if stop_at_and {
                self.depth0_word("and")
            } else {
                self.toks.len()
            };
            guard = self.erlang(limit, |p| p.parse_guard())?;
        }
        Ok(Pred {
            kind,
            pos,
            args,
            guard,
            text: self.quote_from(start),
        })
    }

    /// The index of the first `w` from the cursor outside brackets.
    fn depth0_word(&self, w: &str) -> usize {
        let mut depth = 0i32;
        for (k, t) in self.toks[self.i..].iter().enumerate() {
            match t.kind {
                TokenKind::Punct(Punct::LParen | Punct::LBracket | Punct::LBrace) => depth += 1,
                TokenKind::Punct(Punct::RParen | Punct::RBracket | Punct::RBrace) => depth -= 1,
                TokenKind::Keyword(Keyword::Begin | Keyword::Case | Keyword::If) => depth += 1,
                TokenKind::Keyword(Keyword::End) => depth -= 1,
                _ if depth == 0 && is_word(&t.kind, w) => return self.i + k,
                _ => {}
            }
        }
        self.toks.len()
    }

    fn history(&mut self) -> R<Vec<HistItem>> {
        self.expect_punct(Punct::LBracket, "'[' opening the list of steps")?;
        let mut items = Vec::new();
        if self.eat_punct(Punct::RBracket) {
            return Ok(items);
        }
        loop {
            items.push(if self.eat_punct(Punct::Star) {
                HistItem::Star
            } else if self.eat_punct(Punct::Plus) {
                HistItem::Plus
            } else if self.eat_punct(Punct::LBracket) {
                let mut group = Vec::new();
                loop {
                    group.push(self.step()?);
                    if self.eat_punct(Punct::RBracket) {
                        break;
                    }
                    self.expect_punct(Punct::Comma, "',' or ']'")?;
                }
                HistItem::Group(group)
            } else {
                HistItem::Step(Box::new(self.step()?))
            });
            if self.eat_punct(Punct::RBracket) {
                return Ok(items);
            }
            self.expect_punct(Punct::Comma, "',' or ']'")?;
        }
    }

    /// `{Process, Consumed, Sent, Spawned}`, or `_` for any one step.
    fn step(&mut self) -> R<StepPattern> {
        let pos = self.pos();
        let start = self.i;
        if let Some(TokenKind::Var(v)) = self.peek().map(|t| &t.kind) {
            if v == "_" {
                self.i += 1;
                let any = Expr::new(pos, ExprKind::Var("_".into()));
                return Ok(StepPattern {
                    pos,
                    text: "_".into(),
                    process: any,
                    consumed: Consumed::Any,
                    sent: ListPattern::Any,
                    spawned: ListPattern::Any,
                });
            }
        }
        self.expect_punct(
            Punct::LBrace,
            "a step {Process, Consumed, Sent, Spawned}, '*', '+', '_' or '[' (steps in any order)",
        )?;
        let process = self.expr()?;
        self.expect_punct(Punct::Comma, "',' and what the step consumed")?;
        let c = self.expr()?;
        let consumed = match &c.kind {
            ExprKind::Var(v) if v == "_" => Consumed::Any,
            ExprKind::Atom(a) if a == "none" => Consumed::Nothing,
            ExprKind::Atom(a) if a == "timeout" => Consumed::Timeout,
            ExprKind::Tuple(es) if es.len() == 2 => Consumed::Message {
                from: Box::new(es[0].clone()),
                msg: Box::new(es[1].clone()),
            },
            _ => {
                return Err(crate::spec::error::at(
                    self.path,
                    c.pos,
                    "what a step consumed is none, timeout, _ or {From, Msg}",
                ))
            }
        };
        self.expect_punct(Punct::Comma, "',' and the messages the step sent")?;
        let sent = self.list_pattern()?;
        self.expect_punct(Punct::Comma, "',' and the processes the step spawned")?;
        let spawned = self.list_pattern()?;
        self.expect_punct(Punct::RBrace, "'}' closing the step")?;
        Ok(StepPattern {
            pos,
            text: self.quote_from(start),
            process,
            consumed,
            sent,
            spawned,
        })
    }

    fn list_pattern(&mut self) -> R<ListPattern> {
        if let Some(TokenKind::Var(v)) = self.peek().map(|t| &t.kind) {
            if v == "_" {
                self.i += 1;
                return Ok(ListPattern::Any);
            }
        }
        self.expect_punct(
            Punct::LBracket,
            "'[' (a list with *, + and [..] groups) or _",
        )?;
        let mut items = Vec::new();
        if self.eat_punct(Punct::RBracket) {
            return Ok(ListPattern::Items(items));
        }
        loop {
            items.push(if self.eat_punct(Punct::Star) {
                ListItem::Star
            } else if self.eat_punct(Punct::Plus) {
                ListItem::Plus
            } else if self.eat_punct(Punct::LBracket) {
                let mut group = Vec::new();
                loop {
                    group.push(self.expr()?);
                    if self.eat_punct(Punct::RBracket) {
                        break;
                    }
                    self.expect_punct(Punct::Comma, "',' or ']'")?;
                }
                ListItem::Group(group)
            } else {
                ListItem::One(self.expr()?)
            });
            if self.eat_punct(Punct::RBracket) {
                return Ok(ListPattern::Items(items));
            }
            self.expect_punct(Punct::Comma, "',' or ']'")?;
        }
    }
}

fn is_word(k: &TokenKind, w: &str) -> bool {
    match k {
        TokenKind::Atom(a) => a == w,
        TokenKind::Keyword(kw) => kw.as_str() == w,
        _ => false,
    }
}

fn builtin_names() -> String {
    Builtin::ALL.map(|b| b.name()).join(", ")
}
