//! Exceptions: entering and leaving `try` and `catch`, re-raising, and the
//! errors compiled code detects (`badmatch`, `case_clause`, ...).

use super::{Flow, Next, Vm};
use crate::code::FunId;
use crate::exception::{Class, Exception, Trace};
use crate::ir::{ErrKind, Slot};
use crate::process::Process;
use crate::vm::raise;
use trace_term::{atom, Term};

/// `Try`: enters a `try` whose handler is at `handler`.
#[inline(always)]
pub(super) fn enter_try(vm: &mut Vm<'_>, handler: u32, reg: Slot) -> Flow {
    let at = vm.label_pc(handler) as u32;
    push_handler(vm.p, vm.fun(), at, vm.base(), reg, false);
    Flow::Go
}

/// `Catch`: enters a `catch` whose handler is at `handler`.
#[inline(always)]
pub(super) fn enter_catch(vm: &mut Vm<'_>, handler: u32, dst: Slot) -> Flow {
    let at = vm.label_pc(handler) as u32;
    push_handler(vm.p, vm.fun(), at, vm.base(), dst, true);
    Flow::Go
}

/// `TryEnd` and `CatchEnd`: leaves the innermost `try` or `catch`.
#[inline(always)]
pub(super) fn leave(vm: &mut Vm<'_>) -> Flow {
    vm.p.handlers.pop();
    Flow::Go
}

/// `Raise`: re-raises from class, reason and stack trace in `reg..reg+3`.
#[inline(always)]
pub(super) fn reraise(vm: &mut Vm<'_>, reg: Slot) -> Flow {
    let class = match vm.reg(reg) {
        Term::Atom(a) => Class::from_atom(*a).unwrap_or(Class::Error),
        _ => Class::Error,
    };
    let e = Exception {
        class,
        reason: vm.reg(reg + 1).clone(),
        trace: Trace::Term(vm.reg(reg + 2).clone()),
    };
    vm.slow(Next::Raise(e))
}

/// `Error`: raises an error compiled code detected, about the value in `val`.
#[inline(always)]
pub(super) fn error(vm: &mut Vm<'_>, kind: ErrKind, val: Slot) -> Flow {
    let reason = error_reason(kind, vm.reg(val).clone());
    let args = if kind == ErrKind::FunctionClause {
        let n = vm.env.prog.funs[vm.fun() as usize].arity as usize;
        Some(vm.p.regs[vm.base()..vm.base() + n].to_vec())
    } else {
        None
    };
    let e = raise::compiled_error(vm.p, vm.env.prog, vm.fun(), vm.pc(), reason, args);
    vm.slow(Next::Raise(e))
}

/// The reason of an error compiled code detects, about value `v`.
fn error_reason(kind: ErrKind, v: Term) -> Term {
    match kind {
        ErrKind::Badmatch => Term::tuple(vec![Term::Atom(atom::BADMATCH), v]),
        ErrKind::CaseClause => Term::tuple(vec![Term::Atom(atom::CASE_CLAUSE), v]),
        ErrKind::TryClause => Term::tuple(vec![Term::Atom(atom::TRY_CLAUSE), v]),
        ErrKind::IfClause => Term::Atom(atom::IF_CLAUSE),
        ErrKind::FunctionClause => Term::Atom(atom::FUNCTION_CLAUSE),
        ErrKind::Badrecord => Term::tuple(vec![Term::Atom(atom::BADRECORD), v]),
        ErrKind::BadGenerator => Term::tuple(vec![Term::atom("bad_generator"), v]),
        ErrKind::BadFilter => Term::tuple(vec![Term::atom("bad_filter"), v]),
        ErrKind::Badmap => Term::tuple(vec![Term::Atom(atom::BADMAP), v]),
        ErrKind::BadBool => Term::tuple(vec![Term::Atom(atom::BADARG), v]),
    }
}

/// Enters a `try` (`is_catch` false: class, reason and trace go to `reg`
/// and the two slots after it) or a `catch` (its value goes to `reg`), whose
/// handler starts at `handler` in the current function.
#[inline(always)]
fn push_handler(p: &mut Process, fun: FunId, handler: u32, base: usize, reg: u16, is_catch: bool) {
    p.handlers.push(crate::process::Handler {
        depth: p.frames.len() as u32,
        fun,
        pc: handler,
        base: base as u32,
        reg,
        is_catch,
    });
}
