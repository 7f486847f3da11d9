//! Core `erlang` built-ins: tuples, lists, numbers, comparisons, exceptions,
//! `apply`, and the operators as functions (`erlang:'+'/2`, ...).

use super::{Builder, AUTO, GUARD};
use crate::exception::{badarg, error_atom, Apply, BifResult, Class, Fault};
use crate::vm::arith;
use num_traits::{Signed, ToPrimitive};
use trace_term::order::{compare, exact_eq};
use trace_term::{atom, Atom, Term, Tuple};

pub fn register(b: &mut Builder) {
    let e = "erlang";
    b.pure(e, "element", 2, element, GUARD | AUTO);
    b.pure(e, "setelement", 3, setelement, AUTO);
    b.pure(e, "tuple_size", 1, tuple_size, GUARD | AUTO);
    b.pure(e, "size", 1, size, GUARD | AUTO);
    b.pure(e, "length", 1, length, GUARD | AUTO);
    b.pure(e, "hd", 1, hd, GUARD | AUTO);
    b.pure(e, "tl", 1, tl, GUARD | AUTO);
    b.pure(e, "abs", 1, abs, GUARD | AUTO);
    b.pure(e, "trunc", 1, trunc, GUARD | AUTO);
    b.pure(e, "round", 1, round, GUARD | AUTO);
    b.pure(e, "floor", 1, floor, GUARD | AUTO);
    b.pure(e, "ceil", 1, ceil, GUARD | AUTO);
    b.pure(e, "float", 1, float, GUARD | AUTO);
    // Not guard BIFs before OTP 26.
    b.pure(e, "min", 2, min, AUTO);
    b.pure(e, "max", 2, max, AUTO);
    b.pure(e, "map_size", 1, map_size, GUARD | AUTO);
    b.pure(e, "map_get", 2, map_get, GUARD | AUTO);
    b.pure(e, "is_map_key", 2, is_map_key, GUARD | AUTO);
    b.pure(e, "node", 0, node0, GUARD | AUTO);
    b.pure(e, "node", 1, node1, GUARD | AUTO);
    b.pure(e, "nodes", 0, nodes, AUTO);
    b.pure(e, "is_alive", 0, is_alive, AUTO);
    for (name, f) in TYPE_TESTS {
        b.pure(e, name, 1, *f, GUARD | AUTO);
    }
    b.pure(e, "is_function", 2, is_function2, GUARD | AUTO);
    b.pure(e, "is_record", 2, is_record2, GUARD | AUTO);
    b.pure(e, "is_record", 3, is_record3, GUARD | AUTO);
    b.pure(e, "error", 1, error1, AUTO);
    b.pure(e, "error", 2, error2, AUTO);
    b.pure(e, "error", 3, error2, AUTO);
    b.pure(e, "throw", 1, throw, AUTO);
    b.pure(e, "exit", 1, exit1, AUTO);
    b.pure(e, "raise", 3, raise3, 0);
    b.pure(e, "apply", 2, apply2, AUTO);
    b.pure(e, "apply", 3, apply3, AUTO);
    b.pure(e, "make_tuple", 2, make_tuple2, AUTO);
    b.pure(e, "make_tuple", 3, make_tuple3, 0);
    b.pure(e, "append_element", 2, append_element, 0);
    b.pure(e, "delete_element", 2, delete_element, 0);
    b.pure(e, "insert_element", 3, insert_element, 0);
    b.pure(e, "make_fun", 3, make_fun, 0);
    b.pure(e, "fun_info", 2, fun_info, 0);
    // Operators as functions.
    b.pure(e, "+", 2, |a| arith::add(&a[0], &a[1]), 0);
    b.pure(e, "-", 2, |a| arith::sub(&a[0], &a[1]), 0);
    b.pure(e, "*", 2, |a| arith::mul(&a[0], &a[1]), 0);
    b.pure(e, "/", 2, |a| arith::fdiv(&a[0], &a[1]), 0);
    b.pure(e, "div", 2, |a| arith::idiv(&a[0], &a[1]), 0);
    b.pure(e, "rem", 2, |a| arith::rem(&a[0], &a[1]), 0);
    b.pure(e, "band", 2, |a| arith::band(&a[0], &a[1]), 0);
    b.pure(e, "bor", 2, |a| arith::bor(&a[0], &a[1]), 0);
    b.pure(e, "bxor", 2, |a| arith::bxor(&a[0], &a[1]), 0);
    b.pure(e, "bsl", 2, |a| arith::bsl(&a[0], &a[1]), 0);
    b.pure(e, "bsr", 2, |a| arith::bsr(&a[0], &a[1]), 0);
    b.pure(e, "bnot", 1, |a| arith::bnot(&a[0]), 0);
    b.pure(e, "-", 1, |a| arith::neg(&a[0]), 0);
    b.pure(e, "+", 1, |a| arith::plus(&a[0]), 0);
    b.pure(e, "not", 1, |a| arith::not(&a[0]), 0);
    b.pure(e, "and", 2, |a| arith::and(&a[0], &a[1]), 0);
    b.pure(e, "or", 2, |a| arith::or(&a[0], &a[1]), 0);
    b.pure(e, "xor", 2, |a| arith::xor(&a[0], &a[1]), 0);
    b.pure(e, "++", 2, |a| arith::append(&a[0], &a[1]), 0);
    b.pure(e, "--", 2, |a| arith::subtract(&a[0], &a[1]), 0);
    b.pure(
        e,
        "==",
        2,
        |a| Ok(Term::bool(compare(&a[0], &a[1]).is_eq())),
        0,
    );
    b.pure(
        e,
        "/=",
        2,
        |a| Ok(Term::bool(!compare(&a[0], &a[1]).is_eq())),
        0,
    );
    b.pure(e, "=:=", 2, |a| Ok(Term::bool(exact_eq(&a[0], &a[1]))), 0);
    b.pure(e, "=/=", 2, |a| Ok(Term::bool(!exact_eq(&a[0], &a[1]))), 0);
    b.pure(
        e,
        "<",
        2,
        |a| Ok(Term::bool(compare(&a[0], &a[1]).is_lt())),
        0,
    );
    b.pure(
        e,
        "=<",
        2,
        |a| Ok(Term::bool(compare(&a[0], &a[1]).is_le())),
        0,
    );
    b.pure(
        e,
        ">",
        2,
        |a| Ok(Term::bool(compare(&a[0], &a[1]).is_gt())),
        0,
    );
    b.pure(
        e,
        ">=",
        2,
        |a| Ok(Term::bool(compare(&a[0], &a[1]).is_ge())),
        0,
    );
}

type F = fn(&[Term]) -> BifResult;

const TYPE_TESTS: &[(&str, F)] = &[
    ("is_atom", |a| Ok(Term::bool(matches!(a[0], Term::Atom(_))))),
    ("is_binary", |a| {
        Ok(Term::bool(
            matches!(&a[0], Term::Binary(b) if b.is_binary()),
        ))
    }),
    ("is_bitstring", |a| {
        Ok(Term::bool(matches!(a[0], Term::Binary(_))))
    }),
    ("is_boolean", |a| {
        Ok(Term::bool(matches!(
            a[0],
            Term::Atom(atom::TRUE | atom::FALSE)
        )))
    }),
    ("is_float", |a| {
        Ok(Term::bool(matches!(a[0], Term::Float(_))))
    }),
    ("is_function", |a| {
        Ok(Term::bool(matches!(a[0], Term::Fun(_))))
    }),
    ("is_integer", |a| Ok(Term::bool(a[0].is_integer()))),
    ("is_list", |a| Ok(Term::bool(a[0].is_list()))),
    ("is_map", |a| Ok(Term::bool(matches!(a[0], Term::Map(_))))),
    ("is_number", |a| Ok(Term::bool(a[0].is_number()))),
    ("is_pid", |a| Ok(Term::bool(matches!(a[0], Term::Pid(_))))),
    ("is_port", |_| Ok(Term::FALSE)),
    ("is_reference", |a| {
        Ok(Term::bool(matches!(a[0], Term::Ref(_))))
    }),
    ("is_tuple", |a| {
        Ok(Term::bool(matches!(a[0], Term::Tuple(_))))
    }),
];

/// A 1-based index argument within `1..=n`.
pub fn index(t: &Term, n: usize) -> Result<usize, Fault> {
    match t {
        Term::Int(i) if *i >= 1 && (*i as u64) <= n as u64 => Ok(*i as usize),
        _ => Err(badarg()),
    }
}

fn element(a: &[Term]) -> BifResult {
    let Term::Tuple(t) = &a[1] else {
        return Err(badarg());
    };
    let i = index(&a[0], t.arity())?;
    Ok(t.elements()[i - 1].clone())
}

fn setelement(a: &[Term]) -> BifResult {
    let Term::Tuple(t) = &a[1] else {
        return Err(badarg());
    };
    let i = index(&a[0], t.arity())?;
    let mut v = t.elements().to_vec();
    v[i - 1] = a[2].clone();
    Ok(Term::tuple(v))
}

fn tuple_size(a: &[Term]) -> BifResult {
    match &a[0] {
        Term::Tuple(t) => Ok(Term::Int(t.arity() as i64)),
        _ => Err(badarg()),
    }
}

fn size(a: &[Term]) -> BifResult {
    match &a[0] {
        Term::Tuple(t) => Ok(Term::Int(t.arity() as i64)),
        Term::Binary(b) => Ok(Term::Int(b.byte_len() as i64)),
        _ => Err(badarg()),
    }
}

fn length(a: &[Term]) -> BifResult {
    a[0].list_len()
        .map(|n| Term::Int(n as i64))
        .ok_or_else(badarg)
}

fn hd(a: &[Term]) -> BifResult {
    match &a[0] {
        Term::Cons(c) => Ok(c.head.clone()),
        _ => Err(badarg()),
    }
}

fn tl(a: &[Term]) -> BifResult {
    match &a[0] {
        Term::Cons(c) => Ok(c.tail.clone()),
        _ => Err(badarg()),
    }
}

fn abs(a: &[Term]) -> BifResult {
    match &a[0] {
        Term::Int(i) => Ok(match i.checked_abs() {
            Some(v) => Term::Int(v),
            None => Term::from_bigint(num_bigint::BigInt::from(*i).abs()),
        }),
        Term::Big(b) => Ok(Term::from_bigint(b.abs())),
        Term::Float(f) => Ok(Term::Float(f.abs())),
        _ => Err(badarg()),
    }
}

/// Converts a float to an integer term (already truncated/rounded).
fn float_to_int(f: f64) -> BifResult {
    if !f.is_finite() {
        return Err(badarg());
    }
    if f.abs() < 9.0e18 {
        Ok(Term::Int(f as i64))
    } else {
        num_bigint::BigInt::from_f64_exact(f)
            .map(Term::from_bigint)
            .ok_or_else(badarg)
    }
}

trait FromF64Exact: Sized {
    fn from_f64_exact(f: f64) -> Option<Self>;
}

impl FromF64Exact for num_bigint::BigInt {
    fn from_f64_exact(f: f64) -> Option<Self> {
        num_traits::FromPrimitive::from_f64(f)
    }
}

fn int_op(a: &[Term], op: fn(f64) -> f64) -> BifResult {
    match &a[0] {
        Term::Int(_) | Term::Big(_) => Ok(a[0].clone()),
        Term::Float(f) => float_to_int(op(*f)),
        _ => Err(badarg()),
    }
}

fn trunc(a: &[Term]) -> BifResult {
    int_op(a, f64::trunc)
}

fn round(a: &[Term]) -> BifResult {
    // Erlang rounds half away from zero, like Rust's f64::round.
    int_op(a, f64::round)
}

fn floor(a: &[Term]) -> BifResult {
    int_op(a, f64::floor)
}

fn ceil(a: &[Term]) -> BifResult {
    int_op(a, f64::ceil)
}

fn float(a: &[Term]) -> BifResult {
    match &a[0] {
        Term::Float(_) => Ok(a[0].clone()),
        Term::Int(i) => Ok(Term::Float(*i as f64)),
        Term::Big(b) => b
            .to_f64()
            .filter(|f| f.is_finite())
            .map(Term::Float)
            .ok_or_else(badarg),
        _ => Err(badarg()),
    }
}

fn min(a: &[Term]) -> BifResult {
    // On equality the first argument wins (as in erlang:min/2).
    Ok(if compare(&a[1], &a[0]).is_lt() {
        a[1].clone()
    } else {
        a[0].clone()
    })
}

fn max(a: &[Term]) -> BifResult {
    Ok(if compare(&a[1], &a[0]).is_gt() {
        a[1].clone()
    } else {
        a[0].clone()
    })
}

fn map_size(a: &[Term]) -> BifResult {
    match &a[0] {
        Term::Map(m) => Ok(Term::Int(m.len() as i64)),
        other => Err(crate::exception::error_tagged(atom::BADMAP, other.clone())),
    }
}

fn map_get(a: &[Term]) -> BifResult {
    match &a[1] {
        Term::Map(m) => m
            .get(&a[0])
            .cloned()
            .ok_or_else(|| crate::exception::error_tagged(atom::BADKEY, a[0].clone())),
        other => Err(crate::exception::error_tagged(atom::BADMAP, other.clone())),
    }
}

fn is_map_key(a: &[Term]) -> BifResult {
    match &a[1] {
        Term::Map(m) => Ok(Term::bool(m.contains_key(&a[0]))),
        other => Err(crate::exception::error_tagged(atom::BADMAP, other.clone())),
    }
}

fn node0(_: &[Term]) -> BifResult {
    Ok(Term::Atom(atom::NONODE))
}

fn node1(a: &[Term]) -> BifResult {
    match &a[0] {
        Term::Pid(_) | Term::Ref(_) => Ok(Term::Atom(atom::NONODE)),
        _ => Err(badarg()),
    }
}

fn nodes(_: &[Term]) -> BifResult {
    Ok(Term::Nil)
}

fn is_alive(_: &[Term]) -> BifResult {
    Ok(Term::FALSE)
}

fn is_function2(a: &[Term]) -> BifResult {
    match (&a[0], &a[1]) {
        (Term::Fun(f), Term::Int(n)) => Ok(Term::bool(f.arity() as i64 == *n)),
        (_, Term::Int(n)) if *n >= 0 => Ok(Term::FALSE),
        _ => Err(badarg()),
    }
}

fn is_record2(a: &[Term]) -> BifResult {
    let Term::Atom(tag) = &a[1] else {
        return Err(badarg());
    };
    Ok(Term::bool(
        matches!(&a[0], Term::Tuple(t) if matches!(t.elements().first(), Some(Term::Atom(x)) if x == tag)),
    ))
}

fn is_record3(a: &[Term]) -> BifResult {
    let (Term::Atom(tag), Term::Int(n)) = (&a[1], &a[2]) else {
        return Err(badarg());
    };
    Ok(Term::bool(matches!(&a[0], Term::Tuple(t)
        if t.arity() as i64 == *n && matches!(t.elements().first(), Some(Term::Atom(x)) if x == tag))))
}

fn error1(a: &[Term]) -> BifResult {
    Err(Fault::Raise {
        class: Class::Error,
        reason: a[0].clone(),
        trace: None,
    })
}

fn error2(a: &[Term]) -> BifResult {
    error1(a)
}

fn throw(a: &[Term]) -> BifResult {
    Err(Fault::Raise {
        class: Class::Throw,
        reason: a[0].clone(),
        trace: None,
    })
}

fn exit1(a: &[Term]) -> BifResult {
    Err(Fault::Raise {
        class: Class::Exit,
        reason: a[0].clone(),
        trace: None,
    })
}

fn raise3(a: &[Term]) -> BifResult {
    let Term::Atom(c) = &a[0] else {
        return Err(badarg());
    };
    let Some(class) = Class::from_atom(*c) else {
        return Err(badarg());
    };
    if !a[2].is_list() {
        return Err(badarg());
    }
    Err(Fault::Raise {
        class,
        reason: a[1].clone(),
        trace: Some(a[2].clone()),
    })
}

fn apply2(a: &[Term]) -> BifResult {
    let args = a[1].to_vec().ok_or_else(badarg)?;
    Err(Fault::Apply(Apply::Fun(a[0].clone()), args))
}

fn apply3(a: &[Term]) -> BifResult {
    let (Term::Atom(m), Term::Atom(f)) = (&a[0], &a[1]) else {
        return Err(badarg());
    };
    let args = a[2].to_vec().ok_or_else(badarg)?;
    Err(Fault::Apply(Apply::Mfa(*m, *f), args))
}

fn make_tuple2(a: &[Term]) -> BifResult {
    match &a[0] {
        Term::Int(n) if (0..=1 << 24).contains(n) => {
            Ok(Term::tuple(vec![a[1].clone(); *n as usize]))
        }
        _ => Err(badarg()),
    }
}

fn make_tuple3(a: &[Term]) -> BifResult {
    let Term::Int(n) = &a[0] else {
        return Err(badarg());
    };
    if !(0..=1 << 24).contains(n) {
        return Err(badarg());
    }
    let mut v = vec![a[1].clone(); *n as usize];
    for init in a[2].to_vec().ok_or_else(badarg)? {
        let Some([Term::Int(i), val]) = init
            .as_tuple()
            .map(|t| t.to_vec())
            .as_deref()
            .and_then(|s| <[Term; 2]>::try_from(s.to_vec()).ok())
            .clone()
        else {
            return Err(badarg());
        };
        let i = index(&Term::Int(i), v.len())?;
        v[i - 1] = val;
    }
    Ok(Term::tuple(v))
}

fn append_element(a: &[Term]) -> BifResult {
    let Term::Tuple(t) = &a[0] else {
        return Err(badarg());
    };
    let mut v = t.elements().to_vec();
    v.push(a[1].clone());
    Ok(Term::tuple(v))
}

fn delete_element(a: &[Term]) -> BifResult {
    let Term::Tuple(t) = &a[1] else {
        return Err(badarg());
    };
    let i = index(&a[0], t.arity())?;
    let mut v = t.elements().to_vec();
    v.remove(i - 1);
    Ok(Term::tuple(v))
}

fn insert_element(a: &[Term]) -> BifResult {
    let Term::Tuple(t) = &a[1] else {
        return Err(badarg());
    };
    let i = index(&a[0], t.arity() + 1)?;
    let mut v = t.elements().to_vec();
    v.insert(i - 1, a[2].clone());
    Ok(Term::tuple(v))
}

fn make_fun(a: &[Term]) -> BifResult {
    match (&a[0], &a[1], &a[2]) {
        (Term::Atom(m), Term::Atom(f), Term::Int(n)) if (0..=255).contains(n) => {
            Ok(Term::Fun(trace_term::Arc::new(trace_term::Fun::External {
                module: *m,
                function: *f,
                arity: *n as u32,
            })))
        }
        _ => Err(badarg()),
    }
}

fn fun_info(a: &[Term]) -> BifResult {
    let (Term::Fun(f), Term::Atom(item)) = (&a[0], &a[1]) else {
        return Err(badarg());
    };
    let v = match (item.name(), &**f) {
        ("arity", _) => Term::Int(f.arity() as i64),
        ("module", _) => Term::Atom(f.module()),
        ("name", trace_term::Fun::External { function, .. }) => Term::Atom(*function),
        ("type", trace_term::Fun::External { .. }) => Term::Atom(atom::EXTERNAL),
        ("type", trace_term::Fun::Closure { .. }) => Term::Atom(atom::LOCAL),
        ("env", trace_term::Fun::Closure { env, .. }) => Term::list(env.to_vec()),
        ("env", _) => Term::Nil,
        _ => return Err(badarg()),
    };
    Ok(Term::tuple(vec![Term::Atom(*item), v]))
}

/// `DD-Mon-YYYY::HH:MM:SS.uuuuuu` in local time, as BEAM's error reports show.
pub fn local_time_string() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let secs = now.as_secs() as i64;
    let (y, mo, d, h, mi, s) = civil(secs);
    const MON: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    format!(
        "{d:02}-{}-{y:04}::{h:02}:{mi:02}:{s:02}.{:06}",
        MON[(mo - 1) as usize],
        now.subsec_micros()
    )
}

/// UTC calendar fields of a Unix time.
pub fn civil(secs: i64) -> (i64, i64, i64, i64, i64, i64) {
    let days = secs.div_euclid(86400);
    let rem = secs.rem_euclid(86400);
    // Howard Hinnant's days-from-civil inverse.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (
        if m <= 2 { y + 1 } else { y },
        m,
        d,
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
    )
}

/// Helper for built-ins taking an atom.
pub fn atom_arg(t: &Term) -> Result<Atom, Fault> {
    t.as_atom().ok_or_else(badarg)
}

/// `error:badarith`.
pub fn badarith() -> Fault {
    error_atom(atom::BADARITH)
}

/// Builds a tuple from a slice.
pub fn tuple_of(v: &[Term]) -> Term {
    Term::Tuple(Tuple::from_slice(v))
}
