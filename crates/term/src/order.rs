//! Erlang's term order and its two equalities.
//!
//! `number < atom < reference < fun < port < pid < tuple < map < nil < list < bitstring`.
//! [`compare`] is the order of `<`, `==` and `lists:sort`: an integer and a float
//! of the same value are equal. [`cmp_exact`] is the total order of `=:=` and
//! of map keys: there every integer sorts before every float, as in BEAM.

use crate::term::Term;
use num_bigint::BigInt;
use num_traits::{FromPrimitive, ToPrimitive};
use std::cmp::Ordering;

fn class(t: &Term) -> u8 {
    match t {
        Term::Int(_) | Term::Big(_) | Term::Float(_) => 0,
        Term::Atom(_) => 1,
        Term::Ref(_) => 2,
        Term::Fun(_) => 3,
        Term::Pid(_) => 5,
        Term::Tuple(_) => 6,
        Term::Map(_) => 7,
        Term::Nil => 8,
        Term::Cons(_) => 9,
        Term::Binary(_) => 10,
    }
}

/// Compares an integer with a float by mathematical value.
fn cmp_int_float(i: i64, f: f64) -> Ordering {
    const TWO53: i64 = 1 << 53;
    if (-TWO53..=TWO53).contains(&i) {
        return (i as f64).partial_cmp(&f).unwrap_or(Ordering::Equal);
    }
    cmp_big_float(&BigInt::from(i), f)
}

fn cmp_big_float(b: &BigInt, f: f64) -> Ordering {
    if f.is_infinite() {
        return if f > 0.0 {
            Ordering::Less
        } else {
            Ordering::Greater
        };
    }
    // Compare against the float's integer part; a fractional part breaks ties.
    let fi = f.trunc();
    match BigInt::from_f64(fi) {
        Some(fb) => match b.cmp(&fb) {
            Ordering::Equal => 0.0f64.partial_cmp(&(f - fi)).unwrap_or(Ordering::Equal),
            o => o,
        },
        None => Ordering::Equal,
    }
}

/// Numeric comparison (`==` semantics across integers and floats).
pub fn cmp_numbers(a: &Term, b: &Term) -> Ordering {
    match (a, b) {
        (Term::Int(x), Term::Int(y)) => x.cmp(y),
        (Term::Float(x), Term::Float(y)) => x.partial_cmp(y).unwrap_or(Ordering::Equal),
        (Term::Int(x), Term::Float(y)) => cmp_int_float(*x, *y),
        (Term::Float(x), Term::Int(y)) => cmp_int_float(*y, *x).reverse(),
        (Term::Big(x), Term::Big(y)) => x.as_ref().cmp(y.as_ref()),
        (Term::Big(x), Term::Int(y)) => x.as_ref().cmp(&BigInt::from(*y)),
        (Term::Int(x), Term::Big(y)) => BigInt::from(*x).cmp(y.as_ref()),
        (Term::Big(x), Term::Float(y)) => cmp_big_float(x, *y),
        (Term::Float(x), Term::Big(y)) => cmp_big_float(y, *x).reverse(),
        _ => unreachable!("cmp_numbers on non-numbers"),
    }
}

/// Term order as used by comparison operators and `lists:sort`.
#[inline]
pub fn compare(a: &Term, b: &Term) -> Ordering {
    // Two small integers, the commonest comparison of a sort, need neither
    // the classes of the order nor the walk along lists.
    if let (Term::Int(x), Term::Int(y)) = (a, b) {
        return x.cmp(y);
    }
    cmp_with(a, b, false)
}

/// The exact total order: like [`compare`] but `1 < 1.0`. Consistent with `=:=`.
pub fn cmp_exact(a: &Term, b: &Term) -> Ordering {
    cmp_with(a, b, true)
}

/// `==`.
pub fn eq(a: &Term, b: &Term) -> bool {
    compare(a, b) == Ordering::Equal
}

/// `=:=`.
pub fn exact_eq(a: &Term, b: &Term) -> bool {
    match (a, b) {
        (Term::Int(x), Term::Int(y)) => x == y,
        (Term::Atom(x), Term::Atom(y)) => x == y,
        (Term::Nil, Term::Nil) => true,
        _ => cmp_exact(a, b) == Ordering::Equal,
    }
}

fn cmp_with(a: &Term, b: &Term, exact: bool) -> Ordering {
    // Lists are compared iteratively along their spine; everything else recurses.
    let (mut a, mut b) = (a, b);
    loop {
        match (a, b) {
            (Term::Cons(x), Term::Cons(y)) => {
                if std::ptr::eq(x.as_ref(), y.as_ref()) {
                    return Ordering::Equal;
                }
                match cmp_with(&x.head, &y.head, exact) {
                    Ordering::Equal => {
                        a = &x.tail;
                        b = &y.tail;
                        continue;
                    }
                    o => return o,
                }
            }
            _ => return cmp_scalar(a, b, exact),
        }
    }
}

fn cmp_scalar(a: &Term, b: &Term, exact: bool) -> Ordering {
    let (ca, cb) = (class(a), class(b));
    if ca != cb {
        return ca.cmp(&cb);
    }
    match (a, b) {
        (Term::Atom(x), Term::Atom(y)) => x.cmp_by_name(*y),
        (Term::Nil, Term::Nil) => Ordering::Equal,
        (Term::Pid(x), Term::Pid(y)) => x.cmp(y),
        (Term::Ref(x), Term::Ref(y)) => x.cmp(y),
        (Term::Tuple(x), Term::Tuple(y)) => {
            if x.ptr_eq(y) {
                return Ordering::Equal;
            }
            let (xs, ys) = (x.elements(), y.elements());
            xs.len()
                .cmp(&ys.len())
                .then_with(|| cmp_slices(xs, ys, exact))
        }
        (Term::Map(x), Term::Map(y)) => {
            // Maps: by size, then keys in key order, then values in key order.
            x.len()
                .cmp(&y.len())
                .then_with(|| {
                    for (kx, ky) in x.keys().zip(y.keys()) {
                        match cmp_with(kx, ky, true) {
                            Ordering::Equal => {}
                            o => return o,
                        }
                    }
                    Ordering::Equal
                })
                .then_with(|| {
                    for (vx, vy) in x.values().zip(y.values()) {
                        match cmp_with(vx, vy, exact) {
                            Ordering::Equal => {}
                            o => return o,
                        }
                    }
                    Ordering::Equal
                })
        }
        (Term::Binary(x), Term::Binary(y)) => {
            let (bx, by) = (x.bytes(), y.bytes());
            if x.is_binary() && y.is_binary() {
                return bx.cmp(by);
            }
            // Bit by bit; a proper prefix is smaller.
            let n = x.bit_len().min(y.bit_len());
            for i in 0..n {
                match x.bit(i).cmp(&y.bit(i)) {
                    Ordering::Equal => {}
                    o => return o,
                }
            }
            x.bit_len().cmp(&y.bit_len())
        }
        (Term::Fun(x), Term::Fun(y)) => cmp_funs(x, y, exact),
        _ if ca == 0 => {
            let fa = matches!(a, Term::Float(_));
            let fb = matches!(b, Term::Float(_));
            if exact && fa != fb {
                // Map key order (BEAM's exact comparison): every integer
                // before every float, whatever their values.
                return fa.cmp(&fb);
            }
            cmp_numbers(a, b)
        }
        _ => unreachable!("same class, different kinds"),
    }
}

fn cmp_slices(xs: &[Term], ys: &[Term], exact: bool) -> Ordering {
    for (x, y) in xs.iter().zip(ys) {
        match cmp_with(x, y, exact) {
            Ordering::Equal => {}
            o => return o,
        }
    }
    xs.len().cmp(&ys.len())
}

fn cmp_funs(x: &crate::fun::Fun, y: &crate::fun::Fun, exact: bool) -> Ordering {
    use crate::fun::Fun;
    match (x, y) {
        (
            Fun::Closure {
                module: m1,
                index: i1,
                uniq: u1,
                env: e1,
                ..
            },
            Fun::Closure {
                module: m2,
                index: i2,
                uniq: u2,
                env: e2,
                ..
            },
        ) => m1
            .cmp_by_name(*m2)
            .then(i1.cmp(i2))
            .then(u1.cmp(u2))
            .then_with(|| cmp_slices(e1, e2, exact)),
        (
            Fun::External {
                module: m1,
                function: f1,
                arity: a1,
            },
            Fun::External {
                module: m2,
                function: f2,
                arity: a2,
            },
        ) => m1
            .cmp_by_name(*m2)
            .then(f1.cmp_by_name(*f2))
            .then(a1.cmp(a2)),
        // Local funs sort before external ones, as in BEAM.
        (Fun::Closure { .. }, Fun::External { .. }) => Ordering::Less,
        (Fun::External { .. }, Fun::Closure { .. }) => Ordering::Greater,
    }
}

/// Converts an integer term to f64 (for mixed arithmetic); `None` when too large.
pub fn int_to_f64(t: &Term) -> Option<f64> {
    match t {
        Term::Int(i) => Some(*i as f64),
        Term::Big(b) => b.to_f64().filter(|f| f.is_finite()),
        _ => None,
    }
}

impl PartialEq for Term {
    /// Exact equality (`=:=`).
    fn eq(&self, other: &Term) -> bool {
        exact_eq(self, other)
    }
}

impl Eq for Term {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::{Pid, Ref};

    fn t(i: i64) -> Term {
        Term::Int(i)
    }

    #[test]
    fn classes_are_ordered_as_in_erlang() {
        let ordered = vec![
            t(1),
            Term::atom("a"),
            Term::Ref(Ref(1)),
            Term::Pid(Pid(1)),
            Term::tuple(vec![]),
            Term::Map(triomphe::Arc::new(crate::map::MapRepr::new())),
            Term::Nil,
            Term::list(vec![t(1)]),
            Term::binary(b""),
        ];
        for w in ordered.windows(2) {
            assert_eq!(
                compare(&w[0], &w[1]),
                Ordering::Less,
                "{:?} < {:?}",
                w[0],
                w[1]
            );
        }
    }

    #[test]
    fn numbers_compare_by_value_and_exactly() {
        assert_eq!(compare(&t(1), &Term::Float(1.0)), Ordering::Equal);
        assert!(!exact_eq(&t(1), &Term::Float(1.0)));
        assert_eq!(cmp_exact(&t(1), &Term::Float(1.0)), Ordering::Less);
        // As map keys, integers come before floats whatever the values.
        assert_eq!(cmp_exact(&t(10), &Term::Float(-3.0)), Ordering::Less);
        assert_eq!(
            cmp_exact(&Term::Float(1.5), &Term::Float(-3.0)),
            Ordering::Greater
        );
        assert_eq!(compare(&t(2), &Term::Float(1.5)), Ordering::Greater);
        let big = Term::from_bigint(BigInt::from(1u64 << 63) * 4);
        assert_eq!(compare(&big, &Term::Float(1e30)), Ordering::Less);
        assert_eq!(compare(&big, &Term::Float(1e10)), Ordering::Greater);
        assert_eq!(compare(&big, &t(i64::MAX)), Ordering::Greater);
        assert_eq!(
            compare(&t((1 << 60) + 1), &Term::Float((1u64 << 60) as f64)),
            Ordering::Greater
        );
    }

    #[test]
    fn tuples_by_size_first_lists_lexicographic() {
        let a = Term::tuple(vec![t(9)]);
        let b = Term::tuple(vec![t(1), t(1)]);
        assert_eq!(compare(&a, &b), Ordering::Less);
        let l1 = Term::list(vec![t(1), t(2)]);
        let l2 = Term::list(vec![t(1), t(2), t(0)]);
        assert_eq!(compare(&l1, &l2), Ordering::Less);
        assert_eq!(
            compare(&Term::atom("abc"), &Term::atom("abd")),
            Ordering::Less
        );
    }

    #[test]
    fn bitstrings_prefix_is_smaller() {
        let a = Term::binary(b"ab");
        let b = Term::binary(b"abc");
        assert_eq!(compare(&a, &b), Ordering::Less);
    }
}
