//! `update_counter` and `update_element`: the new object an update makes
//! from the old one, checked whole before anything changes (a list of
//! updates with one bad entry changes nothing), with BEAM's `badarg`s.

use crate::exception::{badarg, Fault};
use crate::vm::arith;
use trace_term::order::compare;
use trace_term::{Term, Tuple};

/// One counter update: position, increment, and an optional
/// `{Threshold, SetValue}` that resets the counter when it passes the
/// threshold (above it for an increment of 0 or more, below it otherwise).
struct CounterOp {
    pos: usize,
    incr: Term,
    reset: Option<(Term, Term)>,
}

/// One update of `update_counter/3,4`'s third argument.
fn counter_op(t: &Term, keypos: usize) -> Result<CounterOp, Fault> {
    if t.is_integer() {
        return Ok(CounterOp {
            pos: keypos + 1,
            incr: t.clone(),
            reset: None,
        });
    }
    let pos = |p: &Term| match p {
        Term::Int(i) if *i >= 1 => Ok(*i as usize),
        _ => Err(badarg()),
    };
    match t.as_tuple() {
        Some([p, incr]) if incr.is_integer() => Ok(CounterOp {
            pos: pos(p)?,
            incr: incr.clone(),
            reset: None,
        }),
        Some([p, incr, thr, set]) if incr.is_integer() && thr.is_integer() && set.is_integer() => {
            Ok(CounterOp {
                pos: pos(p)?,
                incr: incr.clone(),
                reset: Some((thr.clone(), set.clone())),
            })
        }
        _ => Err(badarg()),
    }
}

/// The counter at `op.pos` of `elems` after `op`.
fn bump(elems: &[Term], op: CounterOp, keypos: usize) -> Result<Term, Fault> {
    if op.pos == keypos || op.pos > elems.len() {
        return Err(badarg());
    }
    let old = &elems[op.pos - 1];
    if !old.is_integer() {
        return Err(badarg());
    }
    let new = arith::add(old, &op.incr).map_err(|_| badarg())?;
    let Some((thr, set)) = op.reset else {
        return Ok(new);
    };
    let up = !compare(&op.incr, &Term::Int(0)).is_lt();
    let passed = if up {
        compare(&new, &thr).is_gt()
    } else {
        compare(&new, &thr).is_lt()
    };
    Ok(if passed { set } else { new })
}

/// Applies `update_counter`'s `spec` to `obj`: the new object and the
/// result to return.
pub fn counter(obj: &Term, spec: &Term, keypos: usize) -> Result<(Term, Term), Fault> {
    let elems = obj.as_tuple().ok_or_else(badarg)?;
    if !spec.is_list() {
        // One update, the common case: the new object in one allocation.
        let op = counter_op(spec, keypos)?;
        let at = op.pos - 1;
        let new = bump(elems, op, keypos)?;
        let obj = Tuple::from_iter(elems.iter().enumerate().map(|(i, e)| {
            if i == at {
                new.clone()
            } else {
                e.clone()
            }
        }));
        return Ok((Term::Tuple(obj), new));
    }
    let ops = spec.to_vec().ok_or_else(badarg)?;
    let mut elems = elems.to_vec();
    let mut results = Vec::with_capacity(ops.len());
    for t in &ops {
        let op = counter_op(t, keypos)?;
        let at = op.pos - 1;
        let new = bump(&elems, op, keypos)?;
        results.push(new.clone());
        elems[at] = new;
    }
    Ok((Term::tuple(elems), Term::list(results)))
}

/// The object `update_counter/4` starts from when `key` is missing: the
/// default object with `key` put at the key position.
pub fn default_object(default: &Term, key: &Term, keypos: usize) -> Result<Term, Fault> {
    let mut elems = default.as_tuple().ok_or_else(badarg)?.to_vec();
    let slot = elems.get_mut(keypos - 1).ok_or_else(badarg)?;
    *slot = key.clone();
    Ok(Term::tuple(elems))
}

/// Applies `update_element`'s `spec` (`{Pos, Value}` or a list of them) to `obj`.
pub fn element(obj: &Term, spec: &Term, keypos: usize) -> Result<Term, Fault> {
    let items = if spec.is_list() {
        spec.to_vec().ok_or_else(badarg)?
    } else {
        vec![spec.clone()]
    };
    let mut elems = obj.as_tuple().ok_or_else(badarg)?.to_vec();
    for it in &items {
        let Some([Term::Int(p), v]) = it.as_tuple() else {
            return Err(badarg());
        };
        let p = usize::try_from(*p).map_err(|_| badarg())?;
        if p == 0 || p == keypos || p > elems.len() {
            return Err(badarg());
        }
        elems[p - 1] = v.clone();
    }
    Ok(Term::tuple(elems))
}
