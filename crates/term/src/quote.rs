//! Quoting atoms and escaping strings the way `io_lib` writes them.
//!
//! Two encodings matter: `latin1` (plain `~w`/`~p`), where characters above
//! 255 are written `\x{HEX}`, and `unicode` (`~tw`/`~tp`), where every
//! character from 160 up is written as itself. Control characters below 160
//! are escaped in both.

/// The output encoding of a control sequence: without or with the `t` modifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Latin1,
    Unicode,
}

/// Words `erl_scan` reserves in OTP 25 (with no optional features enabled).
const RESERVED: &[&str] = &[
    "after", "and", "andalso", "band", "begin", "bnot", "bor", "bsl", "bsr", "bxor", "case",
    "catch", "cond", "div", "end", "fun", "if", "let", "not", "of", "or", "orelse", "receive",
    "rem", "try", "when", "xor",
];

fn is_lower(c: char) -> bool {
    c.is_ascii_lowercase() || (('ß'..='ÿ').contains(&c) && c != '÷')
}

fn is_name_char(c: char) -> bool {
    is_lower(c)
        || c.is_ascii_uppercase()
        || (('À'..='Þ').contains(&c) && c != '×')
        || c.is_ascii_digit()
        || c == '_'
        || c == '@'
}

/// True when the atom must be written in single quotes.
pub fn atom_needs_quotes(name: &str) -> bool {
    let mut cs = name.chars();
    match cs.next() {
        Some(c) if is_lower(c) => !cs.all(is_name_char) || RESERVED.contains(&name),
        _ => true,
    }
}

/// Appends the atom as `io_lib:write_atom` (unicode) or
/// `io_lib:write_atom_as_latin1` (latin1) writes it.
pub fn push_atom(out: &mut String, name: &str, enc: Encoding) {
    if atom_needs_quotes(name) {
        push_quoted(out, name.chars(), '\'', enc);
    } else {
        out.push_str(name);
    }
}

/// Appends `chars` between `quote`s with `io_lib`'s escapes.
pub fn push_quoted(
    out: &mut String,
    chars: impl Iterator<Item = char>,
    quote: char,
    enc: Encoding,
) {
    out.push(quote);
    for c in chars {
        push_string_char(out, c, quote, enc);
    }
    out.push(quote);
}

/// One character of a quoted string or atom.
pub fn push_string_char(out: &mut String, c: char, quote: char, enc: Encoding) {
    let code = c as u32;
    match c {
        _ if c == quote => {
            out.push('\\');
            out.push(c);
        }
        '\\' => out.push_str("\\\\"),
        ' '..='~' => out.push(c),
        _ if code >= 0xA0 && (code <= 0xFF || enc == Encoding::Unicode) => out.push(c),
        _ if code > 0xFF => {
            out.push_str("\\x{");
            out.push_str(&format!("{code:X}"));
            out.push('}');
        }
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\u{b}' => out.push_str("\\v"),
        '\u{8}' => out.push_str("\\b"),
        '\u{c}' => out.push_str("\\f"),
        '\u{1b}' => out.push_str("\\e"),
        '\u{7f}' => out.push_str("\\d"),
        _ => {
            out.push('\\');
            out.push(char::from(b'0' + ((code >> 6) & 7) as u8));
            out.push(char::from(b'0' + ((code >> 3) & 7) as u8));
            out.push(char::from(b'0' + (code & 7) as u8));
        }
    }
}

/// `io_lib:printable_latin1_list/1` on one character.
pub fn printable_latin1(c: u32) -> bool {
    matches!(c, 0x20..=0x7E | 0xA0..=0xFF | 8..=13 | 27)
}

/// `io_lib:printable_unicode_list/1` on one character.
pub fn printable_unicode(c: u32) -> bool {
    matches!(c, 0x20..=0x7E | 0xA0..=0xD7FF | 0xE000..=0xFFFD | 0x10000..=0x10FFFF | 8..=13 | 27)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn atom(name: &str, enc: Encoding) -> String {
        let mut s = String::new();
        push_atom(&mut s, name, enc);
        s
    }

    #[test]
    fn atoms_are_quoted_as_erlang_does() {
        assert_eq!(atom("ok", Encoding::Latin1), "ok");
        assert_eq!(atom("a@b_C9", Encoding::Latin1), "a@b_C9");
        assert_eq!(atom("Abc", Encoding::Latin1), "'Abc'");
        assert_eq!(atom("if", Encoding::Latin1), "'if'");
        assert_eq!(atom("", Encoding::Latin1), "''");
        assert_eq!(atom("é", Encoding::Latin1), "é");
        assert_eq!(atom("ab\n", Encoding::Latin1), "'ab\\n'");
        assert_eq!(atom("it's", Encoding::Latin1), "'it\\'s'");
        assert_eq!(atom("α", Encoding::Latin1), "'\\x{3B1}'");
        assert_eq!(atom("α", Encoding::Unicode), "'α'");
    }
}
