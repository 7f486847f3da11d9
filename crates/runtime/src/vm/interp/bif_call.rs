//! Calling a built-in from the loop, and what it may answer: a value, an
//! exception, a call to make for it (`apply`), or a wait.

use super::call::{callee_base, do_return, Ret};
use super::callee::{closure_extra, prepare_fun_call, resolve_mfa, stop_unsupported, Callee};
use super::Next;
use crate::bif::{self, BifFn};
use crate::code::{FunId, Program};
use crate::exception::{Apply, Fault};
use crate::ir::RAISE;
use crate::process::Process;
use crate::sched::{Runtime, Worker};
use crate::vm::ctx::Ctx;
use crate::vm::{raise, SliceEnd};
use trace_term::Term;

/// Calls built-in `id` with the `arity` arguments at absolute stack index `s`.
/// Leaves the position to continue from in `p.fun/p.pc/p.base`. `fail`
/// is the arena's form of the label, relative to `pc` (see
/// [`crate::ir::relative`]).
#[allow(clippy::too_many_arguments)]
pub(super) fn call_bif(
    p: &mut Process,
    rt: &Runtime,
    wk: &Worker,
    prog: &Program,
    fun: FunId,
    pc: usize,
    base: usize,
    id: crate::bif::BifId,
    s: usize,
    arity: usize,
    ret: Ret,
    fail: u32,
) -> Next {
    let def = bif::registry().def(id);
    p.fun = fun;
    p.pc = pc as u32;
    p.base = base as u32;
    let res = match def.f {
        BifFn::Pure(f) => f(&p.regs[s..s + arity]),
        BifFn::Proc(f) => {
            // The arguments move out of their slots for the call and back
            // after it: no reference counting per argument.
            let argv = smallvec_args::Args::take(&mut p.regs[s..s + arity]);
            let mut cx = Ctx {
                proc: p,
                rt,
                wk,
                passed: false,
            };
            let r = f(&mut cx, argv.as_slice());
            argv.restore(&mut p.regs[s..s + arity]);
            r
        }
    };
    match res {
        Ok(v) => deliver(p, prog, fun, pc, base, v, ret),
        Err(Fault::Error(reason)) => {
            if fail != RAISE {
                p.pc = crate::ir::target(pc, fail) as u32;
                return Next::Continue;
            }
            let argv = p.regs[s..s + arity].to_vec();
            Next::Raise(raise::bif_error(
                p, prog, fun, pc, def.module, def.name, argv, reason,
            ))
        }
        Err(Fault::Raise {
            class,
            reason,
            trace,
        }) => {
            if fail != RAISE {
                p.pc = crate::ir::target(pc, fail) as u32;
                return Next::Continue;
            }
            Next::Raise(raise::explicit(p, prog, fun, pc, class, reason, trace))
        }
        Err(Fault::Apply(target, argv)) => apply(p, rt, wk, prog, fun, pc, base, target, argv, ret),
        Err(Fault::Hibernate(m, f, argv)) => {
            // Nothing is returned to and nothing catches: the continuation
            // runs in place of the whole stack (a tail call from its bottom).
            p.frames.clear();
            p.handlers.clear();
            let wake = Apply::Mfa(
                trace_term::Atom::intern("trace_prelude"),
                trace_term::Atom::intern("hibernate_wake"),
            );
            let args = vec![Term::Atom(m), Term::Atom(f), Term::list(argv)];
            apply(p, rt, wk, prog, fun, pc, base, wake, args, Ret::Tail)
        }
        Err(Fault::Retry) => {
            // Run this instruction again later.
            p.pc = pc as u32 - 1;
            Next::End(SliceEnd::Yield)
        }
        Err(Fault::Block) => {
            p.pc = pc as u32 - 1;
            Next::End(SliceEnd::Wait { deadline: None })
        }
        Err(Fault::Unsupported(what)) => {
            let code = &prog.funs[fun as usize];
            stop_unsupported(
                rt,
                format!(
                    "{}:{}: unsupported: {what}",
                    prog.files[code.file as usize].display(),
                    code.line_at(pc.saturating_sub(1)),
                ),
            )
        }
        Err(Fault::Yield(v)) => match deliver(p, prog, fun, pc, base, v, ret) {
            Next::Continue => Next::End(SliceEnd::Yield),
            other => other,
        },
    }
}

/// Puts a built-in's value where `ret` says.
fn deliver(
    p: &mut Process,
    prog: &Program,
    fun: FunId,
    pc: usize,
    base: usize,
    v: Term,
    ret: Ret,
) -> Next {
    match ret {
        Ret::Slot(dst) => {
            p.regs[base + dst as usize] = v;
            p.fun = fun;
            p.pc = pc as u32;
            p.base = base as u32;
            Next::Continue
        }
        Ret::Tail => {
            if p.trace_calls {
                crate::vm::calls::returned(p, prog, fun, pc.saturating_sub(1), &v);
            }
            let (mut f, mut npc, mut nb) = (fun, pc, base);
            match do_return(p, prog, &mut f, &mut npc, &mut nb, v) {
                Some(end) => Next::End(end),
                None => {
                    p.fun = f;
                    p.pc = npc as u32;
                    p.base = nb as u32;
                    Next::Continue
                }
            }
        }
    }
}

/// Performs a call a built-in asked for (`apply/2,3` and friends).
#[allow(clippy::too_many_arguments)]
fn apply(
    p: &mut Process,
    rt: &Runtime,
    wk: &Worker,
    prog: &Program,
    fun: FunId,
    pc: usize,
    base: usize,
    target: Apply,
    argv: Vec<Term>,
    ret: Ret,
) -> Next {
    // The arguments go in fresh slots above the current window; a tail call
    // then moves them down to the window's start.
    let nslots = prog.funs[fun as usize].nslots as usize;
    let top = base + nslots;
    let arity = argv.len();
    if p.regs.len() < top + arity + 1 {
        p.regs.resize(top + arity + 1, Term::Nil);
    }
    for (i, a) in argv.into_iter().enumerate() {
        p.regs[top + i] = a;
    }
    let callee = match &target {
        Apply::Fun(fv) => prepare_fun_call(p, prog, fun, pc, base, fv, nslots, arity),
        Apply::Mfa(m, f) => resolve_mfa(p, prog, fun, pc, base, *m, *f, nslots, arity),
    };
    match callee {
        Ok(Callee::Code(f)) => {
            let extra = match &target {
                Apply::Fun(fv) => closure_extra(fv, prog),
                Apply::Mfa(..) => 0,
            };
            let nb = callee_base(p, prog, ret, fun, pc, base, nslots, arity + extra);
            let need = nb + prog.funs[f as usize].nslots as usize;
            if p.regs.len() < need {
                super::grow_stack(p, need);
            }
            p.fun = f;
            p.pc = 0;
            p.base = nb as u32;
            Next::Continue
        }
        Ok(Callee::Bif(id)) => call_bif(p, rt, wk, prog, fun, pc, base, id, top, arity, ret, RAISE),
        Ok(Callee::Unsupported(msg)) => stop_unsupported(rt, msg),
        Err(e) => Next::Raise(e),
    }
}

/// A small inline vector for built-in arguments (no allocation up to 4).
mod smallvec_args {
    use trace_term::Term;

    pub enum Args {
        Inline([Term; 4], usize),
        Heap(Vec<Term>),
    }

    impl Args {
        /// Moves the terms out of `s` (leaving `[]`).
        pub fn take(s: &mut [Term]) -> Args {
            if s.len() <= 4 {
                let mut a: [Term; 4] = [Term::Nil, Term::Nil, Term::Nil, Term::Nil];
                a[..s.len()].swap_with_slice(s);
                Args::Inline(a, s.len())
            } else {
                Args::Heap(
                    s.iter_mut()
                        .map(|t| std::mem::replace(t, Term::Nil))
                        .collect(),
                )
            }
        }

        /// Moves the terms back into `s`.
        pub fn restore(mut self, s: &mut [Term]) {
            match &mut self {
                Args::Inline(a, n) => s.swap_with_slice(&mut a[..*n]),
                Args::Heap(v) => s.swap_with_slice(v),
            }
        }

        pub fn as_slice(&self) -> &[Term] {
            match self {
                Args::Inline(a, n) => &a[..*n],
                Args::Heap(v) => v,
            }
        }
    }
}
