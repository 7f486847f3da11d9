//! `io_lib`: building text as `io:format` would print it. The printers
//! themselves live in the term crate (`~w`, `~p`, `io_lib:format`).
//!
//! OTP returns deep character lists from `format`, `write` and `print`;
//! these return flat strings with the same characters (what
//! `lists:flatten/1`, `~s` or `iolist_to_binary/1` make of either).

use super::Builder;
use crate::exception::{badarg, BifResult, Fault};
use trace_term::pretty::{pretty, PrettyOptions};
use trace_term::print::write_term_with;
use trace_term::quote::{self, Encoding};
use trace_term::Term;

pub fn register(b: &mut Builder) {
    let m = "io_lib";
    b.pure(m, "format", 2, |a| format(&a[0], &a[1]), 0);
    b.pure(m, "fwrite", 2, |a| format(&a[0], &a[1]), 0);
    b.pure(m, "format", 3, |a| format3(&a[0], &a[1], &a[2]), 0);
    b.pure(m, "fwrite", 3, |a| format3(&a[0], &a[1], &a[2]), 0);
    b.pure(
        m,
        "write",
        1,
        |a| Ok(Term::string(&trace_term::print::write_term(&a[0]))),
        0,
    );
    b.pure(m, "write", 2, write2, 0);
    b.pure(
        m,
        "print",
        1,
        |a| Ok(Term::string(&super::terms::pretty(&a[0]))),
        0,
    );
    b.pure(m, "print", 4, print4, 0);
    b.pure(m, "nl", 0, |_| Ok(Term::string("\n")), 0);
    b.pure(
        m,
        "write_atom",
        1,
        |a| write_atom(&a[0], Encoding::Unicode),
        0,
    );
    b.pure(
        m,
        "write_atom_as_latin1",
        1,
        |a| write_atom(&a[0], Encoding::Latin1),
        0,
    );
    b.pure(m, "quote_atom", 2, quote_atom, 0);
    register_text_writers(b);
    register_char_list_tests(b);
    b.pure(m, "chars_length", 1, chars_length, 0);
    b.pure(m, "indentation", 2, indentation, 0);
}

/// `write_string`, `write_char` and their Latin-1 and Unicode variants.
fn register_text_writers(b: &mut Builder) {
    let m = "io_lib";
    const U: Encoding = Encoding::Unicode;
    const L: Encoding = Encoding::Latin1;
    b.pure(m, "write_string", 1, |a| write_string(&a[0], '"', U), 0);
    b.pure(
        m,
        "write_unicode_string",
        1,
        |a| write_string(&a[0], '"', U),
        0,
    );
    b.pure(
        m,
        "write_latin1_string",
        1,
        |a| write_string(&a[0], '"', L),
        0,
    );
    b.pure(
        m,
        "write_string_as_latin1",
        1,
        |a| write_string(&a[0], '"', L),
        0,
    );
    b.pure(m, "write_string", 2, |a| write_string_q(a, U), 0);
    b.pure(m, "write_latin1_string", 2, |a| write_string_q(a, L), 0);
    b.pure(m, "write_string_as_latin1", 2, |a| write_string_q(a, L), 0);
    b.pure(
        m,
        "write_char",
        1,
        |a| write_char(&a[0], Encoding::Unicode),
        0,
    );
    b.pure(
        m,
        "write_unicode_char",
        1,
        |a| write_char(&a[0], Encoding::Unicode),
        0,
    );
    b.pure(
        m,
        "write_char_as_latin1",
        1,
        |a| write_char(&a[0], Encoding::Latin1),
        0,
    );
    b.pure(
        m,
        "write_latin1_char",
        1,
        |a| write_char(&a[0], Encoding::Latin1),
        0,
    );
}

/// The predicates over character lists: `char_list`, `printable_list`, ...
fn register_char_list_tests(b: &mut Builder) {
    let m = "io_lib";
    b.pure(
        m,
        "char_list",
        1,
        |a| Ok(Term::bool(char_list(&a[0], 0x10FFFF, false))),
        0,
    );
    b.pure(
        m,
        "latin1_char_list",
        1,
        |a| Ok(Term::bool(char_list(&a[0], 0xFF, false))),
        0,
    );
    b.pure(
        m,
        "deep_char_list",
        1,
        |a| Ok(Term::bool(char_list(&a[0], 0x10FFFF, true))),
        0,
    );
    b.pure(
        m,
        "deep_unicode_char_list",
        1,
        |a| Ok(Term::bool(char_list(&a[0], 0x10FFFF, true))),
        0,
    );
    b.pure(
        m,
        "deep_latin1_char_list",
        1,
        |a| Ok(Term::bool(char_list(&a[0], 0xFF, true))),
        0,
    );
    b.pure(
        m,
        "printable_list",
        1,
        |a| Ok(Term::bool(printable(&a[0], quote::printable_latin1))),
        0,
    );
    b.pure(
        m,
        "printable_latin1_list",
        1,
        |a| Ok(Term::bool(printable(&a[0], quote::printable_latin1))),
        0,
    );
    b.pure(
        m,
        "printable_unicode_list",
        1,
        |a| Ok(Term::bool(printable(&a[0], quote::printable_unicode))),
        0,
    );
}

/// Formats `fmt` (a string, binary or atom) with `args` (a list) as
/// `io_lib:format/2` does; a bad format or argument is `badarg`.
pub fn format(fmt: &Term, args: &Term) -> BifResult {
    super::io::format(fmt, args).map(|s| Term::string(&s))
}

/// `format/3`: only the options that change nothing are supported.
fn format3(fmt: &Term, args: &Term, opts: &Term) -> BifResult {
    let mut it = opts.list_iter();
    for o in &mut it {
        match o.as_tuple() {
            Some([Term::Atom(k), Term::Int(-1)]) if k.name() == "chars_limit" => {}
            Some([Term::Atom(k), _]) if k.name() == "chars_limit" => {
                return Err(Fault::Unsupported(
                    "io_lib:format/3 with a chars_limit is not implemented by trace".into(),
                ))
            }
            _ => return Err(badarg()),
        }
    }
    if !it.is_proper() {
        return Err(badarg());
    }
    format(fmt, args)
}

fn write2(a: &[Term]) -> BifResult {
    let Term::Int(depth) = a[1] else {
        return Err(badarg());
    };
    Ok(Term::string(&write_term_with(
        &a[0],
        depth,
        Encoding::Latin1,
    )))
}

/// `print(Term, Column, LineLength, Depth)`.
fn print4(a: &[Term]) -> BifResult {
    let (Term::Int(column), Term::Int(line_length), Term::Int(depth)) = (&a[1], &a[2], &a[3])
    else {
        return Err(badarg());
    };
    let opts = PrettyOptions {
        column: *column,
        line_length: *line_length,
        depth: *depth,
        ..PrettyOptions::default()
    };
    Ok(Term::string(&pretty(&a[0], &opts)))
}

fn write_atom(t: &Term, enc: Encoding) -> BifResult {
    let Term::Atom(a) = t else {
        return Err(super::lists::fc());
    };
    let mut s = String::new();
    quote::push_atom(&mut s, a.name(), enc);
    Ok(Term::string(&s))
}

/// `quote_atom(Atom, Chars)`: whether an atom written as `Chars` needs
/// quotes (reserved words always do; anything but a list of characters too).
fn quote_atom(a: &[Term]) -> BifResult {
    let Term::Atom(x) = &a[0] else {
        return Err(super::lists::fc());
    };
    let chars: Option<String> = super::terms::list_to_string(&a[1]);
    let needs = match chars {
        Some(cs) => quote::atom_needs_quotes(&cs) || is_reserved(x.name()),
        None => true,
    };
    Ok(Term::bool(needs))
}

/// A reserved word is quoted whatever its characters.
fn is_reserved(name: &str) -> bool {
    quote::atom_needs_quotes(name)
        && name.chars().all(|c| c.is_ascii_lowercase())
        && !name.is_empty()
}

/// The characters of a flat list (anything else is a `function_clause`).
fn flat_chars(t: &Term) -> Result<Vec<char>, Fault> {
    let mut out = Vec::new();
    let mut it = t.list_iter();
    for c in &mut it {
        match c.as_char() {
            Some(c) => out.push(c),
            None => return Err(super::lists::fc()),
        }
    }
    if !it.is_proper() {
        return Err(super::lists::fc());
    }
    Ok(out)
}

fn write_string(t: &Term, q: char, enc: Encoding) -> BifResult {
    let mut s = String::new();
    quote::push_quoted(&mut s, flat_chars(t)?.into_iter(), q, enc);
    Ok(Term::string(&s))
}

fn write_string_q(a: &[Term], enc: Encoding) -> BifResult {
    let q = a[1].as_char().ok_or_else(super::lists::fc)?;
    write_string(&a[0], q, enc)
}

/// `$c` as Erlang source writes the character (`$\s` for a space).
fn write_char(t: &Term, enc: Encoding) -> BifResult {
    let c = t.as_char().ok_or_else(super::lists::fc)?;
    let mut s = String::from("$");
    if c == ' ' {
        s.push_str("\\s");
    } else {
        quote::push_string_char(&mut s, c, '"', enc);
    }
    Ok(Term::string(&s))
}

/// Whether `t` is a (flat, or `deep`) list of characters up to `max`.
fn char_list(t: &Term, max: u32, deep: bool) -> bool {
    fn walk(t: &Term, max: u32, deep: bool, depth: usize) -> bool {
        let mut it = t.list_iter();
        for c in &mut it {
            let ok = match c {
                Term::Int(i) => (0..=max as i64).contains(i) && char::from_u32(*i as u32).is_some(),
                Term::Nil | Term::Cons(_) if deep && depth < 10_000 => {
                    walk(c, max, deep, depth + 1)
                }
                _ => false,
            };
            if !ok {
                return false;
            }
        }
        it.is_proper()
    }
    t.is_list() && walk(t, max, deep, 0)
}

fn printable(t: &Term, ok: fn(u32) -> bool) -> bool {
    let mut it = t.list_iter();
    for c in &mut it {
        match c {
            Term::Int(i) if u32::try_from(*i).is_ok_and(ok) => {}
            _ => return false,
        }
    }
    it.is_proper()
}

fn chars_length(a: &[Term]) -> BifResult {
    let s = super::terms::chardata_to_string(&a[0]).ok_or_else(badarg)?;
    Ok(Term::Int(s.chars().count() as i64))
}

/// The column after printing `s` from column `start` (tabs to multiples of 8).
fn indentation(a: &[Term]) -> BifResult {
    let Term::Int(mut col) = a[1] else {
        return Err(badarg());
    };
    let s = super::terms::chardata_to_string(&a[0]).ok_or_else(badarg)?;
    for c in s.chars() {
        col = match c {
            '\n' => 0,
            '\t' => 8 * (col / 8 + 1),
            _ => col + 1,
        };
    }
    Ok(Term::Int(col))
}
