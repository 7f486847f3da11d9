//! Binaries: building one segment by segment, and matching one (start,
//! take a segment, skip, test for the end). The segment codecs are
//! [`crate::vm::bits`].

use super::{take, Flow, Next, Vm};
use crate::ir::{Instr, Slot};
use crate::vm::{bits, raise};
use trace_term::{Arc, Term};

/// `BsInit`: starts building a binary.
#[inline(always)]
pub(super) fn init(vm: &mut Vm<'_>) -> Flow {
    let spare = std::mem::take(&mut vm.p.bs_spare);
    vm.p.bs = Some(trace_term::BitWriter::with_buffer(spare));
    Flow::Go
}

/// `BsPut`: appends a segment of `val` to the binary being built.
///
/// (This and the other segment instructions take the instruction and read
/// its operands where they are used: copied out first, they would be kept
/// across the calls before, at the cost of spills.)
#[inline(always)]
pub(super) fn put(vm: &mut Vm<'_>, ins: &Instr) -> Flow {
    let Instr::BsPut {
        val,
        ty,
        size,
        unit,
        flags,
    } = ins
    else {
        unreachable!("not a BsPut")
    };
    let base = vm.base();
    let sz = bits::size_value(&vm.p.regs, base, *size);
    // The value is lent from its slot, not cloned: a binary appended to
    // (`Acc/binary`) cost a reference count up and down per append.
    let p = &mut *vm.p;
    let v = &p.regs[base + *val as usize];
    let w = p.bs.as_mut().expect("BsPut outside a binary");
    match bits::put(w, v, *ty, sz, *unit, *flags) {
        Ok(()) => Flow::Go,
        Err(f) => {
            vm.p.bs = None;
            let e = raise::error(vm.p, vm.env.prog, vm.fun(), vm.pc(), f);
            vm.slow(Next::Raise(e))
        }
    }
}

/// `BsFinish`: the binary built, into `dst`.
#[inline(always)]
pub(super) fn finish(vm: &mut Vm<'_>, dst: Slot) -> Flow {
    let w = vm.p.bs.take().expect("BsFinish outside a binary");
    let (b, spare) = w.finish_reusing();
    // A buffer that grew large for one binary is not kept for ever.
    if let Some(v) = spare.filter(|v| v.capacity() <= SPARE_MAX) {
        vm.p.bs_spare = v;
    }
    vm.reg_mut(dst).set(Term::Binary(Arc::new(b)));
    Flow::Go
}

/// The largest byte buffer a process keeps for its next binary.
const SPARE_MAX: usize = 256;

/// `BsStart`: starts matching `src`, or jumps to `fail` if it is no bitstring.
#[inline(always)]
pub(super) fn start(vm: &mut Vm<'_>, src: Slot, pos: Slot, fail: u32) -> Flow {
    if matches!(vm.reg(src), Term::Binary(_)) {
        vm.reg_mut(pos).set(Term::Int(0));
    } else {
        vm.goto(fail);
    }
    Flow::Go
}

/// `BsSkip`: skips `size` units, or jumps to `fail` past the end.
#[inline(always)]
pub(super) fn skip(vm: &mut Vm<'_>, ins: &Instr) -> Flow {
    let Instr::BsSkip {
        src,
        pos,
        size,
        unit,
        fail,
    } = ins
    else {
        unreachable!("not a BsSkip")
    };
    let sz = bits::size_value(&vm.p.regs, vm.base(), *size);
    let at = vm.reg(*pos).as_int().unwrap_or(0) as usize;
    let total = match vm.reg(*src) {
        Term::Binary(b) => b.bit_len(),
        _ => 0,
    };
    match bits::skip(at, total, sz, *unit) {
        Some(np) => vm.reg_mut(*pos).set(Term::Int(np as i64)),
        None => vm.goto(*fail),
    }
    Flow::Go
}

/// `BsEnd`: goes on only if the match is at the end of `src`.
#[inline(always)]
pub(super) fn end(vm: &mut Vm<'_>, src: Slot, pos: Slot, fail: u32) -> Flow {
    let at = vm.reg(pos).as_int().unwrap_or(-1);
    let ok = matches!(vm.reg(src), Term::Binary(b) if b.bit_len() as i64 == at);
    vm.test(ok, fail)
}

/// `BsGet`: a segment of the bitstring in `src` at `pos` into `dst`, or a
/// jump to `fail`.
#[inline(always)]
pub(super) fn get(vm: &mut Vm<'_>, ins: &Instr) -> Flow {
    let Instr::BsGet {
        src,
        pos,
        dst,
        ty,
        size,
        unit,
        flags,
        fail,
        take: take_src,
    } = ins
    else {
        unreachable!("not a BsGet")
    };
    let sz = bits::size_value(&vm.p.regs, vm.base(), *size);
    let at = vm.reg(*pos).as_int().unwrap_or(0) as usize;
    // The rest of a dead binary nobody else holds: narrow the
    // term in place rather than allocate a new one.
    if *take_src && (*unit == 1 || *unit == 8) {
        let mut t = take(vm.reg_mut(*src));
        let end = match &mut t {
            Term::Binary(b)
                if at <= b.bit_len() && (*unit == 1 || (b.bit_len() - at).is_multiple_of(8)) =>
            {
                let end = b.bit_len();
                Arc::get_mut(b).and_then(|bs| bs.advance(at).then_some(end))
            }
            _ => None,
        };
        if let Some(end) = end {
            vm.reg_mut(*dst).set(t);
            vm.reg_mut(*pos).set(Term::Int(end as i64));
            return Flow::Go;
        }
        vm.reg_mut(*src).set(t);
    }
    let got = match vm.reg(*src) {
        Term::Binary(b) => bits::get(b, at, *ty, sz, *unit, *flags),
        _ => None,
    };
    match got {
        Some((v, new_pos)) => {
            vm.reg_mut(*dst).set(v);
            vm.reg_mut(*pos).set(Term::Int(new_pos as i64));
        }
        None => vm.goto(*fail),
    }
    Flow::Go
}
