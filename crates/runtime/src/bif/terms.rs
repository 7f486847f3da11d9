//! Term conversions (`atom_to_list`, `tuple_to_list`, `term_to_binary`, ...)
//! and the bridge to the term crate's printers for `io`.

use super::{Builder, AUTO};
use crate::exception::{badarg, BifResult, Fault};
use trace_term::{atom, Atom, Term};

pub fn register(b: &mut Builder) {
    let e = "erlang";
    b.pure(
        e,
        "atom_to_list",
        1,
        |a| Ok(Term::string(atom_arg(&a[0])?.name())),
        AUTO,
    );
    b.pure(e, "list_to_atom", 1, |a| list_to_atom(&a[0], false), AUTO);
    b.pure(
        e,
        "list_to_existing_atom",
        1,
        |a| list_to_atom(&a[0], true),
        AUTO,
    );
    b.pure(
        e,
        "atom_to_binary",
        1,
        |a| Ok(Term::binary(atom_arg(&a[0])?.name().as_bytes())),
        AUTO,
    );
    b.pure(e, "atom_to_binary", 2, atom_to_binary2, AUTO);
    b.pure(
        e,
        "binary_to_atom",
        1,
        |a| binary_to_atom(&a[0], false),
        AUTO,
    );
    b.pure(
        e,
        "binary_to_atom",
        2,
        |a| binary_to_atom_enc(&a[0], &a[1], false),
        AUTO,
    );
    b.pure(
        e,
        "binary_to_existing_atom",
        1,
        |a| binary_to_atom(&a[0], true),
        AUTO,
    );
    b.pure(
        e,
        "binary_to_existing_atom",
        2,
        |a| binary_to_atom_enc(&a[0], &a[1], true),
        AUTO,
    );
    b.pure(
        e,
        "term_to_binary",
        1,
        |a| term_to_binary(&a[0], &Term::Nil),
        AUTO,
    );
    b.pure(
        e,
        "term_to_binary",
        2,
        |a| term_to_binary(&a[0], &a[1]),
        AUTO,
    );
    b.pure(
        e,
        "binary_to_term",
        1,
        |a| binary_to_term(&a[0], &Term::Nil),
        AUTO,
    );
    b.pure(
        e,
        "binary_to_term",
        2,
        |a| binary_to_term(&a[0], &a[1]),
        AUTO,
    );
    b.pure(
        e,
        "phash2",
        1,
        |a| Ok(Term::Int(trace_term::phash::phash2(&a[0]) as i64)),
        0,
    );
    b.pure(e, "phash2", 2, phash2, 0);
    b.pure(e, "phash", 2, phash, 0);
    b.pure(e, "tuple_to_list", 1, tuple_to_list, AUTO);
    b.pure(e, "list_to_tuple", 1, list_to_tuple, AUTO);
    b.pure(
        e,
        "pid_to_list",
        1,
        |a| Ok(Term::string(&trace_term::print::write_term(&a[0]))),
        AUTO,
    );
    b.pure(e, "list_to_pid", 1, list_to_pid, AUTO);
    b.pure(
        e,
        "ref_to_list",
        1,
        |a| Ok(Term::string(&trace_term::print::write_term(&a[0]))),
        AUTO,
    );
    b.pure(
        e,
        "fun_to_list",
        1,
        |a| Ok(Term::string(&trace_term::print::write_term(&a[0]))),
        AUTO,
    );
}

pub fn atom_arg(t: &Term) -> Result<Atom, Fault> {
    t.as_atom().ok_or_else(badarg)
}

/// A flat list of character codes as a Rust string (`None` if not such a list).
pub fn list_to_string(t: &Term) -> Option<String> {
    let mut s = String::new();
    let mut it = t.list_iter();
    for c in &mut it {
        let Term::Int(i) = c else { return None };
        s.push(char::from_u32(u32::try_from(*i).ok()?)?);
    }
    it.is_proper().then_some(s)
}

/// Chardata (nested lists of characters and binaries, or a binary) as a string.
pub fn chardata_to_string(t: &Term) -> Option<String> {
    let mut s = String::new();
    push_chardata(&mut s, t, 0)?;
    Some(s)
}

fn push_chardata(s: &mut String, t: &Term, depth: usize) -> Option<()> {
    if depth > 10_000 {
        return None;
    }
    match t {
        Term::Binary(b) if b.is_binary() => {
            match std::str::from_utf8(b.bytes()) {
                Ok(x) => s.push_str(x),
                Err(_) => s.extend(b.bytes().iter().map(|&c| c as char)),
            }
            Some(())
        }
        Term::Int(i) => {
            s.push(char::from_u32(u32::try_from(*i).ok()?)?);
            Some(())
        }
        Term::Nil => Some(()),
        Term::Cons(_) => {
            let mut it = t.list_iter();
            for e in &mut it {
                push_chardata(s, e, depth + 1)?;
            }
            match it.rest() {
                Term::Nil => Some(()),
                Term::Binary(_) => push_chardata(s, it.rest(), depth + 1),
                _ => None,
            }
        }
        _ => None,
    }
}

fn list_to_atom(t: &Term, existing: bool) -> BifResult {
    let s = list_to_string(t).ok_or_else(badarg)?;
    make_atom(&s, existing)
}

fn make_atom(s: &str, existing: bool) -> BifResult {
    if s.chars().count() > 255 {
        return Err(Fault::Error(Term::Atom(atom::SYSTEM_LIMIT)));
    }
    if existing {
        return Atom::existing(s).map(Term::Atom).ok_or_else(badarg);
    }
    Atom::try_intern(s)
        .map(Term::Atom)
        .map_err(|_| Fault::Error(Term::Atom(atom::SYSTEM_LIMIT)))
}

fn binary_to_atom(t: &Term, existing: bool) -> BifResult {
    let Term::Binary(b) = t else {
        return Err(badarg());
    };
    if !b.is_binary() {
        return Err(badarg());
    }
    let s = std::str::from_utf8(b.bytes()).map_err(|_| badarg())?;
    make_atom(s, existing)
}

/// Whether an encoding argument names UTF-8 (`utf8`, `unicode`) or latin1;
/// anything else is `badarg`.
fn utf8_encoding(t: &Term) -> Result<bool, Fault> {
    match t {
        Term::Atom(atom::UTF8 | atom::UNICODE) => Ok(true),
        Term::Atom(atom::LATIN1) => Ok(false),
        _ => Err(badarg()),
    }
}

fn atom_to_binary2(a: &[Term]) -> BifResult {
    let name = atom_arg(&a[0])?.name();
    if utf8_encoding(&a[1])? {
        return Ok(Term::binary(name.as_bytes()));
    }
    let bytes: Option<Vec<u8>> = name.chars().map(|c| u8::try_from(c as u32).ok()).collect();
    Ok(Term::binary(&bytes.ok_or_else(badarg)?))
}

fn binary_to_atom_enc(t: &Term, enc: &Term, existing: bool) -> BifResult {
    if utf8_encoding(enc)? {
        return binary_to_atom(t, existing);
    }
    match t {
        Term::Binary(b) if b.is_binary() => {
            let s: String = b.bytes().iter().map(|&c| c as char).collect();
            make_atom(&s, existing)
        }
        _ => Err(badarg()),
    }
}

/// `term_to_binary/2`: minor versions 0 to 2; compression is not supported
/// (its bytes depend on zlib's exact output).
fn term_to_binary(t: &Term, opts: &Term) -> BifResult {
    let mut style = trace_term::etf::Style::V1;
    let mut it = opts.list_iter();
    for o in &mut it {
        match o {
            Term::Atom(a) if matches!(a.name(), "deterministic" | "local") => {}
            Term::Atom(a) if a.name() == "compressed" => {
                return Err(Fault::Unsupported(
                    "erlang:term_to_binary/2 with option compressed is not implemented by trace"
                        .into(),
                ))
            }
            Term::Tuple(tp) if tp.arity() == 2 => match (&tp.elements()[0], &tp.elements()[1]) {
                (Term::Atom(k), Term::Int(0)) if k.name() == "compressed" => {}
                (Term::Atom(k), Term::Int(1..=9)) if k.name() == "compressed" => {
                    return Err(Fault::Unsupported(
                        "erlang:term_to_binary/2 with option {compressed, N} is not implemented by trace"
                            .into(),
                    ))
                }
                (Term::Atom(k), Term::Int(v)) if k.name() == "minor_version" => {
                    style = match v {
                        0 => trace_term::etf::Style::V0,
                        1 => trace_term::etf::Style::V1,
                        2 => trace_term::etf::Style::V2,
                        _ => return Err(badarg()),
                    }
                }
                _ => return Err(badarg()),
            },
            _ => return Err(badarg()),
        }
    }
    if !it.is_proper() {
        return Err(badarg());
    }
    let mut out = Vec::new();
    trace_term::etf::encode_with(t, &mut out, style);
    Ok(Term::binary(&out))
}

/// `binary_to_term/2` with options `safe` and `used`. Trailing bytes after
/// the term are ignored, as BEAM does.
fn binary_to_term(t: &Term, opts: &Term) -> BifResult {
    let Term::Binary(b) = t else {
        return Err(badarg());
    };
    if !b.is_binary() {
        return Err(badarg());
    }
    let mut used = false;
    let mut it = opts.list_iter();
    for o in &mut it {
        match o {
            Term::Atom(a) if a.name() == "safe" => {}
            Term::Atom(a) if a.name() == "used" => used = true,
            _ => return Err(badarg()),
        }
    }
    if !it.is_proper() {
        return Err(badarg());
    }
    if b.bytes().get(1) == Some(&80) {
        return Err(Fault::Unsupported(
            "erlang:binary_to_term of compressed data is not implemented by trace".into(),
        ));
    }
    let (v, n) = trace_term::etf::decode_prefix(b.bytes()).map_err(|_| badarg())?;
    if used {
        Ok(Term::tuple(vec![v, Term::Int(n as i64)]))
    } else {
        Ok(v)
    }
}

fn phash2(a: &[Term]) -> BifResult {
    match &a[1] {
        Term::Int(r) if (1..=1 << 32).contains(r) => {
            trace_term::phash::phash2_range(&a[0], *r as u64)
                .map(|h| Term::Int(h as i64))
                .ok_or_else(badarg)
        }
        _ => Err(badarg()),
    }
}

fn phash(a: &[Term]) -> BifResult {
    match &a[1] {
        Term::Int(r) if *r > 0 => trace_term::phash1::phash(&a[0], *r as u64)
            .map(|h| Term::Int(h as i64))
            .ok_or_else(badarg),
        _ => Err(badarg()),
    }
}

fn tuple_to_list(a: &[Term]) -> BifResult {
    match &a[0] {
        Term::Tuple(t) => Ok(Term::list(t.elements().to_vec())),
        _ => Err(badarg()),
    }
}

fn list_to_tuple(a: &[Term]) -> BifResult {
    Ok(Term::tuple(a[0].to_vec().ok_or_else(badarg)?))
}

/// `~p` of a term (as io_lib:print).
pub fn pretty(t: &Term) -> String {
    trace_term::pretty(t, &trace_term::PrettyOptions::default())
}

/// io_lib:format with BEAM's directives; bad formats or arguments are `badarg`.
pub fn io_format(fmt: &Term, args: &[Term]) -> Result<String, Fault> {
    trace_term::format_term(fmt, args).map_err(|_| badarg())
}

/// `list_to_pid("<0.N.0>")`: the engine's pids are all of one node and
/// serial 0, so another node or serial names no process it could have.
fn list_to_pid(a: &[Term]) -> BifResult {
    let text = list_to_string(&a[0]).ok_or_else(badarg)?;
    let parts: Vec<&str> = text
        .strip_prefix('<')
        .and_then(|t| t.strip_suffix('>'))
        .ok_or_else(badarg)?
        .split('.')
        .collect();
    let nums: Vec<u64> = parts
        .iter()
        .map(|p| {
            p.parse::<u64>()
                .ok()
                .filter(|_| p.bytes().all(|b| b.is_ascii_digit()))
        })
        .collect::<Option<_>>()
        .ok_or_else(badarg)?;
    match nums[..] {
        [0, n, 0] => Ok(Term::Pid(trace_term::Pid(n))),
        [_, _, _] => Err(Fault::Unsupported(format!(
            "erlang:list_to_pid({text:?}) names another node or serial, which trace's pids never have"
        ))),
        _ => Err(badarg()),
    }
}
