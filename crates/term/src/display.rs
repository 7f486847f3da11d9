//! The text `erlang:display/1` writes: BEAM's own term printer, which is
//! not `io_lib`'s. Floats are C's `%.6e`; a list of printable latin1
//! characters (tab, newline and carriage return included) is a string with
//! only `"` and newline escaped and characters from 160 up written as single
//! bytes; a binary of printable ASCII is `<<"...">>`; map pairs are joined by
//! `=>` without spaces. Atoms are quoted by rules of its own (reserved words
//! bare, `@` quoted, octal escapes) and written in UTF-8. The result is
//! bytes, not text, because of those latin1 bytes.

use crate::bits::Bitstring;
use crate::print::write_fun;
use crate::quote::Encoding;
use crate::term::Term;
use std::io::Write;

enum Item<'a> {
    Term(&'a Term),
    Text(&'static str),
}

/// `erlang:display(T)`'s text, without the line end.
pub fn display(t: &Term) -> Vec<u8> {
    let mut out = Vec::new();
    let mut stack = vec![Item::Term(t)];
    while let Some(item) = stack.pop() {
        match item {
            Item::Text(s) => out.extend_from_slice(s.as_bytes()),
            Item::Term(t) => term(&mut out, t, &mut stack),
        }
    }
    out
}

fn term<'a>(out: &mut Vec<u8>, t: &'a Term, stack: &mut Vec<Item<'a>>) {
    match t {
        Term::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Term::Big(b) => {
            let _ = write!(out, "{b}");
        }
        Term::Float(f) => float(out, *f),
        Term::Atom(a) => atom(out, a.name()),
        Term::Nil => out.extend_from_slice(b"[]"),
        Term::Cons(_) => list(out, t, stack),
        Term::Tuple(tu) => {
            out.push(b'{');
            stack.push(Item::Text("}"));
            push_separated(stack, tu.elements().iter().map(Item::Term), ",");
        }
        Term::Map(m) => {
            out.extend_from_slice(b"#{");
            stack.push(Item::Text("}"));
            let mut items = Vec::with_capacity(4 * m.len());
            for (i, (k, v)) in m.iter().enumerate() {
                if i > 0 {
                    items.push(Item::Text(","));
                }
                items.extend([Item::Term(k), Item::Text("=>"), Item::Term(v)]);
            }
            stack.extend(items.into_iter().rev());
        }
        Term::Binary(b) => binary(out, b),
        Term::Fun(f) => {
            let mut s = String::new();
            write_fun(&mut s, f, Encoding::Unicode);
            out.extend_from_slice(s.as_bytes());
        }
        Term::Pid(p) => {
            let _ = write!(out, "{p}");
        }
        Term::Ref(r) => {
            let _ = write!(out, "{r}");
        }
    }
}

fn is_lower(c: char) -> bool {
    c.is_ascii_lowercase() || (('ß'..='ÿ').contains(&c) && c != '÷')
}

fn is_name_char(c: char) -> bool {
    is_lower(c) || c.is_ascii_alphanumeric() || (('À'..='Þ').contains(&c) && c != '×') || c == '_'
}

/// Bare when it starts with a lowercase letter and goes on with letters,
/// digits and `_`; otherwise in quotes, with `\b \t \n \v \f \r`, octal
/// for other control characters (and those from 128 to 159), `\'`, `\\`.
fn atom(out: &mut Vec<u8>, name: &str) {
    let mut cs = name.chars();
    let bare = cs.next().is_some_and(is_lower) && cs.all(is_name_char);
    if bare {
        out.extend_from_slice(name.as_bytes());
        return;
    }
    out.push(b'\'');
    for c in name.chars() {
        match c {
            '\u{8}' => out.extend_from_slice(b"\\b"),
            '\t' => out.extend_from_slice(b"\\t"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\u{b}' => out.extend_from_slice(b"\\v"),
            '\u{c}' => out.extend_from_slice(b"\\f"),
            '\r' => out.extend_from_slice(b"\\r"),
            '\'' => out.extend_from_slice(b"\\'"),
            '\\' => out.extend_from_slice(b"\\\\"),
            c if (c as u32) < 32 || (128..160).contains(&(c as u32)) => {
                let _ = write!(out, "\\{:03o}", c as u32);
            }
            c => {
                let mut buf = [0; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
    out.push(b'\'');
}

/// Pushes items to be written in order, with `sep` between them.
fn push_separated<'a>(
    stack: &mut Vec<Item<'a>>,
    items: impl DoubleEndedIterator<Item = Item<'a>> + ExactSizeIterator,
    sep: &'static str,
) {
    let n = items.len();
    for (i, item) in items.rev().enumerate() {
        stack.push(item);
        if i + 1 < n {
            stack.push(Item::Text(sep));
        }
    }
}

/// C's `%.6e`: six decimals and an exponent of at least two digits.
fn float(out: &mut Vec<u8>, f: f64) {
    let s = format!("{f:.6e}");
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let sign = if exp < 0 { '-' } else { '+' };
    let _ = write!(out, "{mantissa}e{sign}{:02}", exp.unsigned_abs());
}

fn printable_in_list(c: i64) -> bool {
    matches!(c, 9 | 10 | 13 | 32..=126 | 160..=255)
}

fn list<'a>(out: &mut Vec<u8>, t: &'a Term, stack: &mut Vec<Item<'a>>) {
    if let Some(chars) = string_chars(t) {
        out.push(b'"');
        for c in chars {
            match c {
                b'"' => out.extend_from_slice(b"\\\""),
                b'\n' => out.extend_from_slice(b"\\n"),
                _ => out.push(c),
            }
        }
        out.push(b'"');
        return;
    }
    out.push(b'[');
    let mut items = Vec::new();
    let mut cur = t;
    while let Term::Cons(cell) = cur {
        if !items.is_empty() {
            items.push(Item::Text(","));
        }
        items.push(Item::Term(&cell.head));
        cur = &cell.tail;
    }
    if !matches!(cur, Term::Nil) {
        items.push(Item::Text("|"));
        items.push(Item::Term(cur));
    }
    items.push(Item::Text("]"));
    stack.extend(items.into_iter().rev());
}

/// The bytes of a proper list of printable latin1 characters.
fn string_chars(t: &Term) -> Option<Vec<u8>> {
    let mut chars = Vec::new();
    let mut cur = t;
    while let Term::Cons(cell) = cur {
        match cell.head {
            Term::Int(c) if printable_in_list(c) => chars.push(c as u8),
            _ => return None,
        }
        cur = &cell.tail;
    }
    matches!(cur, Term::Nil).then_some(chars)
}

fn binary(out: &mut Vec<u8>, b: &Bitstring) {
    let bytes = b.bytes();
    let whole = b.bit_len().is_multiple_of(8);
    if whole && !bytes.is_empty() && bytes.iter().all(|c| (32..=126).contains(c)) {
        out.extend_from_slice(b"<<\"");
        for &c in bytes {
            if c == b'"' {
                out.push(b'\\');
            }
            out.push(c);
        }
        out.extend_from_slice(b"\">>");
        return;
    }
    let mut s = String::new();
    crate::print::write_bitstring(&mut s, b, i64::MAX);
    out.extend_from_slice(s.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(t: &Term) -> String {
        String::from_utf8_lossy(&display(t)).into_owned()
    }

    #[test]
    fn floats_are_printed_as_c_does_with_percent_e() {
        assert_eq!(shown(&Term::Float(0.1)), "1.000000e-01");
        assert_eq!(shown(&Term::Float(1.0e100)), "1.000000e+100");
        assert_eq!(shown(&Term::Float(-0.0)), "-0.000000e+00");
        assert_eq!(shown(&Term::Float(5.0e-324)), "4.940656e-324");
    }

    #[test]
    fn printable_lists_are_strings_with_few_escapes() {
        assert_eq!(shown(&Term::string("a\"b\nc\\")), "\"a\\\"b\\nc\\\"");
        assert_eq!(
            display(&Term::list(vec![Term::Int(97), Term::Int(233)])),
            b"\"a\xe9\""
        );
        assert_eq!(
            shown(&Term::list(vec![Term::Int(97), Term::Int(7)])),
            "[97,7]"
        );
        assert_eq!(shown(&Term::Nil), "[]");
    }

    #[test]
    fn atoms_are_quoted_by_beams_own_rules() {
        let a = |s: &str| shown(&Term::atom(s));
        assert_eq!(a("end"), "end");
        assert_eq!(a("a@b"), "'a@b'");
        assert_eq!(a("a\u{1}\tb\u{7f}"), "'a\\001\\tb\u{7f}'");
        assert_eq!(a("it's"), "'it\\'s'");
    }
}
