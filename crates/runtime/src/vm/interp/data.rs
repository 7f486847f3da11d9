//! Moves and constants, building terms (lists, tuples, maps, closures) and
//! taking them apart after a matching test.

use super::{dup, take, Flow, Next, Vm};
use crate::exception::error_tagged;
use crate::ir::{Instr, Slot, TAKE_HEAD, TAKE_TAIL};
use trace_term::{atom, Arc, Fun, MapRepr, Term};

/// `Move`: copies a slot.
#[inline(always)]
pub(super) fn copy(vm: &mut Vm<'_>, dst: Slot, src: Slot) -> Flow {
    let v = dup(vm.reg(src));
    vm.reg_mut(dst).set(v);
    Flow::Go
}

/// `Take`: moves a dead slot's value, leaving `[]`.
#[inline(always)]
pub(super) fn take_slot(vm: &mut Vm<'_>, dst: Slot, src: Slot) -> Flow {
    let v = take(vm.reg_mut(src));
    vm.reg_mut(dst).set(v);
    Flow::Go
}

/// `Int`, `Atom`, `Nil`: a constant into a slot.
#[inline(always)]
pub(super) fn constant(vm: &mut Vm<'_>, dst: Slot, v: Term) -> Flow {
    vm.reg_mut(dst).set(v);
    Flow::Go
}

/// `Lit`: literal `lit` of the program into a slot.
#[inline(always)]
pub(super) fn literal(vm: &mut Vm<'_>, dst: Slot, lit: u32) -> Flow {
    let v = vm.env.prog.literals[lit as usize].clone();
    vm.reg_mut(dst).set(v);
    Flow::Go
}

/// `Cons`: a list cell, taking the operands `take` marks dead.
#[inline(always)]
pub(super) fn cons(vm: &mut Vm<'_>, dst: Slot, head: Slot, tail: Slot, t: u8) -> Flow {
    let h = if t & TAKE_HEAD != 0 {
        take(vm.reg_mut(head))
    } else {
        vm.reg(head).clone()
    };
    let tl = if t & TAKE_TAIL != 0 {
        take(vm.reg_mut(tail))
    } else {
        vm.reg(tail).clone()
    };
    vm.reg_mut(dst).set(Term::cons(h, tl));
    Flow::Go
}

// The operands of Tuple, MapNew and MakeFun are temporaries the
// compiler filled for this instruction alone: take them rather
// than clone them (a clone and a drop of each saved).

/// `Tuple`: a tuple of the `arity` values at `start..`.
#[inline(always)]
pub(super) fn tuple(vm: &mut Vm<'_>, dst: Slot, start: Slot, arity: u16) -> Flow {
    let s = vm.base() + start as usize;
    let v = Term::Tuple(trace_term::Tuple::from_iter(
        vm.p.regs[s..s + arity as usize].iter_mut().map(take),
    ));
    vm.reg_mut(dst).set(v);
    Flow::Go
}

/// `MapNew`: a map of the `n` key/value pairs at `start..`.
#[inline(always)]
pub(super) fn map_new(vm: &mut Vm<'_>, dst: Slot, start: Slot, n: u16) -> Flow {
    let s = vm.base() + start as usize;
    let mut m = MapRepr::new();
    for i in 0..n as usize {
        let k = take(&mut vm.p.regs[s + 2 * i]);
        m.insert(k, take(&mut vm.p.regs[s + 2 * i + 1]));
    }
    vm.reg_mut(dst).set(Term::Map(Arc::new(m)));
    Flow::Go
}

/// `MapPut`: `Map#{Key => Val}` and `Map#{Key := Val}`.
#[inline(always)]
pub(super) fn map_put(vm: &mut Vm<'_>, ins: &Instr) -> Flow {
    let Instr::MapPut {
        dst,
        map,
        key,
        val,
        exact,
        fail,
        take: take_map,
    } = ins
    else {
        unreachable!("not a MapPut")
    };
    // A dead map slot gives its reference away, so that an
    // unshared map is updated in place below.
    let m = if *take_map {
        take(vm.reg_mut(*map))
    } else {
        vm.reg(*map).clone()
    };
    let k = vm.reg(*key).clone();
    let bad = match &m {
        Term::Map(mm) if *exact && !mm.contains_key(&k) => {
            Some(error_tagged(atom::BADKEY, k.clone()))
        }
        Term::Map(_) => None,
        other => Some(error_tagged(atom::BADMAP, other.clone())),
    };
    if let Some(f) = bad {
        if *take_map {
            vm.reg_mut(*map).set(m);
        }
        if vm.fail_to(*fail) {
            return Flow::Go;
        }
        let e = super::raise::error(vm.p, vm.env.prog, vm.fun(), vm.pc(), f);
        return vm.slow(Next::Raise(e));
    }
    let Term::Map(mut m) = m else { unreachable!() };
    let v = vm.reg(*val).clone();
    // Drop the slot's reference first so an unshared map updates in place.
    if dst == map {
        vm.reg_mut(*dst).set(Term::Nil);
    }
    Arc::make_mut(&mut m).insert(k, v);
    vm.reg_mut(*dst).set(Term::Map(m));
    Flow::Go
}

/// `MakeFun`: a closure of template `tmpl` capturing the `nfree` values at `start..`.
#[inline(always)]
pub(super) fn make_fun(vm: &mut Vm<'_>, dst: Slot, tmpl: u32, start: Slot, nfree: u16) -> Flow {
    let info = &vm.env.prog.closures[tmpl as usize];
    let s = vm.base() + start as usize;
    let env: Box<[Term]> = vm.p.regs[s..s + nfree as usize]
        .iter_mut()
        .map(take)
        .collect();
    let f = Term::Fun(Arc::new(Fun::Closure {
        module: info.module,
        index: info.index,
        uniq: info.uniq,
        arity: info.arity,
        code: tmpl,
        env,
    }));
    vm.reg_mut(dst).set(f);
    Flow::Go
}

/// `GetElem`: element `idx` of the tuple in `src`.
#[inline(always)]
pub(super) fn get_elem(vm: &mut Vm<'_>, dst: Slot, src: Slot, idx: u16) -> Flow {
    let v = match vm.reg(src) {
        Term::Tuple(t) => dup(&t.elements()[idx as usize]),
        _ => unreachable!("GetElem on a non-tuple"),
    };
    vm.reg_mut(dst).set(v);
    Flow::Go
}

/// `GetHd`: the head of the cons in `src`.
#[inline(always)]
pub(super) fn get_hd(vm: &mut Vm<'_>, dst: Slot, src: Slot) -> Flow {
    let v = match vm.reg(src) {
        Term::Cons(c) => dup(&c.head),
        _ => unreachable!("GetHd on a non-cons"),
    };
    vm.reg_mut(dst).set(v);
    Flow::Go
}

/// `GetTl`: the tail of the cons in `src`.
#[inline(always)]
pub(super) fn get_tl(vm: &mut Vm<'_>, dst: Slot, src: Slot) -> Flow {
    let v = match vm.reg(src) {
        Term::Cons(c) => dup(&c.tail),
        _ => unreachable!("GetTl on a non-cons"),
    };
    vm.reg_mut(dst).set(v);
    Flow::Go
}

/// `SplitCons`: head and tail of the cons in `src`, or a jump to `fail`.
#[inline(always)]
pub(super) fn split_cons(vm: &mut Vm<'_>, src: Slot, hd: Slot, tl: Slot, fail: u32) -> Flow {
    let (h, t) = match vm.reg(src) {
        Term::Cons(c) => (dup(&c.head), dup(&c.tail)),
        _ => {
            vm.goto(fail);
            return Flow::Go;
        }
    };
    vm.reg_mut(hd).set(h);
    vm.reg_mut(tl).set(t);
    Flow::Go
}

/// `GetMapValue`: the value of `key` in the map in `map`, or a jump to `fail`.
#[inline(always)]
pub(super) fn get_map_value(vm: &mut Vm<'_>, dst: Slot, map: Slot, key: Slot, fail: u32) -> Flow {
    let v = match vm.reg(map) {
        Term::Map(m) => m.get(vm.reg(key)).cloned(),
        _ => None,
    };
    match v {
        Some(v) => vm.reg_mut(dst).set(v),
        None => vm.goto(fail),
    }
    Flow::Go
}
