//! The controls that do not print terms: characters, strings, integers in a
//! base, floats, newlines; and the field padding they share
//! (`io_lib_format`'s `term`, `string`, `char` and `adjust`).

use super::floats::{fwrite_e, fwrite_f, fwrite_g};
use super::{bad, FormatError, Spec};
use crate::numtext::integer_to_text;
use crate::quote::Encoding;
use crate::term::Term;

fn repeat(out: &mut String, c: char, n: i64) {
    out.extend(std::iter::repeat_n(c, n.max(0) as usize));
}

/// `text` padded with `n` pad characters, after it when `left`.
pub(super) fn adjust_into(out: &mut String, text: &str, pad: char, n: i64, left: bool) {
    if left {
        out.push_str(text);
        repeat(out, pad, n);
    } else {
        repeat(out, pad, n);
        out.push_str(text);
    }
}

fn char_len(s: &str) -> i64 {
    s.chars().count() as i64
}

/// The first `n` characters of `s`.
fn truncate(s: &str, n: i64) -> &str {
    match s.char_indices().nth(n.max(0) as usize) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// `term/6`: a term's text in its field; too long for the precision (or the
/// width) and it becomes that many `*`s.
pub(super) fn term_field(out: &mut String, text: &str, spec: &Spec<'_>) -> Result<(), FormatError> {
    term_with(out, text, spec.width, spec.precision, spec)
}

fn term_with(
    out: &mut String,
    text: &str,
    width: Option<i64>,
    precision: Option<i64>,
    spec: &Spec<'_>,
) -> Result<(), FormatError> {
    let (f, p0) = match (width, precision) {
        (None, None) => {
            out.push_str(text);
            return Ok(());
        }
        (None, Some(p)) => (p, Some(p)),
        (Some(f), p) => (f, p),
    };
    let len = char_len(text);
    let p = len.min(p0.map_or(f, |p0| p0.min(f)));
    let pad = spec.pad.get()?;
    if len > p {
        let stars: String = std::iter::repeat_n('*', p.max(0) as usize).collect();
        adjust_into(out, &stars, pad, f - p, spec.left);
    } else {
        adjust_into(out, text, pad, f - len, spec.left);
    }
    Ok(())
}

/// `string/6`: `~s`'s text in its field, cut to the precision.
fn string_field(out: &mut String, s: &str, spec: &Spec<'_>) -> Result<(), FormatError> {
    let n = char_len(s);
    let (f, p) = (spec.width, spec.precision);
    let pad = || spec.pad.get();
    let field = |out: &mut String, f: i64| -> Result<(), FormatError> {
        if n > f {
            out.push_str(truncate(s, f));
        } else {
            adjust_into(out, s, pad()?, f - n, spec.left);
        }
        Ok(())
    };
    match (f, p) {
        (None, None) => out.push_str(s),
        (Some(f), None) => field(out, f)?,
        (None, Some(p)) => {
            // The precision alone is a left-adjusted field.
            if n > p {
                out.push_str(truncate(s, p));
            } else {
                adjust_into(out, s, pad()?, p - n, true);
            }
        }
        (Some(f), Some(p)) if f > p => {
            let mut inner = String::new();
            if n > p {
                inner.push_str(truncate(s, p));
            } else {
                inner.push_str(s);
                repeat(&mut inner, pad()?, p - n);
            }
            adjust_into(out, &inner, pad()?, f - p, spec.left);
        }
        (Some(f), Some(p)) if f == p => field(out, f)?,
        _ => return bad("~s with a precision larger than the field width"),
    }
    Ok(())
}

/// Characters of an iolist or binary for `~s` (latin1: bytes and characters
/// up to 255) or `~ts` (any characters; binaries as UTF-8, else latin1).
fn chardata(out: &mut String, t: &Term, enc: Encoding) -> Result<(), FormatError> {
    // Nesting is followed with an explicit stack.
    let mut stack = vec![t];
    while let Some(t) = stack.pop() {
        match t {
            Term::Nil => {}
            Term::Cons(c) => {
                stack.push(&c.tail);
                match &c.head {
                    Term::Int(i) => out.push(char_of(*i, enc)?),
                    h @ (Term::Nil | Term::Cons(_) | Term::Binary(_)) => stack.push(h),
                    _ => return bad("~s expects characters, an iolist or a binary"),
                }
            }
            Term::Binary(b) if b.is_binary() => match (enc, std::str::from_utf8(b.bytes())) {
                (Encoding::Unicode, Ok(s)) => out.push_str(s),
                _ => out.extend(b.bytes().iter().map(|&c| char::from(c))),
            },
            _ => return bad("~s expects characters, an iolist or a binary"),
        }
    }
    Ok(())
}

fn char_of(i: i64, enc: Encoding) -> Result<char, FormatError> {
    let max = if enc == Encoding::Latin1 {
        255
    } else {
        0x10FFFF
    };
    match u32::try_from(i)
        .ok()
        .filter(|&c| c <= max)
        .and_then(char::from_u32)
    {
        Some(c) => Ok(c),
        None if enc == Encoding::Latin1 && i > 255 => {
            bad("a character above 255 needs the t modifier")
        }
        None => bad(format!("{i} is not a character")),
    }
}

/// `~s` of a string, iolist or binary.
pub(super) fn string(out: &mut String, spec: &Spec<'_>) -> Result<(), FormatError> {
    let mut s = String::new();
    chardata(&mut s, spec.args[0], spec.encoding)?;
    string_field(out, &s, spec)
}

fn base(spec: &Spec<'_>) -> Result<u32, FormatError> {
    match spec.precision {
        None => Ok(10),
        Some(b) if (2..=36).contains(&b) => Ok(b as u32),
        Some(b) => bad(format!("base {b} is not in 2..36")),
    }
}

fn integer<'a>(spec: &Spec<'a>) -> Result<&'a Term, FormatError> {
    match spec.args[0] {
        t @ (Term::Int(_) | Term::Big(_)) => Ok(t),
        _ => bad(format!("~{} expects an integer", spec.control)),
    }
}

/// `~b ~B ~x ~X ~+ ~#`: sign, prefix, then the digits (lower case for b, x, +).
fn based_integer(out: &mut String, spec: &Spec<'_>) -> Result<(), FormatError> {
    let n = integer(spec)?;
    let b = base(spec)?;
    let digits = integer_to_text(n, b).map_err(|e| FormatError {
        message: e.to_string(),
    })?;
    let (neg, digits) = match digits.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, digits.as_str()),
    };
    let lower = matches!(spec.control, 'b' | 'x' | '+');
    let prefix = match spec.control {
        'x' | 'X' => prefix_text(spec.args[1])?,
        '+' | '#' => format!("{b}#"),
        _ => String::new(),
    };
    let mut text = String::new();
    if neg {
        text.push('-');
    }
    text.push_str(&prefix);
    if lower {
        text.push_str(&digits.to_ascii_lowercase());
    } else {
        text.push_str(digits);
    }
    term_with(out, &text, spec.width, None, spec)
}

/// The prefix argument of `~x`/`~X`: an atom or a (deep) list of characters.
fn prefix_text(t: &Term) -> Result<String, FormatError> {
    if let Term::Atom(a) = t {
        return Ok(a.name().to_string());
    }
    let mut s = String::new();
    let mut stack = vec![t];
    while let Some(t) = stack.pop() {
        match t {
            Term::Nil => {}
            Term::Cons(c) => {
                stack.push(&c.tail);
                match &c.head {
                    Term::Int(i) => s.push(char_of(*i, Encoding::Unicode)?),
                    h @ (Term::Nil | Term::Cons(_)) => stack.push(h),
                    _ => return bad("the ~x prefix is not a character list"),
                }
            }
            _ => return bad("the ~x prefix is not a character list"),
        }
    }
    Ok(s)
}

/// `char/5`: the character repeated to the precision, in the field.
fn char_field(out: &mut String, c: char, spec: &Spec<'_>) -> Result<(), FormatError> {
    match (spec.width, spec.precision) {
        (None, None) => out.push(c),
        (Some(n), None) | (None, Some(n)) => repeat(out, c, n),
        (Some(f), Some(p)) if f >= p => {
            let chars: String = std::iter::repeat_n(c, p as usize).collect();
            adjust_into(out, &chars, spec.pad.get()?, f - p, spec.left);
        }
        _ => return bad("~c with a precision larger than the field width"),
    }
    Ok(())
}

fn float_arg(spec: &Spec<'_>) -> Result<f64, FormatError> {
    match spec.args[0] {
        Term::Float(f) => Ok(*f),
        _ => bad(format!("~{} expects a float", spec.control)),
    }
}

/// The controls OTP builds in its first pass (`control_small`).
pub(super) fn small(out: &mut String, spec: &Spec<'_>) -> Result<(), FormatError> {
    match spec.control {
        's' => {
            // An atom (other ~s arguments are built later).
            let Term::Atom(a) = spec.args[0] else {
                unreachable!("only atoms reach small ~s")
            };
            if spec.encoding == Encoding::Latin1 && a.name().chars().any(|c| c as u32 > 255) {
                return bad("an atom with characters above 255 needs the t modifier");
            }
            string_field(out, a.name(), spec)
        }
        'e' | 'f' | 'g' => {
            let f = float_arg(spec)?;
            let text = match spec.control {
                'e' => fwrite_e(f, spec.precision)?,
                'f' => fwrite_f(f, spec.precision)?,
                _ => fwrite_g(f, spec.precision)?,
            };
            // The field is filled like a term's, with the width as precision.
            term_with(out, &text, spec.width, spec.width, spec)
        }
        'b' | 'B' | 'x' | 'X' | '+' | '#' => based_integer(out, spec),
        'c' => {
            let Term::Int(i) = spec.args[0] else {
                return bad("~c expects an integer");
            };
            let c = match spec.encoding {
                Encoding::Unicode => char_of(*i, Encoding::Unicode)?,
                Encoding::Latin1 => char::from((*i & 255) as u8),
            };
            char_field(out, c, spec)
        }
        '~' => char_field(out, '~', spec),
        'n' => match spec.width {
            None => {
                out.push('\n');
                Ok(())
            }
            Some(_) if spec.left => bad("~n cannot be left-adjusted"),
            Some(n) => {
                repeat(out, '\n', n);
                Ok(())
            }
        },
        'i' => Ok(()),
        other => unreachable!("~{other} is not a small control"),
    }
}
