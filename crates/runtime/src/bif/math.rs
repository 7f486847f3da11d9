//! `math`: the C library's functions on floats. Arguments may be integers
//! (converted to floats; one too large for a float is `badarith`); a
//! non-number is `badarg`; a result that is not a finite float (a domain
//! error, an overflow) is `badarith`, as in OTP 25.

use super::Builder;
use crate::exception::{badarg, error_atom, BifResult, Fault};
use trace_term::{atom, Term};

pub fn register(b: &mut Builder) {
    let m = "math";
    b.pure(m, "pi", 0, |_| Ok(Term::Float(std::f64::consts::PI)), 0);
    for (name, f) in UNARY {
        b.pure(m, name, 1, *f, 0);
    }
    b.pure(m, "pow", 2, |a| binary(a, f64::powf), 0);
    b.pure(m, "atan2", 2, |a| binary(a, f64::atan2), 0);
    b.pure(m, "fmod", 2, |a| binary(a, |x, y| x % y), 0);
}

type F = fn(&[Term]) -> BifResult;

const UNARY: &[(&str, F)] = &[
    ("sqrt", |a| unary(a, f64::sqrt)),
    ("exp", |a| unary(a, f64::exp)),
    ("log", |a| unary(a, f64::ln)),
    ("log2", |a| unary(a, f64::log2)),
    ("log10", |a| unary(a, f64::log10)),
    ("sin", |a| unary(a, f64::sin)),
    ("cos", |a| unary(a, f64::cos)),
    ("tan", |a| unary(a, f64::tan)),
    ("asin", |a| unary(a, f64::asin)),
    ("acos", |a| unary(a, f64::acos)),
    ("atan", |a| unary(a, f64::atan)),
    ("sinh", |a| unary(a, f64::sinh)),
    ("cosh", |a| unary(a, f64::cosh)),
    ("tanh", |a| unary(a, f64::tanh)),
    ("asinh", |a| unary(a, f64::asinh)),
    ("acosh", |a| unary(a, f64::acosh)),
    ("atanh", |a| unary(a, f64::atanh)),
    ("erf", |a| unary(a, erf)),
    ("erfc", |a| unary(a, erfc)),
    ("floor", |a| unary(a, f64::floor)),
    ("ceil", |a| unary(a, f64::ceil)),
];

/// A number argument as a float.
fn float_arg(t: &Term) -> Result<f64, Fault> {
    match t {
        Term::Float(f) => Ok(*f),
        Term::Int(i) => Ok(*i as f64),
        Term::Big(_) => trace_term::order::int_to_f64(t)
            .filter(|f| f.is_finite())
            .ok_or_else(|| error_atom(atom::BADARITH)),
        _ => Err(badarg()),
    }
}

fn result(v: f64) -> BifResult {
    if v.is_finite() {
        Ok(Term::Float(v))
    } else {
        Err(error_atom(atom::BADARITH))
    }
}

fn unary(a: &[Term], f: fn(f64) -> f64) -> BifResult {
    result(f(float_arg(&a[0])?))
}

fn binary(a: &[Term], f: fn(f64, f64) -> f64) -> BifResult {
    let (x, y) = (float_arg(&a[0])?, float_arg(&a[1])?);
    result(f(x, y))
}

// The C library's `erf` and `erfc` (Rust's std has no stable ones; std
// already links libm), so results match BEAM's bit for bit.
extern "C" {
    #[link_name = "erf"]
    fn c_erf(x: f64) -> f64;
    #[link_name = "erfc"]
    fn c_erfc(x: f64) -> f64;
}

fn erf(x: f64) -> f64 {
    // SAFETY: a pure libm function on a float.
    unsafe { c_erf(x) }
}

fn erfc(x: f64) -> f64 {
    // SAFETY: a pure libm function on a float.
    unsafe { c_erfc(x) }
}
