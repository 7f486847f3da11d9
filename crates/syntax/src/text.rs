//! Writing literals back as Erlang text, the way `io_lib:write` does: for
//! tokens in error messages, `??Arg` stringification and `-error(Term)`.

use crate::ast::IntLit;
use crate::token::{Keyword, TokenKind};
use std::fmt;

/// Lowercase letters that may start an unquoted atom (erl_scan's Latin-1 classes).
pub(crate) fn is_lower(c: char) -> bool {
    c.is_ascii_lowercase() || (('\u{df}'..='\u{ff}').contains(&c) && c != '\u{f7}')
}

/// Uppercase letters that start a variable (besides `_`).
pub(crate) fn is_upper(c: char) -> bool {
    c.is_ascii_uppercase() || (('\u{c0}'..='\u{de}').contains(&c) && c != '\u{d7}')
}

/// Characters that may continue an atom or variable name.
pub(crate) fn is_name_char(c: char) -> bool {
    is_lower(c) || is_upper(c) || c.is_ascii_digit() || c == '_' || c == '@'
}

/// Words that must be quoted to be atoms. `maybe` and `else` are not among
/// them in OTP 25 (they are reserved only with the `maybe_expr` feature).
fn is_reserved(name: &str) -> bool {
    !matches!(name, "maybe" | "else") && Keyword::from_name(name).is_some()
}

/// An atom as `~w` writes it: quoted when it would not scan back as itself.
pub fn atom(name: &str) -> String {
    let mut chars = name.chars();
    let plain = match chars.next() {
        Some(c) if is_lower(c) => chars.all(is_name_char) && !is_reserved(name),
        _ => false,
    };
    if plain {
        name.to_string()
    } else {
        quoted(name.chars().map(|c| c as u32), '\'')
    }
}

/// An atom always in quotes (as erl_scan shows an unterminated one).
pub fn quoted_atom(name: &str) -> String {
    quoted(name.chars().map(|c| c as u32), '\'')
}

/// A string literal with escapes, as `io_lib:write_string` writes it.
pub fn string(codepoints: &[u32]) -> String {
    quoted(codepoints.iter().copied(), '"')
}

fn quoted(codepoints: impl Iterator<Item = u32>, quote: char) -> String {
    let mut out = String::new();
    out.push(quote);
    for c in codepoints {
        push_escaped(&mut out, c, quote);
    }
    out.push(quote);
    out
}

fn push_escaped(out: &mut String, c: u32, quote: char) {
    match c {
        8 => out.push_str("\\b"),
        9 => out.push_str("\\t"),
        10 => out.push_str("\\n"),
        11 => out.push_str("\\v"),
        12 => out.push_str("\\f"),
        13 => out.push_str("\\r"),
        27 => out.push_str("\\e"),
        127 => out.push_str("\\d"),
        0x5c => out.push_str("\\\\"),
        c if c == quote as u32 => {
            out.push('\\');
            out.push(quote);
        }
        c if c < 32 || (128..160).contains(&c) => out.push_str(&format!("\\{c:03o}")),
        c => match char::from_u32(c) {
            Some(ch) => out.push(ch),
            None => out.push_str(&format!("\\x{{{c:X}}}")),
        },
    }
}

/// A character literal as `io_lib:write_char` writes it: `$a`, `$\n`, `$\s`.
pub fn char_literal(c: u32) -> String {
    if c == b' ' as u32 {
        return "$\\s".to_string();
    }
    let mut out = String::from("$");
    push_escaped(&mut out, c, '\0');
    out
}

/// A float as `~w` writes it: the shortest digits that read back exactly, in
/// plain or scientific notation, whichever is shorter (plain on a tie);
/// always scientific from 2^53 up, where floats no longer hold every integer.
pub fn float(x: f64) -> String {
    if !x.is_finite() {
        return format!("{x}");
    }
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let sign = if x.is_sign_negative() { "-" } else { "" };

    let (first, rest) = digits.split_at(1);
    let scientific = format!(
        "{sign}{first}.{}e{exp}",
        if rest.is_empty() { "0" } else { rest }
    );
    let plain = if exp >= 0 {
        let int_len = exp as usize + 1;
        if digits.len() > int_len {
            format!("{sign}{}.{}", &digits[..int_len], &digits[int_len..])
        } else {
            format!("{sign}{digits}{}.0", "0".repeat(int_len - digits.len()))
        }
    } else {
        format!("{sign}0.{}{digits}", "0".repeat((-exp - 1) as usize))
    };
    if scientific.len() < plain.len() || x.abs() >= 9_007_199_254_740_992.0 {
        scientific
    } else {
        plain
    }
}

/// The token as erlc prints it in `syntax error before: ...`; also the text
/// `??Arg` stringification joins.
impl fmt::Display for TokenKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokenKind::Atom(a) => f.write_str(&atom(a)),
            TokenKind::Var(v) => f.write_str(v),
            TokenKind::Integer(IntLit::Small(n)) => write!(f, "{n}"),
            TokenKind::Integer(IntLit::Big(digits)) => f.write_str(digits),
            TokenKind::Float(x) => f.write_str(&float(*x)),
            TokenKind::Char(c) => f.write_str(&char_literal(*c)),
            TokenKind::String(s) => f.write_str(&string(s)),
            TokenKind::Punct(p) => write!(f, "'{}'", p.as_str()),
            TokenKind::Keyword(k) => f.write_str(&atom(k.as_str())),
            TokenKind::Dot => f.write_str("'.'"),
            TokenKind::Other(c) => f.write_str(&atom(&c.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_erlang_does() {
        // Expected strings taken from `io:format("~w", [...])` on OTP 25.
        let cases = [
            (1.0e10, "1.0e10"),
            (123456.0, "123456.0"),
            (0.0001, "0.0001"),
            (1.0e-5, "1.0e-5"),
            (1.5e3, "1.5e3"),
            (100.0, "100.0"),
            (1000.0, "1.0e3"),
            (1234.5, "1234.5"),
            (0.000123, "1.23e-4"),
            (12345678901234567.0, "1.2345678901234568e16"),
            (5.0e-324, "5.0e-324"),
            (2.5e-3, "0.0025"),
            (0.0, "0.0"),
            (-1.5, "-1.5"),
            (120.0, "120.0"),
            (1234567890123456.0, "1234567890123456.0"),
            (9007199254740992.0, "9.007199254740992e15"),
            (0.00012, "1.2e-4"),
            (0.00125, "0.00125"),
        ];
        for (x, want) in cases {
            assert_eq!(float(x), want, "{x}");
        }
    }

    #[test]
    fn atoms_are_quoted_when_needed() {
        assert_eq!(atom("abc_1"), "abc_1");
        assert_eq!(atom("Abc"), "'Abc'");
        assert_eq!(atom("end"), "'end'");
        assert_eq!(atom("maybe"), "maybe");
        assert_eq!(atom("a b"), "'a b'");
        assert_eq!(atom("it's"), "'it\\'s'");
        assert_eq!(atom("\u{e9}t\u{e9}"), "\u{e9}t\u{e9}");
        assert_eq!(atom(""), "''");
    }

    #[test]
    fn strings_escape_like_io_lib() {
        let s: Vec<u32> = [1, 8, 9, 10, 27, 127, 128, 160, 34, 92, 39, 8364].to_vec();
        assert_eq!(
            string(&s),
            "\"\\001\\b\\t\\n\\e\\d\\200\u{a0}\\\"\\\\'\u{20ac}\""
        );
        assert_eq!(char_literal(b'b' as u32), "$b");
        assert_eq!(char_literal(10), "$\\n");
        assert_eq!(char_literal(32), "$\\s");
    }
}
