//! Reporting calls and returns to a process's Observer, for a run that asks
//! for them ([`crate::RunOptions::trace_calls`]): declarative debugging
//! (`trace why`) builds its evaluation nodes from them. Only calls of the
//! user's functions are reported, but every return is, with the depth of
//! the frame returning: a user function that tail-calls a library one
//! returns through it, and frames an exception unwound are recognised by
//! their depth. A traced process runs in an instruction loop of its own
//! (`interp::traced_loop`), which calls these before a return and after a
//! call; the ordinary loop never does. Everything here is out of line.

use crate::code::{FunId, Program};
use crate::hooks::{CallReport, ReturnReport};
use crate::process::Process;
use trace_term::Term;

/// Function `fun` was entered with its arguments at `base..`.
#[cold]
#[inline(never)]
pub fn called(p: &mut Process, prog: &Program, fun: FunId, base: usize) {
    // Checked before the place is built: a library call allocates nothing.
    if crate::inspect::is_library(prog, fun) {
        return;
    }
    let Some(place) = crate::inspect::place(prog, fun, 0) else {
        return;
    };
    let end = (base + place.arity as usize).min(p.regs.len());
    let depth = p.frames.len();
    let args = &p.regs[base.min(end)..end];
    if let Some(o) = p.observer.as_mut() {
        o.call(&CallReport {
            place: &place,
            args,
            depth,
        });
    }
}

/// Function `fun`, at instruction `pc`, returns `value`.
#[cold]
#[inline(never)]
pub fn returned(p: &mut Process, prog: &Program, fun: FunId, pc: usize, value: &Term) {
    let line = prog.funs.get(fun as usize).map_or(0, |c| c.line_at(pc));
    let depth = p.frames.len();
    if let Some(o) = p.observer.as_mut() {
        o.returned(&ReturnReport { value, depth, line });
    }
}

/// The process starts a `receive`: the innermost user frame, with its
/// bindings, as it stands there.
#[cold]
#[inline(never)]
pub fn receive_reached(p: &mut Process, prog: &Program) {
    let frame = crate::inspect::user_frame_of(prog, p);
    if let (Some(f), Some(o)) = (frame, p.observer.as_mut()) {
        o.receive_reached(&f);
    }
}
