//! Just enough of Erlang's term syntax to read CauDEr's log lines: tuples,
//! lists, atoms, integers and strings. Anything else (a return value that is a
//! map, a binary, a float, ...) is kept as its source text.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum T {
    Atom(String),
    Int(i128),
    Str(String),
    Tuple(Vec<T>),
    List(Vec<T>),
    /// A term this reader does not take apart, as written.
    Raw(String),
}

impl T {
    pub fn atom(&self) -> Option<&str> {
        match self {
            T::Atom(a) => Some(a),
            _ => None,
        }
    }

    pub fn int(&self) -> Option<i128> {
        match self {
            T::Int(i) => Some(*i),
            _ => None,
        }
    }
}

/// Writes an atom, quoted when Erlang needs quotes.
pub fn atom_text(a: &str) -> String {
    let plain = a.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && a.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '@')
        && !RESERVED.contains(&a);
    if plain {
        a.to_string()
    } else {
        let mut s = String::from("'");
        for c in a.chars() {
            match c {
                '\'' => s.push_str("\\'"),
                '\\' => s.push_str("\\\\"),
                c => s.push(c),
            }
        }
        s.push('\'');
        s
    }
}

const RESERVED: &[&str] = &[
    "after", "and", "andalso", "band", "begin", "bnot", "bor", "bsl", "bsr", "bxor", "case",
    "catch", "cond", "div", "end", "fun", "if", "let", "not", "of", "or", "orelse", "receive",
    "rem", "try", "when", "xor", "maybe", "else",
];

impl fmt::Display for T {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let seq = |f: &mut fmt::Formatter<'_>, items: &[T]| {
            for (i, t) in items.iter().enumerate() {
                if i > 0 {
                    f.write_str(",")?;
                }
                write!(f, "{t}")?;
            }
            Ok(())
        };
        match self {
            T::Atom(a) => f.write_str(&atom_text(a)),
            T::Int(i) => write!(f, "{i}"),
            T::Str(s) => write!(f, "{s:?}"),
            T::Tuple(items) => {
                f.write_str("{")?;
                seq(f, items)?;
                f.write_str("}")
            }
            T::List(items) => {
                f.write_str("[")?;
                seq(f, items)?;
                f.write_str("]")
            }
            T::Raw(r) => f.write_str(r),
        }
    }
}

/// A parse failure: byte position in the text and what was expected.
#[derive(Debug, PartialEq, Eq)]
pub struct SyntaxError {
    pub at: usize,
    pub expected: String,
}

pub struct Parser<'a> {
    s: &'a [u8],
    pub pos: usize,
}

impl<'a> Parser<'a> {
    pub fn new(s: &'a str) -> Self {
        Parser {
            s: s.as_bytes(),
            pos: 0,
        }
    }

    fn err<X>(&self, expected: impl Into<String>) -> Result<X, SyntaxError> {
        Err(SyntaxError {
            at: self.pos,
            expected: expected.into(),
        })
    }

    /// Skips whitespace and `%` comments.
    pub fn skip_blank(&mut self) {
        while let Some(&c) = self.s.get(self.pos) {
            if c.is_ascii_whitespace() {
                self.pos += 1;
            } else if c == b'%' {
                while self.s.get(self.pos).is_some_and(|&c| c != b'\n') {
                    self.pos += 1;
                }
            } else {
                break;
            }
        }
    }

    pub fn at_end(&mut self) -> bool {
        self.skip_blank();
        self.pos >= self.s.len()
    }

    pub fn peek(&mut self) -> Option<u8> {
        self.skip_blank();
        self.s.get(self.pos).copied()
    }

    pub fn expect(&mut self, c: u8) -> Result<(), SyntaxError> {
        if self.peek() == Some(c) {
            self.pos += 1;
            Ok(())
        } else {
            self.err(format!("'{}'", c as char))
        }
    }

    /// One term. Nesting is limited so that hostile input cannot exhaust the stack.
    pub fn term(&mut self) -> Result<T, SyntaxError> {
        self.term_at(0)
    }

    fn term_at(&mut self, depth: usize) -> Result<T, SyntaxError> {
        if depth > 200 {
            return self.err("terms nested less than 200 deep");
        }
        let start = self.pos;
        match self.peek() {
            None => self.err("a term"),
            Some(b'{') => {
                self.pos += 1;
                Ok(T::Tuple(self.items(b'}', depth)?))
            }
            Some(b'[') => {
                self.pos += 1;
                Ok(T::List(self.items(b']', depth)?))
            }
            Some(b'\'') => Ok(T::Atom(self.quoted(b'\'')?)),
            Some(b'"') => Ok(T::Str(self.quoted(b'"')?)),
            Some(c) if c.is_ascii_lowercase() => {
                let w = self.word();
                Ok(T::Atom(w))
            }
            Some(c) if c.is_ascii_digit() || c == b'-' => {
                let p = self.pos;
                self.pos += 1;
                while self.s.get(self.pos).is_some_and(|c| c.is_ascii_digit()) {
                    self.pos += 1;
                }
                let text = std::str::from_utf8(&self.s[p..self.pos]).unwrap_or("");
                match (text.parse(), self.s.get(self.pos)) {
                    (Ok(i), next)
                        if !matches!(next, Some(b'.' | b'#' | b'e' | b'E'))
                            || self.dot_ends_term() =>
                    {
                        Ok(T::Int(i))
                    }
                    _ => {
                        self.pos = start;
                        self.raw()
                    }
                }
            }
            Some(_) => self.raw(),
        }
    }

    /// After digits: is the `.` the end of the form (followed by blank or end)?
    fn dot_ends_term(&self) -> bool {
        self.s.get(self.pos) == Some(&b'.')
            && self
                .s
                .get(self.pos + 1)
                .is_none_or(|c| c.is_ascii_whitespace() || *c == b'%')
    }

    fn items(&mut self, close: u8, depth: usize) -> Result<Vec<T>, SyntaxError> {
        let mut v = Vec::new();
        if self.peek() == Some(close) {
            self.pos += 1;
            return Ok(v);
        }
        loop {
            v.push(self.term_at(depth + 1)?);
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(c) if c == close => {
                    self.pos += 1;
                    return Ok(v);
                }
                Some(b'|') => {
                    // An improper list: keep it as text.
                    return self.err(format!("',' or '{}'", close as char));
                }
                _ => return self.err(format!("',' or '{}'", close as char)),
            }
        }
    }

    fn word(&mut self) -> String {
        let p = self.pos;
        while self
            .s
            .get(self.pos)
            .is_some_and(|&c| c.is_ascii_alphanumeric() || c == b'_' || c == b'@')
        {
            self.pos += 1;
        }
        String::from_utf8_lossy(&self.s[p..self.pos]).into_owned()
    }

    fn quoted(&mut self, q: u8) -> Result<String, SyntaxError> {
        self.pos += 1;
        let mut out = Vec::new();
        loop {
            match self.s.get(self.pos) {
                None => return self.err(format!("a closing {}", q as char)),
                Some(&c) if c == q => {
                    self.pos += 1;
                    return Ok(String::from_utf8_lossy(&out).into_owned());
                }
                Some(b'\\') => {
                    let e = self.s.get(self.pos + 1).copied();
                    self.pos += 2;
                    out.push(match e {
                        Some(b'n') => b'\n',
                        Some(b't') => b'\t',
                        Some(b'r') => b'\r',
                        Some(b's') => b' ',
                        Some(c) => c,
                        None => return self.err("an escaped character"),
                    });
                }
                Some(&c) => {
                    out.push(c);
                    self.pos += 1;
                }
            }
        }
    }

    /// Text of a term this reader does not model: up to the next `,` or
    /// closing bracket at depth 0, or the `.` ending the form.
    fn raw(&mut self) -> Result<T, SyntaxError> {
        let p = self.pos;
        let mut depth = 0usize;
        while let Some(&c) = self.s.get(self.pos) {
            match c {
                b'"' | b'\'' => {
                    self.quoted(c)?;
                    continue;
                }
                b'{' | b'[' | b'(' => depth += 1,
                b'<' if self.s.get(self.pos + 1) == Some(&b'<') => {
                    depth += 1;
                    self.pos += 1;
                }
                b'>' if depth > 0 && self.s.get(self.pos + 1) == Some(&b'>') => {
                    depth -= 1;
                    self.pos += 1;
                }
                b'}' | b']' | b')' if depth == 0 => break,
                b'}' | b']' | b')' => depth -= 1,
                b',' if depth == 0 => break,
                b'.' if depth == 0
                    && self
                        .s
                        .get(self.pos + 1)
                        .is_none_or(|c| c.is_ascii_whitespace()) =>
                {
                    break
                }
                _ => {}
            }
            self.pos += 1;
        }
        let text = String::from_utf8_lossy(&self.s[p..self.pos])
            .trim()
            .to_string();
        if text.is_empty() {
            return self.err("a term");
        }
        Ok(T::Raw(text))
    }
}

/// The forms of a file read like `file:consult/1`: terms each ended by `.`.
pub fn consult(text: &str) -> Result<Vec<(usize, T)>, SyntaxError> {
    let mut p = Parser::new(text);
    let mut v = Vec::new();
    while !p.at_end() {
        let at = p.pos;
        let t = p.term()?;
        p.expect(b'.')?;
        v.push((at, t));
    }
    Ok(v)
}

/// Line number (from 1) of byte position `at`.
pub fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes()[..at.min(text.len())]
        .iter()
        .filter(|&&c| c == b'\n')
        .count()
        + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_cauder_forms() {
        let forms = consult(
            "{trace_spawn,nonode@nohost,216,true}.\n% a comment\n{trace_send,3}.\n{'receive',0}.\n\
             {return,{value,#{a => <<1,2>>, b => [1.5]}}}.\n{call,{barber,main,[\"x\",-3]}}.\n",
        )
        .unwrap();
        assert_eq!(forms.len(), 5);
        assert_eq!(
            forms[0].1,
            T::Tuple(vec![
                T::Atom("trace_spawn".into()),
                T::Atom("nonode@nohost".into()),
                T::Int(216),
                T::Atom("true".into())
            ])
        );
        assert_eq!(
            forms[2].1,
            T::Tuple(vec![T::Atom("receive".into()), T::Int(0)])
        );
        let T::Tuple(ret) = &forms[3].1 else { panic!() };
        assert_eq!(ret[1].to_string(), "{value,#{a => <<1,2>>, b => [1.5]}}");
        assert_eq!(forms[4].1.to_string(), "{call,{barber,main,[\"x\",-3]}}");
    }

    #[test]
    fn reports_positions() {
        let e = consult("{trace_send,3}\n{x}.").unwrap_err();
        assert_eq!(e.at, 15);
        assert_eq!(line_of("{trace_send,3}\n{x}.", e.at), 2);
        assert!(consult(&"{".repeat(1000)).is_err());
    }

    #[test]
    fn quotes_atoms_when_needed() {
        assert_eq!(atom_text("receive"), "'receive'");
        assert_eq!(atom_text("nonode@nohost"), "nonode@nohost");
        assert_eq!(atom_text("Foo"), "'Foo'");
        assert_eq!(atom_text("it's"), "'it\\'s'");
    }
}
