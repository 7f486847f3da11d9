//! The `string` functions that look for separators or patterns.
//!
//! Separators (`trim`, `take`, `lexemes`) are grapheme clusters compared
//! whole, except that a `"\r\n"` cluster whose `\n` is a separator (and
//! `"\r\n"` itself is not) counts as `\r` followed by `\n`, as in OTP.
//! Patterns (`split`, `find`, `replace`, `prefix`) match characters and must
//! end on a cluster boundary: `"e"` does not match the start of `"e\x{301}"`.

use super::super::Builder;
use super::{clusters, fc, text, Text};
use crate::exception::{BifResult, Fault};
use trace_term::{atom, Atom, Term};

pub fn register(b: &mut Builder) {
    let s = "string";
    b.pure(s, "trim", 1, |a| trim(&a[0], "both", &default_seps()), 0);
    b.pure(
        s,
        "trim",
        2,
        |a| trim(&a[0], dir(&a[1])?, &default_seps()),
        0,
    );
    b.pure(s, "trim", 3, |a| trim(&a[0], dir(&a[1])?, &seps(&a[2])?), 0);
    b.pure(s, "chomp", 1, chomp, 0);
    b.pure(
        s,
        "take",
        2,
        |a| take(&a[0], &a[1], &Term::FALSE, &Term::atom("leading")),
        0,
    );
    b.pure(
        s,
        "take",
        3,
        |a| take(&a[0], &a[1], &a[2], &Term::atom("leading")),
        0,
    );
    b.pure(s, "take", 4, |a| take(&a[0], &a[1], &a[2], &a[3]), 0);
    b.pure(s, "lexemes", 2, lexemes, 0);
    b.pure(s, "nth_lexeme", 3, nth_lexeme, 0);
    b.pure(s, "split", 2, |a| split(&a[0], &a[1], "leading"), 0);
    b.pure(s, "split", 3, |a| split(&a[0], &a[1], where_(&a[2])?), 0);
    b.pure(
        s,
        "replace",
        3,
        |a| replace(&a[0], &a[1], &a[2], "leading"),
        0,
    );
    b.pure(
        s,
        "replace",
        4,
        |a| replace(&a[0], &a[1], &a[2], where_(&a[3])?),
        0,
    );
    b.pure(s, "find", 2, |a| find(&a[0], &a[1], "leading"), 0);
    b.pure(s, "find", 3, |a| find(&a[0], &a[1], dir(&a[2])?), 0);
    b.pure(s, "prefix", 2, prefix, 0);
}

/// `leading`, `trailing` or `both`.
fn dir(t: &Term) -> Result<&'static str, Fault> {
    match t.as_atom().map(Atom::name) {
        Some(d @ ("leading" | "trailing" | "both")) => Ok(d),
        _ => Err(fc()),
    }
}

/// `leading`, `trailing` or `all`.
fn where_(t: &Term) -> Result<&'static str, Fault> {
    match t.as_atom().map(Atom::name) {
        Some(d @ ("leading" | "trailing" | "all")) => Ok(d),
        _ => Err(fc()),
    }
}

/// OTP's white space for `trim/1,2`.
fn default_seps() -> Vec<Vec<char>> {
    let mut v: Vec<Vec<char>> = [9, 10, 11, 12, 13, 32, 0x85, 0x200E, 0x200F, 0x2028, 0x2029]
        .iter()
        .filter_map(|&c| char::from_u32(c).map(|c| vec![c]))
        .collect();
    v.push(vec!['\r', '\n']);
    v
}

/// A separator list: each element a character or a cluster (a list of them).
fn seps(t: &Term) -> Result<Vec<Vec<char>>, Fault> {
    let items = t.to_vec().ok_or_else(fc)?;
    items
        .iter()
        .map(|e| match e {
            Term::Int(_) => super::read(&Term::list(vec![e.clone()])).map(|t| t.cs),
            _ => super::read(e).map(|t| t.cs),
        })
        .collect::<Option<Vec<_>>>()
        .ok_or_else(fc)
}

/// The text's clusters, with the `"\r\n"` exception for separators.
fn units(t: &Text, seps: &[Vec<char>]) -> Vec<(usize, usize)> {
    let crlf = ['\r', '\n'];
    let split_crlf = !seps.iter().any(|s| s[..] == crlf) && seps.iter().any(|s| s[..] == ['\n']);
    let mut out = Vec::new();
    for (a, b) in t.clusters() {
        if split_crlf && t.cs[a..b] == crlf {
            out.push((a, a + 1));
            out.push((a + 1, b));
        } else {
            out.push((a, b));
        }
    }
    out
}

fn is_sep(t: &Text, u: (usize, usize), seps: &[Vec<char>]) -> bool {
    seps.iter().any(|s| s[..] == t.cs[u.0..u.1])
}

fn trim(s: &Term, dir: &str, seps: &[Vec<char>]) -> BifResult {
    let t = text(s)?;
    let us = units(&t, seps);
    let mut lo = 0;
    let mut hi = us.len();
    if dir != "trailing" {
        while lo < hi && is_sep(&t, us[lo], seps) {
            lo += 1;
        }
    }
    if dir != "leading" {
        while hi > lo && is_sep(&t, us[hi - 1], seps) {
            hi -= 1;
        }
    }
    let a = us.get(lo).map_or(t.cs.len(), |u| u.0);
    let b = if hi == 0 { 0 } else { us[hi - 1].1 }.max(a);
    Ok(t.out(&t.cs[a..b]))
}

fn chomp(a: &[Term]) -> BifResult {
    let t = text(&a[0])?;
    let mut end = t.cs.len();
    loop {
        if t.cs[..end].ends_with(&['\r', '\n']) {
            end -= 2;
        } else if t.cs[..end].ends_with(&['\n']) {
            end -= 1;
        } else {
            break;
        }
    }
    Ok(t.out(&t.cs[..end]))
}

fn take(s: &Term, set: &Term, complement: &Term, d: &Term) -> BifResult {
    let complement = match complement {
        Term::Atom(atom::TRUE) => true,
        Term::Atom(atom::FALSE) => false,
        _ => return Err(fc()),
    };
    let leading = match d.as_atom().map(Atom::name) {
        Some("leading") => true,
        Some("trailing") => false,
        _ => return Err(fc()),
    };
    let seps = seps(set)?;
    let t = text(s)?;
    let us = units(&t, &seps);
    let wanted = |u| is_sep(&t, u, &seps) != complement;
    let at = if leading {
        let k = us.iter().take_while(|&&u| wanted(u)).count();
        us.get(k).map_or(t.cs.len(), |u| u.0)
    } else {
        let k = us.iter().rev().take_while(|&&u| wanted(u)).count();
        if k == us.len() {
            0
        } else {
            us[us.len() - k - 1].1
        }
    };
    Ok(Term::tuple(vec![t.out(&t.cs[..at]), t.out(&t.cs[at..])]))
}

/// The lexemes as ranges: runs of non-separator units.
fn lexeme_ranges(t: &Text, seps: &[Vec<char>]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for u in units(t, seps) {
        if is_sep(t, u, seps) {
            if let Some(s) = start.take() {
                out.push((s, u.0));
            }
        } else if start.is_none() {
            start = Some(u.0);
        }
    }
    if let Some(s) = start {
        out.push((s, t.cs.len()));
    }
    out
}

fn lexemes(a: &[Term]) -> BifResult {
    let seps = seps(&a[1])?;
    let t = text(&a[0])?;
    Ok(Term::list(
        lexeme_ranges(&t, &seps)
            .into_iter()
            .map(|(x, y)| t.out(&t.cs[x..y]))
            .collect(),
    ))
}

fn nth_lexeme(a: &[Term]) -> BifResult {
    let Term::Int(n) = a[1] else {
        return Err(fc());
    };
    if n < 1 {
        return Err(fc());
    }
    let seps = seps(&a[2])?;
    let t = text(&a[0])?;
    Ok(match lexeme_ranges(&t, &seps).get(n as usize - 1) {
        Some(&(x, y)) => t.out(&t.cs[x..y]),
        None => t.out(&[]),
    })
}

/// Which positions of `t` are cluster boundaries (the end included).
fn bounds(t: &Text) -> Vec<bool> {
    let mut bound = vec![false; t.cs.len() + 1];
    bound[0] = true;
    for (_, b) in clusters(&t.cs) {
        bound[b] = true;
    }
    bound
}

/// Whether `pat` matches at `i`, ending on a cluster boundary.
fn matches_at(t: &Text, pat: &[char], i: usize, bound: &[bool]) -> bool {
    i + pat.len() <= t.cs.len() && t.cs[i..i + pat.len()] == *pat && bound[i + pat.len()]
}

/// Where `pat` matches in `t`: start indices, non-overlapping from the left.
fn matches(t: &Text, pat: &[char]) -> Vec<usize> {
    if pat.is_empty() || pat.len() > t.cs.len() {
        return Vec::new();
    }
    let bound = bounds(t);
    let mut out = Vec::new();
    let mut i = 0;
    while i + pat.len() <= t.cs.len() {
        if matches_at(t, pat, i, &bound) {
            out.push(i);
            i += pat.len();
        } else {
            i += 1;
        }
    }
    out
}

/// The matches that `where` selects.
fn selected(all: Vec<usize>, where_: &str) -> Vec<usize> {
    match where_ {
        "leading" => all.into_iter().take(1).collect(),
        "trailing" => all.into_iter().last().into_iter().collect(),
        _ => all,
    }
}

/// The parts of `s` between the selected matches of `pat`.
fn split_parts(s: &Term, pat: &Term, where_: &str) -> Result<Vec<Term>, Fault> {
    let t = text(s)?;
    let p = text(pat)?.cs;
    let at = selected(matches(&t, &p), where_);
    let mut parts = Vec::with_capacity(at.len() + 1);
    let mut prev = 0;
    for i in at {
        parts.push(t.out(&t.cs[prev..i]));
        prev = i + p.len();
    }
    parts.push(t.out(&t.cs[prev..]));
    Ok(parts)
}

fn split(s: &Term, pat: &Term, where_: &str) -> BifResult {
    Ok(Term::list(split_parts(s, pat, where_)?))
}

/// `replace/3,4`: the parts joined with the replacement, as chardata.
fn replace(s: &Term, pat: &Term, rep: &Term, where_: &str) -> BifResult {
    let parts = split_parts(s, pat, where_)?;
    let mut out = Vec::with_capacity(parts.len() * 2);
    for (i, p) in parts.into_iter().enumerate() {
        if i > 0 {
            out.push(rep.clone());
        }
        out.push(p);
    }
    Ok(Term::list(out))
}

fn find(s: &Term, pat: &Term, dir: &str) -> BifResult {
    let t = text(s)?;
    let p = text(pat)?.cs;
    if p.is_empty() {
        return Ok(t.out(&t.cs));
    }
    let bound = bounds(&t);
    let mut starts = 0..=t.cs.len().saturating_sub(p.len());
    let hit = if dir == "trailing" {
        starts.rev().find(|&i| matches_at(&t, &p, i, &bound))
    } else {
        starts.find(|&i| matches_at(&t, &p, i, &bound))
    };
    Ok(match hit {
        Some(i) => t.out(&t.cs[i..]),
        None => Term::atom("nomatch"),
    })
}

fn prefix(a: &[Term]) -> BifResult {
    let t = text(&a[0])?;
    let p = text(&a[1])?.cs;
    if p.is_empty() || matches_at(&t, &p, 0, &bounds(&t)) {
        Ok(t.out(&t.cs[p.len()..]))
    } else {
        Ok(Term::atom("nomatch"))
    }
}
