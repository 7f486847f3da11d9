//! Case mappings (`uppercase`, `lowercase`, `titlecase`, `casefold`) and
//! `equal`. Mappings are Unicode's full ones character by character (`ß`
//! upper-cases to `SS`), as OTP's `unicode_util` does; Rust's tables supply
//! upper and lower case, and the few characters whose title case or case
//! folding differs from those are listed here.

use super::super::Builder;
use super::{fc, read, Text};
use crate::exception::{error_tagged, BifResult, Fault};
use trace_term::{atom, Term};

pub fn register(b: &mut Builder) {
    let s = "string";
    b.pure(s, "uppercase", 1, |a| map(&a[0], upper), 0);
    b.pure(s, "lowercase", 1, |a| map(&a[0], lower), 0);
    b.pure(s, "casefold", 1, |a| map(&a[0], fold), 0);
    b.pure(s, "titlecase", 1, titlecase, 0);
    b.pure(
        s,
        "equal",
        2,
        |a| equal(&a[0], &a[1], &Term::FALSE, &Term::atom("none")),
        0,
    );
    b.pure(
        s,
        "equal",
        3,
        |a| equal(&a[0], &a[1], &a[2], &Term::atom("none")),
        0,
    );
    b.pure(s, "equal", 4, |a| equal(&a[0], &a[1], &a[2], &a[3]), 0);
}

/// A case function's argument: chardata, or `{badarg, Arg}`.
fn arg(t: &Term) -> Result<Text, Fault> {
    read(t).ok_or_else(|| error_tagged(atom::BADARG, t.clone()))
}

fn map(t: &Term, f: fn(char, &mut Vec<char>)) -> BifResult {
    let t = arg(t)?;
    let mut out = Vec::with_capacity(t.cs.len());
    for &c in &t.cs {
        f(c, &mut out);
    }
    Ok(t.out(&out))
}

fn upper(c: char, out: &mut Vec<char>) {
    out.extend(c.to_uppercase());
}

fn lower(c: char, out: &mut Vec<char>) {
    out.extend(c.to_lowercase());
}

/// Full case folding: lower case, except where folding says otherwise.
fn fold(c: char, out: &mut Vec<char>) {
    let special: Option<&str> = match c {
        'ß' | 'ẞ' => Some("ss"),
        'ſ' => Some("s"),
        'ς' => Some("σ"),
        'µ' => Some("μ"),
        '\u{345}' | 'ι' => Some("ι"),
        'ϐ' => Some("β"),
        'ϑ' => Some("θ"),
        'ϕ' => Some("φ"),
        'ϖ' => Some("π"),
        'ϰ' => Some("κ"),
        'ϱ' => Some("ρ"),
        'ϵ' => Some("ε"),
        'ẛ' => Some("ṡ"),
        'ﬀ' => Some("ff"),
        'ﬁ' => Some("fi"),
        'ﬂ' => Some("fl"),
        'ﬃ' => Some("ffi"),
        'ﬄ' => Some("ffl"),
        'ﬅ' | 'ﬆ' => Some("st"),
        'ŉ' => Some("ʼn"),
        _ => None,
    };
    match special {
        Some(s) => out.extend(s.chars()),
        None => lower(c, out),
    }
}

/// Title case of one character: upper case, except for digraphs and
/// ligatures whose title form is mixed (`ǆ` → `ǅ`, `ß` → `Ss`).
fn title(c: char, out: &mut Vec<char>) {
    let special: Option<&str> = match c {
        'Ǆ' | 'ǅ' | 'ǆ' => Some("ǅ"),
        'Ǉ' | 'ǈ' | 'ǉ' => Some("ǈ"),
        'Ǌ' | 'ǋ' | 'ǌ' => Some("ǋ"),
        'Ǳ' | 'ǲ' | 'ǳ' => Some("ǲ"),
        'ß' => Some("Ss"),
        'ﬀ' => Some("Ff"),
        'ﬁ' => Some("Fi"),
        'ﬂ' => Some("Fl"),
        'ﬃ' => Some("Ffi"),
        'ﬄ' => Some("Ffl"),
        'ﬅ' | 'ﬆ' => Some("St"),
        'ŉ' => Some("ʼN"),
        _ => None,
    };
    match special {
        Some(s) => out.extend(s.chars()),
        None => upper(c, out),
    }
}

/// Title-cases the first grapheme cluster's first character.
fn titlecase(a: &[Term]) -> BifResult {
    let t = arg(&a[0])?;
    let mut out = Vec::with_capacity(t.cs.len() + 1);
    if let Some((&first, rest)) = t.cs.split_first() {
        title(first, &mut out);
        out.extend_from_slice(rest);
    }
    Ok(t.out(&out))
}

/// `equal/2,3,4`: the same characters (after case folding when asked).
/// Only normalisation `none` is supported.
fn equal(a: &Term, b: &Term, ignore_case: &Term, norm: &Term) -> BifResult {
    let ignore = match ignore_case {
        Term::Atom(atom::TRUE) => true,
        Term::Atom(atom::FALSE) => false,
        _ => return Err(fc()),
    };
    match norm.as_atom().map(|n| n.name()) {
        Some("none") => {}
        Some(n @ ("nfc" | "nfd" | "nfkc" | "nfkd")) => {
            return Err(Fault::Unsupported(format!(
                "string:equal/4 with normalisation {n} is not implemented by trace"
            )))
        }
        _ => return Err(fc()),
    }
    let (x, y) = (read(a).ok_or_else(fc)?, read(b).ok_or_else(fc)?);
    if !ignore {
        return Ok(Term::bool(x.cs == y.cs));
    }
    let folded = |t: &Text| {
        let mut v = Vec::with_capacity(t.cs.len());
        for &c in &t.cs {
            fold(c, &mut v);
        }
        v
    };
    Ok(Term::bool(folded(&x) == folded(&y)))
}
