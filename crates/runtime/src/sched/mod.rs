//! Schedulers: N threads running processes with work stealing, plus the
//! shared runtime state (process table, registry, timers, output, hooks).
//!
//! A run starts the entry process and ends when every process has exited or
//! is blocked forever: no process is runnable or running and no timer is
//! pending. Processes still blocked then are reported (a deadlock).

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
use crossbeam_deque::{Injector, Stealer};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;
use trace_term::{Atom, Pid, Term};

pub use worker::Worker;

/// The first pid number given to the entry process (BEAM's user processes
/// start around here, so pids look familiar).
pub const FIRST_PID: u64 = 80;

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
    /// Set from outside (Ctrl-C) to stop the run early.
    pub interrupt: Option<Arc<AtomicBool>>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            schedulers: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
            reductions: 4000,
            chaos: None,
            instant_timers: false,
            reports: true,
            interrupt: None,
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

/// A process blocked forever at the end of a run.
#[derive(Clone, Debug)]
pub struct Blocked {
    pub pid: Pid,
    pub symbolic: String,
    /// `module:function/arity` it is in.
    pub mfa: (Atom, Atom, u32),
    pub file: String,
    pub line: u32,
    pub mailbox_len: usize,
}

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
    pub crashes: Vec<Crash>,
    pub interrupted: bool,
    pub divergence: Option<Divergence>,
    /// The run stopped at something the engine does not support (the message names it).
    pub unsupported: Option<String>,
    pub processes_spawned: u64,
}

#[derive(Default)]
struct Finish {
    entry: Option<EntryOutcome>,
    crashes: Vec<Crash>,
    divergence: Option<Divergence>,
    unsupported: Option<String>,
}

/// State shared by every scheduler thread for one run.
pub struct Runtime {
    pub program: Arc<Program>,
    pub table: table::ProcTable,
    /// Registered names.
    pub names: Mutex<HashMap<Atom, Pid>>,
    next_pid: AtomicU64,
    pub spawned: AtomicU64,
    pub output: output::Output,
    pub timers: timer::Timers,
    pub observer: Arc<dyn Observer>,
    pub director: Arc<dyn Director>,
    pub opts: RunOptions,
    /// Processes queued or running.
    active: AtomicI64,
    stop: AtomicBool,
    pub interrupt: Arc<AtomicBool>,
    finish: Mutex<Finish>,
    injector: Injector<Arc<crate::process::ProcShared>>,
    stealers: Mutex<Vec<Stealer<Arc<crate::process::ProcShared>>>>,
    sleep: (Mutex<usize>, Condvar),
    pub unique: AtomicU64,
    pub start: Instant,
    pub entry_pid: Pid,
    /// Serialises reports on stderr.
    pub stderr: Mutex<()>,
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
        Runtime {
            program,
            table: table::ProcTable::default(),
            names: Mutex::new(HashMap::new()),
            next_pid: AtomicU64::new(FIRST_PID),
            spawned: AtomicU64::new(0),
            output: output::Output::new(out),
            timers: timer::Timers::default(),
            observer,
            director,
            opts,
            active: AtomicI64::new(0),
            stop: AtomicBool::new(false),
            interrupt,

            finish: Mutex::new(Finish::default()),
            injector: Injector::new(),
            stealers: Mutex::new(Vec::new()),
            sleep: (Mutex::new(0), Condvar::new()),
            unique: AtomicU64::new(1),
            start: Instant::now(),
            entry_pid: Pid(FIRST_PID),
            stderr: Mutex::new(()),
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

    /// Stops the run because replay diverged.
    pub fn diverged(&self, d: Divergence) {
        let mut f = self.finish.lock().unwrap_or_else(|e| e.into_inner());
        if f.divergence.is_none() {
            f.divergence = Some(d);
        }
        drop(f);
        self.stop.store(true, Ordering::Release);
        self.notify_all();
    }

    /// Stops the run because a process needs something the engine does not
    /// support; `what` names it (printed on stderr, and the run's status says so).
    pub fn unsupported(&self, what: String) {
        let mut f = self.finish.lock().unwrap_or_else(|e| e.into_inner());
        if f.unsupported.is_none() {
            let _g = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
            eprintln!("{what}");
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
        match wk {
            Some(w) => w.push(p),
            None => self.injector.push(p),
        }
        let sleepers = *self.sleep.0.lock().unwrap_or_else(|e| e.into_inner());
        if sleepers > 0 {
            self.sleep.1.notify_one();
        }
    }

    /// Makes a waiting process runnable (a signal arrived for it).
    pub fn wake(&self, wk: Option<&Worker>, p: &Arc<crate::process::ProcShared>) {
        if p.state
            .compare_exchange(
                run_state::WAITING,
                run_state::QUEUED,
                Ordering::AcqRel,
                Ordering::Acquire,
            )
            .is_ok()
        {
            self.active.fetch_add(1, Ordering::SeqCst);
            self.enqueue(wk, p.clone());
        }
    }

    pub(crate) fn record_entry(&self, o: EntryOutcome) {
        self.finish.lock().unwrap_or_else(|e| e.into_inner()).entry = Some(o);
    }

    pub(crate) fn record_crash(&self, c: Crash) {
        self.finish
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .crashes
            .push(c);
    }
}

/// The function a run starts in.
#[derive(Clone, Debug)]
pub struct Entry {
    pub fun: FunId,
    pub args: Vec<Term>,
}

/// Runs a program from `entry` to the end and reports what happened.
pub fn run(rt: Runtime, entry: Entry) -> RunOutcome {
    let mut rt = rt;
    let n = rt.opts.schedulers.max(1);
    let workers: Vec<Worker> = (0..n)
        .map(|i| Worker::new(i, rt.opts.chaos.as_ref()))
        .collect();
    *rt.stealers.get_mut().unwrap() = workers.iter().map(|w| w.stealer()).collect();
    let entry_pid = spawn::spawn_entry(&mut rt, entry);
    let rt = rt;

    std::thread::scope(|s| {
        s.spawn(|| {
            rt.timers.run(|action| signals::fire_timer(&rt, action));
        });
        let mut handles = Vec::new();
        for w in workers {
            let rt = &rt;
            handles.push(
                std::thread::Builder::new()
                    .name(format!("scheduler-{}", w.index()))
                    .stack_size(8 << 20)
                    .spawn_scoped(s, move || worker::run(rt, w))
                    .expect("spawn scheduler thread"),
            );
        }
        for h in handles {
            let _ = h.join();
        }
        rt.timers.shutdown();
    });

    rt.output.flush();
    let interrupted = rt.interrupt.load(Ordering::Relaxed);
    let mut fin = std::mem::take(&mut *rt.finish.lock().unwrap_or_else(|e| e.into_inner()));
    let blocked = if fin.divergence.is_none() && fin.unsupported.is_none() && !interrupted {
        exit::blocked_report(&rt)
    } else {
        Vec::new()
    };
    if rt.opts.reports && !blocked.is_empty() {
        exit::print_blocked(&rt, &blocked);
    }
    RunOutcome {
        entry_pid,
        entry: fin.entry.take().unwrap_or(EntryOutcome::Unfinished),
        blocked,
        crashes: fin.crashes,
        interrupted,
        divergence: fin.divergence,
        unsupported: fin.unsupported,
        processes_spawned: rt.spawned.load(Ordering::Relaxed),
    }
}
