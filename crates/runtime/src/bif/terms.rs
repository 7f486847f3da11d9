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
    b.pure(
        e,
        "atom_to_binary",
        2,
        |a| Ok(Term::binary(atom_arg(&a[0])?.name().as_bytes())),
        AUTO,
    );
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
        |a| binary_to_atom(&a[0], false),
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
        |a| binary_to_atom(&a[0], true),
        AUTO,
    );
    b.pure(e, "tuple_to_list", 1, tuple_to_list, AUTO);
    b.pure(e, "list_to_tuple", 1, list_to_tuple, AUTO);
    b.pure(
        e,
        "pid_to_list",
        1,
        |a| Ok(Term::string(&trace_term::print::write_term(&a[0]))),
        AUTO,
    );
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
