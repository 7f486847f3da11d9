//! `string`'s Unicode API (OTP 20+), natively: functions over chardata
//! (characters, binaries in UTF-8, nested lists of both) that count in
//! grapheme clusters. A list comes back as a list and a binary as a binary;
//! for nested chardata the result has the right characters but is a flat
//! list (OTP keeps parts of the nesting). The classic API (`tokens`,
//! `substr`, `strip`, ...) is Erlang, in `prelude/string.erl`.
//!
//! [`Text`] reads an argument; [`search`] holds the functions that look for
//! patterns and separators (split, find, lexemes, trim, ...); [`case`] the
//! case mappings and `equal`; [`prefix`] the number at the front of a
//! character list (`list_to_integer/1`, `list_to_float/1`).

mod case;
mod prefix;
mod search;

use super::lists::fc;
use super::Builder;
use crate::exception::{BifResult, Fault};
use trace_term::{atom, Term};
use unicode_segmentation::UnicodeSegmentation;

pub fn register(b: &mut Builder) {
    let s = "string";
    b.pure(
        s,
        "length",
        1,
        |a| Ok(Term::Int(text(&a[0])?.clusters().len() as i64)),
        0,
    );
    b.pure(s, "to_graphemes", 1, to_graphemes, 0);
    b.pure(s, "is_empty", 1, |a| Ok(Term::bool(is_empty(&a[0], 0))), 0);
    b.pure(s, "reverse", 1, reverse, 0);
    b.pure(
        s,
        "slice",
        2,
        |a| slice(&a[0], &a[1], &Term::atom("infinity")),
        0,
    );
    b.pure(s, "slice", 3, |a| slice(&a[0], &a[1], &a[2]), 0);
    b.pure(
        s,
        "pad",
        2,
        |a| pad(&a[0], &a[1], atom_named("trailing"), &Term::Int(32)),
        0,
    );
    b.pure(
        s,
        "pad",
        3,
        |a| pad(&a[0], &a[1], a[2].as_atom(), &Term::Int(32)),
        0,
    );
    b.pure(s, "pad", 4, |a| pad(&a[0], &a[1], a[2].as_atom(), &a[3]), 0);
    b.pure(s, "next_grapheme", 1, |a| next(&a[0], true), 0);
    b.pure(s, "next_codepoint", 1, |a| next(&a[0], false), 0);
    b.pure(s, "to_integer", 1, to_integer, 0);
    b.pure(s, "to_float", 1, to_float, 0);
    b.pure(s, "list_to_integer", 1, prefix::list_to_integer, 0);
    b.pure(s, "list_to_float", 1, prefix::list_to_float, 0);
    search::register(b);
    case::register(b);
}

fn atom_named(name: &str) -> Option<trace_term::Atom> {
    Some(trace_term::Atom::intern(name))
}

/// A chardata argument: its characters, and whether it was a binary (so
/// results are binaries too).
pub struct Text {
    pub cs: Vec<char>,
    pub bin: bool,
}

impl Text {
    /// A result of the argument's kind holding `cs`.
    pub fn out(&self, cs: &[char]) -> Term {
        if self.bin {
            let s: String = cs.iter().collect();
            Term::binary(s.as_bytes())
        } else {
            chars_term(cs)
        }
    }

    /// The grapheme clusters as ranges of `cs`.
    pub fn clusters(&self) -> Vec<(usize, usize)> {
        clusters(&self.cs)
    }
}

/// A list of character codes.
pub fn chars_term(cs: &[char]) -> Term {
    let mut acc = Term::Nil;
    for c in cs.iter().rev() {
        acc = Term::cons(Term::Int(*c as i64), acc);
    }
    acc
}

/// The grapheme clusters of `cs` (extended clusters, as OTP's
/// `unicode_util:gc/1`), as index ranges.
pub fn clusters(cs: &[char]) -> Vec<(usize, usize)> {
    if cs.iter().all(|c| c.is_ascii() && *c != '\r') {
        return (0..cs.len()).map(|i| (i, i + 1)).collect();
    }
    let s: String = cs.iter().collect();
    let mut out = Vec::new();
    let mut at = 0;
    for g in s.graphemes(true) {
        let n = g.chars().count();
        out.push((at, at + n));
        at += n;
    }
    out
}

/// Reads chardata; `None` if `t` is not chardata (or not valid UTF-8).
pub fn read(t: &Term) -> Option<Text> {
    match t {
        Term::Binary(b) if b.is_binary() => {
            let s = std::str::from_utf8(b.bytes()).ok()?;
            Some(Text {
                cs: s.chars().collect(),
                bin: true,
            })
        }
        Term::Nil | Term::Cons(_) => {
            let mut cs = Vec::new();
            push_chars(t, &mut cs, 0)?;
            Some(Text { cs, bin: false })
        }
        _ => None,
    }
}

fn push_chars(t: &Term, out: &mut Vec<char>, depth: usize) -> Option<()> {
    if depth > 10_000 {
        return None;
    }
    match t {
        Term::Int(i) => out.push(char::from_u32(u32::try_from(*i).ok()?)?),
        Term::Binary(b) if b.is_binary() => {
            out.extend(std::str::from_utf8(b.bytes()).ok()?.chars())
        }
        Term::Nil => {}
        Term::Cons(_) => {
            let mut it = t.list_iter();
            for e in &mut it {
                push_chars(e, out, depth + 1)?;
            }
            match it.rest() {
                Term::Nil => {}
                b @ Term::Binary(_) => push_chars(b, out, depth + 1)?,
                _ => return None,
            }
        }
        _ => return None,
    }
    Some(())
}

/// Chardata or `function_clause`, as most of OTP's `string` functions fail.
pub fn text(t: &Term) -> Result<Text, Fault> {
    read(t).ok_or_else(fc)
}

/// One grapheme cluster as OTP returns it: a character, or a list of them.
pub fn cluster_term(cs: &[char]) -> Term {
    match cs {
        [c] => Term::Int(*c as i64),
        _ => chars_term(cs),
    }
}

fn to_graphemes(a: &[Term]) -> BifResult {
    let t = text(&a[0])?;
    Ok(Term::list(
        t.clusters()
            .into_iter()
            .map(|(x, y)| cluster_term(&t.cs[x..y]))
            .collect(),
    ))
}

/// OTP's structural test: empty lists and binaries, nested; anything else
/// (even a non-chardata term) is not empty.
fn is_empty(t: &Term, depth: usize) -> bool {
    match t {
        Term::Nil => true,
        Term::Binary(b) => b.bit_len() == 0,
        Term::Cons(c) if depth < 10_000 => {
            is_empty(&c.head, depth + 1) && is_empty(&c.tail, depth + 1)
        }
        _ => false,
    }
}

fn reverse(a: &[Term]) -> BifResult {
    let t = text(&a[0])?;
    Ok(Term::list(
        t.clusters()
            .into_iter()
            .rev()
            .map(|(x, y)| cluster_term(&t.cs[x..y]))
            .collect(),
    ))
}

fn slice(s: &Term, start: &Term, len: &Term) -> BifResult {
    let Term::Int(start) = start else {
        return Err(fc());
    };
    let len = match len {
        Term::Int(n) if *n >= 0 => Some(*n as usize),
        Term::Atom(a) if a.name() == "infinity" => None,
        _ => return Err(fc()),
    };
    if *start < 0 {
        return Err(fc());
    }
    let t = text(s)?;
    let gcs = t.clusters();
    let from = (*start as usize).min(gcs.len());
    let to = match len {
        Some(n) => from.saturating_add(n).min(gcs.len()),
        None => gcs.len(),
    };
    let (a, b) = (
        gcs.get(from).map_or(t.cs.len(), |g| g.0),
        gcs.get(to).map_or(t.cs.len(), |g| g.0),
    );
    Ok(t.out(&t.cs[a..b]))
}

/// `pad/2,3,4` build chardata around the string as OTP does:
/// `[S | Pad]`, `[Pad, S]` and `[Half, S, Half | Odd]`.
fn pad(s: &Term, len: &Term, dir: Option<trace_term::Atom>, ch: &Term) -> BifResult {
    let Term::Int(len) = len else {
        return Err(fc());
    };
    let n = len.saturating_sub(text(s)?.clusters().len() as i64);
    if n > super::lists::MAX_BUILT {
        return Err(super::lists::system_limit());
    }
    let dup = |k: i64| Term::list(vec![ch.clone(); k.max(0) as usize]);
    match dir.map(|a| a.name()) {
        Some("trailing") => Ok(Term::cons(s.clone(), dup(n))),
        Some("leading") => Ok(Term::list(vec![dup(n), s.clone()])),
        Some("both") => {
            let half = dup(n / 2);
            let odd = if n > 0 && n % 2 == 1 {
                Term::list(vec![ch.clone()])
            } else {
                Term::Nil
            };
            Ok(Term::list_with_tail(
                vec![half.clone(), s.clone(), half],
                odd,
            ))
        }
        _ => Err(fc()),
    }
}

/// `next_grapheme/1` and `next_codepoint/1`: `[First | Rest]` or `[]`.
fn next(s: &Term, grapheme: bool) -> BifResult {
    let t = text(s)?;
    if t.cs.is_empty() {
        return Ok(Term::Nil);
    }
    let end = if grapheme { t.clusters()[0].1 } else { 1 };
    Ok(Term::cons(cluster_term(&t.cs[..end]), t.out(&t.cs[end..])))
}

fn digits_end(cs: &[char], from: usize) -> usize {
    let mut i = from;
    while i < cs.len() && cs[i].is_ascii_digit() {
        i += 1;
    }
    i
}

fn no(what: &str) -> BifResult {
    Ok(Term::tuple(vec![Term::Atom(atom::ERROR), Term::atom(what)]))
}

fn to_integer(a: &[Term]) -> BifResult {
    let Some(t) = read(&a[0]) else {
        return no("badarg");
    };
    let sign = usize::from(matches!(t.cs.first(), Some('+' | '-')));
    let end = digits_end(&t.cs, sign);
    if end == sign {
        return no("no_integer");
    }
    let text: String = t.cs[..end].iter().collect();
    let n = trace_term::numtext::text_to_integer(&text, 10).map_err(|_| fc())?;
    Ok(Term::tuple(vec![n, t.out(&t.cs[end..])]))
}

fn to_float(a: &[Term]) -> BifResult {
    let Some(t) = read(&a[0]) else {
        return no("badarg");
    };
    let cs = &t.cs;
    let sign = usize::from(matches!(cs.first(), Some('+' | '-')));
    let int_end = digits_end(cs, sign);
    if int_end == sign || cs.get(int_end) != Some(&'.') {
        return no("no_float");
    }
    let frac_end = digits_end(cs, int_end + 1);
    if frac_end == int_end + 1 {
        return no("no_float");
    }
    let mut end = frac_end;
    if matches!(cs.get(end), Some('e' | 'E')) {
        let s = end + 1 + usize::from(matches!(cs.get(end + 1), Some('+' | '-')));
        let e = digits_end(cs, s);
        if e > s {
            end = e;
        }
    }
    let text: String = cs[..end].iter().collect();
    match trace_term::numtext::text_to_float(&text) {
        Ok(f) => Ok(Term::tuple(vec![Term::Float(f), t.out(&cs[end..])])),
        // Out of range, as OTP says it.
        Err(_) => no("no_float"),
    }
}
