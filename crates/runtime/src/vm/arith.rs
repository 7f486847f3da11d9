//! Arithmetic and list operators with BEAM's number semantics: integers of
//! any size (overflowing into bignums), floats that must stay finite, mixed
//! integer/float arithmetic, and `badarith`/`badarg` where BEAM raises them.

use crate::exception::{badarg, error_atom, Fault};
use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{Signed, ToPrimitive, Zero};
use trace_term::order::int_to_f64;
use trace_term::{atom, Term};

type R = Result<Term, Fault>;

fn badarith() -> Fault {
    error_atom(atom::BADARITH)
}

fn big(t: &Term) -> Option<BigInt> {
    match t {
        Term::Int(i) => Some(BigInt::from(*i)),
        Term::Big(b) => Some((**b).clone()),
        _ => None,
    }
}

fn to_f64(t: &Term) -> Option<f64> {
    match t {
        Term::Float(f) => Some(*f),
        _ => int_to_f64(t),
    }
}

fn float(f: f64) -> R {
    if f.is_finite() {
        Ok(Term::Float(f))
    } else {
        Err(badarith())
    }
}

fn float_op(a: &Term, b: &Term, op: fn(f64, f64) -> f64) -> R {
    match (to_f64(a), to_f64(b)) {
        (Some(x), Some(y)) if a.is_number() && b.is_number() => float(op(x, y)),
        _ => Err(badarith()),
    }
}

fn big_op(a: &Term, b: &Term, op: fn(BigInt, BigInt) -> BigInt) -> R {
    match (big(a), big(b)) {
        (Some(x), Some(y)) => Ok(Term::from_bigint(op(x, y))),
        _ => Err(badarith()),
    }
}

pub fn add(a: &Term, b: &Term) -> R {
    match (a, b) {
        (Term::Int(x), Term::Int(y)) => Ok(match x.checked_add(*y) {
            Some(v) => Term::Int(v),
            None => Term::from_bigint(BigInt::from(*x) + *y),
        }),
        (Term::Float(_), _) | (_, Term::Float(_)) => float_op(a, b, |x, y| x + y),
        _ => big_op(a, b, |x, y| x + y),
    }
}

pub fn sub(a: &Term, b: &Term) -> R {
    match (a, b) {
        (Term::Int(x), Term::Int(y)) => Ok(match x.checked_sub(*y) {
            Some(v) => Term::Int(v),
            None => Term::from_bigint(BigInt::from(*x) - *y),
        }),
        (Term::Float(_), _) | (_, Term::Float(_)) => float_op(a, b, |x, y| x - y),
        _ => big_op(a, b, |x, y| x - y),
    }
}

pub fn mul(a: &Term, b: &Term) -> R {
    match (a, b) {
        (Term::Int(x), Term::Int(y)) => Ok(match x.checked_mul(*y) {
            Some(v) => Term::Int(v),
            None => Term::from_bigint(BigInt::from(*x) * *y),
        }),
        (Term::Float(_), _) | (_, Term::Float(_)) => float_op(a, b, |x, y| x * y),
        _ => big_op(a, b, |x, y| x * y),
    }
}

/// `/`: always a float.
pub fn fdiv(a: &Term, b: &Term) -> R {
    match (to_f64(a), to_f64(b)) {
        (Some(_), Some(0.0)) => Err(badarith()), // also -0.0
        (Some(x), Some(y)) if a.is_number() && b.is_number() => float(x / y),
        _ => Err(badarith()),
    }
}

/// `div`: integer division truncating toward zero.
pub fn idiv(a: &Term, b: &Term) -> R {
    match (a, b) {
        (Term::Int(_), Term::Int(0)) => Err(badarith()),
        (Term::Int(x), Term::Int(y)) => Ok(match x.checked_div(*y) {
            Some(v) => Term::Int(v),
            None => Term::from_bigint(BigInt::from(*x) / *y),
        }),
        _ => match (big(a), big(b)) {
            (Some(_), Some(y)) if y.is_zero() => Err(badarith()),
            (Some(x), Some(y)) => Ok(Term::from_bigint(x / y)),
            _ => Err(badarith()),
        },
    }
}

/// `rem`: the remainder has the sign of the dividend.
pub fn rem(a: &Term, b: &Term) -> R {
    match (a, b) {
        (Term::Int(_), Term::Int(0)) => Err(badarith()),
        (Term::Int(x), Term::Int(y)) => Ok(Term::Int(x.checked_rem(*y).unwrap_or(0))),
        _ => match (big(a), big(b)) {
            (Some(_), Some(y)) if y.is_zero() => Err(badarith()),
            (Some(x), Some(y)) => Ok(Term::from_bigint(x % y)),
            _ => Err(badarith()),
        },
    }
}

pub fn band(a: &Term, b: &Term) -> R {
    match (a, b) {
        (Term::Int(x), Term::Int(y)) => Ok(Term::Int(x & y)),
        _ => big_op(a, b, |x, y| x & y),
    }
}

pub fn bor(a: &Term, b: &Term) -> R {
    match (a, b) {
        (Term::Int(x), Term::Int(y)) => Ok(Term::Int(x | y)),
        _ => big_op(a, b, |x, y| x | y),
    }
}

pub fn bxor(a: &Term, b: &Term) -> R {
    match (a, b) {
        (Term::Int(x), Term::Int(y)) => Ok(Term::Int(x ^ y)),
        _ => big_op(a, b, |x, y| x ^ y),
    }
}

/// Shift amounts beyond this would build absurdly large integers.
const MAX_SHIFT: i64 = 1 << 26;

pub fn bsl(a: &Term, b: &Term) -> R {
    let Some(n) = b.as_int() else {
        return if a.is_integer() && b.is_integer() {
            Err(error_atom(atom::SYSTEM_LIMIT))
        } else {
            Err(badarith())
        };
    };
    shift(a, n)
}

pub fn bsr(a: &Term, b: &Term) -> R {
    let Some(n) = b.as_int() else {
        return if a.is_integer() && b.is_integer() {
            Err(error_atom(atom::SYSTEM_LIMIT))
        } else {
            Err(badarith())
        };
    };
    shift(a, n.checked_neg().unwrap_or(i64::MAX))
}

/// Shifts left by `n` (right when negative), with floor semantics.
fn shift(a: &Term, n: i64) -> R {
    if n > MAX_SHIFT {
        return if a.is_integer() {
            if matches!(a, Term::Int(0)) {
                Ok(Term::Int(0))
            } else {
                Err(error_atom(atom::SYSTEM_LIMIT))
            }
        } else {
            Err(badarith())
        };
    }
    match a {
        Term::Int(x) => {
            if n >= 0 {
                if n < 63 {
                    let r = (*x as i128) << n;
                    if let Ok(v) = i64::try_from(r) {
                        return Ok(Term::Int(v));
                    }
                }
                Ok(Term::from_bigint(BigInt::from(*x) << (n as usize)))
            } else {
                let s = (-n).min(63);
                Ok(Term::Int(x >> s))
            }
        }
        Term::Big(x) => {
            if n >= 0 {
                Ok(Term::from_bigint((**x).clone() << (n as usize)))
            } else {
                let s = (-n) as u64;
                // Arithmetic shift (floor) for negative numbers.
                let v: BigInt = (**x).clone();
                let r = if v.is_negative() {
                    let d = BigInt::from(1) << (s as usize);
                    v.div_floor(&d)
                } else {
                    v >> (s as usize)
                };
                Ok(Term::from_bigint(r))
            }
        }
        _ => Err(badarith()),
    }
}

pub fn neg(a: &Term) -> R {
    match a {
        Term::Int(x) => Ok(match x.checked_neg() {
            Some(v) => Term::Int(v),
            None => Term::from_bigint(-BigInt::from(*x)),
        }),
        Term::Big(b) => Ok(Term::from_bigint(-(**b).clone())),
        Term::Float(f) => Ok(Term::Float(-f)),
        _ => Err(badarith()),
    }
}

pub fn plus(a: &Term) -> R {
    if a.is_number() {
        Ok(a.clone())
    } else {
        Err(badarith())
    }
}

pub fn bnot(a: &Term) -> R {
    match a {
        Term::Int(x) => Ok(Term::Int(!x)),
        Term::Big(b) => Ok(Term::from_bigint(-(**b).clone() - 1)),
        _ => Err(badarith()),
    }
}

fn as_bool(t: &Term) -> Option<bool> {
    match t {
        Term::Atom(atom::TRUE) => Some(true),
        Term::Atom(atom::FALSE) => Some(false),
        _ => None,
    }
}

pub fn and(a: &Term, b: &Term) -> R {
    match (as_bool(a), as_bool(b)) {
        (Some(x), Some(y)) => Ok(Term::bool(x && y)),
        _ => Err(badarg()),
    }
}

pub fn or(a: &Term, b: &Term) -> R {
    match (as_bool(a), as_bool(b)) {
        (Some(x), Some(y)) => Ok(Term::bool(x || y)),
        _ => Err(badarg()),
    }
}

pub fn xor(a: &Term, b: &Term) -> R {
    match (as_bool(a), as_bool(b)) {
        (Some(x), Some(y)) => Ok(Term::bool(x ^ y)),
        _ => Err(badarg()),
    }
}

pub fn not(a: &Term) -> R {
    match as_bool(a) {
        Some(x) => Ok(Term::bool(!x)),
        None => Err(badarg()),
    }
}

/// `A ++ B`: A must be a proper list.
pub fn append(a: &Term, b: &Term) -> R {
    if let Term::Nil = a {
        return Ok(b.clone());
    }
    if a.list_len().is_none() {
        return Err(badarg());
    }
    Ok(Term::list_from_iter(a.list_iter().cloned(), b.clone()))
}

/// `A -- B`: removes, for each element of B, its first occurrence in A.
pub fn subtract(a: &Term, b: &Term) -> R {
    let (Some(mut xs), Some(ys)) = (a.to_vec(), b.to_vec()) else {
        return Err(badarg());
    };
    if ys.is_empty() {
        return Ok(a.clone());
    }
    if xs.len().saturating_mul(ys.len()) <= 4096 {
        for y in &ys {
            if let Some(i) = xs.iter().position(|x| trace_term::order::exact_eq(x, y)) {
                xs.remove(i);
            }
        }
        return Ok(Term::list(xs));
    }
    // Large inputs: count what to remove, then drop first occurrences in one pass.
    let mut counts: std::collections::BTreeMap<trace_term::map::MapKey, usize> = Default::default();
    for y in ys {
        *counts.entry(trace_term::map::MapKey(y)).or_default() += 1;
    }
    let mut out = Vec::with_capacity(xs.len());
    for x in xs {
        let k = trace_term::map::MapKey(x);
        match counts.get_mut(&k) {
            Some(c) if *c > 0 => *c -= 1,
            _ => out.push(k.0),
        }
    }
    Ok(Term::list(out))
}

/// Integer value as i64 if it fits.
pub fn small(t: &Term) -> Option<i64> {
    match t {
        Term::Int(i) => Some(*i),
        Term::Big(b) => b.to_i64(),
        _ => None,
    }
}

/// `+ - * /` when both operands are floats, or a float and an integer that
/// converts exactly, or `/` of two such integers; `None` sends the operation
/// to the general path (which also raises `badarith` for results that are
/// not finite).
#[inline(always)]
pub fn fast_float(op: crate::ir::Op2, x: &Term, y: &Term) -> Option<f64> {
    use crate::ir::Op2;
    const EXACT: u64 = 1 << 53;
    let (a, b) = match (x, y) {
        (Term::Float(a), Term::Float(b)) => (*a, *b),
        (Term::Float(a), Term::Int(b)) if b.unsigned_abs() <= EXACT => (*a, *b as f64),
        (Term::Int(a), Term::Float(b)) if a.unsigned_abs() <= EXACT => (*a as f64, *b),
        (Term::Int(a), Term::Int(b))
            if op == Op2::FDiv && a.unsigned_abs() <= EXACT && b.unsigned_abs() <= EXACT =>
        {
            (*a as f64, *b as f64)
        }
        _ => return None,
    };
    let r = match op {
        Op2::Add => a + b,
        Op2::Sub => a - b,
        Op2::Mul => a * b,
        Op2::FDiv if b != 0.0 => a / b,
        _ => return None,
    };
    r.is_finite().then_some(r)
}
