//! Macro definitions and their expansion, with epp's semantics: overloading
//! by arity (`?F`, `?F(X)`, `?F(X, Y)` are different macros), arguments that
//! may contain commas inside brackets, `??Arg` stringification, predefined
//! macros, and errors for undefined, mismatched and circular uses.
//!
//! Arguments are expanded before substitution; the substituted body is then
//! expanded with the macro marked active, so a use of an active macro is the
//! circularity epp reports. Depth and output size are bounded.

use crate::ast::{IntLit, Pos};
use crate::diag::{DiagKind, Diagnostic, SourceMap};
use crate::token::{Keyword, Punct, Token, TokenKind};
use std::collections::HashMap;

/// How deeply macro uses may nest (in bodies and arguments).
pub const MAX_MACRO_DEPTH: usize = 100;

/// How many tokens one form may expand to.
pub const MAX_EXPANDED_TOKENS: usize = 500_000;

/// The OTP release `?OTP_RELEASE` reports: the language level we implement.
pub const OTP_RELEASE: i64 = 25;

#[derive(Clone, Debug)]
pub(crate) struct MacroDef {
    /// `None` for a constant macro (`?M`), else the parameter names.
    pub params: Option<Vec<String>>,
    pub body: Vec<Token>,
}

impl MacroDef {
    fn arity(&self) -> Option<usize> {
        self.params.as_ref().map(Vec::len)
    }
}

const PREDEFINED: [&str; 9] = [
    "FILE",
    "LINE",
    "MODULE",
    "MODULE_STRING",
    "MACHINE",
    "BEAM",
    "OTP_RELEASE",
    "FUNCTION_NAME",
    "FUNCTION_ARITY",
];

pub(crate) fn is_predefined(name: &str) -> bool {
    PREDEFINED.contains(&name)
}

/// The macros defined so far in a module.
#[derive(Default)]
pub(crate) struct Macros {
    defs: HashMap<String, Vec<MacroDef>>,
    pub module: Option<String>,
}

impl Macros {
    /// Adds a definition; false if one with the same name and arity exists.
    pub fn define(&mut self, name: &str, def: MacroDef) -> bool {
        let defs = self.defs.entry(name.to_string()).or_default();
        if defs.iter().any(|d| d.arity() == def.arity()) {
            return false;
        }
        defs.push(def);
        true
    }

    pub fn undefine(&mut self, name: &str) {
        self.defs.remove(name);
    }

    /// What `-ifdef` and `defined/1` see.
    pub fn is_defined(&self, name: &str) -> bool {
        match name {
            "MODULE" | "MODULE_STRING" => self.module.is_some(),
            "FUNCTION_NAME" | "FUNCTION_ARITY" => false,
            _ => is_predefined(name) || self.defs.contains_key(name),
        }
    }
}

/// The state of expanding one form.
pub(crate) struct Expander<'a> {
    pub macros: &'a Macros,
    pub sources: &'a SourceMap,
    /// Name and arity of the function the form defines, for `?FUNCTION_NAME`.
    pub function: Option<(String, usize)>,
    produced: usize,
    /// Whether the form used a macro (to say what made it too large).
    used_macro: bool,
    /// Current nesting of expansions (bodies and arguments).
    depth: usize,
}

type Active = Vec<(String, Option<usize>)>;

impl<'a> Expander<'a> {
    pub fn new(macros: &'a Macros, sources: &'a SourceMap) -> Expander<'a> {
        Expander {
            macros,
            sources,
            function: None,
            produced: 0,
            used_macro: false,
            depth: 0,
        }
    }

    /// `tokens` with every macro use replaced by its expansion.
    pub fn expand(&mut self, tokens: &[Token]) -> Result<Vec<Token>, Diagnostic> {
        let mut out = Vec::with_capacity(tokens.len());
        self.expand_into(tokens, &mut Vec::new(), &mut out)?;
        Ok(out)
    }

    fn error(&self, kind: DiagKind, pos: Pos, message: impl Into<String>) -> Diagnostic {
        self.sources.diag(kind, pos, message)
    }

    fn emit(&mut self, out: &mut Vec<Token>, token: Token) -> Result<(), Diagnostic> {
        self.produced += 1;
        if self.produced > MAX_EXPANDED_TOKENS {
            // The bound is on the form, whatever made it long: say so when
            // no macro did.
            let what = match self.used_macro {
                true => "macro expansion too large",
                false => "form too large",
            };
            return Err(self.error(
                DiagKind::Unsupported,
                token.pos,
                format!(
                    "{what} (over {MAX_EXPANDED_TOKENS} tokens in one form, the front end's limit on one function or attribute)"
                ),
            ));
        }
        out.push(token);
        Ok(())
    }

    fn expand_into(
        &mut self,
        tokens: &[Token],
        active: &mut Active,
        out: &mut Vec<Token>,
    ) -> Result<(), Diagnostic> {
        let mut i = 0;
        while i < tokens.len() {
            let token = &tokens[i];
            match &token.kind {
                TokenKind::Punct(Punct::Question) => {
                    i = self.expand_use(tokens, i, active, out)?;
                }
                TokenKind::Punct(Punct::QuestionQuestion) => {
                    let shown = tokens
                        .get(i + 1)
                        .map_or(String::new(), |t| t.kind.source_text());
                    return Err(self.error(
                        DiagKind::Syntax,
                        token.pos,
                        format!(
                            "illegal macro call '??{shown}' ('??Arg' stringifies an argument inside a macro body)"
                        ),
                    ));
                }
                _ => {
                    self.emit(out, token.clone())?;
                    i += 1;
                }
            }
        }
        Ok(())
    }

    /// Expands the use starting with the `?` at `tokens[q]`; returns the index after it.
    fn expand_use(
        &mut self,
        tokens: &[Token],
        q: usize,
        active: &mut Active,
        out: &mut Vec<Token>,
    ) -> Result<usize, Diagnostic> {
        self.used_macro = true;
        let question = &tokens[q];
        let Some(name_token) = tokens.get(q + 1) else {
            return Err(self.error(DiagKind::Syntax, question.pos, "illegal macro call '?'"));
        };
        let name = match &name_token.kind {
            TokenKind::Atom(a) | TokenKind::Var(a) => a.clone(),
            TokenKind::Keyword(k) => k.as_str().to_string(),
            TokenKind::Punct(Punct::Match) => {
                return Err(self.error(
                    DiagKind::Unsupported,
                    question.pos,
                    "maybe expressions ('?=') are not supported",
                ))
            }
            other => {
                let shown = match other {
                    TokenKind::Dot => "dot".to_string(),
                    other => other.source_text(),
                };
                return Err(self.error(
                    DiagKind::Syntax,
                    name_token.pos,
                    format!("illegal macro call '?{shown}'"),
                ));
            }
        };
        let at = name_token.pos;
        if is_predefined(&name) {
            let token = self.predefined(&name, at)?;
            self.emit(out, token)?;
            return Ok(q + 2);
        }
        let call = if tokens
            .get(q + 2)
            .is_some_and(|t| t.kind.is_punct(Punct::LParen))
        {
            match collect_args(tokens, q + 3) {
                Some(call) => Some(call),
                None => {
                    return Err(self.error(
                        DiagKind::Syntax,
                        at,
                        format!("badly formed argument for macro '{name}'"),
                    ))
                }
            }
        } else {
            None
        };
        let Some(defs) = self.macros.defs.get(&name) else {
            let shown = match &call {
                Some(call) => format!("{name}/{}", call.args.len()),
                None => name,
            };
            return Err(self.error(DiagKind::Semantic, at, format!("undefined macro '{shown}'")));
        };
        let with_args = call.as_ref().and_then(|c| {
            defs.iter()
                .find(|d| d.arity() == Some(c.args.len()))
                .map(|d| (d, c))
        });
        let constant = defs.iter().find(|d| d.params.is_none());
        let (def, next, args) = match (with_args, constant) {
            (Some((def, call)), _) => (def, call.end, Some(&call.args)),
            (None, Some(def)) => (def, q + 2, None),
            (None, None) => {
                return Err(self.error(
                    DiagKind::Semantic,
                    at,
                    format!("argument mismatch for macro '{name}'"),
                ))
            }
        };
        let key = (name.clone(), def.arity());
        if active.contains(&key) {
            let shown = match def.arity() {
                Some(n) => format!("{name}/{n}"),
                None => name,
            };
            return Err(self.error(DiagKind::Semantic, at, format!("circular macro '{shown}'")));
        }
        if self.depth >= MAX_MACRO_DEPTH {
            return Err(self.error(
                DiagKind::Unsupported,
                at,
                format!("macro expansion nested too deeply (over {MAX_MACRO_DEPTH} levels)"),
            ));
        }
        self.depth += 1;
        let result = self.expand_def(def, key, tokens, args, at, active, out);
        self.depth -= 1;
        result?;
        Ok(next)
    }

    #[allow(clippy::too_many_arguments)]
    fn expand_def(
        &mut self,
        def: &MacroDef,
        key: (String, Option<usize>),
        tokens: &[Token],
        args: Option<&Vec<std::ops::Range<usize>>>,
        at: Pos,
        active: &mut Active,
        out: &mut Vec<Token>,
    ) -> Result<(), Diagnostic> {
        let substituted = match (args, &def.params) {
            (Some(args), Some(params)) => {
                let raw: Vec<&[Token]> = args.iter().map(|r| &tokens[r.clone()]).collect();
                self.substitute(def, params, &raw, at, active)?
            }
            _ => def
                .body
                .iter()
                .map(|t| Token {
                    kind: t.kind.clone(),
                    pos: at,
                })
                .collect(),
        };
        active.push(key);
        let result = self.expand_into(&substituted, active, out);
        active.pop();
        result
    }

    /// The body of `def` with its parameters replaced. Body tokens take the
    /// position of the use, advancing to the last token of each argument
    /// substituted (as epp does), so errors point at the use site.
    fn substitute(
        &mut self,
        def: &MacroDef,
        params: &[String],
        raw_args: &[&[Token]],
        at: Pos,
        active: &mut Active,
    ) -> Result<Vec<Token>, Diagnostic> {
        let mut expanded_args = Vec::with_capacity(raw_args.len());
        for arg in raw_args {
            // Arguments are expanded before the macro becomes active: a use
            // of it there (`?max(?max(A, B), C)`) is not circular.
            let mut arg_out = Vec::new();
            self.expand_into(arg, active, &mut arg_out)?;
            expanded_args.push(arg_out);
        }
        let param_index = |t: &Token| match &t.kind {
            TokenKind::Var(v) => params.iter().position(|p| p == v),
            _ => None,
        };
        let mut out = Vec::new();
        let mut pos = at;
        let mut i = 0;
        while i < def.body.len() {
            let token = &def.body[i];
            if token.kind.is_punct(Punct::QuestionQuestion) {
                if let Some(k) = def.body.get(i + 1).and_then(param_index) {
                    let text: Vec<String> =
                        raw_args[k].iter().map(|t| t.kind.source_text()).collect();
                    let string = text.join(" ").chars().map(|c| c as u32).collect();
                    self.emit(
                        &mut out,
                        Token {
                            kind: TokenKind::String(string),
                            pos,
                        },
                    )?;
                    i += 2;
                    continue;
                }
            }
            match param_index(token) {
                Some(k) => {
                    for t in &expanded_args[k] {
                        self.emit(&mut out, t.clone())?;
                    }
                    if let Some(last) = expanded_args[k].last() {
                        pos = last.pos;
                    }
                }
                None => self.emit(
                    &mut out,
                    Token {
                        kind: token.kind.clone(),
                        pos,
                    },
                )?,
            }
            i += 1;
        }
        Ok(out)
    }

    fn predefined(&self, name: &str, at: Pos) -> Result<Token, Diagnostic> {
        let string = |s: &str| TokenKind::String(s.chars().map(|c| c as u32).collect());
        let undefined = || self.error(DiagKind::Semantic, at, format!("undefined macro '{name}'"));
        let kind = match name {
            "FILE" => string(&self.sources.path(at.file).display().to_string()),
            "LINE" => TokenKind::Integer(IntLit::Small(i64::from(at.line))),
            "MODULE" => TokenKind::Atom(self.macros.module.clone().ok_or_else(undefined)?),
            "MODULE_STRING" => string(self.macros.module.as_deref().ok_or_else(undefined)?),
            "MACHINE" => TokenKind::Atom("BEAM".into()),
            "BEAM" => TokenKind::Atom("true".into()),
            "OTP_RELEASE" => TokenKind::Integer(IntLit::Small(OTP_RELEASE)),
            "FUNCTION_NAME" => {
                TokenKind::Atom(self.function.as_ref().ok_or_else(undefined)?.0.clone())
            }
            _ => {
                let arity = self.function.as_ref().ok_or_else(undefined)?.1;
                TokenKind::Integer(IntLit::Small(arity as i64))
            }
        };
        Ok(Token { kind, pos: at })
    }
}

/// The arguments of a macro call or function head: token ranges split at
/// top-level commas, and the index just after the closing `)`.
pub(crate) struct Call {
    pub args: Vec<std::ops::Range<usize>>,
    pub end: usize,
}

/// Scans from just after an opening `(` the way epp's `macro_arg` does:
/// brackets and `begin`/`case`/`fun`/... `end` nest; a closer that does not
/// match what is open is an ordinary token. `None` if the `)` never comes.
pub(crate) fn collect_args(tokens: &[Token], start: usize) -> Option<Call> {
    let mut args = Vec::new();
    let mut open: Vec<TokenKind> = Vec::new();
    let mut arg_start = start;
    let mut i = start;
    while let Some(token) = tokens.get(i) {
        let closer = match &token.kind {
            TokenKind::Punct(Punct::LParen) => Some(TokenKind::Punct(Punct::RParen)),
            TokenKind::Punct(Punct::LBracket) => Some(TokenKind::Punct(Punct::RBracket)),
            TokenKind::Punct(Punct::LBrace) => Some(TokenKind::Punct(Punct::RBrace)),
            TokenKind::Punct(Punct::LtLt) => Some(TokenKind::Punct(Punct::GtGt)),
            TokenKind::Keyword(
                Keyword::Begin | Keyword::If | Keyword::Case | Keyword::Receive | Keyword::Try,
            ) => Some(TokenKind::Keyword(Keyword::End)),
            TokenKind::Keyword(Keyword::Fun) => {
                let opens_clauses = match tokens.get(i + 1).map(|t| &t.kind) {
                    Some(TokenKind::Punct(Punct::LParen)) => true,
                    Some(TokenKind::Var(_)) => tokens
                        .get(i + 2)
                        .is_some_and(|t| t.kind.is_punct(Punct::LParen)),
                    _ => false,
                };
                opens_clauses.then_some(TokenKind::Keyword(Keyword::End))
            }
            _ => None,
        };
        if let Some(closer) = closer {
            open.push(closer);
        } else if open.last() == Some(&token.kind) {
            open.pop();
        } else if open.is_empty() {
            match &token.kind {
                TokenKind::Punct(Punct::Comma) => {
                    args.push(arg_start..i);
                    arg_start = i + 1;
                }
                TokenKind::Punct(Punct::RParen) => {
                    // `?F()` has no arguments rather than one empty one.
                    if !(args.is_empty() && arg_start == i) {
                        args.push(arg_start..i);
                    }
                    return Some(Call { args, end: i + 1 });
                }
                TokenKind::Dot => return None,
                _ => {}
            }
        }
        i += 1;
    }
    None
}
