//! Raising exceptions: building them with BEAM's reasons and stack traces,
//! and unwinding to the nearest `try`/`catch` (or ending the process).

use super::{ExitInfo, SliceEnd};
use crate::code::{FunId, Program};
use crate::exception::{Class, Exception, Fault, RawFrame, Trace, TRACE_DEPTH};
use crate::ir::Op2;
use crate::process::Process;
use trace_term::{atom, Atom, Term};

/// The raw frames of the current position and its callers, innermost first.
/// As BEAM does, a return address equal to the one just before it is
/// recorded once, so a body recursion shows one frame per call site, not
/// one per level, and the depth counts only frames recorded.
fn frames(p: &Process, prog: &Program, fun: FunId, pc: usize) -> Vec<RawFrame> {
    let mut out = Vec::with_capacity(TRACE_DEPTH);
    out.push(RawFrame {
        fun,
        pc: pc.saturating_sub(1) as u32,
    });
    for fr in p.frames.iter().rev() {
        if out.len() >= TRACE_DEPTH {
            break;
        }
        let (fun, pc) = fr.place(prog);
        let frame = RawFrame {
            fun,
            pc: pc.saturating_sub(1),
        };
        if out.last() != Some(&frame) {
            out.push(frame);
        }
    }
    out
}

/// An error raised by compiled code; `args` replaces the top frame's arity
/// (for `function_clause`).
pub fn compiled_error(
    p: &Process,
    prog: &Program,
    fun: FunId,
    pc: usize,
    reason: Term,
    args: Option<Vec<Term>>,
) -> Exception {
    Exception {
        class: Class::Error,
        reason,
        trace: Trace::Raw {
            bif: None,
            args,
            frames: frames(p, prog, fun, pc),
        },
    }
}

/// An error from a failing instruction (not a call).
pub fn error(p: &Process, prog: &Program, fun: FunId, pc: usize, f: Fault) -> Exception {
    match f {
        Fault::Error(reason) => compiled_error(p, prog, fun, pc, reason, None),
        Fault::Raise {
            class,
            reason,
            trace,
        } => explicit(p, prog, fun, pc, class, reason, trace),
        _ => compiled_error(p, prog, fun, pc, Term::Atom(atom::BADARG), None),
    }
}

/// An error from a unary operator.
pub fn op_error(p: &Process, prog: &Program, fun: FunId, pc: usize, f: Fault) -> Exception {
    error(p, prog, fun, pc, f)
}

/// The `erlang` function name of an operator (for `apply(erlang, '+', ...)`).
pub fn op_name(op: Op2) -> &'static str {
    match op {
        Op2::Add => "+",
        Op2::Sub => "-",
        Op2::Mul => "*",
        Op2::FDiv => "/",
        Op2::IDiv => "div",
        Op2::Rem => "rem",
        Op2::Band => "band",
        Op2::Bor => "bor",
        Op2::Bxor => "bxor",
        Op2::Bsl => "bsl",
        Op2::Bsr => "bsr",
        Op2::Eq => "==",
        Op2::Neq => "/=",
        Op2::ExactEq => "=:=",
        Op2::ExactNeq => "=/=",
        Op2::Lt => "<",
        Op2::Le => "=<",
        Op2::Gt => ">",
        Op2::Ge => ">=",
        Op2::And => "and",
        Op2::Or => "or",
        Op2::Xor => "xor",
        Op2::Append => "++",
        Op2::Subtract => "--",
    }
}

/// An error from a binary operator, the function itself its top frame.
/// (OTP 25 shows none for `+`, `-` and `/`, but an `erlang` frame of the
/// operator for most others, `div` and `++` among them: docs/library.md
/// lists it as a difference.)
#[allow(clippy::too_many_arguments)]
pub fn op2_error(
    p: &Process,
    prog: &Program,
    fun: FunId,
    pc: usize,
    _op: Op2,
    _x: Term,
    _y: Term,
    f: Fault,
) -> Exception {
    error(p, prog, fun, pc, f)
}

/// `error:Reason` raised inside built-in `m:f(Args)`.
#[allow(clippy::too_many_arguments)]
pub fn bif_error(
    p: &Process,
    prog: &Program,
    fun: FunId,
    pc: usize,
    m: Atom,
    f: Atom,
    args: Vec<Term>,
    reason: Term,
) -> Exception {
    Exception {
        class: Class::Error,
        reason,
        trace: Trace::Raw {
            bif: Some((m, f, args)),
            args: None,
            frames: frames(p, prog, fun, pc),
        },
    }
}

/// Calling `m:f/A` that does not exist.
pub fn undef(
    p: &Process,
    prog: &Program,
    fun: FunId,
    pc: usize,
    m: Atom,
    f: Atom,
    args: Vec<Term>,
) -> Exception {
    bif_error(p, prog, fun, pc, m, f, args, Term::Atom(atom::UNDEF))
}

/// `error/1`, `throw/1`, `exit/1`, `raise/3`.
pub fn explicit(
    p: &Process,
    prog: &Program,
    fun: FunId,
    pc: usize,
    class: Class,
    reason: Term,
    trace: Option<Term>,
) -> Exception {
    Exception {
        class,
        reason,
        trace: match trace {
            Some(t) => Trace::Term(t),
            None => Trace::Raw {
                bif: None,
                args: None,
                frames: frames(p, prog, fun, pc),
            },
        },
    }
}

/// The stack trace as a term: `[{M, F, ArityOrArgs, [{file, F}, {line, L}]}, ...]`.
pub fn trace_term(prog: &Program, t: &Trace) -> Term {
    match t {
        Trace::Term(t) => t.clone(),
        Trace::Raw { bif, args, frames } => {
            let mut items = Vec::with_capacity(frames.len() + 1);
            if let Some((m, f, a)) = bif {
                items.push(Term::tuple(vec![
                    Term::Atom(*m),
                    Term::Atom(*f),
                    Term::list(a.clone()),
                    Term::Nil,
                ]));
            }
            for (i, fr) in frames.iter().enumerate() {
                if items.len() >= TRACE_DEPTH {
                    break;
                }
                let code = &prog.funs[fr.fun as usize];
                let arity = match (i, args) {
                    (0, Some(a)) => Term::list(a.clone()),
                    _ => Term::Int(code.arity as i64),
                };
                let file = prog.file_text(fr.fun);
                let loc = Term::list(vec![
                    Term::tuple(vec![Term::Atom(atom::FILE), Term::string(&file)]),
                    Term::tuple(vec![
                        Term::Atom(atom::LINE),
                        Term::Int(code.line_at(fr.pc as usize) as i64),
                    ]),
                ]);
                items.push(Term::tuple(vec![
                    Term::Atom(code.module),
                    Term::Atom(code.name),
                    arity,
                    loc,
                ]));
            }
            Term::list(items)
        }
    }
}

/// The value of `catch Expr` for an exception.
fn catch_value(prog: &Program, e: &Exception) -> Term {
    let exit = Term::Atom(atom::EXIT_UPPER);
    match e.class {
        Class::Throw => e.reason.clone(),
        Class::Exit => Term::tuple(vec![exit, e.reason.clone()]),
        Class::Error => Term::tuple(vec![
            exit,
            Term::tuple(vec![e.reason.clone(), trace_term(prog, &e.trace)]),
        ]),
    }
}

/// The exit reason of a process that did not catch `e`.
pub fn exit_reason(prog: &Program, e: &Exception) -> Term {
    match e.class {
        Class::Exit => e.reason.clone(),
        Class::Error => Term::tuple(vec![e.reason.clone(), trace_term(prog, &e.trace)]),
        Class::Throw => Term::tuple(vec![
            Term::tuple(vec![Term::Atom(atom::NOCATCH), e.reason.clone()]),
            trace_term(prog, &e.trace),
        ]),
    }
}

/// Unwinds to the innermost handler: `Ok((fun, pc, base))` to continue there,
/// or `Err` with the process's end when nothing catches it.
pub fn throw(
    p: &mut Process,
    prog: &Program,
    e: Exception,
) -> Result<(FunId, usize, usize), SliceEnd> {
    p.bs = None;
    p.return_loan();
    let Some(h) = p.handlers.pop() else {
        let reason = exit_reason(prog, &e);
        let crash = match e.class {
            Class::Exit => None,
            _ => Some((e.class, e.reason.clone(), trace_term(prog, &e.trace))),
        };
        return Err(SliceEnd::Exit(ExitInfo {
            reason,
            crash,
            result: None,
        }));
    };
    p.frames.truncate(h.depth as usize);
    let base = h.base as usize;
    let end = base + prog.funs[h.fun as usize].nslots as usize;
    p.regs.truncate(kept_len(p, prog, end));
    if p.regs.len() < end {
        p.regs.resize(end, Term::Nil);
    }
    let reg = base + h.reg as usize;
    if h.is_catch {
        p.regs[reg] = catch_value(prog, &e);
    } else {
        p.regs[reg] = Term::Atom(e.class.atom());
        p.regs[reg + 1] = e.reason.clone();
        p.regs[reg + 2] = trace_term(prog, &e.trace);
    }
    Ok((h.fun, h.pc as usize, base))
}

/// How long the value stack must stay for the current window, which ends
/// at `end`, and its callers' windows: the stack is cut (at a slice's end,
/// when unwinding) to no less, so that a return never checks that its
/// caller's window is whole (see `interp::call::pop_frame`).
///
/// A callee's window starts at or above its caller's, so frames deeper
/// than one whose window starts `max_nslots` below what is kept reach no
/// higher: the walk stops there, after a frame or two in most stacks. One
/// that has not stopped after [`KEPT_WALK`] frames (a deep recursion that
/// grows no window) keeps the whole stack, to be cut at a later end.
pub fn kept_len(p: &Process, prog: &Program, end: usize) -> usize {
    let reach = prog.max_nslots as usize;
    let mut keep = end;
    for fr in p.frames.iter().rev().take(KEPT_WALK) {
        let base = fr.base as usize;
        if base + reach <= keep {
            return keep;
        }
        keep = keep.max(base + prog.funs[fr.place(prog).0 as usize].nslots as usize);
    }
    if p.frames.len() > KEPT_WALK {
        keep = keep.max(p.regs.len());
    }
    keep
}

/// The most frames [`kept_len`] walks.
const KEPT_WALK: usize = 256;
