//! The protocol of an operation on shared state, common to tables, arrays
//! and `persistent_term`:
//!
//! 1. [`Ctx::shared_turn`]: signals due before it are taken (replay), the
//!    process may be preempted (`--chaos`), and the Director says when and
//!    on which object the operation happens;
//! 2. the caller locks the object and takes a position from its
//!    [`OpCount`](super::OpCount) (waiting, woken by the next operation,
//!    when the Director named a later one);
//! 3. [`Ctx::shared_done`]: the processes waiting on the object are woken
//!    and the hooks see the operation.

use super::{SharedOp, SharedTurn};
use crate::exception::Fault;
use crate::hooks::NondetBif;
use crate::process::{Process, Signal};
use crate::sched::{signals, Runtime, Worker};
use crate::vm::ctx::Ctx;
use trace_term::{atom, Pid, Term};

impl Ctx<'_> {
    /// Step 1 of an operation named `function` on the object `target` names.
    pub fn shared_turn(
        &mut self,
        function: &'static str,
        target: &Term,
    ) -> Result<SharedTurn, Fault> {
        self.before_event()?;
        self.chaos_preempt()?;
        let answer = match self.proc.director.as_mut() {
            None => return Ok(SharedTurn::Now),
            Some(d) => d.shared_turn(function, target),
        };
        answer.map_err(|div| self.diverged(div))
    }

    /// Under `--chaos`, a process may lose the processor right before it
    /// touches shared state, so that a lookup-then-insert race shows up.
    /// The operation runs again when the process is next scheduled, and
    /// then goes ahead.
    fn chaos_preempt(&mut self) -> Result<(), Fault> {
        if !self.wk.chaos() {
            return Ok(());
        }
        if self.proc.preempted {
            self.proc.preempted = false;
        } else if self.wk.random().is_multiple_of(3) {
            self.proc.preempted = true;
            return Err(Fault::Retry);
        }
        Ok(())
    }

    /// Step 3: wakes `waiting` and reports `op`.
    pub fn shared_done(&mut self, op: &SharedOp<'_>, waiting: Vec<Pid>) {
        wake(self.rt, Some(self.wk), waiting);
        report(self.proc, self.rt, op);
    }
}

/// Wakes processes waiting for an object's next operation.
pub fn wake(rt: &Runtime, wk: Option<&Worker>, waiting: Vec<Pid>) {
    for pid in waiting {
        signals::deliver(rt, wk, pid, Signal::Wake);
    }
}

/// Reports an operation of `p` to its hooks; a Director that rejects it
/// stops the run (replay diverged).
pub fn report(p: &mut Process, rt: &Runtime, op: &SharedOp<'_>) {
    p.events += 1;
    if let Some(o) = p.observer.as_mut() {
        o.shared(op);
    }
    if let Some(d) = p.director.as_mut() {
        // An operation on shared state is a built-in call's event.
        match d.shared_event(op) {
            Ok(()) => signals::note_agreed(p, rt, true),
            Err(div) => {
                rt.diverge(p, div, true);
            }
        }
    }
}

/// Whether `pid` is alive, as an operation that hands something to it
/// (`give_away`, an heir) observes it: a nondeterministic result the hooks
/// see and a Director decides.
pub fn decide_alive(p: &mut Process, rt: &Runtime, pid: Pid) -> bool {
    let now = pid == p.pid || rt.table.get(pid).is_some_and(|s| !s.is_exited());
    let computed = Term::bool(now);
    let v = match p.director.as_mut() {
        Some(d) => match d.nondet(NondetBif::IsProcessAlive, computed) {
            Ok(v) => v,
            Err(div) => {
                rt.diverge(p, div, true);
                return now;
            }
        },
        None => computed,
    };
    signals::emit(
        p,
        rt,
        crate::hooks::Event::Nondet {
            kind: NondetBif::IsProcessAlive,
            value: &v,
        },
    );
    v.is_atom(atom::TRUE)
}
