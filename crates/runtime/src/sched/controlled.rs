//! Controlled runs: the Director schedules the program one step at a time
//! (see [`crate::hooks::Director::controls_scheduling`]), on the caller's
//! thread, with no scheduler or timer threads, so that a run can be
//! restarted thousands of times a second and follows exactly the choices
//! it is given.
//!
//! Every process stands in one of three places between steps: *poised*
//! right before its next visible operation (it can take a step), *waiting*
//! in a receive with nothing it can take, or ended. A process that was
//! woken (a signal arrived), or was just spawned, is first *settled*: run
//! with its gate shut until it is poised or waits again, which runs only
//! local computation (a receive's scan, a new process's first
//! instructions). A picked process runs with its gate open: it makes its
//! operation and goes on to just before the next one. Message timers are
//! steps of their own: firing one delivers its message.

use super::{spawn, worker, Entry, Limit, RunOutcome, Runtime, Worker};
use crate::hooks::Ready;
use crate::ir::Instr;
use crate::process::{run_state, Gate, ProcShared, SignalId};
use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use trace_term::{atom, Pid, Term};

/// Slices one step may run without reaching its next operation (about
/// 100 million reductions): past that, the process is computing without
/// end and the run is cut.
const MAX_SLICES_PER_STEP: u32 = 25_000;

/// A process poised before an operation.
struct Poised {
    p: Arc<ProcShared>,
    /// The `after` of the receive it waits at, when its operation is that
    /// receive's timeout (read once: a poised process does not run).
    timeout: Option<u64>,
}

/// Where the processes of a controlled run stand between steps.
#[derive(Default)]
struct Control {
    /// Processes poised before an operation, by pid.
    poised: BTreeMap<Pid, Poised>,
    /// How many of them are poised at a receive's timeout (only those look
    /// again at their mailbox between steps).
    timed: usize,
    /// Processes woken or spawned since, to bring to their next operation.
    unsettled: Vec<Arc<ProcShared>>,
}

/// Runs a program under a Director that picks every step.
pub fn run(mut rt: Runtime, entry: Entry) -> RunOutcome {
    let w = Worker::new(0, None);
    rt.stealers = vec![w.victim()];
    let entry_pid = spawn::spawn_entry(&mut rt, entry);
    let rt = rt;
    let mut c = Control::default();
    loop {
        c.collect(&rt, &w, None);
        c.settle(&rt, &w);
        if rt.stopping() {
            break;
        }
        let ready = c.ready(&rt);
        if ready.is_empty() {
            break;
        }
        let Some(i) = rt.director.pick(&ready).filter(|&i| i < ready.len()) else {
            rt.limit_reached(Limit::Steps);
            break;
        };
        match ready[i] {
            Ready::Process { pid, .. } => c.step(&rt, &w, pid),
            Ready::Timer { id, .. } => fire(&rt, id),
        }
    }
    super::conclude(&rt, entry_pid)
}

/// Delivers the message of a pending timer now.
fn fire(rt: &Runtime, id: SignalId) {
    if let Some(action) = rt.timers.take_message(id) {
        super::signals::fire_timer(rt, action);
    }
}

/// A process's gate, if it still has a body.
fn gate_of(p: &ProcShared) -> Option<Gate> {
    p.body
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .as_ref()
        .map(|b| b.gate)
}

fn set_gate(p: &ProcShared, g: Gate) {
    if let Some(b) = p.body.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
        b.gate = g;
    }
}

/// The `after` of the receive a poised process waits at, when its next
/// operation is that receive's timeout.
fn timeout_of(rt: &Runtime, p: &ProcShared) -> Option<u64> {
    let g = p.body.lock().unwrap_or_else(|e| e.into_inner());
    let b = g.as_ref()?;
    match rt.program.funs[b.fun as usize].code.get(b.pc as usize) {
        Some(Instr::RecvWaitTimeout { timeout, .. }) => {
            match b.regs.get(b.base as usize + *timeout as usize) {
                Some(Term::Int(ms)) => Some(*ms as u64),
                Some(Term::Atom(a)) if *a == atom::INFINITY => None,
                _ => None,
            }
        }
        _ => None,
    }
}

impl Control {
    /// Files the processes the run queues hold: poised ones as ready, the
    /// others to settle. `running`: the process of the step under way,
    /// returned when it yielded before reaching its next operation.
    fn collect(
        &mut self,
        rt: &Runtime,
        w: &Worker,
        running: Option<Pid>,
    ) -> Option<Arc<ProcShared>> {
        let mut again = None;
        while let Some(p) = w.pop_local().or_else(|| rt.pop_injected()) {
            match gate_of(&p) {
                Some(Gate::Poised) => {
                    let timeout = timeout_of(rt, &p);
                    self.timed += timeout.is_some() as usize;
                    if let Some(old) = self.poised.insert(p.pid, Poised { p, timeout }) {
                        self.timed -= old.timeout.is_some() as usize;
                    }
                }
                _ if Some(p.pid) == running => again = Some(p),
                _ => self.unsettled.push(p),
            }
        }
        // A process poised at a receive's timeout takes a look at what
        // arrived since: a matching message makes its step a receipt.
        if self.timed > 0 {
            let (unsettled, timed) = (&mut self.unsettled, &mut self.timed);
            self.poised.retain(|_, q| {
                let recheck = q.timeout.is_some() && q.p.has_arrivals();
                if recheck {
                    unsettled.push(q.p.clone());
                    *timed -= 1;
                }
                !recheck
            });
        }
        again
    }

    /// Brings every woken or new process to its next operation, or back
    /// to waiting.
    fn settle(&mut self, rt: &Runtime, w: &Worker) {
        while let Some(p) = self.unsettled.pop() {
            if rt.stopping() {
                return;
            }
            if p.is_exited() {
                continue;
            }
            set_gate(&p, Gate::Shut);
            self.run_until_settled(rt, w, p);
        }
    }

    /// Takes one step of process `pid`.
    fn step(&mut self, rt: &Runtime, w: &Worker, pid: Pid) {
        let Some(Poised { p, timeout }) = self.poised.remove(&pid) else {
            return;
        };
        self.timed -= timeout.is_some() as usize;
        set_gate(&p, Gate::Open);
        self.run_until_settled(rt, w, p);
    }

    /// Runs `p` (its gate set) until it is poised, waits or ends; other
    /// processes it woke or spawned are filed.
    fn run_until_settled(&mut self, rt: &Runtime, w: &Worker, p: Arc<ProcShared>) {
        let pid = p.pid;
        let mut next = Some(p);
        let mut slices = 0;
        while let Some(p) = next.take() {
            if rt.stopping() {
                return;
            }
            slices += 1;
            if slices > MAX_SLICES_PER_STEP {
                rt.limit_reached(Limit::Steps);
                return;
            }
            if p.state.load(Ordering::Acquire) != run_state::QUEUED {
                // Woken while settled: it is in a queue already.
                continue;
            }
            worker::run_process(rt, w, p);
            next = self.collect(rt, w, Some(pid));
        }
    }

    /// What may take the next step: poised processes in pid order, then
    /// pending message timers in the order they were set.
    fn ready(&self, rt: &Runtime) -> Vec<Ready> {
        let mut v: Vec<Ready> = self
            .poised
            .iter()
            .map(|(pid, q)| Ready::Process {
                pid: *pid,
                timeout: q.timeout,
            })
            .collect();
        rt.timers
            .pending_messages(|id, after| v.push(Ready::Timer { id, after }));
        v
    }
}
