//! Calls and returns: local, external, built-in, fun and run-time-resolved
//! calls, body or tail, and the frames they push and pop. A body call
//! saves only what its return restores (see [`crate::frames`]): the
//! caller's position and window base (the result slot is the call's
//! `dst`, found from the position); the loop then keeps the callee's base
//! in the process.

use super::callee::{closure_extra, prepare_fun_call, resolve_dyn, stop_unsupported, Callee};
use super::{bif_call::call_bif, take, Flow, Next, Vm};
use crate::code::{ExtTarget, FunId, Program};
use crate::exception::Exception;
use crate::ir::{CodePtr, Instr, Slot, RAISE};
use crate::process::{Frame, Process};
use crate::vm::{raise, ExitInfo, SliceEnd};
use trace_term::{atom, Term};

/// `Return`: back to the caller with the value in `src`.
///
/// The value is swapped into the caller's slot, not moved and dropped:
/// what that slot held is dead (the call's result replaces it) and goes
/// to the callee's slot, which is dead too (a callee's window starts at
/// its caller's arguments, above everything live in the caller), to be
/// dropped with the other stale slots (see [`do_return`]). A swap tests
/// no tag and writes no `[]` (LLVM still takes one of the two through the
/// stack frame, as it did the moved value).
#[inline(always)]
pub(super) fn return_value(vm: &mut Vm<'_>, src: Slot) -> Flow {
    let from: *mut Term = vm.reg_mut(src);
    let to = pop_frame(vm);
    // SAFETY: both are slots of the value stack, which `pop_frame` does
    // not resize; they may be the same slot, which `swap` allows.
    unsafe { std::ptr::swap(from, to) };
    Flow::Go
}

/// The `Return` after a fused `AddReturn` or `IntReturn`, of small
/// integer `v` (the value meant for slot `dst`): written straight into the
/// caller's slot, with no trip through `dst`.
#[inline(always)]
pub(super) fn return_int(vm: &mut Vm<'_>, dst: Slot, v: i64) -> Flow {
    debug_assert!(matches!(vm.current(), Instr::Return { src } if *src == dst));
    let to = pop_frame(vm);
    // SAFETY: a slot of the caller's window, just found in the stack.
    super::put_int(unsafe { &mut *to }, v);
    Flow::Go
}

/// Pops the caller's frame and goes on at its position; the caller's slot
/// that receives the result. The process's initial call pops the bottom
/// frame, whose slot is the initial window's first and whose position
/// ends the process ([`end_process`]): no return asks whether there is a
/// caller. The caller's window is whole: the stack is never cut below a
/// live frame's window (see [`crate::vm::raise::kept_len`]), and the
/// initial window (at 0, where the returning function's is: a tail call
/// keeps its window's start) has the slot its `Return` read.
#[inline(always)]
fn pop_frame(vm: &mut Vm<'_>) -> *mut Term {
    // SAFETY: `EndProcess` runs next when this was the bottom frame.
    let fr = unsafe { vm.p.frames.pop_to_bottom() };
    debug_assert!({
        let f = fr.place(vm.env.prog).0;
        f == crate::frames::END_FUN
            || vm.p.regs.len() >= fr.base as usize + vm.env.prog.funs[f as usize].nslots as usize
    });
    vm.p.base = fr.base;
    vm.ip = fr.ip.0;
    vm.refresh();
    vm.reg_mut(fr.ret())
}

/// `EndProcess`: the process's initial call returned into the bottom
/// frame's slot (see [`pop_frame`]).
pub(super) fn end_process(vm: &mut Vm<'_>) -> Flow {
    vm.p.frames.clear();
    let v = take(vm.reg_mut(0));
    vm.slow(Next::End(initial_returned(v)))
}

/// How a process ends when its initial call returns `v`.
#[cold]
fn initial_returned(v: Term) -> SliceEnd {
    SliceEnd::Exit(ExitInfo {
        reason: Term::Atom(atom::NORMAL),
        crash: None,
        result: Some(v),
    })
}

/// Calls code `f` with its `n` arguments at `base+args` (see
/// [`callee_base`]; `ret` is a constant at each use, so its match folds away).
#[inline(always)]
pub(super) fn local(vm: &mut Vm<'_>, f: FunId, args: Slot, n: usize, ret: Ret) -> Flow {
    let nb = callee_base(
        vm.p,
        vm.env.prog,
        ret,
        vm.fun(),
        vm.pc(),
        vm.base(),
        args as usize,
        n,
    );
    vm.enter(f, nb)
}

/// `Call` and `TailCall`: as [`local`], with what the linker found of the
/// callee and of the caller (see [`Linked`]), so that neither the call nor
/// the return looks a function up. When a stack must grow, it grows and
/// the call runs again (see [`make_room`]).
#[inline(always)]
pub(super) fn linked(vm: &mut Vm<'_>, f: FunId, l: Linked, args: Slot, ret: Ret) -> Flow {
    let nb = match ret {
        Ret::Slot(_) => vm.base() + args as usize,
        Ret::Tail => vm.base(),
    };
    let need = nb + l.callee.nslots as usize;
    let full = matches!(ret, Ret::Slot(_)) && vm.p.frames.is_full();
    if full || vm.p.regs.len() < need {
        make_room(vm.p, need);
        return vm.retry();
    }
    match ret {
        Ret::Slot(dst) => {
            let fr = Frame {
                ip: CodePtr(vm.ip),
                base: vm.base() as u32,
            };
            debug_assert_eq!(fr.ret(), dst);
            // SAFETY: there is room for one more (tested above).
            unsafe { vm.p.frames.push_unchecked(fr) };
        }
        Ret::Tail => tail_args(vm.p, vm.base(), args as usize, l.arity),
    }
    debug_assert!(std::ptr::eq(l.callee.code.0, vm.env.prog.code_start(f).0));
    vm.p.base = nb as u32;
    vm.ip = l.callee.code.0;
    vm.refresh();
    vm.count_call()
}

/// Calls a built-in with the `arity` arguments at `base+args`.
#[inline(always)]
pub(super) fn built_in(
    vm: &mut Vm<'_>,
    id: u16,
    args: Slot,
    arity: u8,
    ret: Ret,
    fail: u32,
) -> Flow {
    let s = vm.base() + args as usize;
    let next = call_bif(
        vm.p,
        vm.env.rt,
        vm.env.wk,
        vm.env.prog,
        vm.fun(),
        vm.pc(),
        vm.base(),
        id,
        s,
        arity as usize,
        ret,
        fail,
    );
    vm.slow(next)
}

/// Calls what a fun value or a run-time module and name resolved to.
#[inline(always)]
fn resolved(
    vm: &mut Vm<'_>,
    callee: Result<Callee, Exception>,
    args: Slot,
    arity: u8,
    n: usize,
    ret: Ret,
) -> Flow {
    match callee {
        Ok(Callee::Code(f)) => local(vm, f, args, n, ret),
        Ok(Callee::Bif(id)) => built_in(vm, id, args, arity, ret, RAISE),
        Ok(Callee::Unsupported(msg)) => {
            // The slice ends here without `save`.
            vm.keep_fun();
            let next = stop_unsupported(vm.env.rt, msg);
            vm.slow(next)
        }
        Err(e) => vm.slow(Next::Raise(e)),
    }
}

/// Calls an external function, body or tail (`ret` says which).
#[inline(always)]
pub(super) fn external(vm: &mut Vm<'_>, ext: u32, args: Slot, arity: u8, ret: Ret) -> Flow {
    let prog = vm.env.prog;
    match &prog.exts[ext as usize] {
        ExtTarget::Fun(f) => local(vm, *f, args, arity as usize, ret),
        ExtTarget::Bif(id) => built_in(vm, *id, args, arity, ret, RAISE),
        ExtTarget::Undef {
            module,
            function,
            arity: a,
        } => {
            let s = vm.base() + args as usize;
            let argv = vm.p.regs[s..s + *a as usize].to_vec();
            let e = raise::undef(vm.p, prog, vm.fun(), vm.pc(), *module, *function, argv);
            vm.slow(Next::Raise(e))
        }
    }
}

/// Calls the fun value in slot `fs`, body or tail.
#[inline(always)]
pub(super) fn fun_value(vm: &mut Vm<'_>, fs: Slot, args: Slot, arity: u8, ret: Ret) -> Flow {
    // Borrow the fun by moving it out and back: no reference count.
    let fv = take(vm.reg_mut(fs));
    let (a, n) = (args as usize, arity as usize);
    let callee = prepare_fun_call(vm.p, vm.env.prog, vm.fun(), vm.pc(), vm.base(), &fv, a, n);
    // A tail call moves the captured values down with the arguments.
    let n = match ret {
        Ret::Tail => arity as usize + closure_extra(&fv, vm.env.prog),
        Ret::Slot(_) => 0,
    };
    let slot = vm.base() + fs as usize;
    vm.p.regs[slot] = fv;
    resolved(vm, callee, args, arity, n, ret)
}

/// Calls `module:function(...)` named by slots at run time, body or tail.
#[inline(always)]
pub(super) fn dynamic(
    vm: &mut Vm<'_>,
    module: Slot,
    function: Slot,
    args: Slot,
    arity: u8,
    ret: Ret,
) -> Flow {
    let (m, f) = (vm.reg(module).clone(), vm.reg(function).clone());
    let (a, n) = (args as usize, arity as usize);
    let callee = resolve_dyn(
        vm.p,
        vm.env.prog,
        vm.fun(),
        vm.pc(),
        vm.base(),
        &m,
        &f,
        a,
        n,
    );
    resolved(vm, callee, args, arity, arity as usize, ret)
}

/// Where a called function's window starts, its `n` arguments being at
/// `base+args`: a body call pushes a frame that returns into `Ret::Slot`'s
/// slot and the window starts at the arguments; a tail call moves them down
/// to `base` and reuses the frame.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) fn callee_base(
    p: &mut Process,
    prog: &Program,
    ret: Ret,
    fun: FunId,
    pc: usize,
    base: usize,
    args: usize,
    n: usize,
) -> usize {
    match ret {
        Ret::Slot(dst) => {
            let code = prog.code_start(fun);
            let fr = Frame {
                ip: CodePtr(code.0.wrapping_add(pc)),
                base: base as u32,
            };
            // The return finds `dst` at the call before `pc` (`Frame::ret`).
            debug_assert_eq!(fr.ret(), dst);
            p.frames.push(fr);
            base + args
        }
        Ret::Tail => {
            tail_args(p, base, args, n);
            base
        }
    }
}

/// Moves tail-call arguments from `base+args..` down to `base..`: one
/// bounds check for the whole move, not two per argument (a tail-recursive
/// loop does this on every iteration).
fn tail_args(p: &mut Process, base: usize, args: usize, n: usize) {
    if args == 0 {
        return;
    }
    let regs = &mut p.regs[base..base + args + n];
    if args >= n {
        let (dst, src) = regs.split_at_mut(args);
        for (d, s) in dst[..n].iter_mut().zip(src.iter_mut()) {
            d.set(take(s));
        }
    } else {
        // The two ranges overlap; moving upwards from the bottom reads each
        // source before it is overwritten.
        for i in 0..n {
            let v = take(&mut regs[args + i]);
            regs[i].set(v);
        }
    }
}

/// Returns from the current function; `Some` when the process's initial call returned.
///
/// The callee's slots are not cleared here (that would cost more than the
/// call itself); stale values above the live frames are dropped when the
/// process ends its slice (see [`trim_stack`]) or unwinds to a handler.
#[inline(always)]
pub(super) fn do_return(
    p: &mut Process,
    prog: &Program,
    fun: &mut FunId,
    pc: &mut usize,
    base: &mut usize,
    v: Term,
) -> Option<SliceEnd> {
    match p.frames.pop() {
        Some(fr) => {
            let (f, at) = fr.place(prog);
            *fun = f;
            *pc = at as usize;
            *base = fr.base as usize;
            // The caller's window is whole (see `raise::kept_len`).
            p.regs[*base + fr.ret() as usize].set(v);
            None
        }
        None => Some(initial_returned(v)),
    }
}

/// A call deeper than any before: makes room for one more frame and a value stack `need` slots
/// long. The instruction then runs again ([`Vm::retry`]): going back
/// through the dispatch, rather than on from here, spares the fast path
/// keeping its operands across this call (LLVM kept them on the stack, on
/// every call).
#[cold]
#[inline(never)]
fn make_room(p: &mut Process, need: usize) {
    p.frames.reserve_one();
    if p.regs.len() < need {
        super::grow_stack(p, need);
    }
}

/// What a linked call knows beyond its callee's id: the callee's entry
/// and, for a tail call, the arguments to move.
#[derive(Copy, Clone)]
pub(super) struct Linked {
    pub callee: crate::ir::Entry,
    pub arity: usize,
}

/// Where a built-in's result goes.
#[derive(Copy, Clone)]
pub(super) enum Ret {
    /// Into this slot of the current window.
    Slot(u16),
    /// The current function returns it (the built-in was in tail position).
    Tail,
}
