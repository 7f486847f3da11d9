//! Read-only inspection of a run's processes, for debuggers: where each
//! process is (its stack of functions with `file:line`), its variables by
//! source name with their values, its mailbox, links and monitors.
//!
//! A [`View`] is handed to [`crate::hooks::Director::settled`] once the run
//! has settled, so nothing runs while it reads: it takes each process's
//! state under its lock and copies what it shows (terms are shared, so a
//! copy is a reference count). Variable names exist only for a program
//! loaded with [`crate::LoadOptions::debug`]; without them a frame shows
//! its place and no bindings. A run with no debugger never builds a view.

use crate::code::{FunId, Program};
use crate::ir::Instr;
use crate::process::Process;
use crate::sched::Runtime;
use trace_term::{Atom, Pid, Ref, Term};

/// The settled run, as a debugger sees it.
pub struct View<'a> {
    rt: &'a Runtime,
}

/// A place in the code: a function and the source line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    pub module: Atom,
    pub function: Atom,
    pub arity: u32,
    /// The source file, as the program was loaded from it.
    pub file: String,
    pub line: u32,
    /// In one of the engine's library modules (the prelude), not the
    /// user's code.
    pub library: bool,
}

/// One function activation of a process's stack.
#[derive(Clone, Debug)]
pub struct FrameState {
    pub place: Place,
    /// The variables bound there, by source name, with their values (in
    /// name order; empty without debug information).
    pub bindings: Vec<(String, Term)>,
}

/// What a settled process is doing.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Activity {
    /// Waiting in a `receive` (for a message, or held there).
    Receiving,
    /// Stopped before its next event (held by its Director, or waiting for
    /// its turn at standard output or shared state).
    Stopped,
    /// Its code has ended; it waits to finish its exit.
    Ending,
}

/// A process's state, copied out of the run.
#[derive(Clone, Debug)]
pub struct ProcessState {
    pub pid: Pid,
    /// `P`, `P.2`, `P.2.1`.
    pub symbolic: String,
    pub parent: Option<Pid>,
    /// The function it was started in.
    pub initial: (Atom, Atom, u32),
    pub activity: Activity,
    /// Its stack, innermost first.
    pub frames: Vec<FrameState>,
    /// Its mailbox, oldest first.
    pub mailbox: Vec<Term>,
    pub links: Vec<Pid>,
    /// Monitors it holds: reference and monitored process.
    pub monitors: Vec<(Ref, Pid)>,
    /// Processes monitoring it.
    pub monitored_by: Vec<Pid>,
    pub trap_exit: bool,
    /// Its registered name, if any.
    pub registered: Option<Atom>,
}

impl ProcessState {
    /// The innermost frame in the user's code (not the library), or the
    /// innermost one when none is.
    pub fn user_frame(&self) -> Option<&FrameState> {
        self.frames
            .iter()
            .find(|f| !f.place.library)
            .or(self.frames.first())
    }
}

impl<'a> View<'a> {
    pub(crate) fn new(rt: &'a Runtime) -> View<'a> {
        View { rt }
    }

    pub fn program(&self) -> &Program {
        &self.rt.program
    }

    /// The processes alive now, in pid order.
    pub fn pids(&self) -> Vec<Pid> {
        let mut v: Vec<Pid> = self.rt.table.all().iter().map(|p| p.pid).collect();
        v.sort();
        v
    }

    /// The state of process `pid`, if it is alive and not running.
    pub fn process(&self, pid: Pid) -> Option<ProcessState> {
        let shared = self.rt.table.get(pid)?;
        let g = shared.body.lock().unwrap_or_else(|e| e.into_inner());
        let p = g.as_deref()?;
        let registered = self
            .rt
            .names
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .find(|(_, q)| **q == pid)
            .map(|(n, _)| *n);
        Some(ProcessState {
            pid,
            symbolic: p.symbolic_name(),
            parent: p.parent,
            initial: p.initial,
            activity: activity(self.program(), p),
            frames: frames(self.program(), p),
            mailbox: mailbox(p),
            links: p.links.clone(),
            monitors: p.monitors.clone(),
            monitored_by: p.monitored_by.iter().map(|m| m.watcher).collect(),
            trap_exit: p.trap_exit,
            registered,
        })
    }

    /// How many writes to standard output the run has made.
    pub fn output_count(&self) -> u64 {
        self.rt.output.count()
    }
}

fn activity(prog: &Program, p: &Process) -> Activity {
    if p.ending.is_some() {
        return Activity::Ending;
    }
    let code = prog.funs.get(p.fun as usize).map(|f| &f.code[..]);
    match code.and_then(|c| c.get(p.pc as usize)) {
        Some(
            Instr::RecvStart { .. }
            | Instr::RecvPeek { .. }
            | Instr::RecvWait { .. }
            | Instr::RecvWaitTimeout { .. },
        ) => Activity::Receiving,
        _ => Activity::Stopped,
    }
}

/// The innermost frame of `p` in the user's code (the innermost one when
/// none is), with its bindings: what `trace why` shows at a `receive`.
pub(crate) fn user_frame_of(prog: &Program, p: &Process) -> Option<FrameState> {
    let mut frames = frames(prog, p);
    let k = frames.iter().position(|f| !f.place.library).unwrap_or(0);
    (k < frames.len()).then(|| frames.swap_remove(k))
}

/// The stack, innermost first: the current function at its pc, then each
/// caller at the call it waits in.
fn frames(prog: &Program, p: &Process) -> Vec<FrameState> {
    let mut out = vec![frame(prog, p, p.fun, p.pc, p.base)];
    for f in p.frames.iter().rev() {
        let (fun, pc) = f.place(prog);
        out.push(frame(prog, p, fun, pc.saturating_sub(1), f.base));
    }
    out
}

/// Whether function `fun` is the library's (the prelude's), not the user's.
pub(crate) fn is_library(prog: &Program, fun: FunId) -> bool {
    let code = prog.funs.get(fun as usize);
    code.is_none_or(|c| prog.modules.get(&c.module).is_none_or(|m| m.prelude))
}

/// The place of function `fun` at instruction `pc`.
pub(crate) fn place(prog: &Program, fun: FunId, pc: usize) -> Option<Place> {
    let code = prog.funs.get(fun as usize)?;
    Some(Place {
        module: code.module,
        function: code.name,
        arity: code.arity,
        file: prog.file_text(fun),
        line: code.line_at(pc),
        library: is_library(prog, fun),
    })
}

fn frame(prog: &Program, p: &Process, fun: FunId, pc: u32, base: u32) -> FrameState {
    let (Some(code), Some(place)) = (prog.funs.get(fun as usize), place(prog, fun, pc as usize))
    else {
        return FrameState {
            place: Place {
                module: Atom::intern("?"),
                function: Atom::intern("?"),
                arity: 0,
                file: String::new(),
                line: 0,
                library: true,
            },
            bindings: Vec::new(),
        };
    };
    let mut bindings: Vec<(String, Term)> = match &code.debug {
        Some(d) => d
            .bound_at(pc)
            .filter_map(|(name, slot)| {
                let v = p.regs.get(base as usize + slot as usize)?;
                Some((name.to_string(), v.clone()))
            })
            .collect(),
        None => Vec::new(),
    };
    bindings.sort_by(|a, b| a.0.cmp(&b.0));
    FrameState { place, bindings }
}

/// The mailbox's messages; the one a receive has on loan is in its slot.
fn mailbox(p: &Process) -> Vec<Term> {
    p.mailbox
        .iter()
        .enumerate()
        .map(|(i, m)| match p.loan {
            Some(s) if i == p.cursor => p.regs.get(s as usize).cloned().unwrap_or(Term::Nil),
            _ => m.payload.clone(),
        })
        .collect()
}
