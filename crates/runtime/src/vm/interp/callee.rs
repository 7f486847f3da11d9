//! What a call of a fun value or of a module and name known only at run
//! time reaches: compiled code, a built-in, or something the engine lacks.

use super::Next;
use crate::bif;
use crate::code::{FunId, Program};
use crate::exception::{badarg, Exception};
use crate::process::Process;
use crate::sched::Runtime;
use crate::vm::{raise, SliceEnd};
use trace_term::{atom, Atom, Fun, Term};

/// What a call reaches.
pub(super) enum Callee {
    Code(FunId),
    Bif(crate::bif::BifId),
    /// An OTP function the engine does not implement (the message names it).
    Unsupported(String),
}

/// Stops the run at a call the engine cannot honour (see [`Runtime::unsupported`]).
pub(super) fn stop_unsupported(rt: &Runtime, msg: String) -> Next {
    rt.unsupported(msg);
    Next::End(SliceEnd::Yield)
}

/// Extra slots a closure call fills after the arguments (captured values, itself).
pub(super) fn closure_extra(fv: &Term, prog: &Program) -> usize {
    match fv {
        Term::Fun(f) => match &**f {
            Fun::Closure { code, env, .. } if *code != trace_term::fun::NO_CODE => {
                env.len() + prog.closures[*code as usize].named as usize
            }
            _ => 0,
        },
        _ => 0,
    }
}

/// Prepares a call of fun value `fv` with `arity` arguments at `base+args`:
/// places captured values after the arguments, resolves the target.
#[allow(clippy::too_many_arguments)]
pub(super) fn prepare_fun_call(
    p: &mut Process,
    prog: &Program,
    fun: FunId,
    pc: usize,
    base: usize,
    fv: &Term,
    args: usize,
    arity: usize,
) -> Result<Callee, Exception> {
    let badfun = |p: &mut Process| {
        raise::compiled_error(
            p,
            prog,
            fun,
            pc,
            Term::tuple(vec![Term::Atom(atom::BADFUN), fv.clone()]),
            None,
        )
    };
    let Term::Fun(f) = fv else {
        return Err(badfun(p));
    };
    let s = base + args;
    if f.arity() as usize != arity {
        let argv = Term::list(p.regs[s..s + arity].to_vec());
        return Err(raise::compiled_error(
            p,
            prog,
            fun,
            pc,
            Term::tuple(vec![
                Term::Atom(atom::BADARITY),
                Term::tuple(vec![fv.clone(), argv]),
            ]),
            None,
        ));
    }
    match &**f {
        Fun::Closure { code, env, .. } => {
            if *code == trace_term::fun::NO_CODE {
                return Err(badfun(p));
            }
            let info = &prog.closures[*code as usize];
            let target = info.code;
            let need = s + prog.funs[target as usize].nslots as usize + env.len() + 1;
            if p.regs.len() < need {
                super::grow_stack(p, need);
            }
            for (i, v) in env.iter().enumerate() {
                p.regs[s + arity + i] = v.clone();
            }
            if info.named {
                p.regs[s + arity + env.len()] = fv.clone();
            }
            Ok(Callee::Code(target))
        }
        Fun::External {
            module, function, ..
        } => resolve_mfa(p, prog, fun, pc, base, *module, *function, args, arity),
    }
}

#[allow(clippy::too_many_arguments)]
pub(super) fn resolve_mfa(
    p: &mut Process,
    prog: &Program,
    fun: FunId,
    pc: usize,
    base: usize,
    m: Atom,
    f: Atom,
    args: usize,
    arity: usize,
) -> Result<Callee, Exception> {
    if let Some(id) = prog.exported(m, f, arity as u32) {
        return Ok(Callee::Code(id));
    }
    if let Some(id) = bif::registry().lookup_atoms(m, f, arity) {
        return Ok(Callee::Bif(id));
    }
    let user_module = prog.modules.get(&m).is_some_and(|i| !i.prelude);
    if !user_module && crate::otp::has_function(m.name(), f.name(), arity as u32) {
        let code = &prog.funs[fun as usize];
        return Ok(Callee::Unsupported(format!(
            "{}:{}: unsupported: {}:{}/{} is not implemented by trace (called at run time)",
            prog.files[code.file as usize].display(),
            code.line_at(pc.saturating_sub(1)),
            m.name(),
            f.name(),
            arity
        )));
    }
    let s = base + args;
    let argv = p.regs[s..s + arity].to_vec();
    Err(raise::undef(p, prog, fun, pc, m, f, argv))
}

#[allow(clippy::too_many_arguments)]
pub(super) fn resolve_dyn(
    p: &mut Process,
    prog: &Program,
    fun: FunId,
    pc: usize,
    base: usize,
    m: &Term,
    f: &Term,
    args: usize,
    arity: usize,
) -> Result<Callee, Exception> {
    match (m, f) {
        (Term::Atom(m), Term::Atom(f)) => resolve_mfa(p, prog, fun, pc, base, *m, *f, args, arity),
        _ => {
            let fault = badarg();
            Err(raise::error(p, prog, fun, pc, fault))
        }
    }
}
