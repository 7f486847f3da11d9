//! What code is loaded: `erlang:function_exported/3`, `module_loaded/1` and
//! the parts of `code` that OTP's behaviours and programs ask. Every module
//! of the program (and the prelude) is loaded before the run starts, so
//! nothing is ever loaded later.

use super::{Builder, Ctx};
use crate::exception::{badarg, BifResult};
use trace_term::{Atom, Term};

pub fn register(b: &mut Builder) {
    b.proc("erlang", "function_exported", 3, function_exported, 0);
    b.proc("erlang", "module_loaded", 1, module_loaded, super::AUTO);
    b.proc("code", "ensure_loaded", 1, ensure_loaded, 0);
    b.proc("code", "is_loaded", 1, is_loaded, 0);
}

fn module_arg(t: &Term) -> Result<Atom, crate::exception::Fault> {
    t.as_atom().ok_or_else(badarg)
}

fn loaded(cx: &Ctx, m: Atom) -> bool {
    cx.program().modules.contains_key(&m)
}

fn function_exported(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let (Term::Atom(m), Term::Atom(f), Term::Int(n)) = (&a[0], &a[1], &a[2]) else {
        return Err(badarg());
    };
    let Ok(n) = u32::try_from(*n) else {
        return Err(badarg());
    };
    // As on BEAM: an exported function of a loaded module, or a built-in.
    let yes = cx.program().exported(*m, *f, n).is_some()
        || super::registry().lookup_atoms(*m, *f, n as usize).is_some();
    Ok(Term::bool(yes))
}

fn module_loaded(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let m = module_arg(&a[0])?;
    Ok(Term::bool(loaded(cx, m)))
}

fn ensure_loaded(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let m = module_arg(&a[0])?;
    Ok(if loaded(cx, m) {
        Term::tuple(vec![Term::atom("module"), Term::Atom(m)])
    } else {
        Term::tuple(vec![Term::atom("error"), Term::atom("nofile")])
    })
}

fn is_loaded(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let m = module_arg(&a[0])?;
    if !loaded(cx, m) {
        return Ok(Term::FALSE);
    }
    let prog = cx.program();
    let info = &prog.modules[&m];
    // OTP answers the .beam file's path; the engine's is the source's.
    let file = prog.files[info.file as usize].display().to_string();
    Ok(Term::tuple(vec![Term::atom("file"), Term::string(&file)]))
}
