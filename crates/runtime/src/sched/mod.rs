//! Schedulers: N threads running processes with work stealing, plus the
//! shared runtime state (process table, registry, timers, output, hooks).
//!
//! A run starts the entry process and ends when every process has exited or
//! is blocked forever: no process is runnable or running and no timer is
//! pending. Processes still blocked then are reported (a deadlock).

pub mod controlled;
pub mod exit;
pub mod output;
pub mod signals;
pub mod spawn;
pub mod table;
pub mod timer;
pub mod worker;

use crate::code::{FunId, Program};
use crate::hooks::{Director, Divergence, Observer};
use crate::process::run_state;
use crossbeam_deque::Injector;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;
use trace_term::{Atom, Pid, Term};

pub use worker::Worker;

/// The first pid number given to the entry process (BEAM's user processes
/// start around here, so pids look familiar).
pub const FIRST_PID: u64 = 80;

/// The exit reason of a process a replay stopped where it departed from
/// the log.
pub const DIVERGED: &str = "trace_replay_diverged";

/// Scheduling randomisation for `trace record --chaos`.
#[derive(Clone, Debug)]
pub struct Chaos {
    pub seed: u64,
}

/// How to run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Scheduler threads.
    pub schedulers: usize,
    /// Reductions per slice.
    pub reductions: u32,
    pub chaos: Option<Chaos>,
    /// Deliver timed messages at once and never wait for a clock (replay:
    /// the log decides every timeout).
    pub instant_timers: bool,
    /// Print crash and deadlock reports to stderr.
    pub reports: bool,
    /// With `reports`, also list the processes left blocked at the end (a
    /// replay stopped on purpose leaves processes waiting that are no
    /// deadlock).
    pub report_blocked: bool,
    /// Set from outside (Ctrl-C) to stop the run early.
    pub interrupt: Option<Arc<AtomicBool>>,
    /// Which processes left waiting at the end make a deadlock.
    pub end_rule: EndRule,
    /// With `reports`: write them here instead of to stderr (a search for a
    /// failing run shows only the failing attempt's).
    pub capture_reports: Option<Arc<Mutex<Vec<u8>>>>,
    /// End the run once it has run this long (`--time-limit`).
    pub time_limit: Option<std::time::Duration>,
    /// End the run once its processes have made about this many events
    /// (`--max-events`; counted a slice at a time, so a run may pass it by
    /// what one slice of each scheduler makes).
    pub max_events: Option<u64>,
    /// End the run as soon as the entry process ends, as `halt()` after
    /// the entry would (`--halt`): other processes are left where they are.
    pub halt: bool,
    /// Report calls of the user's functions, returns and the bindings at
    /// each `receive` to the Observer ([`crate::hooks::ProcessObserver::call`]):
    /// `trace why`'s evaluation nodes. Such a process runs in an
    /// instruction loop of its own: an ordinary run tests the flag once
    /// per slice and per `receive`, never per call.
    pub trace_calls: bool,
}

/// The processors this process may use, asked of the system once (it
/// reads cgroup files: `trace explore` makes options for thousands of
/// runs a second).
pub(crate) fn processors() -> usize {
    static N: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *N.get_or_init(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    })
}

/// Which limit of [`RunOptions`] ended a run.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Limit {
    Time,
    Events,
    /// The Director of a controlled run ended it ([`Director::pick`]
    /// answered `None`), or one step computed without end.
    Steps,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            schedulers: processors(),
            reductions: 4000,
            chaos: None,
            instant_timers: false,
            reports: true,
            report_blocked: true,
            interrupt: None,
            end_rule: EndRule::Settled,
            capture_reports: None,
            time_limit: None,
            max_events: None,
            halt: false,
            trace_calls: false,
        }
    }
}

/// How the entry process ended.
#[derive(Clone, Debug)]
pub enum EntryOutcome {
    Returned(Term),
    /// It crashed or was killed, with this exit reason.
    Crashed(Term),
    /// The run ended (interrupted or diverged) before the entry finished.
    Unfinished,
}

/// What a process left waiting at the end of a run waits for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Waiting {
    /// Any message: a server idle in its loop, waiting for work.
    Idle,
    /// Something particular — a reply (a reference it made), a message from
    /// one process — that nothing left can send: it is stuck.
    Stuck,
}

/// How a run ends once nothing can move (docs/concurrency.md, "How a run
/// ends").
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum EndRule {
    /// A deadlock is the entry process, or a process waiting for something
    /// particular, left waiting forever; servers idle in their loop are not.
    #[default]
    Settled,
    /// Every process left waiting is a deadlock.
    Strict,
}

impl EndRule {
    /// Whether process `pid`, left waiting as `w` at the end, makes the run
    /// a deadlock: under `Settled`, the entry process itself or one stuck
    /// waiting for something particular; under `Strict`, any.
    pub fn is_deadlock(self, entry: Pid, pid: Pid, w: Waiting) -> bool {
        self == EndRule::Strict || pid == entry || w == Waiting::Stuck
    }
}

/// A process blocked forever at the end of a run.
#[derive(Clone, Debug)]
pub struct Blocked {
    pub pid: Pid,
    pub symbolic: String,
    pub waiting: Waiting,
    /// `module:function/arity` it is in.
    pub mfa: (Atom, Atom, u32),
    pub file: String,
    pub line: u32,
    /// `file:line` of its last event a Director agreed to (a replay), if
    /// its place is known.
    pub last_event_at: Option<String>,
    pub mailbox_len: usize,
    /// The first messages of its mailbox, oldest first (at most
    /// [`BLOCKED_MAILBOX_SHOWN`]).
    pub mailbox: Vec<Term>,
}

/// How many messages of a blocked process's mailbox the end of run keeps.
pub const BLOCKED_MAILBOX_SHOWN: usize = 32;

/// A process that ended abnormally.
#[derive(Clone, Debug)]
pub struct Crash {
    pub pid: Pid,
    pub symbolic: String,
    pub reason: Term,
}

/// What happened in a run.
#[derive(Clone, Debug)]
pub struct RunOutcome {
    pub entry_pid: Pid,
    pub entry: EntryOutcome,
    pub blocked: Vec<Blocked>,
    /// The first [`MAX_CRASHES`] processes that ended abnormally, in the
    /// order they ended.
    pub crashes: Vec<Crash>,
    /// How many processes ended abnormally in all.
    pub crash_count: u64,
    pub interrupted: bool,
    pub divergence: Option<Divergence>,
    /// The engine failed (a bug): what happened.
    pub internal_error: Option<String>,
    /// The run stopped at something the engine does not support (the message names it).
    pub unsupported: Option<String>,
    pub processes_spawned: u64,
    /// The rule that said which waiting processes are a deadlock.
    pub end_rule: EndRule,
    /// The run was cut at a limit of its options.
    pub limit: Option<Limit>,
    /// The run stopped when the entry ended ([`RunOptions::halt`]) or a
    /// process called `erlang:halt/0,1,2`.
    pub halted: bool,
    /// The status `erlang:halt/0,1,2` asked for.
    pub halt_status: Option<i32>,
}

impl RunOutcome {
    /// Whether a process left waiting at the end makes the run a deadlock
    /// ([`EndRule::is_deadlock`]).
    pub fn is_deadlocked(&self, b: &Blocked) -> bool {
        self.end_rule.is_deadlock(self.entry_pid, b.pid, b.waiting)
    }

    /// The processes left waiting that make the run a deadlock.
    pub fn deadlocked(&self) -> impl Iterator<Item = &Blocked> {
        self.blocked.iter().filter(|b| self.is_deadlocked(b))
    }

    /// The processes left idle at the end: servers waiting for work, which
    /// end a run as they would on BEAM.
    pub fn idle(&self) -> impl Iterator<Item = &Blocked> {
        self.blocked.iter().filter(|b| !self.is_deadlocked(b))
    }
}

/// Crashes kept in a [`RunOutcome`] (a program may crash millions of
/// processes; the count says how many).
pub const MAX_CRASHES: usize = 1000;

#[derive(Default)]
struct Finish {
    entry: Option<EntryOutcome>,
    crashes: Vec<Crash>,
    crash_count: u64,
    divergence: Option<Divergence>,
    internal: Option<String>,
    unsupported: Option<String>,
    limit: Option<Limit>,
    halted: bool,
    halt_status: Option<i32>,
}

/// State shared by every scheduler thread for one run.
pub struct Runtime {
    pub program: Arc<Program>,
    pub table: table::ProcTable,
    /// Registered names.
    pub names: Mutex<HashMap<Atom, Pid>>,
    /// The run-wide store of the prelude's system services (see
    /// `bif::system`): key-value pairs, compared exactly.
    pub store: Mutex<crate::bif::system::Store>,
    next_pid: AtomicU64,
    pub spawned: AtomicU64,
    pub output: output::Output,
    pub timers: timer::Timers,
    /// ETS tables.
    pub ets: crate::ets::Tables,
    /// `atomics` and `counters` arrays.
    pub arrays: crate::shared::arrays::Arrays,
    pub persistent: crate::shared::persistent::Persistent,
    pub observer: Arc<dyn Observer>,
    pub director: Arc<dyn Director>,
    pub opts: RunOptions,
    /// Processes queued or running, plus the deactivations scheduler
    /// threads have not subtracted yet (see [`Worker::defer_deactivation`]):
    /// never below the true count, so 0 means the run has settled.
    active: AtomicI64,
    stop: AtomicBool,
    pub interrupt: Arc<AtomicBool>,
    finish: Mutex<Finish>,
    injector: Injector<Arc<crate::process::ProcShared>>,
    /// Every thread's queue, to steal from; set before the threads start.
    stealers: Vec<worker::Victim>,
    /// Idle scheduler threads wait here (with a short timeout, so a missed
    /// wake-up costs at most that).
    sleep: (Mutex<()>, Condvar),
    sleepers: AtomicUsize,
    pub unique: AtomicU64,
    /// Events made so far (counted only under `--max-events`).
    events: AtomicU64,
    pub start: Instant,
    pub entry_pid: Pid,
    /// Serialises reports on stderr.
    pub stderr: Mutex<()>,
    /// A signal to a pid no process has had yet waits for that process
    /// (replay: see `table`); otherwise it is dropped.
    pub awaits_unborn: bool,
    /// Held by the scheduler thread asking the Director what to do once
    /// the run has settled ([`crate::hooks::Director::settled`]).
    settling: Mutex<()>,
    /// The Director schedules the run one step at a time ([`controlled`]).
    pub controlled: bool,
}

impl Runtime {
    pub fn new(
        program: Arc<Program>,
        opts: RunOptions,
        observer: Arc<dyn Observer>,
        director: Arc<dyn Director>,
        out: Box<dyn std::io::Write + Send>,
    ) -> Runtime {
        let interrupt = opts.interrupt.clone().unwrap_or_default();
        let awaits_unborn = director.forces_pids();
        let controlled = director.controls_scheduling();
        Runtime {
            program,
            table: table::ProcTable::default(),
            names: Mutex::new(HashMap::new()),
            store: Mutex::new(Default::default()),
            next_pid: AtomicU64::new(FIRST_PID),
            spawned: AtomicU64::new(0),
            output: output::Output::new(out),
            timers: timer::Timers::default(),
            ets: crate::ets::Tables::default(),
            arrays: crate::shared::arrays::Arrays::default(),
            persistent: crate::shared::persistent::Persistent::default(),
            observer,
            director,
            opts,
            active: AtomicI64::new(0),
            stop: AtomicBool::new(false),
            interrupt,

            finish: Mutex::new(Finish::default()),
            injector: Injector::new(),
            stealers: Vec::new(),
            sleep: (Mutex::new(()), Condvar::new()),
            sleepers: AtomicUsize::new(0),
            unique: AtomicU64::new(1),
            events: AtomicU64::new(0),
            start: Instant::now(),
            entry_pid: Pid(FIRST_PID),
            stderr: Mutex::new(()),
            awaits_unborn,
            settling: Mutex::new(()),
            controlled,
        }
    }

    /// A new pid number (native allocation).
    pub fn alloc_pid(&self) -> Pid {
        Pid(self.next_pid.fetch_add(1, Ordering::Relaxed))
    }

    /// Keeps native allocation above pids forced by a Director.
    pub fn reserve_pid(&self, p: Pid) {
        self.next_pid.fetch_max(p.number() + 1, Ordering::Relaxed);
    }

    pub fn stopping(&self) -> bool {
        self.stop.load(Ordering::Acquire) || self.interrupt.load(Ordering::Relaxed)
    }

    /// Stops the run at a limit of its options.
    pub(crate) fn limit_reached(&self, l: Limit) {
        self.stop_because(|f| {
            f.limit.get_or_insert(l);
        });
    }

    /// Stops the run because the entry ended under `--halt`.
    pub(crate) fn halt(&self) {
        self.stop_because(|f| f.halted = true);
    }

    /// Stops the run as `erlang:halt(Status)` does: at once, the other
    /// processes left where they are. The first halt's status counts.
    pub(crate) fn halt_with(&self, status: i32) {
        self.stop_because(|f| {
            f.halted = true;
            f.halt_status.get_or_insert(status);
        });
    }

    /// Counts the events of a slice against `--max-events`, and the time
    /// against `--time-limit`.
    pub(crate) fn account(&self, events: u64) {
        if let Some(max) = self.opts.max_events {
            if self.events.fetch_add(events, Ordering::Relaxed) + events >= max {
                self.limit_reached(Limit::Events);
            }
        }
        self.check_time();
    }

    pub(crate) fn check_time(&self) {
        if let Some(t) = self.opts.time_limit {
            if self.start.elapsed() >= t {
                self.limit_reached(Limit::Time);
            }
        }
    }

    /// Stops the run because the engine itself failed (a bug).
    pub fn internal_error(&self, what: String) {
        self.stop_because(|f| {
            f.internal.get_or_insert(what);
        });
    }

    /// Stops the run at `p`'s departure from the log (as
    /// [`diverged_at`](Self::diverged_at)), and has `p` end with
    /// [`DIVERGED`] at its next check.
    pub fn diverge(&self, p: &mut crate::process::Process, d: Divergence, in_call: bool) {
        self.diverged_at(p, d, in_call);
        p.kill = Some(Term::atom(DIVERGED));
    }

    /// Stops the run: process `p` departed from what the Director expected,
    /// within a call to a built-in (`in_call`) or in a receive. Says where
    /// it was, and where it last agreed with the log.
    pub fn diverged_at(&self, p: &crate::process::Process, mut d: Divergence, in_call: bool) {
        d.location = self
            .place(p, in_call)
            .map(|pc| self.line_of(p.fun, pc))
            .unwrap_or_default();
        d.agreed = p
            .agreed_at
            .map(|(fun, pc)| self.line_of(fun, pc as usize))
            .unwrap_or_default();
        self.diverged(d);
    }

    /// The instruction process `p` is at, when its saved position says it:
    /// within a call to a built-in (`in_call`) the saved pc is just past the
    /// call; waiting in a receive, at the receive. The interpreter saves the
    /// position only at calls out and when a process stops, so a receive
    /// that found its message at once has an older one: `None`.
    pub fn place(&self, p: &crate::process::Process, in_call: bool) -> Option<usize> {
        let code = &self.program.funs.get(p.fun as usize)?.code;
        let pc = p.pc as usize;
        if in_call {
            let after_call = pc > 0 && code.get(pc - 1).is_some_and(crate::ir::Instr::calls_out);
            return after_call.then(|| pc - 1);
        }
        code.get(pc)
            .is_some_and(crate::ir::Instr::is_receive)
            .then_some(pc)
    }

    pub(crate) fn line_of(&self, fun: crate::code::FunId, pc: usize) -> String {
        let code = &self.program.funs[fun as usize];
        format!("{}:{}", self.program.file_text(fun), code.line_at(pc))
    }

    pub fn diverged(&self, d: Divergence) {
        self.stop_because(|f| {
            f.divergence.get_or_insert(d);
        });
    }

    /// Records why the run stops (the first reason wins) and stops it.
    fn stop_because(&self, why: impl FnOnce(&mut Finish)) {
        why(&mut self.finish.lock().unwrap_or_else(|e| e.into_inner()));
        self.stop.store(true, Ordering::Release);
        self.notify_all();
    }

    /// Writes one of the engine's reports (crashes, the end of the run,
    /// what is unsupported): to stderr, or to the buffer the options name.
    /// Reports never interleave.
    pub fn report(&self, text: &str) {
        if let Some(buf) = &self.opts.capture_reports {
            buf.lock()
                .unwrap_or_else(|e| e.into_inner())
                .extend_from_slice(text.as_bytes());
            return;
        }
        let _g = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
        let _ = std::io::Write::write_all(&mut std::io::stderr().lock(), text.as_bytes());
    }

    /// Stops the run because a process needs something the engine does not
    /// support; `what` names it (printed on stderr, and the run's status says so).
    pub fn unsupported(&self, what: String) {
        let mut f = self.finish.lock().unwrap_or_else(|e| e.into_inner());
        if f.unsupported.is_none() {
            self.report(&format!("{what}\n"));
            f.unsupported = Some(what);
        }
        drop(f);
        self.stop.store(true, Ordering::Release);
        self.notify_all();
    }

    fn notify_all(&self) {
        let _g = self.sleep.0.lock().unwrap_or_else(|e| e.into_inner());
        self.sleep.1.notify_all();
    }

    /// Puts a process that became runnable in a run queue.
    pub(crate) fn enqueue(&self, wk: Option<&Worker>, p: Arc<crate::process::ProcShared>) {
        let more_than_one = match wk {
            Some(w) => {
                w.push(p);
                w.queued() > 1
            }
            None => {
                self.injector.push(p);
                true
            }
        };
        // A process made runnable by the running one goes to this thread's
        // queue; an idle thread is woken only when that queue holds more
        // than the next process to run (as BEAM wakes schedulers on work
        // beyond what the current one will take). A message ping-ponging
        // between two processes then stays on one thread instead of paying
        // a cross-thread wake-up per message; idle threads still steal
        // whatever is left waiting.
        if more_than_one {
            self.wake_a_sleeper();
        }
    }

    /// Wakes one idle scheduler thread, if one sleeps, to take work queued
    /// beyond what its thread runs next.
    pub(crate) fn wake_a_sleeper(&self) {
        // Pairs with the sleeper's count in `worker::run`: either that thread
        // sees the work just queued, or this one sees it going to sleep.
        std::sync::atomic::fence(Ordering::SeqCst);
        if self.sleepers.load(Ordering::Relaxed) > 0 {
            let _g = self.sleep.0.lock().unwrap_or_else(|e| e.into_inner());
            self.sleep.1.notify_one();
        }
    }

    /// Whether a thread with nothing to do could take something now: a
    /// process in the global queue, or a queue holding more than the
    /// process its owner runs next.
    pub(crate) fn work_waiting(&self) -> bool {
        !self.injector.is_empty() || self.stealers.iter().any(worker::Victim::has_spare)
    }

    /// Takes a process put in the global queue (by a timer, or when the
    /// run started), if any.
    pub(crate) fn pop_injected(&self) -> Option<Arc<crate::process::ProcShared>> {
        loop {
            match self.injector.steal() {
                crossbeam_deque::Steal::Success(p) => return Some(p),
                crossbeam_deque::Steal::Empty => return None,
                crossbeam_deque::Steal::Retry => {}
            }
        }
    }

    /// Makes a waiting process runnable (a signal arrived for it).
    pub fn wake(&self, wk: Option<&Worker>, p: &Arc<crate::process::ProcShared>) {
        // SeqCst: the owner stores WAITING and then looks for arrivals; the
        // sender stored its arrival and now looks for WAITING (see
        // `ProcShared::push`): one of the two sees the other.
        if p.state
            .compare_exchange(
                run_state::WAITING,
                run_state::QUEUED,
                Ordering::SeqCst,
                Ordering::SeqCst,
            )
            .is_ok()
        {
            self.activate(wk);
            self.enqueue(wk, p.clone());
        }
    }

    /// One more process is queued or running. On a scheduler thread that
    /// has deactivations to subtract, it balances one of them instead: a
    /// message between two processes of one thread then writes no counter
    /// shared with the other threads.
    pub(crate) fn activate(&self, wk: Option<&Worker>) {
        if !wk.is_some_and(Worker::balance_deactivation) {
            self.active.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// Subtracts the deactivations `w` deferred (it is out of work).
    pub(crate) fn publish_deactivations(&self, w: &Worker) {
        let n = w.take_deactivations();
        if n > 0 {
            self.active.fetch_sub(n, Ordering::SeqCst);
        }
    }

    /// Whether no process is queued or running (and no deactivation is
    /// unpublished) and no timer is pending.
    pub(crate) fn idle(&self) -> bool {
        self.active.load(Ordering::SeqCst) == 0 && self.timers.pending() == 0
    }

    pub(crate) fn record_entry(&self, o: EntryOutcome) {
        self.finish.lock().unwrap_or_else(|e| e.into_inner()).entry = Some(o);
    }

    pub(crate) fn record_crash(&self, c: Crash) {
        let mut f = self.finish.lock().unwrap_or_else(|e| e.into_inner());
        f.crash_count += 1;
        if f.crashes.len() < MAX_CRASHES {
            f.crashes.push(c);
        }
    }
}

/// The function a run starts in.
#[derive(Clone, Debug)]
pub struct Entry {
    pub fun: FunId,
    pub args: Vec<Term>,
}

/// Most scheduler threads a run takes; more are cut to this.
pub const MAX_SCHEDULERS: usize = 1024;

/// Stack of a scheduler thread, and the fallback when the system refuses it.
const SCHEDULER_STACK: usize = 1 << 30;
const SMALL_STACK: usize = 8 << 20;

/// Runs a program from `entry` to the end and reports what happened.
pub fn run(rt: Runtime, entry: Entry) -> RunOutcome {
    if rt.controlled {
        return controlled::run(rt, entry);
    }
    let mut rt = rt;
    let n = rt.opts.schedulers.clamp(1, MAX_SCHEDULERS);
    let workers: Vec<Worker> = (0..n)
        .map(|i| Worker::new(i, rt.opts.chaos.as_ref()))
        .collect();
    rt.stealers = workers.iter().map(Worker::victim).collect();
    let entry_pid = spawn::spawn_entry(&mut rt, entry);
    let rt = rt;
    // Each worker moves to its thread through a slot, so that it is not lost
    // when a thread with the large stack cannot be had and one is retried.
    let workers: Vec<Mutex<Option<Worker>>> =
        workers.into_iter().map(|w| Mutex::new(Some(w))).collect();

    std::thread::scope(|s| {
        s.spawn(|| {
            rt.timers.run(|action| signals::fire_timer(&rt, action));
        });
        let mut handles = Vec::new();
        for slot in &workers {
            let rt = &rt;
            // Terms are compared, copied, hashed and freed by recursion over
            // their nesting: a roomy stack lets a program build terms nested
            // a million deep, as BEAM does. It is address space; only the
            // pages a deep term touches are ever used.
            let spawn = |stack: usize| {
                let index = slot
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .as_ref()
                    .map_or(0, Worker::index);
                std::thread::Builder::new()
                    .name(format!("scheduler-{index}"))
                    .stack_size(stack)
                    .spawn_scoped(s, move || {
                        let w = slot.lock().unwrap_or_else(|e| e.into_inner()).take();
                        if let Some(w) = w {
                            worker::run(rt, w)
                        }
                    })
            };
            handles.push(
                spawn(SCHEDULER_STACK)
                    .or_else(|_| spawn(SMALL_STACK))
                    .expect("spawn scheduler thread"),
            );
        }
        for h in handles {
            let _ = h.join();
        }
        rt.timers.shutdown();
    });
    conclude(&rt, entry_pid)
}

/// What a run that has stopped amounts to: its outcome, with the processes
/// left blocked (reported on stderr, as the options say).
fn conclude(rt: &Runtime, entry_pid: Pid) -> RunOutcome {
    rt.output.flush();
    let interrupted = rt.interrupt.load(Ordering::Relaxed);
    let mut fin = std::mem::take(&mut *rt.finish.lock().unwrap_or_else(|e| e.into_inner()));
    let failed = fin.divergence.is_some()
        || fin.internal.is_some()
        || fin.unsupported.is_some()
        || fin.limit.is_some()
        || fin.halted;
    let blocked = if !failed && !interrupted {
        exit::blocked_report(rt)
    } else {
        Vec::new()
    };
    let outcome_blocked = blocked;
    if let (Some(what), true) = (&fin.internal, rt.opts.reports) {
        rt.report(&format!(
            "trace: internal error, the run was stopped (a bug in trace): {what}\n"
        ));
    }
    let outcome = RunOutcome {
        entry_pid,
        entry: fin.entry.take().unwrap_or(EntryOutcome::Unfinished),
        blocked: outcome_blocked,
        crashes: fin.crashes,
        crash_count: fin.crash_count,
        interrupted,
        divergence: fin.divergence,
        internal_error: fin.internal,
        unsupported: fin.unsupported,
        processes_spawned: rt.spawned.load(Ordering::Relaxed),
        end_rule: rt.opts.end_rule,
        limit: fin.limit,
        halted: fin.halted,
        halt_status: fin.halt_status,
    };
    if rt.opts.reports && rt.opts.report_blocked {
        exit::print_blocked(rt, &outcome);
    }
    outcome
}
