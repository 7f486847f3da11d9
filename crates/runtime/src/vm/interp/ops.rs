//! Operators: arithmetic, bit operations, comparisons as values, boolean
//! operators and list `++`/`--`; the small-integer and float cases inline.

use super::{put_float, put_int, Flow, Next, Vm};
use crate::exception::Fault;
use crate::ir::{Instr, Op1, Op2, Slot};
use crate::vm::{arith, raise};
use trace_term::order::{compare, exact_eq};
use trace_term::Term;

/// `AddImm`: `a + imm`, small integers inline.
#[inline(always)]
pub(super) fn add_imm(vm: &mut Vm<'_>, dst: Slot, a: Slot, imm: i32, fail: u32) -> Flow {
    if let Term::Int(x) = vm.reg(a) {
        if let Some(v) = x.checked_add(imm as i64) {
            put_int(vm.reg_mut(dst), v);
            return Flow::Go;
        }
    }
    match arith::add(vm.reg(a), &Term::Int(imm as i64)) {
        Ok(v) => {
            vm.reg_mut(dst).set(v);
            Flow::Go
        }
        Err(f) => {
            let f = match f {
                // BEAM reports badarith with the original operands.
                Fault::Error(_) if imm >= 0 => f,
                other => other,
            };
            if vm.fail_to(fail) {
                return Flow::Go;
            }
            let e = raise::op_error(vm.p, vm.env.prog, vm.fun(), vm.pc(), f);
            vm.slow(Next::Raise(e))
        }
    }
}

/// `AddImmCall` and `AddImmTailCall`: `a + imm`, then the call after it
/// (`call_next`) with no dispatch between them; other than small integers,
/// the sum goes out of the loop (as `AddImm`) and the call is dispatched as
/// usual.
#[inline(always)]
pub(super) fn add_imm_call(
    vm: &mut Vm<'_>,
    dst: Slot,
    a: Slot,
    imm: i32,
    ins: &Instr,
    call_next: impl FnOnce(&mut Vm<'_>) -> Flow,
) -> Flow {
    if let Term::Int(x) = vm.reg(a) {
        if let Some(v) = x.checked_add(imm as i64) {
            put_int(vm.reg_mut(dst), v);
            return call_next(vm);
        }
    }
    super::cold(vm, ins)
}

/// `AddReturn`: `a + b`, then the return of the sum after it with no
/// dispatch between them, the sum written straight into the caller's slot; other than two small integers, the sum is
/// `Add`'s (out of the loop for the rare cases) and the return is
/// dispatched as usual.
#[inline(always)]
pub(super) fn add_return(vm: &mut Vm<'_>, dst: Slot, a: Slot, b: Slot, ins: &Instr) -> Flow {
    if let (Term::Int(x), Term::Int(y)) = (vm.reg(a), vm.reg(b)) {
        if let Some(v) = x.checked_add(*y) {
            return super::call::return_int(vm, dst, v);
        }
    }
    arith(vm, Op2::Add, dst, a, b, ins)
}

/// `x op y` for the operators computed inline on two small integers
/// (`+`, `-`, `*`); `None` on overflow or for another operator.
#[inline(always)]
fn small_int(op: Op2, x: i64, y: i64) -> Option<i64> {
    match op {
        Op2::Add => x.checked_add(y),
        Op2::Sub => x.checked_sub(y),
        Op2::Mul => x.checked_mul(y),
        _ => None,
    }
}

/// `Add`, `Sub`, `Mul` (`op` a constant at each use, so its matches fold
/// away): two small integers or two floats inline; the rest (mixed or big
/// numbers, errors) out of the loop, as `Op2` does it.
#[inline(always)]
pub(super) fn arith(vm: &mut Vm<'_>, op: Op2, dst: Slot, a: Slot, b: Slot, ins: &Instr) -> Flow {
    match (vm.reg(a), vm.reg(b)) {
        (Term::Int(x), Term::Int(y)) => {
            if let Some(v) = small_int(op, *x, *y) {
                put_int(vm.reg_mut(dst), v);
                return Flow::Go;
            }
        }
        (Term::Float(x), Term::Float(y)) => {
            let r = match op {
                Op2::Add => x + y,
                Op2::Sub => x - y,
                _ => x * y,
            };
            // An infinite result is badarith: out of the loop.
            if r.is_finite() {
                put_float(vm.reg_mut(dst), r);
                return Flow::Go;
            }
        }
        _ => {}
    }
    super::cold(vm, ins)
}

/// `Op2`: a binary operator, small integers and floats inline.
#[inline(always)]
pub(super) fn op2(vm: &mut Vm<'_>, op: Op2, dst: Slot, a: Slot, b: Slot, fail: u32) -> Flow {
    if let (Term::Int(x), Term::Int(y)) = (vm.reg(a), vm.reg(b)) {
        if let Some(v) = small_int(op, *x, *y) {
            put_int(vm.reg_mut(dst), v);
            return Flow::Go;
        }
    }
    if let Some(v) = arith::fast_float(op, vm.reg(a), vm.reg(b)) {
        put_float(vm.reg_mut(dst), v);
        return Flow::Go;
    }
    match value(op, vm.reg(a), vm.reg(b)) {
        Ok(v) => {
            vm.reg_mut(dst).set(v);
            Flow::Go
        }
        Err(f) => {
            let (x, y) = (vm.reg(a).clone(), vm.reg(b).clone());
            if vm.fail_to(fail) {
                return Flow::Go;
            }
            let e = raise::op2_error(vm.p, vm.env.prog, vm.fun(), vm.pc(), op, x, y, f);
            vm.slow(Next::Raise(e))
        }
    }
}

/// `Op1`: a unary operator.
#[inline(always)]
pub(super) fn op1(vm: &mut Vm<'_>, op: Op1, dst: Slot, a: Slot, fail: u32) -> Flow {
    let x = vm.reg(a);
    let res = match op {
        Op1::Neg => arith::neg(x),
        Op1::Plus => arith::plus(x),
        Op1::Bnot => arith::bnot(x),
        Op1::Not => arith::not(x),
    };
    match res {
        Ok(v) => {
            vm.reg_mut(dst).set(v);
            Flow::Go
        }
        Err(f) => {
            if vm.fail_to(fail) {
                return Flow::Go;
            }
            let e = raise::op_error(vm.p, vm.env.prog, vm.fun(), vm.pc(), f);
            vm.slow(Next::Raise(e))
        }
    }
}

/// A binary operator's value, beyond the inline cases.
#[inline(always)]
fn value(op: Op2, x: &Term, y: &Term) -> Result<Term, Fault> {
    match op {
        Op2::Add => arith::add(x, y),
        Op2::Sub => arith::sub(x, y),
        Op2::Mul => arith::mul(x, y),
        Op2::FDiv => arith::fdiv(x, y),
        Op2::IDiv => arith::idiv(x, y),
        Op2::Rem => arith::rem(x, y),
        Op2::Band => arith::band(x, y),
        Op2::Bor => arith::bor(x, y),
        Op2::Bxor => arith::bxor(x, y),
        Op2::Bsl => arith::bsl(x, y),
        Op2::Bsr => arith::bsr(x, y),
        Op2::Eq => Ok(Term::bool(compare(x, y).is_eq())),
        Op2::Neq => Ok(Term::bool(!compare(x, y).is_eq())),
        Op2::ExactEq => Ok(Term::bool(exact_eq(x, y))),
        Op2::ExactNeq => Ok(Term::bool(!exact_eq(x, y))),
        Op2::Lt => Ok(Term::bool(compare(x, y).is_lt())),
        Op2::Le => Ok(Term::bool(compare(x, y).is_le())),
        Op2::Gt => Ok(Term::bool(compare(x, y).is_gt())),
        Op2::Ge => Ok(Term::bool(compare(x, y).is_ge())),
        Op2::And => arith::and(x, y),
        Op2::Or => arith::or(x, y),
        Op2::Xor => arith::xor(x, y),
        Op2::Append => arith::append(x, y),
        Op2::Subtract => arith::subtract(x, y),
    }
}
