//! Receive: starting a receive, scanning the mailbox, taking the message a
//! clause matched, and waiting (with or without a timeout). The mailbox
//! machinery itself is [`crate::vm::receive`].

use super::{Flow, Next, Vm};
use crate::code::{FunId, Program};
use crate::hooks::Touched;
use crate::ir::{Instr, Slot};
use crate::process::Process;
use crate::vm::receive::{self, Step};
use crate::vm::{raise, ExitInfo, SliceEnd};
use trace_term::{atom, Term};

/// `RecvStart`: begins a receive whose `after` branch is at `after`.
#[inline(always)]
pub(super) fn start(vm: &mut Vm<'_>, after: u32) -> Flow {
    if vm.env.rt.controlled {
        vm.p.recv_peek = match vm.current() {
            Instr::RecvRef { .. } => vm.pc() as u32 + 1,
            _ => vm.pc() as u32,
        };
        vm.p.recv_may_time_out = after != crate::ir::RAISE;
    }
    if vm.p.trace_calls {
        vm.save();
        crate::vm::calls::receive_reached(vm.p, vm.env.prog);
    }
    match receive::start(vm.p, vm.env.rt, vm.env.wk, after) {
        Step::Continue => Flow::Go,
        Step::Jump(to) => {
            vm.goto(to);
            Flow::Go
        }
        Step::End(e) => {
            vm.back();
            vm.save();
            vm.slow(Next::End(e))
        }
        Step::Pause => unreachable!("only a wait pauses"),
    }
}

/// `RecvRef`: the clauses all need the reference in `src`.
#[inline(always)]
pub(super) fn use_ref(vm: &mut Vm<'_>, src: Slot) -> Flow {
    let v = match vm.reg(src) {
        Term::Ref(x) => Some(*x),
        _ => None,
    };
    receive::use_mark(vm.p, v);
    Flow::Go
}

/// `RecvPeek`: the message at the cursor into `dst`, or a jump to `wait`.
#[inline(always)]
pub(super) fn peek(vm: &mut Vm<'_>, dst: Slot, wait: u32) -> Flow {
    // The first message a receive sees (or the one that woke
    // it) goes to the clauses unfiltered: it usually matches,
    // and the filter pays only once the scan passes messages
    // over (in RecvNext).
    if receive::lend_current(vm.p, vm.base(), dst, None)
        || receive::peek(vm.p, vm.env.rt, vm.env.wk, vm.base(), dst)
    {
        return Flow::Go;
    }
    if let Some(reason) = vm.p.kill.take() {
        return vm.slow(Next::End(SliceEnd::Exit(ExitInfo::plain(reason))));
    }
    vm.goto(wait);
    Flow::Go
}

/// `RecvNext`: no clause matched; on to the next message, at `lp`.
#[inline(always)]
pub(super) fn next(vm: &mut Vm<'_>, lp: u32) -> Flow {
    vm.goto(lp);
    if receive::skip_current(vm.p) {
        // Do the RecvPeek at `lp` here when the next message is
        // in the mailbox: one dispatch less per scanned message.
        if let Instr::RecvPeek { dst, filter, .. } = vm.current() {
            if receive::lend_current(vm.p, vm.base(), *dst, filter.as_deref()) {
                vm.step();
            }
        }
    } else if let Err(e) = receive::next(vm.p, vm.env.rt) {
        return vm.slow(Next::End(e));
    }
    Flow::Go
}

/// `RecvAccept`: takes the message a clause matched (in a controlled run,
/// only as the step's operation: otherwise the process stops before it).
#[inline(always)]
pub(super) fn accept(vm: &mut Vm<'_>) -> Flow {
    if !vm.p.gate.pass() {
        return pause(vm);
    }
    if vm.p.director.is_some() {
        // The receipt's place, for the Director: where a replay to this
        // event says it happened, or where a divergence last agreed.
        vm.back();
        vm.save();
        vm.step();
    }
    let r = receive::accept(vm.p, vm.env.rt);
    if vm.env.rt.controlled {
        report_filter(vm.p, vm.env.prog, vm.fun(), vm.base());
    }
    match r {
        Ok(_) => Flow::Go,
        Err(end) => vm.slow(Next::End(end)),
    }
}

/// Stops before the instruction just fetched, to run it again when the
/// process is next picked (a controlled run).
fn pause(vm: &mut Vm<'_>) -> Flow {
    vm.back();
    vm.save();
    vm.slow(Next::End(SliceEnd::Yield))
}

/// Tells a controlled run's Observer which messages the receive just
/// reported could have taken: its filter, with the variables bound before
/// it replaced by their values. (It takes the loop's state by value, not
/// `&mut Vm`: a `Vm` whose address escapes lives in memory, not registers.)
#[inline(never)]
fn report_filter(p: &mut Process, prog: &Program, fun: FunId, base: usize) {
    if p.observer.is_none() {
        return;
    }
    let at = p.recv_peek as usize;
    let code = &prog.funs[fun as usize].code;
    let touched = match (code.get(at), code.get(at + 1)) {
        (Some(Instr::RecvPeek { .. }), Some(Instr::RecvNext { .. })) => None,
        (Some(Instr::RecvPeek { filter, .. }), _) => Some(
            filter
                .as_deref()
                .map(|f| f.closed(&p.regs[base.min(p.regs.len())..])),
        ),
        _ => Some(None),
    };
    let may_time_out = p.recv_may_time_out;
    if let Some(o) = p.observer.as_mut() {
        if may_time_out && touched.is_some() {
            o.touched(&Touched::MayTimeOut);
        }
        match &touched {
            None => o.touched(&Touched::NoClauses),
            Some(f) => o.touched(&Touched::Receive(f.as_ref())),
        }
    }
}

/// `RecvWait`: waits for a new message, then scans again at `lp`.
#[inline(always)]
pub(super) fn wait(vm: &mut Vm<'_>, lp: u32) -> Flow {
    vm.goto(lp);
    match receive::wait(vm.p, vm.env.rt, vm.env.wk, None) {
        Step::Continue | Step::Jump(_) => Flow::Go,
        Step::Pause => unreachable!("a receive without a timeout never pauses for one"),
        Step::End(e) => {
            vm.save();
            vm.slow(Next::End(e))
        }
    }
}

/// `RecvWaitTimeout`: waits for a new message (then scans again at `lp`)
/// or for the timeout in slot `timeout` (then goes to `after`).
#[inline(always)]
pub(super) fn wait_timeout(vm: &mut Vm<'_>, timeout: Slot, lp: u32, after: u32) -> Flow {
    let ms = match vm.reg(timeout) {
        Term::Atom(atom::INFINITY) => None,
        // As BEAM: a timeout is at most 2^32 - 1 ms.
        Term::Int(i) if (0..=u32::MAX as i64).contains(i) => Some(*i as u64),
        _ => {
            let reason = Term::Atom(atom::TIMEOUT_VALUE);
            let e = raise::compiled_error(vm.p, vm.env.prog, vm.fun(), vm.pc(), reason, None);
            return vm.slow(Next::Throw(e));
        }
    };
    match receive::wait(vm.p, vm.env.rt, vm.env.wk, ms) {
        Step::Continue => {
            vm.goto(lp);
            Flow::Go
        }
        Step::Jump(_) => {
            if vm.env.rt.controlled {
                report_filter(vm.p, vm.env.prog, vm.fun(), vm.base());
            }
            vm.goto(after);
            Flow::Go
        }
        Step::Pause => pause(vm),
        Step::End(e) => {
            vm.goto(lp);
            vm.save();
            vm.slow(Next::End(e))
        }
    }
}
