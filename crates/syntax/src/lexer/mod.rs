//! The scanner: source text → [`Token`]s with positions, as `erl_scan` does it.
//!
//! Columns count characters (a tab is one column, `é` is one column), as
//! erlc reports them. After an error the lexer resumes right after the bad
//! token, like `erl_scan:tokens/3`, so a caller can report several errors.

mod number;
mod quoted;

use crate::ast::{FileId, Pos};
use crate::diag::{DiagKind, Diagnostic};
use crate::text::{is_lower, is_name_char, is_upper};
use crate::token::{Keyword, Punct, Token, TokenKind};
use std::path::{Path, PathBuf};

/// All tokens of `src`, or the first error. `path` names the file in diagnostics.
pub fn tokenize(src: &str, file: FileId, path: &Path) -> Result<Vec<Token>, Diagnostic> {
    let mut lexer = Lexer::new(src, file, path);
    let mut tokens = Vec::new();
    while let Some(token) = lexer.next_token() {
        tokens.push(token?);
    }
    Ok(tokens)
}

/// A resumable scanner over one source text.
pub struct Lexer {
    chars: Vec<char>,
    i: usize,
    line: u32,
    col: u32,
    file: FileId,
    path: PathBuf,
}

impl Lexer {
    pub fn new(src: &str, file: FileId, path: &Path) -> Lexer {
        Lexer {
            chars: src.chars().collect(),
            i: 0,
            line: 1,
            col: 1,
            file,
            path: path.to_path_buf(),
        }
    }

    /// The next token, an error (after which scanning can continue), or `None`
    /// at end of input.
    pub fn next_token(&mut self) -> Option<Result<Token, Diagnostic>> {
        self.skip_blank();
        let c = self.peek(0)?;
        let start = self.pos();
        let kind = if is_lower(c) {
            Ok(self.name_token())
        } else if is_upper(c) || c == '_' {
            Ok(TokenKind::Var(self.name()))
        } else if c.is_ascii_digit() {
            self.number()
        } else {
            match c {
                '$' => self.char_literal(),
                '"' => self.string(),
                '\'' => self.quoted_atom(),
                '~' => self.tilde(),
                '.' => Ok(self.dot()),
                c if (c as u32) > 0xff => {
                    self.bump();
                    Err(self.error_at(start, DiagKind::Syntax, "illegal character"))
                }
                _ => Ok(self.punct()),
            }
        };
        Some(kind.map(|kind| Token { kind, pos: start }))
    }

    /// The position just after the last character: where end-of-file errors point.
    pub fn end_pos(&self) -> Pos {
        let (mut line, mut col) = (self.line, self.col);
        for &c in &self.chars[self.i..] {
            if c == '\n' {
                line = line.saturating_add(1);
                col = 1;
            } else {
                col = col.saturating_add(1);
            }
        }
        Pos {
            file: self.file,
            line,
            col,
        }
    }

    pub(crate) fn pos(&self) -> Pos {
        Pos {
            file: self.file,
            line: self.line,
            col: self.col,
        }
    }

    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.i + ahead).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek(0)?;
        self.i += 1;
        self.advance_pos(c);
        Some(c)
    }

    fn advance_pos(&mut self, c: char) {
        if c == '\n' {
            self.line = self.line.saturating_add(1);
            self.col = 1;
        } else {
            self.col = self.col.saturating_add(1);
        }
    }

    fn error_at(&self, pos: Pos, kind: DiagKind, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(kind, &self.path, pos, message)
    }

    /// Whitespace as erl_scan defines it: control characters, space and
    /// Latin-1 `\200`..`\240`.
    fn is_white(c: char) -> bool {
        c <= ' ' || ('\u{80}'..='\u{a0}').contains(&c)
    }

    fn skip_blank(&mut self) {
        while let Some(c) = self.peek(0) {
            if Self::is_white(c) {
                self.bump();
            } else if c == '%' {
                while let Some(c) = self.peek(0) {
                    if c == '\n' {
                        break;
                    }
                    self.bump();
                }
            } else {
                break;
            }
        }
    }

    fn name(&mut self) -> String {
        let mut name = String::new();
        while let Some(c) = self.peek(0).filter(|&c| is_name_char(c)) {
            name.push(c);
            self.bump();
        }
        name
    }

    fn name_token(&mut self) -> TokenKind {
        let name = self.name();
        match Keyword::from_name(&name) {
            Some(k) => TokenKind::Keyword(k),
            None => TokenKind::Atom(name),
        }
    }

    /// `.` ends a form when followed by whitespace, `%` or end of input.
    fn dot(&mut self) -> TokenKind {
        self.bump();
        match self.peek(0) {
            None => TokenKind::Dot,
            Some(c) if Self::is_white(c) || c == '%' => TokenKind::Dot,
            Some('.') if self.peek(1) == Some('.') => {
                self.bump();
                self.bump();
                TokenKind::Punct(Punct::DotDotDot)
            }
            Some('.') => {
                self.bump();
                TokenKind::Punct(Punct::DotDot)
            }
            Some(_) => TokenKind::Punct(Punct::Period),
        }
    }

    /// OTP 27 sigils (`~"..."`, `~s[...]`) are reported; a lone `~` is passed on.
    fn tilde(&mut self) -> Result<TokenKind, Diagnostic> {
        let start = self.pos();
        let delimiters = ['"', '(', '[', '{', '<', '/', '|', '\'', '`', '#'];
        let sigil = match (self.peek(1), self.peek(2)) {
            (Some('"'), _) => true,
            (Some(c), Some(d)) => c.is_ascii_alphabetic() && delimiters.contains(&d),
            _ => false,
        };
        self.bump();
        if sigil {
            Err(self.error_at(
                start,
                DiagKind::Unsupported,
                "sigils (~\"...\", OTP 27) are not supported",
            ))
        } else {
            Ok(TokenKind::Other('~'))
        }
    }

    fn punct(&mut self) -> TokenKind {
        use Punct::*;
        let c = self.bump().unwrap_or(' ');
        let next = self.peek(0);
        let (punct, extra) = match (c, next) {
            ('(', _) => (LParen, 0),
            (')', _) => (RParen, 0),
            ('[', _) => (LBracket, 0),
            (']', _) => (RBracket, 0),
            ('{', _) => (LBrace, 0),
            ('}', _) => (RBrace, 0),
            (',', _) => (Comma, 0),
            (';', _) => (Semi, 0),
            ('!', _) => (Bang, 0),
            ('#', _) => (Hash, 0),
            (':', Some(':')) => (ColonColon, 1),
            (':', Some('=')) => (ColonEq, 1),
            (':', _) => (Colon, 0),
            ('|', Some('|')) => (PipePipe, 1),
            ('|', _) => (Pipe, 0),
            ('-', Some('>')) => (Arrow, 1),
            ('-', Some('-')) => (MinusMinus, 1),
            ('-', _) => (Minus, 0),
            ('+', Some('+')) => (PlusPlus, 1),
            ('+', _) => (Plus, 0),
            ('*', _) => (Star, 0),
            ('/', Some('=')) => (NotEq, 1),
            ('/', _) => (Slash, 0),
            ('?', Some('?')) => (QuestionQuestion, 1),
            ('?', _) => (Question, 0),
            ('<', Some('<')) => (LtLt, 1),
            ('<', Some('-')) => (LArrow, 1),
            ('<', Some('=')) => (LDoubleArrow, 1),
            ('<', _) => (Lt, 0),
            ('>', Some('>')) => (GtGt, 1),
            ('>', Some('=')) => (GtEq, 1),
            ('>', _) => (Gt, 0),
            ('=', Some('>')) => (FatArrow, 1),
            ('=', Some('=')) => (EqEq, 1),
            ('=', Some('<')) => (LtEq, 1),
            ('=', Some(':')) if self.peek(1) == Some('=') => (ExactEq, 2),
            ('=', Some('/')) if self.peek(1) == Some('=') => (ExactNotEq, 2),
            ('=', _) => (Match, 0),
            (other, _) => return TokenKind::Other(other),
        };
        for _ in 0..extra {
            self.bump();
        }
        TokenKind::Punct(punct)
    }
}
