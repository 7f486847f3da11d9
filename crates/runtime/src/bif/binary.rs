//! The `binary` module: searching, splitting and replacing in binaries,
//! parts and copies, unsigned integer encodings, hex. Bad arguments raise
//! `badarg`, as OTP's BIFs do.
//!
//! Patterns are a binary or a non-empty list of binaries (never empty
//! binaries); among patterns matching at the same position the longest
//! wins. `compile_pattern/1` returns `{bm, Patterns}`, which every function
//! taking a pattern accepts (OTP's is an opaque term with a reference).

use super::Builder;
use crate::exception::{badarg, BifResult, Fault};
use trace_term::Term;

pub fn register(b: &mut Builder) {
    let m = "binary";
    b.pure(m, "compile_pattern", 1, compile_pattern, 0);
    b.pure(
        m,
        "match",
        2,
        |a| match_(&a[0], &a[1], &Term::Nil, false),
        0,
    );
    b.pure(m, "match", 3, |a| match_(&a[0], &a[1], &a[2], false), 0);
    b.pure(
        m,
        "matches",
        2,
        |a| match_(&a[0], &a[1], &Term::Nil, true),
        0,
    );
    b.pure(m, "matches", 3, |a| match_(&a[0], &a[1], &a[2], true), 0);
    b.pure(m, "split", 2, |a| split(&a[0], &a[1], &Term::Nil), 0);
    b.pure(m, "split", 3, |a| split(&a[0], &a[1], &a[2]), 0);
    b.pure(
        m,
        "replace",
        3,
        |a| replace(&a[0], &a[1], &a[2], &Term::Nil),
        0,
    );
    b.pure(m, "replace", 4, |a| replace(&a[0], &a[1], &a[2], &a[3]), 0);
    b.pure(m, "part", 2, super::binaries::binary_part2, 0);
    b.pure(m, "part", 3, super::binaries::binary_part3, 0);
    b.pure(m, "at", 2, at, 0);
    b.pure(m, "first", 1, |a| edge(&a[0], true), 0);
    b.pure(m, "last", 1, |a| edge(&a[0], false), 0);
    b.pure(m, "copy", 1, |a| copy(&a[0], &Term::Int(1)), 0);
    b.pure(m, "copy", 2, |a| copy(&a[0], &a[1]), 0);
    b.pure(m, "bin_to_list", 1, |a| bin_to_list(&a[0], None), 0);
    b.pure(
        m,
        "bin_to_list",
        2,
        |a| bin_to_list(&a[0], Some((&a[1], None))),
        0,
    );
    b.pure(
        m,
        "bin_to_list",
        3,
        |a| bin_to_list(&a[0], Some((&a[1], Some(&a[2])))),
        0,
    );
    b.pure(m, "list_to_bin", 1, list_to_bin, 0);
    b.pure(
        m,
        "encode_unsigned",
        1,
        |a| encode_unsigned(&a[0], &Term::atom("big")),
        0,
    );
    b.pure(
        m,
        "encode_unsigned",
        2,
        |a| encode_unsigned(&a[0], &a[1]),
        0,
    );
    b.pure(
        m,
        "decode_unsigned",
        1,
        |a| decode_unsigned(&a[0], &Term::atom("big")),
        0,
    );
    b.pure(
        m,
        "decode_unsigned",
        2,
        |a| decode_unsigned(&a[0], &a[1]),
        0,
    );
    b.pure(m, "longest_common_prefix", 1, |a| common(&a[0], true), 0);
    b.pure(m, "longest_common_suffix", 1, |a| common(&a[0], false), 0);
    b.pure(m, "encode_hex", 1, encode_hex, 0);
    b.pure(m, "decode_hex", 1, decode_hex, 0);
    b.pure(
        m,
        "referenced_byte_size",
        1,
        |a| Ok(Term::Int(bytes(&a[0])?.len() as i64)),
        0,
    );
}

/// The bytes of a binary argument (not a bitstring).
fn bytes(t: &Term) -> Result<&[u8], Fault> {
    match t {
        Term::Binary(b) if b.is_binary() => Ok(b.bytes()),
        _ => Err(badarg()),
    }
}

fn int(t: &Term) -> Result<i64, Fault> {
    t.as_int().ok_or_else(badarg)
}

/// The search patterns of a pattern argument.
fn patterns(t: &Term) -> Result<Vec<Vec<u8>>, Fault> {
    if let Some([Term::Atom(tag), ps]) = t.as_tuple() {
        if tag.name() == "bm" {
            return patterns(ps);
        }
    }
    let list = match t {
        Term::Binary(_) => vec![t.clone()],
        Term::Cons(_) => t.to_vec().ok_or_else(badarg)?,
        _ => return Err(badarg()),
    };
    let ps: Vec<Vec<u8>> = list
        .iter()
        .map(|p| bytes(p).map(<[u8]>::to_vec))
        .collect::<Result<_, _>>()?;
    if ps.is_empty() || ps.iter().any(Vec::is_empty) {
        return Err(badarg());
    }
    Ok(ps)
}

fn compile_pattern(a: &[Term]) -> BifResult {
    let ps = patterns(&a[0])?;
    Ok(Term::tuple(vec![
        Term::atom("bm"),
        Term::list(ps.iter().map(|p| Term::binary(p)).collect()),
    ]))
}

/// Options shared by match, split and replace.
#[derive(Default)]
struct Opts {
    global: bool,
    trim: bool,
    trim_all: bool,
    scope: Option<(usize, usize)>,
    insert: Vec<usize>,
}

fn options(t: &Term, len: usize) -> Result<Opts, Fault> {
    let mut o = Opts::default();
    for x in t.to_vec().ok_or_else(badarg)? {
        match &x {
            Term::Atom(a) if a.name() == "global" => o.global = true,
            Term::Atom(a) if a.name() == "trim" => o.trim = true,
            Term::Atom(a) if a.name() == "trim_all" => o.trim_all = true,
            Term::Tuple(tp) if tp.arity() == 2 => match (&tp.elements()[0], &tp.elements()[1]) {
                (Term::Atom(k), v) if k.name() == "scope" => {
                    let Some([s, l]) = v.as_tuple() else {
                        return Err(badarg());
                    };
                    o.scope = Some(range(len, int(s)?, int(l)?)?);
                }
                (Term::Atom(k), v) if k.name() == "insert_replaced" => {
                    let ns = match v {
                        Term::Int(_) => vec![v.clone()],
                        _ => v.to_vec().ok_or_else(badarg)?,
                    };
                    for n in ns {
                        match n {
                            Term::Int(i) if i >= 0 => o.insert.push(i as usize),
                            _ => return Err(badarg()),
                        }
                    }
                }
                _ => return Err(badarg()),
            },
            _ => return Err(badarg()),
        }
    }
    Ok(o)
}

/// Non-overlapping matches `(start, len)` from the left within `scope`,
/// all of them or the first; the longest pattern wins at a position.
fn find(hay: &[u8], ps: &[Vec<u8>], scope: (usize, usize), all: bool) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let (mut i, end) = scope;
    while i < end {
        let best = ps
            .iter()
            .filter(|p| i + p.len() <= end && hay[i..i + p.len()] == p[..])
            .map(Vec::len)
            .max();
        match best {
            Some(n) => {
                out.push((i, n));
                if !all {
                    break;
                }
                i += n;
            }
            None => i += 1,
        }
    }
    out
}

fn pair(start: usize, len: usize) -> Term {
    Term::tuple(vec![Term::Int(start as i64), Term::Int(len as i64)])
}

fn match_(subject: &Term, pattern: &Term, opts: &Term, all: bool) -> BifResult {
    let hay = bytes(subject)?;
    let ps = patterns(pattern)?;
    let o = options(opts, hay.len())?;
    if o.global || o.trim || o.trim_all || !o.insert.is_empty() {
        return Err(badarg());
    }
    let found = find(hay, &ps, o.scope.unwrap_or((0, hay.len())), all);
    if all {
        return Ok(Term::list(
            found.into_iter().map(|(s, l)| pair(s, l)).collect(),
        ));
    }
    Ok(match found.first() {
        Some(&(s, l)) => pair(s, l),
        None => Term::atom("nomatch"),
    })
}

fn split(subject: &Term, pattern: &Term, opts: &Term) -> BifResult {
    let hay = bytes(subject)?;
    let ps = patterns(pattern)?;
    let o = options(opts, hay.len())?;
    if !o.insert.is_empty() {
        return Err(badarg());
    }
    let found = find(hay, &ps, o.scope.unwrap_or((0, hay.len())), o.global);
    let mut parts: Vec<&[u8]> = Vec::with_capacity(found.len() + 1);
    let mut prev = 0;
    for (s, l) in found {
        parts.push(&hay[prev..s]);
        prev = s + l;
    }
    parts.push(&hay[prev..]);
    if o.trim_all {
        parts.retain(|p| !p.is_empty());
    } else if o.trim {
        while parts.last().is_some_and(|p| p.is_empty()) {
            parts.pop();
        }
    }
    Ok(Term::list(parts.into_iter().map(Term::binary).collect()))
}

fn replace(subject: &Term, pattern: &Term, with: &Term, opts: &Term) -> BifResult {
    let hay = bytes(subject)?;
    let ps = patterns(pattern)?;
    let rep = bytes(with)?;
    let o = options(opts, hay.len())?;
    if o.trim || o.trim_all || o.insert.iter().any(|&i| i > rep.len()) {
        return Err(badarg());
    }
    let found = find(hay, &ps, o.scope.unwrap_or((0, hay.len())), o.global);
    let mut out = Vec::with_capacity(hay.len());
    let mut prev = 0;
    for (s, l) in found {
        out.extend_from_slice(&hay[prev..s]);
        // The matched part goes in at each insertion point of the replacement.
        let mut at = 0;
        let mut points = o.insert.clone();
        points.sort_unstable();
        for p in points {
            out.extend_from_slice(&rep[at..p]);
            out.extend_from_slice(&hay[s..s + l]);
            at = p;
        }
        out.extend_from_slice(&rep[at..]);
        prev = s + l;
    }
    out.extend_from_slice(&hay[prev..]);
    Ok(Term::binary(&out))
}

fn at(a: &[Term]) -> BifResult {
    let b = bytes(&a[0])?;
    match a[1] {
        Term::Int(i) if i >= 0 && (i as usize) < b.len() => Ok(Term::Int(b[i as usize] as i64)),
        _ => Err(badarg()),
    }
}

fn edge(t: &Term, first: bool) -> BifResult {
    let b = bytes(t)?;
    let x = if first { b.first() } else { b.last() };
    x.map(|&c| Term::Int(c as i64)).ok_or_else(badarg)
}

fn copy(t: &Term, n: &Term) -> BifResult {
    let b = bytes(t)?;
    match n {
        Term::Int(n) if *n >= 0 && (*n as usize).saturating_mul(b.len()) <= 1 << 32 => {
            Ok(Term::binary(&b.repeat(*n as usize)))
        }
        _ => Err(badarg()),
    }
}

/// `bin_to_list(Bin)`, `bin_to_list(Bin, {Pos, Len})`, `bin_to_list(Bin, Pos, Len)`.
fn bin_to_list(t: &Term, part: Option<(&Term, Option<&Term>)>) -> BifResult {
    let b = bytes(t)?;
    let (from, to) = match part {
        None => (0, b.len()),
        Some((pl, None)) => match pl.as_tuple() {
            Some([p, l]) => range(b.len(), int(p)?, int(l)?)?,
            _ => return Err(badarg()),
        },
        Some((p, Some(l))) => range(b.len(), int(p)?, int(l)?)?,
    };
    Ok(Term::list(
        b[from..to].iter().map(|&c| Term::Int(c as i64)).collect(),
    ))
}

/// A `{Pos, Len}` part (Len may be negative) within `len` bytes.
fn range(len: usize, pos: i64, l: i64) -> Result<(usize, usize), Fault> {
    let end = pos.checked_add(l).ok_or_else(badarg)?;
    let (from, to) = if l >= 0 { (pos, end) } else { (end, pos) };
    if from < 0 || to > len as i64 {
        return Err(badarg());
    }
    Ok((from as usize, to as usize))
}

fn list_to_bin(a: &[Term]) -> BifResult {
    if !a[0].is_list() {
        return Err(badarg());
    }
    super::binaries::iolist_to_binary(&a[0]).ok_or_else(badarg)
}

fn little(t: &Term) -> Result<bool, Fault> {
    match t.as_atom().map(|a| a.name()) {
        Some("big") => Ok(false),
        Some("little") => Ok(true),
        _ => Err(badarg()),
    }
}

fn encode_unsigned(n: &Term, endian: &Term) -> BifResult {
    let little = little(endian)?;
    let big = match n {
        Term::Int(i) if *i >= 0 => num_bigint::BigUint::from(*i as u64),
        Term::Big(b) if b.sign() != num_bigint::Sign::Minus => b.magnitude().clone(),
        _ => return Err(badarg()),
    };
    let mut bytes = big.to_bytes_be();
    if little {
        bytes.reverse();
    }
    Ok(Term::binary(&bytes))
}

fn decode_unsigned(b: &Term, endian: &Term) -> BifResult {
    let little = little(endian)?;
    let bs = bytes(b)?;
    let n = if little {
        num_bigint::BigUint::from_bytes_le(bs)
    } else {
        num_bigint::BigUint::from_bytes_be(bs)
    };
    Ok(Term::from_bigint(n.into()))
}

/// The length of the longest common prefix (or suffix) of a list of binaries.
fn common(t: &Term, prefix: bool) -> BifResult {
    let bins = t.to_vec().ok_or_else(badarg)?;
    let all: Vec<&[u8]> = bins.iter().map(bytes).collect::<Result<_, _>>()?;
    let Some(first) = all.first() else {
        return Err(badarg());
    };
    let mut n = first.len();
    for b in &all[1..] {
        let k = if prefix {
            first
                .iter()
                .zip(b.iter())
                .take_while(|(x, y)| x == y)
                .count()
        } else {
            first
                .iter()
                .rev()
                .zip(b.iter().rev())
                .take_while(|(x, y)| x == y)
                .count()
        };
        n = n.min(k);
    }
    Ok(Term::Int(n as i64))
}

fn encode_hex(a: &[Term]) -> BifResult {
    let b = bytes(&a[0])?;
    let mut s = String::with_capacity(2 * b.len());
    for x in b {
        s.push_str(&format!("{x:02X}"));
    }
    Ok(Term::binary(s.as_bytes()))
}

fn decode_hex(a: &[Term]) -> BifResult {
    let b = bytes(&a[0])?;
    if b.len() % 2 != 0 {
        return Err(badarg());
    }
    let digit = |c: u8| (c as char).to_digit(16).ok_or_else(badarg);
    let mut out = Vec::with_capacity(b.len() / 2);
    for pair in b.chunks(2) {
        out.push((digit(pair[0])? * 16 + digit(pair[1])?) as u8);
    }
    Ok(Term::binary(&out))
}
