//! The context a process built-in runs in: the calling process, the runtime,
//! and the scheduler thread. Every event-producing operation of a built-in
//! goes through here, so the hooks see it and a replay Director can steer it.

use crate::code::Program;
use crate::exception::{badarg, Fault};
use crate::hooks::{Event, NondetBif, OutputTurn, SentSignal};
use crate::process::{Process, Signal, SignalId};
use crate::sched::signals::{self, Due};
use crate::sched::spawn::{self, Target};
use crate::sched::{Runtime, Worker};
use trace_term::{atom, Atom, Pid, Ref, Term};

pub struct Ctx<'a> {
    pub proc: &'a mut Process,
    pub rt: &'a Runtime,
    pub wk: &'a Worker,
    /// This call went through the gate of a controlled run already: the
    /// built-in's further events belong to the same step.
    pub passed: bool,
}

impl<'a> Ctx<'a> {
    pub fn program(&self) -> &Program {
        &self.rt.program
    }

    /// Before the built-in's first event: in a controlled run, a process
    /// that has made its step's operation stops here (the built-in runs
    /// again when the process is next picked). Replay: takes the signals
    /// that land before this process's next event; when one has not
    /// arrived, the built-in waits for it.
    pub fn before_event(&mut self) -> Result<(), Fault> {
        self.gate()?;
        if self.proc.director.is_none() {
            return Ok(());
        }
        match signals::take_due(self.proc, self.rt, self.wk) {
            Due::Missing => Err(Fault::Block),
            Due::Clear => {
                if self.proc.kill.is_some() {
                    // Killed by a signal that landed here: end without the event.
                    return Err(Fault::Yield(Term::Atom(atom::TRUE)));
                }
                Ok(())
            }
        }
    }

    /// A controlled run's gate alone, for an operation that makes no event
    /// but changes what later steps see (`process_flag(trap_exit, _)`).
    pub fn gate(&mut self) -> Result<(), Fault> {
        if !self.passed {
            if !self.proc.gate.pass() {
                return Err(Fault::Retry);
            }
            self.passed = true;
        }
        Ok(())
    }

    /// Tells a controlled run's Observer what this step reads or writes
    /// beyond its events.
    pub fn touched(&mut self, t: crate::hooks::Touched<'_>) {
        if self.rt.controlled {
            if let Some(o) = self.proc.observer.as_mut() {
                o.touched(&t);
            }
        }
    }

    pub(crate) fn diverged(&mut self, d: crate::hooks::Divergence) -> Fault {
        self.rt.diverge(self.proc, d, true);
        Fault::Yield(Term::Atom(atom::UNDEFINED))
    }

    /// A nondeterministic result: the Director may replace it; the hooks see it.
    pub fn nondet(&mut self, kind: NondetBif, computed: Term) -> Result<Term, Fault> {
        self.before_event()?;
        self.decide(kind, computed)
    }

    /// [`Ctx::nondet`] right after [`Ctx::before_event`] or another event of
    /// the same built-in, where no signal can land in between (signals due
    /// are taken once per event).
    pub(crate) fn decide(&mut self, kind: NondetBif, computed: Term) -> Result<Term, Fault> {
        let v = match self.proc.director.as_mut() {
            Some(d) => match d.nondet(kind, computed) {
                Ok(v) => v,
                Err(div) => return Err(self.diverged(div)),
            },
            None => computed,
        };
        signals::emit(self.proc, self.rt, Event::Nondet { kind, value: &v });
        Ok(v)
    }

    /// The pid a registered name stands for now (a nondeterministic lookup).
    pub fn whereis(&mut self, name: Atom) -> Result<Option<Pid>, Fault> {
        self.before_event()?;
        self.touched(crate::hooks::Touched::Name(name));
        let now = self
            .rt
            .names
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&name)
            .copied();
        let v = self.decide(
            NondetBif::Whereis,
            now.map(Term::Pid).unwrap_or(Term::Atom(atom::UNDEFINED)),
        )?;
        Ok(v.as_pid())
    }

    /// `Dest ! Msg` for a pid, a registered name, `{Name, Node}`, or an
    /// alias (a reference: the message goes to the process that made it,
    /// which keeps it only if the alias is still active when it arrives).
    pub fn send(&mut self, dest: &Term, msg: Term) -> Result<(), Fault> {
        let mut via = None;
        let to = match dest {
            Term::Pid(p) => *p,
            Term::Ref(r) => {
                via = Some(*r);
                Pid(r.creator())
            }
            Term::Atom(name) => match self.whereis(*name)? {
                Some(p) => p,
                None => return Err(badarg()),
            },
            Term::Tuple(t) if t.arity() == 2 => match (&t.elements()[0], &t.elements()[1]) {
                (Term::Atom(name), Term::Atom(node)) if *node == atom::NONODE => {
                    match self.whereis(*name)? {
                        Some(p) => p,
                        // Unlike a bare name, {Name, Node} that nobody
                        // holds is not an error: the message is dropped.
                        None => return Ok(()),
                    }
                }
                _ => return Err(badarg()),
            },
            _ => return Err(badarg()),
        };
        self.before_event()?;
        signals::send_message(self.proc, self.rt, self.wk, to, msg, via);
        Ok(())
    }

    /// Sends a non-message signal; returns its identity and whether `to` was alive.
    pub fn signal(
        &mut self,
        to: Pid,
        out: SentSignal<'_>,
        sig: impl FnOnce(SignalId) -> Signal,
    ) -> (SignalId, bool) {
        let id = signals::log_signal(self.proc, self.rt, to, out);
        let alive = if to == self.proc.pid {
            // A signal to oneself is taken at once, as BEAM does, but after
            // the signals that arrived before it (a message already sent to
            // us stays ahead of an 'EXIT' we give ourselves).
            signals::drain(self.proc, self.rt, self.wk);
            let s = sig(id);
            signals::take(self.proc, self.rt, self.wk, s);
            true
        } else {
            signals::deliver(self.rt, Some(self.wk), to, sig(id))
        };
        (id, alive)
    }

    /// Sends a signal whose sender acts on whether it reached a live process
    /// (link, monitor). That liveness is a nondeterministic observation: the
    /// hooks see it after the signal, and a replay Director decides it.
    pub fn signal_alive(
        &mut self,
        to: Pid,
        out: SentSignal<'_>,
        sig: impl FnOnce(SignalId) -> Signal,
    ) -> Result<bool, Fault> {
        let (_, delivered) = self.signal(to, out, sig);
        self.touched(crate::hooks::Touched::Liveness(to));
        let v = self.decide(NondetBif::IsProcessAlive, Term::bool(delivered))?;
        Ok(v.is_atom(atom::TRUE))
    }

    /// Whether `pid` is alive now (a nondeterministic observation).
    pub fn alive(&mut self, pid: Pid) -> Result<bool, Fault> {
        self.before_event()?;
        self.touched(crate::hooks::Touched::Liveness(pid));
        let now = pid == self.proc.pid || self.rt.table.get(pid).is_some_and(|s| !s.is_exited());
        let v = self.decide(NondetBif::IsProcessAlive, Term::bool(now))?;
        Ok(v.is_atom(atom::TRUE))
    }

    /// Writes to standard output in this process's turn.
    pub fn output(&mut self, bytes: &[u8]) -> Result<(), Fault> {
        self.before_event()?;
        let turn = match self.proc.director.as_mut() {
            Some(d) => match d.output_turn() {
                Ok(t) => t,
                Err(div) => return Err(self.diverged(div)),
            },
            None => OutputTurn::Now,
        };
        let at = match turn {
            OutputTurn::Now => None,
            OutputTurn::At(s) => Some(s),
        };
        match self.rt.output.write(at, bytes, self.proc.pid) {
            Some((seq, waiting)) => {
                for pid in waiting {
                    signals::deliver(self.rt, Some(self.wk), pid, Signal::Wake);
                }
                signals::emit(self.proc, self.rt, Event::Output { seq, bytes });
                Ok(())
            }
            // Woken by the next write, to try again.
            None => Err(Fault::Block),
        }
    }

    pub fn spawn(
        &mut self,
        target: Target,
        link: bool,
        monitor: bool,
    ) -> Result<(Pid, Option<Ref>), Fault> {
        self.before_event()?;
        spawn::spawn(self.proc, self.rt, self.wk, target, link, monitor)
    }

    pub fn self_pid(&self) -> Pid {
        self.proc.pid
    }
}
