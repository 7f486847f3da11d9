//! Numbers to text and back: `integer_to_list/1,2`, `integer_to_binary/1,2`,
//! `list_to_integer/1,2`, `binary_to_integer/1,2`, `float_to_list/1,2`,
//! `float_to_binary/1,2`, `list_to_float/1`, `binary_to_float/1`. The text
//! rules (and OTP's `badarg` cases) live in `trace_term::numtext`.

use super::{Builder, AUTO};
use crate::exception::{badarg, BifResult};
use trace_term::numtext;
use trace_term::Term;

pub fn register(b: &mut Builder) {
    let e = "erlang";
    b.pure(
        e,
        "integer_to_list",
        1,
        |a| int_text(&a[0], &Term::Int(10), false),
        AUTO,
    );
    b.pure(
        e,
        "integer_to_list",
        2,
        |a| int_text(&a[0], &a[1], false),
        AUTO,
    );
    b.pure(
        e,
        "integer_to_binary",
        1,
        |a| int_text(&a[0], &Term::Int(10), true),
        AUTO,
    );
    b.pure(
        e,
        "integer_to_binary",
        2,
        |a| int_text(&a[0], &a[1], true),
        AUTO,
    );
    b.pure(
        e,
        "list_to_integer",
        1,
        |a| text_int(list_text(&a[0])?, &Term::Int(10)),
        AUTO,
    );
    b.pure(
        e,
        "list_to_integer",
        2,
        |a| text_int(list_text(&a[0])?, &a[1]),
        AUTO,
    );
    b.pure(
        e,
        "binary_to_integer",
        1,
        |a| text_int(binary_text(&a[0])?, &Term::Int(10)),
        AUTO,
    );
    b.pure(
        e,
        "binary_to_integer",
        2,
        |a| text_int(binary_text(&a[0])?, &a[1]),
        AUTO,
    );
    b.pure(
        e,
        "float_to_list",
        1,
        |a| float_text(&a[0], None, false),
        AUTO,
    );
    b.pure(
        e,
        "float_to_list",
        2,
        |a| float_text(&a[0], Some(&a[1]), false),
        AUTO,
    );
    b.pure(
        e,
        "float_to_binary",
        1,
        |a| float_text(&a[0], None, true),
        AUTO,
    );
    b.pure(
        e,
        "float_to_binary",
        2,
        |a| float_text(&a[0], Some(&a[1]), true),
        AUTO,
    );
    b.pure(
        e,
        "list_to_float",
        1,
        |a| text_float(list_text(&a[0])?),
        AUTO,
    );
    b.pure(
        e,
        "binary_to_float",
        1,
        |a| text_float(binary_text(&a[0])?),
        AUTO,
    );
}

/// Text as a list of characters (a flat list; anything else is `badarg`).
fn list_text(t: &Term) -> Result<String, crate::exception::Fault> {
    super::terms::list_to_string(t).ok_or_else(badarg)
}

/// Text as the bytes of a binary, read as latin1.
fn binary_text(t: &Term) -> Result<String, crate::exception::Fault> {
    match t {
        Term::Binary(b) if b.is_binary() => Ok(b.bytes().iter().map(|&c| c as char).collect()),
        _ => Err(badarg()),
    }
}

fn base(t: &Term) -> Result<u32, crate::exception::Fault> {
    match t {
        Term::Int(b) if (2..=36).contains(b) => Ok(*b as u32),
        _ => Err(badarg()),
    }
}

fn text_term(s: &str, binary: bool) -> Term {
    if binary {
        Term::binary(s.as_bytes())
    } else {
        Term::string(s)
    }
}

fn int_text(n: &Term, b: &Term, binary: bool) -> BifResult {
    let s = numtext::integer_to_text(n, base(b)?).map_err(|_| badarg())?;
    Ok(text_term(&s, binary))
}

fn text_int(s: String, b: &Term) -> BifResult {
    numtext::text_to_integer(&s, base(b)?).map_err(|_| badarg())
}

fn float_text(f: &Term, opts: Option<&Term>, binary: bool) -> BifResult {
    let Term::Float(f) = f else {
        return Err(badarg());
    };
    let s = match opts {
        None => numtext::float_to_text(*f),
        Some(o) => {
            let layout = numtext::float_options(o).map_err(|_| badarg())?;
            numtext::float_to_text_with(*f, layout).map_err(|_| badarg())?
        }
    };
    Ok(text_term(&s, binary))
}

fn text_float(s: String) -> BifResult {
    numtext::text_to_float(&s)
        .map(Term::Float)
        .map_err(|_| badarg())
}
