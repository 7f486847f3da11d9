//! A small cursor for the names users type (symbolic names, pids, events),
//! with errors that point at a column and say what was expected there.

use crate::names::SymbolicName;
use std::fmt;

/// Text that is not a valid name or event: where, and what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    pub input: String,
    /// 1-based, in characters.
    pub column: usize,
    pub expected: String,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?}, column {}: expected {}",
            self.input, self.column, self.expected
        )
    }
}

impl std::error::Error for SyntaxError {}

pub(crate) struct Cursor<'a> {
    s: &'a str,
    pos: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(s: &'a str) -> Self {
        Cursor { s, pos: 0 }
    }

    pub fn error(&self, expected: impl Into<String>) -> SyntaxError {
        self.error_at(self.pos, expected)
    }

    pub fn error_at(&self, pos: usize, expected: impl Into<String>) -> SyntaxError {
        SyntaxError {
            input: self.s.to_string(),
            column: self.s[..pos].chars().count() + 1,
            expected: expected.into(),
        }
    }

    pub fn pos(&self) -> usize {
        self.pos
    }

    pub fn peek(&self) -> Option<char> {
        self.s[self.pos..].chars().next()
    }

    pub fn skip_space(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.pos += self.peek().map_or(0, char::len_utf8);
        }
    }

    pub fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    pub fn expect(&mut self, c: char, what: &str) -> Result<(), SyntaxError> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.error(what))
        }
    }

    pub fn end(&self) -> Result<(), SyntaxError> {
        match self.peek() {
            None => Ok(()),
            Some(_) => Err(self.error("the end")),
        }
    }

    /// A lowercase word (`send`, `receive`, ...), possibly empty.
    pub fn word(&mut self) -> &'a str {
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        {
            self.pos += 1;
        }
        &self.s[start..self.pos]
    }

    /// Decimal digits.
    pub fn number(&mut self, what: &str) -> Result<u64, SyntaxError> {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        if start == self.pos {
            return Err(self.error(what));
        }
        self.s[start..self.pos]
            .parse()
            .map_err(|_| self.error_at(start, format!("{what} (this one is too large)")))
    }

    /// `P`, `P.2`, `P.2.1`.
    pub fn symbolic_name(&mut self) -> Result<SymbolicName, SyntaxError> {
        if !self.eat('P') {
            return Err(self.error("a symbolic name (P, P.2, P.2.1)"));
        }
        let mut path = Vec::new();
        while self.eat('.') {
            let at = self.pos;
            let n = self.number("a child number after '.' (children count from 1)")?;
            match u32::try_from(n) {
                Ok(n) if n >= 1 => path.push(n),
                _ => {
                    return Err(
                        self.error_at(at, "a child number from 1 (P.1 is the first child of P)")
                    )
                }
            }
        }
        if self.peek().is_some_and(|c| c.is_alphanumeric() || c == '_') {
            return Err(self.error("'.' and a child number, or the end of the name"));
        }
        Ok(SymbolicName(path))
    }

    /// `<0.83.0>`: the middle number.
    pub fn pid(&mut self) -> Result<u64, SyntaxError> {
        self.expect('<', "a pid <0.N.0>")?;
        let at = self.pos;
        if self.number("a local pid <0.N.0>")? != 0 {
            return Err(self.error_at(at, "a local pid <0.N.0> (node 0)"));
        }
        self.expect('.', "'.' in a pid <0.N.0>")?;
        let n = self.number("the process number of a pid <0.N.0>")?;
        self.expect('.', "'.' in a pid <0.N.0>")?;
        let at = self.pos;
        if self.number("a pid <0.N.0>")? != 0 {
            return Err(self.error_at(at, "a local pid <0.N.0> (serial 0)"));
        }
        self.expect('>', "'>' closing the pid")?;
        Ok(n)
    }
}
