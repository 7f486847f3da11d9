//! Free scheduling, when a session has no log: the user picks which
//! process takes the next step. The run is the engine's controlled mode
//! (`Director::controls_scheduling`, as `trace explore` drives it): one
//! process moves at a time, each step one visible operation and the local
//! computation after it, a timer's message delivered by a step of its own.
//!
//! The steps taken so far are a schedule. Each move runs the program again
//! under the recorder, forcing that schedule and then the new picks, so a
//! free session always stands on a log of a real run: `back`, `rollback`,
//! `show` and `save` work on it as on any log. A step taken from a state
//! short of the schedule's end keeps only the steps that state holds (in
//! their order) and drops the rest.

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use trace_recorder::{RecordConfig, RecordFlags};
use trace_runtime::hooks::{Event, ProcessObserver, ProcessStart, Ready, SharedOp};
use trace_runtime::{Director, Entry, Loaded, Observer, RunOptions, Verdict};
use trace_term::Pid;

/// Who takes a step: a process, by spawn path, or the timer whose message
/// the step delivers (its sender's spawn path and the message's index
/// among the sender's signals, as `P.1:3` names it).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Pick {
    Process(Vec<u32>),
    Timer(Vec<u32>, u64),
}

/// A step taken, and how many log events each process it touched had
/// after it (by spawn path).
#[derive(Clone, Debug)]
pub struct Taken {
    pub pick: Pick,
    pub made: Vec<(Vec<u32>, u64)>,
}

/// Something that can take the next step; `timeout`: the process waits in
/// a receive with this `after` and nothing it takes, so its step is the
/// timeout.
#[derive(Clone, Debug)]
pub struct Next {
    pub pick: Pick,
    pub timeout: Option<u64>,
    /// For a timer's message: the milliseconds the timer was set for.
    pub timer_after: Option<u64>,
}

impl Next {
    /// How long this step waits for time to pass: a receive's `after`, a
    /// timer's delay; `None` for a step that can go at once.
    fn waits(&self) -> Option<u64> {
        self.timeout.or(self.timer_after)
    }
}

/// What to do past the schedule.
#[derive(Clone, Debug)]
pub enum Then {
    /// This pick, this many times, stopping when it cannot go.
    Repeat(Pick, u64),
    /// Up to this many steps as the engine would take them on its own:
    /// the last process goes on while it can, else the first that can.
    Default(u64),
}

/// How to run a free session's program.
#[derive(Clone)]
pub struct FreeConfig {
    pub entry: Entry,
    /// The entry call as the user wrote it (the log's header).
    pub entry_text: String,
    /// Run options (limits); one scheduler thread is forced.
    pub run: RunOptions,
    /// The exit status a log's footer records for a verdict.
    pub footer_status: fn(Verdict) -> i32,
    /// Where the run's log is kept while the session lasts.
    pub path: PathBuf,
}

/// One free run: its log (at `FreeConfig::path`) and its steps.
pub struct FreeRun {
    pub taken: Vec<Taken>,
    /// What could step next when the run stopped (empty: nothing can).
    pub next: Vec<Next>,
    /// A step of the schedule could not be taken again (its index).
    pub departed: Option<usize>,
    /// A pick past the schedule that could not go.
    pub refused: Option<Pick>,
}

/// Runs `loaded` from its entry, forcing `schedule` and then `then`, and
/// records it to `cfg.path`.
pub fn run(
    loaded: &Loaded,
    cfg: &FreeConfig,
    schedule: Vec<Pick>,
    then: Then,
) -> Result<FreeRun, String> {
    let hooks = Hooks::default();
    {
        let mut s = hooks.lock();
        s.schedule = schedule;
        match then {
            Then::Repeat(p, n) => s.wanted = (n > 0).then_some((p, n)),
            Then::Default(n) => s.budget = n,
        }
    }
    let mut run = cfg.run.clone();
    run.schedulers = 1;
    run.reports = false;
    let rc = RecordConfig {
        out: cfg.path.clone(),
        flags: FREE_FLAGS,
        writer: trace_format::WriterOptions::default(),
        run,
        entry_text: cfg.entry_text.clone(),
        footer_status: cfg.footer_status,
    };
    trace_recorder::record_observed(
        loaded,
        cfg.entry.clone(),
        &rc,
        Box::new(std::io::sink()) as Box<dyn Write + Send>,
        None,
        Arc::new(hooks.clone()),
        Some(Arc::new(hooks.clone())),
    )
    .map_err(|e| format!("running the program: {e}"))?;
    let mut s = hooks.lock();
    s.close_step();
    Ok(FreeRun {
        taken: std::mem::take(&mut s.taken),
        next: std::mem::take(&mut s.next),
        departed: s.departed,
        refused: s.refused.take(),
    })
}

/// The steps of `taken` a state holds, in their order: those whose
/// process's own events in the step the state holds (`done(path)`: how
/// many events of that process it holds). What a step made other
/// processes do at once (a signal taken as it arrives) comes with it
/// again. A timer's delivery is kept; it is passed over when its timer
/// is not set this time.
pub fn kept(taken: &[Taken], done: impl Fn(&[u32]) -> u64) -> Vec<Taken> {
    taken
        .iter()
        .filter(|t| match &t.pick {
            Pick::Process(me) => t.made.iter().all(|(p, n)| p != me || *n <= done(p)),
            Pick::Timer(..) => true,
        })
        .cloned()
        .collect()
}

/// Events of each process after `taken` (by spawn path).
pub fn counts(taken: &[Taken]) -> HashMap<Vec<u32>, u64> {
    let mut m = HashMap::new();
    for t in taken {
        for (p, n) in &t.made {
            m.insert(p.clone(), *n);
        }
    }
    m
}

#[derive(Default)]
struct State {
    paths: HashMap<Pid, Vec<u32>>,
    /// The step under way, and the counts it changed.
    current: Option<Pick>,
    made: Vec<(Vec<u32>, u64)>,
    schedule: Vec<Pick>,
    /// Timers of the schedule passed over (not set this time).
    passed: usize,
    wanted: Option<(Pick, u64)>,
    budget: u64,
    taken: Vec<Taken>,
    next: Vec<Next>,
    departed: Option<usize>,
    refused: Option<Pick>,
}

/// What a free run's log holds: payloads and output, no deliveries.
const FREE_FLAGS: RecordFlags = RecordFlags {
    payloads: true,
    deliveries: false,
    output: true,
};

/// The Director of a free run and the Observer that counts its events.
#[derive(Clone, Default)]
struct Hooks(Arc<Mutex<State>>);

impl Hooks {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl State {
    fn close_step(&mut self) {
        let made = std::mem::take(&mut self.made);
        let Some(pick) = self.current.take() else {
            return;
        };
        let mut last: Vec<(Vec<u32>, u64)> = Vec::new();
        for (p, n) in made {
            match last.iter_mut().find(|(q, _)| *q == p) {
                Some(e) => e.1 = n,
                None => last.push((p, n)),
            }
        }
        self.taken.push(Taken { pick, made: last });
    }

    fn path(&self, pid: Pid) -> Vec<u32> {
        self.paths.get(&pid).cloned().unwrap_or_default()
    }

    fn next_of(&self, ready: &[Ready]) -> Vec<Next> {
        ready
            .iter()
            .map(|r| match *r {
                Ready::Process { pid, timeout } => Next {
                    pick: Pick::Process(self.path(pid)),
                    timeout,
                    timer_after: None,
                },
                Ready::Timer { id, after } => Next {
                    pick: Pick::Timer(self.path(id.sender), id.index),
                    timeout: None,
                    timer_after: Some(after),
                },
            })
            .collect()
    }

    /// The engine's own choice: the last process goes on while it can, else
    /// the first that can; a timeout or a timer's message only when nothing
    /// else can go, the shortest first (time passes only when the run would
    /// otherwise wait for it).
    fn default_pick(&self, next: &[Next]) -> Option<Pick> {
        let last = self.taken.last().map(|t| &t.pick);
        let at_once = |n: &&Next| n.waits().is_none();
        next.iter()
            .filter(at_once)
            .find(|n| Some(&n.pick) == last && matches!(n.pick, Pick::Process(_)))
            .or_else(|| next.iter().find(at_once))
            .or_else(|| next.iter().min_by_key(|n| n.waits()))
            .map(|n| n.pick.clone())
    }
}

impl Director for Hooks {
    fn process_started(
        &self,
        p: &ProcessStart,
    ) -> Option<Box<dyn trace_runtime::hooks::ProcessDirector>> {
        self.lock().paths.insert(p.pid, p.path.clone());
        None
    }

    fn controls_scheduling(&self) -> bool {
        true
    }

    fn pick(&self, ready: &[Ready]) -> Option<usize> {
        let mut s = self.lock();
        s.close_step();
        let next = s.next_of(ready);
        // A kept timer whose timer is not set this time is passed over.
        loop {
            let at = s.schedule.get(s.taken.len() + s.passed);
            let unset = |p: &Pick| !next.iter().any(|x| x.pick == *p);
            if !matches!(at, Some(p @ Pick::Timer(..)) if unset(p)) {
                break;
            }
            s.passed += 1;
        }
        let n = s.taken.len() + s.passed;
        let forced = n < s.schedule.len();
        let want = if forced {
            Some(s.schedule[n].clone())
        } else if let Some((p, k)) = s.wanted.take() {
            if k > 1 {
                s.wanted = Some((p.clone(), k - 1));
            }
            Some(p)
        } else if s.budget > 0 {
            s.budget -= 1;
            s.default_pick(&next)
        } else {
            None
        };
        let Some(want) = want else {
            s.next = next;
            return None;
        };
        match next.iter().position(|x| x.pick == want) {
            Some(i) => {
                s.current = Some(want);
                Some(i)
            }
            None => {
                if forced {
                    s.departed = Some(n);
                } else {
                    s.refused = Some(want);
                }
                s.next = next;
                None
            }
        }
    }
}

impl Observer for Hooks {
    fn process_started(&self, p: &ProcessStart) -> Option<Box<dyn ProcessObserver>> {
        self.lock().paths.insert(p.pid, p.path.clone());
        Some(Box::new(Counter {
            path: p.path.clone(),
            hooks: self.clone(),
            count: 0,
        }))
    }
}

/// Counts one process's log events (what the recorder writes with
/// [`FREE_FLAGS`], and every operation on shared state).
struct Counter {
    path: Vec<u32>,
    hooks: Hooks,
    /// Its log events so far.
    count: u64,
}

impl Counter {
    fn bump(&mut self) {
        self.count += 1;
        let made = (self.path.clone(), self.count);
        self.hooks.lock().made.push(made);
    }
}

impl ProcessObserver for Counter {
    fn event(&mut self, ev: &Event<'_>) {
        if FREE_FLAGS.logs(ev) {
            self.bump();
        }
    }

    fn shared(&mut self, _op: &SharedOp<'_>) {
        self.bump();
    }
}

/// The run a session without a log schedules.
pub struct Free {
    pub(crate) cfg: FreeConfig,
    /// The steps taken, in order.
    pub(crate) taken: Vec<Taken>,
    /// What can take the next step at the end of them.
    pub(crate) next: Vec<Next>,
}

impl Drop for Free {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.cfg.path);
    }
}
