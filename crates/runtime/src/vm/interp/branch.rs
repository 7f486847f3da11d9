//! Tests and jumps: comparisons and type tests that fall through when true
//! and jump to their `fail` label when false, and jumps and switches.

use super::{Flow, Vm};
use crate::ir::{Cmp, Instr, Slot, SwitchKind, TypeTest};
use std::cmp::Ordering;
use trace_term::order::{compare, exact_eq};
use trace_term::{atom, Atom, Term};

/// `Compare`: `a cmp b`.
#[inline(always)]
pub(super) fn test_compare(vm: &mut Vm<'_>, cmp: Cmp, a: Slot, b: Slot, fail: u32) -> Flow {
    let ok = compare_op(cmp, vm.reg(a), vm.reg(b));
    vm.test(ok, fail)
}

/// `CompareInt`: `a cmp imm`, the small-integer case inline.
#[inline(always)]
pub(super) fn test_compare_int(vm: &mut Vm<'_>, cmp: Cmp, a: Slot, imm: i32, fail: u32) -> Flow {
    let ok = match vm.reg(a) {
        Term::Int(x) => small_int(cmp, *x, imm),
        other => compare_op(cmp, other, &Term::Int(imm as i64)),
    };
    vm.test(ok, fail)
}

/// `LtInt`, `LeInt`, `GtInt`, `GeInt` (`cmp` a constant at each use, so its
/// match folds away): a small integer inline, anything else out of the loop.
#[inline(always)]
pub(super) fn test_order_int(
    vm: &mut Vm<'_>,
    cmp: Cmp,
    a: Slot,
    imm: i32,
    fail: u32,
    ins: &Instr,
) -> Flow {
    let Term::Int(x) = *vm.reg(a) else {
        return super::cold(vm, ins);
    };
    vm.test(small_int(cmp, x, imm), fail)
}

/// `x cmp imm` on a small integer.
#[inline(always)]
fn small_int(cmp: Cmp, x: i64, imm: i32) -> bool {
    let o = x.cmp(&(imm as i64));
    match cmp {
        Cmp::Eq | Cmp::ExactEq => o.is_eq(),
        Cmp::Neq | Cmp::ExactNeq => o.is_ne(),
        Cmp::Lt => o.is_lt(),
        Cmp::Le => o.is_le(),
        Cmp::Gt => o.is_gt(),
        Cmp::Ge => o.is_ge(),
    }
}

/// `TestType`: a type test of the guard BIFs.
#[inline(always)]
pub(super) fn test_type(vm: &mut Vm<'_>, test: TypeTest, a: Slot, fail: u32) -> Flow {
    let ok = type_test(test, vm.reg(a));
    vm.test(ok, fail)
}

/// `TestAtom`: `a =:= atom`.
#[inline(always)]
pub(super) fn test_atom(vm: &mut Vm<'_>, a: Slot, atom: Atom, fail: u32) -> Flow {
    let ok = matches!(vm.reg(a), Term::Atom(x) if *x == atom);
    vm.test(ok, fail)
}

/// `TestInt`: `a =:= val`, a small integer.
#[inline(always)]
pub(super) fn test_int(vm: &mut Vm<'_>, a: Slot, val: i64, fail: u32) -> Flow {
    let ok = matches!(vm.reg(a), Term::Int(x) if *x == val);
    vm.test(ok, fail)
}

/// `TestInt2`: `a =:= first` falls through, `a =:= second` goes to
/// `then`, anything else to `fail`.
#[inline(always)]
pub(super) fn test_int2(vm: &mut Vm<'_>, a: Slot, vals: [i32; 2], then: u32, fail: u32) -> Flow {
    let to = match *vm.reg(a) {
        Term::Int(x) if x == vals[0] as i64 => return Flow::Go,
        Term::Int(x) if x == vals[1] as i64 => then,
        _ => fail,
    };
    vm.goto(to);
    Flow::Go
}

/// `TestLit`: `a =:= lit`.
#[inline(always)]
pub(super) fn test_lit(vm: &mut Vm<'_>, a: Slot, lit: u32, fail: u32) -> Flow {
    let ok = exact_eq(vm.reg(a), &vm.env.prog.literals[lit as usize]);
    vm.test(ok, fail)
}

/// `TestTuple`: a tuple of `arity`.
#[inline(always)]
pub(super) fn test_tuple(vm: &mut Vm<'_>, a: Slot, arity: u16, fail: u32) -> Flow {
    let ok = matches!(vm.reg(a), Term::Tuple(t) if t.arity() == arity as usize);
    vm.test(ok, fail)
}

/// `TestRecord`: a tuple of `arity` whose first element is `tag`.
#[inline(always)]
pub(super) fn test_record(vm: &mut Vm<'_>, a: Slot, tag: Atom, arity: u16, fail: u32) -> Flow {
    let ok = match vm.reg(a) {
        Term::Tuple(t) => {
            t.arity() == arity as usize
                && matches!(t.elements().first(), Some(Term::Atom(x)) if *x == tag)
        }
        _ => false,
    };
    vm.test(ok, fail)
}

/// `TestCons`: a non-empty list.
#[inline(always)]
pub(super) fn test_cons(vm: &mut Vm<'_>, a: Slot, fail: u32) -> Flow {
    let ok = matches!(vm.reg(a), Term::Cons(_));
    vm.test(ok, fail)
}

/// `TestNil`: `[]`.
#[inline(always)]
pub(super) fn test_nil(vm: &mut Vm<'_>, a: Slot, fail: u32) -> Flow {
    let ok = matches!(vm.reg(a), Term::Nil);
    vm.test(ok, fail)
}

/// `TestMap`: a map.
#[inline(always)]
pub(super) fn test_map(vm: &mut Vm<'_>, a: Slot, fail: u32) -> Flow {
    let ok = matches!(vm.reg(a), Term::Map(_));
    vm.test(ok, fail)
}

/// `TestFunArity`: `is_function(a, arity)`.
#[inline(always)]
pub(super) fn test_fun_arity(vm: &mut Vm<'_>, a: Slot, arity: Slot, fail: u32) -> Flow {
    let ok = match (vm.reg(a), vm.reg(arity)) {
        (Term::Fun(f), Term::Int(n)) => f.arity() as i64 == *n,
        _ => false,
    };
    vm.test(ok, fail)
}

/// `Jump`.
#[inline(always)]
pub(super) fn jump(vm: &mut Vm<'_>, to: u32) -> Flow {
    vm.goto(to);
    Flow::Go
}

/// `Switch`: a multi-way branch on an atom, integer or tuple arity (its
/// table in the arena's, labels relative as the instructions' are).
#[inline(always)]
pub(super) fn switch(vm: &mut Vm<'_>, a: Slot, table: u32) -> Flow {
    let sw = &vm.env.prog.arena_switches[table as usize];
    let key = match (sw.kind, vm.reg(a)) {
        (SwitchKind::Atom, Term::Atom(x)) => Some(x.index() as i64),
        (SwitchKind::Int, Term::Int(i)) => Some(*i),
        (SwitchKind::TupleArity, Term::Tuple(t)) => Some(t.arity() as i64),
        _ => None,
    };
    let to = key
        .and_then(|k| sw.cases.binary_search_by_key(&k, |c| c.0).ok())
        .map(|i| sw.cases[i].1)
        .unwrap_or(sw.default);
    vm.goto(to);
    Flow::Go
}

/// Whether `x cmp y` holds.
#[inline(always)]
fn compare_op(cmp: Cmp, x: &Term, y: &Term) -> bool {
    match cmp {
        Cmp::ExactEq => match (x, y) {
            (Term::Int(i), Term::Int(j)) => i == j,
            (Term::Atom(i), Term::Atom(j)) => i == j,
            _ => exact_eq(x, y),
        },
        Cmp::ExactNeq => !exact_eq(x, y),
        Cmp::Eq => compare(x, y).is_eq(),
        Cmp::Neq => !compare(x, y).is_eq(),
        Cmp::Lt => in_order(x, y, Ordering::is_lt),
        Cmp::Le => in_order(x, y, Ordering::is_le),
        Cmp::Gt => in_order(x, y, Ordering::is_gt),
        Cmp::Ge => in_order(x, y, Ordering::is_ge),
    }
}

/// Whether `x` and `y` stand in an order `holds` accepts, with the number
/// cases decided inline: the loop's comparisons are mostly of those.
/// (`holds` is generic, not a function pointer, so each use is compiled
/// with its own test: no indirect call.)
#[inline(always)]
fn in_order(x: &Term, y: &Term, holds: impl Fn(Ordering) -> bool) -> bool {
    match (x, y) {
        (Term::Int(i), Term::Int(j)) => holds(i.cmp(j)),
        // No NaN in Erlang; were there one, no order holds, as with `<`.
        (Term::Float(i), Term::Float(j)) => i.partial_cmp(j).is_some_and(&holds),
        _ => holds(compare(x, y)),
    }
}

fn type_test(t: TypeTest, v: &Term) -> bool {
    match t {
        TypeTest::Integer => v.is_integer(),
        TypeTest::Float => matches!(v, Term::Float(_)),
        TypeTest::Number => v.is_number(),
        TypeTest::Atom => matches!(v, Term::Atom(_)),
        TypeTest::Boolean => matches!(v, Term::Atom(atom::TRUE | atom::FALSE)),
        TypeTest::Tuple => matches!(v, Term::Tuple(_)),
        TypeTest::List => v.is_list(),
        TypeTest::Map => matches!(v, Term::Map(_)),
        TypeTest::Binary => matches!(v, Term::Binary(b) if b.is_binary()),
        TypeTest::Bitstring => matches!(v, Term::Binary(_)),
        TypeTest::Function => matches!(v, Term::Fun(_)),
        TypeTest::Pid => matches!(v, Term::Pid(_)),
        TypeTest::Reference => matches!(v, Term::Ref(_)),
        TypeTest::Port => false,
        TypeTest::Record => {
            matches!(v, Term::Tuple(t) if matches!(t.elements().first(), Some(Term::Atom(_))))
        }
    }
}
