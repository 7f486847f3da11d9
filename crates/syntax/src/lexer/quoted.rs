//! Strings, quoted atoms and character literals, with every escape:
//! `\b \d \e \f \n \r \s \t \v`, `\NNN`, `\xHH`, `\x{H...}`, `\^c`, `\<any>`.

use super::Lexer;
use crate::ast::Pos;
use crate::diag::{DiagKind, Diagnostic};
use crate::text;
use crate::token::TokenKind;

/// Atoms longer than this are rejected, as by BEAM.
const MAX_ATOM_CHARS: usize = 255;

/// How much of an unterminated literal erl_scan shows in its message.
const HEAD_CHARS: usize = 16;

enum Escape {
    Char(u32),
    Illegal,
    EndOfInput,
}

impl Lexer {
    pub(super) fn string(&mut self) -> Result<TokenKind, Diagnostic> {
        let start = self.pos();
        if self.at_triple_quote() {
            self.skip_triple_quoted();
            return Err(self.error_at(
                start,
                DiagKind::Unsupported,
                "triple-quoted strings (OTP 27) are not supported",
            ));
        }
        self.bump();
        self.quoted_content('"', start).map(TokenKind::String)
    }

    pub(super) fn quoted_atom(&mut self) -> Result<TokenKind, Diagnostic> {
        let start = self.pos();
        self.bump();
        let content = self.quoted_content('\'', start)?;
        let name: Option<String> = content.iter().map(|&c| char::from_u32(c)).collect();
        match name {
            Some(name) if content.len() <= MAX_ATOM_CHARS => Ok(TokenKind::Atom(name)),
            _ => Err(self.error_at(start, DiagKind::Syntax, "illegal atom")),
        }
    }

    pub(super) fn char_literal(&mut self) -> Result<TokenKind, Diagnostic> {
        let start = self.pos();
        self.bump();
        let escape = match self.bump() {
            None => Escape::EndOfInput,
            Some('\\') => self.escape(),
            Some(c) => Escape::Char(c as u32),
        };
        match escape {
            Escape::Char(c) => Ok(TokenKind::Char(c)),
            Escape::Illegal => Err(self.error_at(start, DiagKind::Syntax, "illegal character")),
            Escape::EndOfInput => {
                Err(self.error_at(start, DiagKind::Syntax, "unterminated character"))
            }
        }
    }

    /// The characters up to the closing `quote` (the opening one is consumed).
    fn quoted_content(&mut self, quote: char, start: Pos) -> Result<Vec<u32>, Diagnostic> {
        let mut content = Vec::new();
        let mut illegal = None;
        loop {
            let here = self.pos();
            let escape = match self.bump() {
                None => Escape::EndOfInput,
                Some(c) if c == quote => break,
                Some('\\') => self.escape(),
                Some(c) => Escape::Char(c as u32),
            };
            match escape {
                Escape::Char(c) => content.push(c),
                // Keep scanning to the closing quote so the next token starts
                // after this literal, but report the first bad escape.
                Escape::Illegal => {
                    illegal.get_or_insert(here);
                }
                Escape::EndOfInput => {
                    let head = &content[..content.len().min(HEAD_CHARS)];
                    let (what, shown) = if quote == '"' {
                        ("string", text::string(head))
                    } else {
                        let head: String = head
                            .iter()
                            .map(|&c| char::from_u32(c).unwrap_or('\u{fffd}'))
                            .collect();
                        ("atom", text::quoted_atom(&head))
                    };
                    return Err(self.error_at(
                        start,
                        DiagKind::Syntax,
                        format!("unterminated {what} starting with {shown}"),
                    ));
                }
            }
        }
        match illegal {
            Some(pos) => Err(self.error_at(pos, DiagKind::Syntax, "illegal character")),
            None => Ok(content),
        }
    }

    /// One escape sequence, after its backslash.
    fn escape(&mut self) -> Escape {
        let Some(c) = self.bump() else {
            return Escape::EndOfInput;
        };
        let value = match c {
            '0'..='7' => {
                let mut value = c.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match self.peek(0).and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            self.bump();
                        }
                        None => break,
                    }
                }
                value
            }
            'x' => return self.hex_escape(),
            '^' => match self.bump() {
                Some(c) => c as u32 & 31,
                None => return Escape::EndOfInput,
            },
            'b' => 8,
            'd' => 127,
            'e' => 27,
            'f' => 12,
            'n' => 10,
            'r' => 13,
            's' => 32,
            't' => 9,
            'v' => 11,
            other => other as u32,
        };
        Escape::Char(value)
    }

    /// `\xHH` or `\x{H...}`, after the `x`.
    fn hex_escape(&mut self) -> Escape {
        let mut value: u64 = 0;
        let mut count = 0;
        let braced = self.peek(0) == Some('{');
        if braced {
            self.bump();
        }
        loop {
            match self.peek(0) {
                None => return Escape::EndOfInput,
                Some('}') if braced => {
                    self.bump();
                    break;
                }
                Some(c) => match c.to_digit(16) {
                    Some(d) => {
                        value = value.saturating_mul(16).saturating_add(u64::from(d));
                        count += 1;
                        self.bump();
                        if !braced && count == 2 {
                            break;
                        }
                    }
                    None => return Escape::Illegal,
                },
            }
        }
        match u32::try_from(value).ok().and_then(char::from_u32) {
            Some(c) if count > 0 => Escape::Char(c as u32),
            _ => Escape::Illegal,
        }
    }

    /// `"""` followed only by blanks up to the end of its line opens an OTP 27
    /// triple-quoted string.
    fn at_triple_quote(&self) -> bool {
        if self.peek(1) != Some('"') || self.peek(2) != Some('"') {
            return false;
        }
        let rest = &self.chars[self.i + 3..];
        rest.iter()
            .take_while(|&&c| c != '\n')
            .all(|&c| c == ' ' || c == '\t' || c == '\r')
    }

    /// Skips a triple-quoted string up to its closing `"""` line (or the end).
    fn skip_triple_quoted(&mut self) {
        for _ in 0..3 {
            self.bump();
        }
        let mut line_start = false;
        while let Some(c) = self.bump() {
            match c {
                '\n' => line_start = true,
                ' ' | '\t' => {}
                '"' if line_start && self.peek(0) == Some('"') && self.peek(1) == Some('"') => {
                    self.bump();
                    self.bump();
                    return;
                }
                _ => line_start = false,
            }
        }
    }
}
