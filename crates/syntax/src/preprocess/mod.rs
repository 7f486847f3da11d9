//! The preprocessor, with epp's semantics: reads a file form by form (a form
//! ends at a dot), acts on directives (`-define`, `-undef`, `-ifdef`,
//! `-ifndef`, `-if`, `-elif`, `-else`, `-endif`, `-include`, `-include_lib`,
//! `-error`, `-warning`), drops what conditionals exclude, and expands macros
//! in the rest. Out come the forms, with errors interleaved in source order.
//!
//! Scanning errors are handled like `erl_scan:tokens/3`: the form being read
//! is dropped and reading resumes right after the bad token.
//!
//! [`Preprocessor`], here, reads forms and keeps the state; directives,
//! `-if` conditions and includes are free functions over it in their
//! modules.

mod condition;
mod directive;
mod include;
mod macros;

pub use macros::{MAX_EXPANDED_TOKENS, MAX_MACRO_DEPTH, OTP_RELEASE};

use crate::ast::{FileId, Pos};
use crate::diag::{DiagKind, Diagnostic, SourceMap};
use crate::lexer::Lexer;
use crate::token::{Punct, Token, TokenKind};
use crate::ParseOptions;
use macros::{Expander, Macros};

pub use include::{io_message, read_error, read_source, NotUtf8, MAX_SOURCE_BYTES};

/// Includes may nest this deep (a file including itself stops here).
pub const MAX_INCLUDE_DEPTH: usize = 40;

/// What the preprocessor hands to the parser, in source order.
pub(crate) enum Item {
    /// The tokens of one form, ending with its dot (unless the input ended first).
    Form(Vec<Token>),
    Error(Diagnostic),
}

/// An open `-ifdef`/`-ifndef`/`-if` in the file being read.
struct Conditional {
    directive: &'static str,
    state: Branch,
    seen_else: bool,
}

#[derive(Copy, Clone, PartialEq, Eq)]
enum Branch {
    /// This branch is being read.
    Taking,
    /// No branch taken yet; a later `-elif`/`-else` may be.
    Waiting,
    /// A branch was taken; the rest are skipped.
    Done,
    /// Inside skipped text: everything up to the `-endif` is skipped.
    Dead,
}

pub(crate) struct Preprocessor<'o> {
    opts: &'o ParseOptions,
    pub sources: SourceMap,
    macros: Macros,
    pub items: Vec<Item>,
    pub warnings: Vec<Diagnostic>,
    include_depth: usize,
}

impl<'o> Preprocessor<'o> {
    pub fn new(opts: &'o ParseOptions, sources: SourceMap) -> Preprocessor<'o> {
        Preprocessor {
            opts,
            sources,
            macros: Macros::default(),
            items: Vec::new(),
            warnings: Vec::new(),
            include_depth: 0,
        }
    }

    /// Defines the `-D` style macros of the options (`None` means `true`).
    pub fn define_options(&mut self) {
        for (name, value) in &self.opts.defines {
            let body = match value {
                None => Ok(vec![Token {
                    kind: TokenKind::Atom("true".into()),
                    pos: Pos::default(),
                }]),
                Some(text) => crate::lexer::tokenize(text, 0, std::path::Path::new("<define>")),
            };
            match body {
                Ok(body) => {
                    self.macros
                        .define(name, macros::MacroDef { params: None, body });
                }
                Err(mut d) => {
                    d.message = format!("bad value for macro '{name}': {}", d.message);
                    self.items.push(Item::Error(d));
                }
            }
        }
    }

    /// Preprocesses `src`, the text of `file`; returns where the file ends.
    pub fn run_file(&mut self, file: FileId, src: &str) -> Pos {
        let path = self.sources.path(file).to_path_buf();
        let mut lexer = Lexer::new(src, file, &path);
        let mut conditionals: Vec<Conditional> = Vec::new();
        loop {
            let mut form = Vec::new();
            let mut scan_error = None;
            let mut at_end = true;
            while let Some(next) = lexer.next_token() {
                match next {
                    Ok(token) => {
                        let dot = token.kind == TokenKind::Dot;
                        form.push(token);
                        if dot {
                            at_end = false;
                            break;
                        }
                    }
                    Err(d) => {
                        scan_error = Some(d);
                        at_end = false;
                        break;
                    }
                }
            }
            let skipping = is_skipping(&conditionals);
            match scan_error {
                // epp ignores what cannot be scanned in skipped text.
                Some(d) if !skipping => self.items.push(Item::Error(d)),
                Some(_) => {}
                None if !form.is_empty() => self.form(form, &mut conditionals),
                None => {}
            }
            if at_end {
                break;
            }
        }
        let end = lexer.end_pos();
        if let Some(open) = conditionals.last() {
            let message = format!("unterminated '-{}'", open.directive);
            self.error(DiagKind::Syntax, end, message);
        }
        end
    }

    fn error(&mut self, kind: DiagKind, pos: Pos, message: impl Into<String>) {
        let d = self.sources.diag(kind, pos, message);
        self.items.push(Item::Error(d));
    }

    /// One form: a directive, skipped text, or code to expand.
    fn form(&mut self, form: Vec<Token>, conditionals: &mut Vec<Conditional>) {
        if let Some(name) = directive_name(&form) {
            match name {
                "ifdef" | "ifndef" | "if" | "elif" | "else" | "endif" => {
                    self.conditional(name, &form, conditionals);
                    return;
                }
                _ if is_skipping(conditionals) => return,
                "define" | "undef" | "include" | "include_lib" | "error" | "warning" => {
                    directive::directive(self, name, &form);
                    return;
                }
                _ => {}
            }
        }
        if is_skipping(conditionals) {
            return;
        }
        let mut expander = Expander::new(&self.macros, &self.sources);
        expander.function = function_head(&form);
        match expander.expand(&form) {
            Ok(tokens) => {
                if let [_, name, _, TokenKind::Atom(module), _, TokenKind::Dot] =
                    kinds(&tokens).as_slice()
                {
                    if matches!(name, TokenKind::Atom(n) if n == "module")
                        && tokens[0].kind.is_punct(Punct::Minus)
                        && self.macros.module.is_none()
                    {
                        self.macros.module = Some(module.clone());
                    }
                }
                self.items.push(Item::Form(tokens));
            }
            Err(d) => self.items.push(Item::Error(d)),
        }
    }

    fn conditional(&mut self, name: &str, form: &[Token], stack: &mut Vec<Conditional>) {
        let at = form[1].pos;
        match name {
            "ifdef" | "ifndef" | "if" => {
                let directive = match name {
                    "ifdef" => "ifdef",
                    "ifndef" => "ifndef",
                    _ => "if",
                };
                let state = if is_skipping(stack) {
                    Branch::Dead
                } else {
                    match condition::condition(self, name, form) {
                        Some(true) => Branch::Taking,
                        _ => Branch::Waiting,
                    }
                };
                stack.push(Conditional {
                    directive,
                    state,
                    seen_else: false,
                });
            }
            "elif" | "else" => {
                let Some(top) = stack.last() else {
                    return self.error(DiagKind::Syntax, at, format!("unbalanced '-{name}'"));
                };
                if top.seen_else {
                    return self.error(DiagKind::Syntax, at, format!("unbalanced '-{name}'"));
                }
                let state = match top.state {
                    Branch::Taking => Branch::Done,
                    Branch::Waiting if name == "else" => Branch::Taking,
                    Branch::Waiting => match condition::condition(self, "elif", form) {
                        Some(true) => Branch::Taking,
                        _ => Branch::Waiting,
                    },
                    other => other,
                };
                if let Some(top) = stack.last_mut() {
                    top.state = state;
                    top.seen_else = name == "else";
                }
            }
            _ => {
                if stack.pop().is_none() {
                    self.error(DiagKind::Syntax, at, "unbalanced '-endif'");
                }
            }
        }
    }
}

fn is_skipping(stack: &[Conditional]) -> bool {
    stack.last().is_some_and(|c| c.state != Branch::Taking)
}

fn kinds(tokens: &[Token]) -> Vec<&TokenKind> {
    tokens.iter().map(|t| &t.kind).collect()
}

/// `-name` at the start of a form, for the names epp acts on.
fn directive_name(form: &[Token]) -> Option<&'static str> {
    if !form.first()?.kind.is_punct(Punct::Minus) {
        return None;
    }
    let name = match &form.get(1)?.kind {
        TokenKind::Atom(a) => a.as_str(),
        TokenKind::Keyword(k) => k.as_str(),
        _ => return None,
    };
    [
        "ifdef",
        "ifndef",
        "if",
        "elif",
        "else",
        "endif",
        "define",
        "undef",
        "include",
        "include_lib",
        "error",
        "warning",
    ]
    .into_iter()
    .find(|d| *d == name)
}

/// Name and arity of the function a form defines, for `?FUNCTION_NAME` and
/// `?FUNCTION_ARITY`.
fn function_head(form: &[Token]) -> Option<(String, usize)> {
    let name = match &form.first()?.kind {
        TokenKind::Atom(a) => a.clone(),
        _ => return None,
    };
    if !form.get(1)?.kind.is_punct(Punct::LParen) {
        return None;
    }
    let call = macros::collect_args(form, 2)?;
    Some((name, call.args.len()))
}
