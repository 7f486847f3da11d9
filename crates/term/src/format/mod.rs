//! `io_lib:format/2`: the control-sequence language `~F.P.PadModC`.
//!
//! As in OTP it works in two passes: `scan` splits the format into text and
//! control sequences, taking each one's arguments (and `*` widths); then the
//! output is built, the "small" controls first and the term and string
//! controls (`~p ~P ~w ~W ~s`) second, tracking the column so that `~p`
//! knows where on its line it starts. Every case where OTP raises `badarg`
//! is a [`FormatError`].

mod controls;
mod floats;

use crate::pretty::{pretty_into, PrettyOptions};
use crate::print::write_term_with;
use crate::quote::Encoding;
use crate::term::Term;
use controls::term_field;

/// `io_lib:format` would fail with `badarg`; the message says why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatError {
    pub message: String,
}

impl std::fmt::Display for FormatError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "bad argument: {}", self.message)
    }
}

impl std::error::Error for FormatError {}

/// The widest field or precision accepted (a field is built in memory).
pub const MAX_FIELD: i64 = 1 << 28;

pub(crate) fn bad<T>(message: impl Into<String>) -> Result<T, FormatError> {
    Err(FormatError {
        message: message.into(),
    })
}

/// `io_lib:format(Format, Args)` with the format as text.
pub fn format(fmt: &str, args: &[Term]) -> Result<String, FormatError> {
    let chars: Vec<char> = fmt.chars().collect();
    build(&scan(&chars, args)?)
}

/// `io_lib:format(Format, Args)` with the format as a term: a list of
/// characters, a binary (its bytes are latin1 characters) or an atom.
pub fn format_term(fmt: &Term, args: &[Term]) -> Result<String, FormatError> {
    let chars: Vec<char> = match fmt {
        Term::Atom(a) => a.name().chars().collect(),
        Term::Binary(b) if b.is_binary() => b.bytes().iter().map(|&c| char::from(c)).collect(),
        Term::Nil | Term::Cons(_) => {
            let mut out = Vec::new();
            let mut it = fmt.list_iter();
            for c in &mut it {
                match c.as_char() {
                    Some(c) => out.push(c),
                    None => return bad("the format is not a list of characters"),
                }
            }
            if !it.is_proper() {
                return bad("the format is not a proper list");
            }
            out
        }
        _ => return bad("the format is not a string, binary or atom"),
    };
    build(&scan(&chars, args)?)
}

/// One control sequence with its arguments.
#[derive(Debug, Clone)]
pub(crate) struct Spec<'a> {
    pub control: char,
    pub args: Vec<&'a Term>,
    pub width: Option<i64>,
    pub left: bool,
    pub precision: Option<i64>,
    pub pad: PadChar<'a>,
    pub encoding: Encoding,
    pub strings: bool,
}

/// The pad character: written in the format, or taken from the arguments
/// (`.*`), where it may be any term and fails only when used.
#[derive(Debug, Clone, Copy)]
pub(crate) enum PadChar<'a> {
    Char(char),
    Arg(&'a Term),
}

impl PadChar<'_> {
    pub fn get(self) -> Result<char, FormatError> {
        match self {
            PadChar::Char(c) => Ok(c),
            PadChar::Arg(t) => match t.as_char() {
                Some(c) => Ok(c),
                None => bad("the pad character is not a character"),
            },
        }
    }
}

#[derive(Debug)]
enum Piece<'a> {
    Char(char),
    Control(Spec<'a>),
}

struct Scanner<'f, 'a> {
    fmt: &'f [char],
    pos: usize,
    args: &'a [Term],
}

impl<'a> Scanner<'_, 'a> {
    fn peek(&self) -> Option<char> {
        self.fmt.get(self.pos).copied()
    }

    fn next_arg(&mut self) -> Option<&'a Term> {
        let (first, rest) = self.args.split_first()?;
        self.args = rest;
        Some(first)
    }

    /// `field_value`: digits, `*` with an integer argument, or nothing.
    fn field_value(&mut self) -> Option<i64> {
        match self.peek() {
            Some('*') => match self.args.first() {
                Some(Term::Int(i)) => {
                    self.pos += 1;
                    self.args = &self.args[1..];
                    Some(*i)
                }
                // OTP leaves the `*` in place; it then fails as a control character.
                _ => None,
            },
            Some(c) if c.is_ascii_digit() => {
                let mut v: i64 = 0;
                while let Some(d) = self.peek().and_then(|c| c.to_digit(10)) {
                    v = v.saturating_mul(10).saturating_add(i64::from(d));
                    self.pos += 1;
                }
                Some(v)
            }
            _ => None,
        }
    }

    fn spec(&mut self) -> Result<Spec<'a>, FormatError> {
        let minus = self.peek() == Some('-');
        if minus {
            self.pos += 1;
        }
        let mut width = self.field_value();
        if minus {
            width = match width {
                Some(w) => Some(-w),
                None => return bad("'-' without a field width"),
            };
        }
        let left = width.is_some_and(|w| w < 0);
        let width = width.map(i64::saturating_abs);
        let mut precision = None;
        if self.peek() == Some('.') {
            self.pos += 1;
            precision = self.field_value();
            if precision.is_some_and(|p| p < 0) {
                return bad("negative precision");
            }
        }
        // BEAM would try to build a field this wide and run out of memory.
        if width.max(precision).is_some_and(|n| n > MAX_FIELD) {
            return bad("field width or precision too large");
        }
        let mut pad = PadChar::Char(' ');
        if self.peek() == Some('.') {
            match self.fmt.get(self.pos + 1) {
                Some('*') => match self.args.first() {
                    Some(a) => {
                        pad = PadChar::Arg(a);
                        self.args = &self.args[1..];
                        self.pos += 2;
                    }
                    None => return bad("too few arguments"),
                },
                Some(&c) => {
                    pad = PadChar::Char(c);
                    self.pos += 2;
                }
                None => {}
            }
        }
        let mut encoding = Encoding::Latin1;
        let mut strings = true;
        loop {
            match self.peek() {
                Some('t') => encoding = Encoding::Unicode,
                Some('l') => strings = false,
                _ => break,
            }
            self.pos += 1;
        }
        let Some(control) = self.peek() else {
            return bad("the format ends inside a control sequence");
        };
        self.pos += 1;
        let nargs = match control {
            'w' | 'p' | 's' | 'e' | 'f' | 'g' | 'b' | 'B' | '+' | '#' | 'c' | 'i' => 1,
            'W' | 'P' | 'x' | 'X' => 2,
            '~' | 'n' => 0,
            other => return bad(format!("unknown control ~{other}")),
        };
        let mut args = Vec::with_capacity(nargs);
        for _ in 0..nargs {
            match self.next_arg() {
                Some(a) => args.push(a),
                None => return bad("too few arguments"),
            }
        }
        Ok(Spec {
            control,
            args,
            width,
            left,
            precision,
            pad,
            encoding,
            strings,
        })
    }
}

fn scan<'a>(fmt: &[char], args: &'a [Term]) -> Result<Vec<Piece<'a>>, FormatError> {
    let mut s = Scanner { fmt, pos: 0, args };
    let mut out = Vec::with_capacity(fmt.len());
    while let Some(c) = s.peek() {
        s.pos += 1;
        if c == '~' {
            out.push(Piece::Control(s.spec()?));
        } else {
            out.push(Piece::Char(c));
        }
    }
    if !s.args.is_empty() {
        return bad("too many arguments");
    }
    Ok(out)
}

enum Built<'a> {
    Text(String),
    Big(&'a Spec<'a>),
}

/// The column after `s` written from column `col` (0-based), tabs stopping
/// every 8 columns (`io_lib_format:indentation`).
fn indentation(s: &str, col: i64) -> i64 {
    s.chars().fold(col, |i, c| match c {
        '\n' => 0,
        '\t' => (i + 8) / 8 * 8,
        _ => i + 1,
    })
}

fn build(pieces: &[Piece<'_>]) -> Result<String, FormatError> {
    // Pass 1: plain text and the small controls.
    let mut built: Vec<Built<'_>> = Vec::with_capacity(pieces.len());
    let mut text = String::new();
    let mut pretty_left = 0usize;
    for p in pieces {
        match p {
            Piece::Char(c) => text.push(*c),
            Piece::Control(spec) => match spec.control {
                'p' | 'P' | 'w' | 'W' | 's' if !is_small_s(spec) => {
                    if matches!(spec.control, 'p' | 'P') {
                        pretty_left += 1;
                    }
                    built.push(Built::Text(std::mem::take(&mut text)));
                    built.push(Built::Big(spec));
                }
                _ => controls::small(&mut text, spec)?,
            },
        }
    }
    built.push(Built::Text(text));
    // Pass 2: terms and strings, knowing the column for ~p.
    let mut out = String::new();
    let mut col = 0i64;
    for b in built {
        match b {
            Built::Text(t) => {
                if pretty_left > 0 {
                    col = indentation(&t, col);
                }
                out.push_str(&t);
            }
            Built::Big(spec) => {
                let start = out.len();
                big(&mut out, spec, col)?;
                if matches!(spec.control, 'p' | 'P') {
                    pretty_left -= 1;
                }
                if pretty_left > 0 {
                    col = indentation(&out[start..], col);
                }
            }
        }
    }
    Ok(out)
}

/// `~s` of an atom is handled with the small controls in OTP.
fn is_small_s(spec: &Spec<'_>) -> bool {
    spec.control == 's' && matches!(spec.args[0], Term::Atom(_))
}

fn big(out: &mut String, spec: &Spec<'_>, col: i64) -> Result<(), FormatError> {
    match spec.control {
        'w' | 'W' => {
            let depth = match spec.control {
                'W' => match spec.args[1] {
                    Term::Int(d) => *d,
                    _ => return bad("~W needs an integer depth"),
                },
                _ => -1,
            };
            let text = write_term_with(spec.args[0], depth, spec.encoding);
            term_field(out, &text, spec)
        }
        'p' | 'P' => {
            let depth = match spec.control {
                'P' => match spec.args[1] {
                    Term::Int(d) => *d,
                    _ => return bad("~P needs an integer depth"),
                },
                _ => -1,
            };
            if spec.left {
                return bad("~p cannot be left-adjusted");
            }
            // The field width is the line length, the precision the start column.
            let opts = PrettyOptions {
                column: spec.precision.unwrap_or(col + 1),
                line_length: spec.width.unwrap_or(80),
                depth,
                encoding: spec.encoding,
                strings: spec.strings,
                ..PrettyOptions::default()
            };
            pretty_into(out, spec.args[0], &opts);
            Ok(())
        }
        's' => controls::string(out, spec),
        _ => unreachable!("not a big control"),
    }
}
