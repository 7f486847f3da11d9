//! The exploration loop: run, classify, take in the run, pick the next;
//! budgets, failure groups, and recording a schedule as a log.

use crate::control::{Hooks, Plan, RunLog, Timeouts};
use crate::dpor::{Bound, Tree};
use crate::step::{Actor, Step};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use trace_recorder::{record_directed, record_observed, Captured, RecordConfig, Recording};
use trace_runtime::{EndRule, Entry, Loaded, RunOptions, RunOutcome};
use trace_search::failure::classify;
use trace_search::{Expectations, Failure};

/// How to explore.
#[derive(Clone, Debug)]
pub struct Config {
    pub expectations: Expectations,
    pub max_interleavings: Option<u64>,
    pub time_limit: Option<Duration>,
    /// Most steps one interleaving may take (longer ones are cut).
    pub max_steps: usize,
    /// Set from outside (Ctrl-C) to stop.
    pub interrupt: Arc<AtomicBool>,
    /// Which processes left waiting at the end make a deadlock.
    pub end_rule: EndRule,
    /// Iterative bounding: explore with bound 0, 1, ... up to this one,
    /// until a bound leaves nothing out.
    pub bound: Option<Bound>,
    /// With `--check`: how to record each interleaving, whose log the
    /// properties are checked on (the log is overwritten each time).
    pub check_record: Option<RecordConfig>,
    /// When a receive's `after` and a timer may fire.
    pub timeouts: Timeouts,
}

impl Config {
    /// Whether the order of writes to standard output can change a verdict
    /// (an expected output, or a property that reads outputs), and so
    /// makes two writes a race.
    pub fn output_matters(&self) -> bool {
        self.expectations.stdout.is_some() || self.expectations.check.is_some()
    }
}

impl Default for Config {
    fn default() -> Config {
        Config {
            expectations: Expectations::default(),
            max_interleavings: None,
            time_limit: None,
            max_steps: 2_000,
            interrupt: Arc::default(),
            bound: None,
            end_rule: EndRule::Settled,
            check_record: None,
            timeouts: Timeouts::Virtual,
        }
    }
}

/// Why an exploration stopped before it was complete.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    MaxInterleavings,
    TimeLimit,
    Interrupted,
}

/// One failure, as found in one or more interleavings.
#[derive(Clone, Debug)]
pub struct Group {
    pub failure: Failure,
    /// What makes two failures the same (the failure, without pids).
    pub key: String,
    /// Interleavings that failed so.
    pub count: u64,
    /// The simplest failing schedule found: fewest preemptions, then
    /// fewest steps.
    pub schedule: Vec<Actor>,
    pub preemptions: usize,
    /// The 1-based number of the interleaving it was.
    pub found_at: u64,
    /// What each step of that schedule touched.
    pub steps: Vec<Step>,
}

/// Where an exploration stands.
#[derive(Clone, Debug, Default)]
pub struct Progress {
    pub interleavings: u64,
    pub failing: u64,
    pub elapsed: Duration,
    /// The bound being explored, when bounded.
    pub bound: Option<u32>,
}

/// What an exploration found.
#[derive(Clone)]
pub struct Summary {
    /// The hooks the runs were made with: they know the processes by the
    /// numbers the schedules use ([`record_schedule`] needs them).
    pub hooks: Hooks,
    /// Interleavings run to their end (one per class explored).
    pub interleavings: u64,
    /// Of those, the failing ones.
    pub failing: u64,
    /// Runs abandoned because they repeated an explored class.
    pub redundant: u64,
    /// Interleavings cut at `max_steps`.
    pub cut: u64,
    /// Runs that did not follow their forced schedule.
    pub departed: u64,
    pub races: u64,
    /// Steps of all the interleavings together.
    pub steps: u64,
    pub groups: Vec<Group>,
    pub stopped: Option<Stop>,
    /// The last bound explored with, when bounded.
    pub bound: Option<u32>,
    /// Schedules past that bound were left out.
    pub bounded: bool,
    pub elapsed: Duration,
    /// How long the first run took. A new process's first run is slow (its
    /// code and data are not yet in the caches: a few hundred
    /// microseconds, the instructions of any later run), which dominates
    /// the rate of a program with a handful of interleavings.
    pub first: Option<Duration>,
}

impl Summary {
    /// Every interleaving class was explored to its end: what it found (or
    /// did not) holds for every schedule of this entry.
    pub fn complete(&self) -> bool {
        self.stopped.is_none() && !self.bounded && self.cut == 0 && self.departed == 0
    }
}

/// A run's options under exploration: one thread, reports captured.
fn options(cfg: &Config) -> RunOptions {
    RunOptions {
        schedulers: 1,
        reports: false,
        end_rule: cfg.end_rule,
        // One run never outlasts the whole exploration's limit.
        time_limit: cfg.time_limit,
        interrupt: Some(cfg.interrupt.clone()),
        capture_reports: Some(Arc::new(Mutex::new(Vec::new()))),
        ..RunOptions::default()
    }
}

/// One run of the program as a plan said.
pub(crate) struct Run {
    pub outcome: RunOutcome,
    pub stdout: Vec<u8>,
    pub log: RunLog,
    /// With `--check`: the log the run was recorded to as it went.
    pub recorded: Option<std::path::PathBuf>,
}

impl Run {
    /// What the run failed of, if it did: its outcome and output against
    /// the expectations, then (with `--check`) its log against the
    /// properties.
    pub fn failure(&self, exp: &Expectations) -> std::io::Result<Option<Failure>> {
        if let Some(f) = classify(&self.outcome, &self.stdout, exp) {
            return Ok(Some(f));
        }
        match &self.recorded {
            Some(path) => {
                trace_search::failure::check_log(path, exp).map_err(std::io::Error::other)
            }
            None => Ok(None),
        }
    }
}

/// Runs the program once as `plan` says; with `--check`, under the
/// recorder too, so that the properties are checked on this very run.
pub(crate) fn run_once(
    loaded: &Loaded,
    entry: &Entry,
    hooks: &Hooks,
    plan: Plan,
    cfg: &Config,
) -> std::io::Result<Run> {
    hooks.start(plan);
    let out = Captured::default();
    let (outcome, recorded) = match &cfg.check_record {
        None => {
            let rt = trace_runtime::Runtime::new(
                loaded.program.clone(),
                options(cfg),
                Arc::new(hooks.clone()),
                Arc::new(hooks.clone()),
                Box::new(out.clone()),
            );
            (trace_runtime::run(rt, entry.clone()), None)
        }
        Some(rc) => {
            let c = RecordConfig {
                run: options(cfg),
                ..rc.clone()
            };
            let rec = record_observed(
                loaded,
                entry.clone(),
                &c,
                Box::new(out.clone()),
                None,
                Arc::new(hooks.clone()),
                Some(Arc::new(hooks.clone())),
            );
            let rec = match rec {
                Ok(rec) => rec,
                Err(e) => {
                    hooks.finish();
                    return Err(e);
                }
            };
            (rec.outcome, Some(rec.path))
        }
    };
    let log = hooks.finish();
    let stdout = std::mem::take(&mut *out.0.lock().unwrap_or_else(|e| e.into_inner()));
    Ok(Run {
        outcome,
        stdout,
        log,
        recorded,
    })
}

/// The failure without what changes between interleavings: pids, which
/// follow the order of the spawns, are written as symbolic names.
fn group_key(hooks: &Hooks, f: &Failure) -> String {
    let key = match f {
        Failure::Crash {
            symbolic, reason, ..
        } => format!("crash {symbolic}: {reason}"),
        Failure::Deadlock { blocked } => {
            let names: Vec<&str> = blocked.iter().map(|b| b.symbolic.as_str()).collect();
            format!("deadlock {}", names.join(", "))
        }
        other => other.to_string(),
    };
    hooks.with_symbolic_pids(&key)
}

/// Explores every interleaving class of `entry`; `progress` hears of each
/// finished interleaving.
pub fn explore(
    loaded: &Loaded,
    entry: &Entry,
    cfg: &Config,
    progress: Option<&dyn Fn(&Progress)>,
) -> std::io::Result<Summary> {
    let start = Instant::now();
    let hooks = Hooks::new(cfg.timeouts);
    let mut s = Summary {
        hooks: hooks.clone(),
        interleavings: 0,
        failing: 0,
        redundant: 0,
        cut: 0,
        departed: 0,
        races: 0,
        steps: 0,
        groups: Vec::new(),
        stopped: None,
        bound: None,
        bounded: false,
        elapsed: Duration::ZERO,
        first: None,
    };
    let bounds: Vec<Option<Bound>> = match cfg.bound {
        None => vec![None],
        Some(b) => (0..=b.max).map(|max| Some(Bound { max, ..b })).collect(),
    };
    for bound in bounds {
        let mut tree = Tree::default();
        tree.bound = bound;
        s.bound = bound.map(|b| b.max);
        explore_tree(
            loaded, entry, cfg, &hooks, &mut tree, &mut s, start, progress,
        )?;
        s.races += tree.races;
        s.bounded = tree.pruned;
        if !tree.pruned || s.stopped.is_some() {
            break;
        }
    }
    s.elapsed = start.elapsed();
    Ok(s)
}

/// Explores `tree` (with its bound) to its end, or until a budget stops it.
#[allow(clippy::too_many_arguments)]
fn explore_tree(
    loaded: &Loaded,
    entry: &Entry,
    cfg: &Config,
    hooks: &Hooks,
    tree: &mut Tree,
    s: &mut Summary,
    start: Instant,
    progress: Option<&dyn Fn(&Progress)>,
) -> std::io::Result<()> {
    let output_matters = cfg.output_matters();
    let mut plan = Some(Plan {
        max_steps: cfg.max_steps,
        ..Plan::default()
    });
    while let Some(p) = plan.take() {
        if let Some(stop) = stop_now(cfg, s, start) {
            s.stopped = Some(stop);
            break;
        }
        let run = run_once(loaded, entry, hooks, p, cfg)?;
        s.first.get_or_insert_with(|| start.elapsed());
        if run.outcome.interrupted {
            s.stopped = Some(Stop::Interrupted);
            break;
        }
        s.steps += run.log.steps.len() as u64;
        let log = &run.log;
        let (sleep_blocked, departed, cut) = (log.sleep_blocked, log.departed, log.cut);
        let limited = run.outcome.limit.is_some();
        let failure = if sleep_blocked || departed || cut || limited {
            None
        } else {
            run.failure(&cfg.expectations)?
        };
        tree.absorb(run.log, output_matters);
        if sleep_blocked {
            s.redundant += 1;
        } else if departed {
            s.departed += 1;
        } else if cut || limited {
            s.interleavings += 1;
            s.cut += 1;
        } else {
            s.interleavings += 1;
            if let Some(f) = failure {
                s.failing += 1;
                file_failure(s, f, tree);
            }
        }
        if let Some(report) = progress {
            report(&Progress {
                interleavings: s.interleavings,
                failing: s.failing,
                elapsed: start.elapsed(),
                bound: s.bound,
            });
        }
        plan = tree.next(cfg.max_steps);
    }
    Ok(())
}

fn stop_now(cfg: &Config, s: &Summary, start: Instant) -> Option<Stop> {
    if cfg.interrupt.load(Ordering::Relaxed) {
        return Some(Stop::Interrupted);
    }
    if cfg.max_interleavings.is_some_and(|m| s.interleavings >= m) {
        return Some(Stop::MaxInterleavings);
    }
    if cfg.time_limit.is_some_and(|t| start.elapsed() >= t) {
        return Some(Stop::TimeLimit);
    }
    None
}

/// Adds the current run of `tree`, failing with `f`, to its group.
fn file_failure(s: &mut Summary, f: Failure, tree: &Tree) {
    let key = group_key(&s.hooks, &f);
    // The steps are copied only for a group's simplest schedule.
    let steps = || -> Vec<Step> { tree.steps().cloned().collect() };
    let schedule: Vec<Actor> = tree.steps().map(|st| st.actor).collect();
    let preemptions = tree.preemptions();
    let n = s.interleavings;
    match s.groups.iter_mut().find(|g| g.key == key) {
        Some(g) => {
            g.count += 1;
            if (preemptions, schedule.len()) < (g.preemptions, g.schedule.len()) {
                g.schedule = schedule;
                g.preemptions = preemptions;
                g.failure = f;
                g.found_at = n;
                g.steps = steps();
            }
        }
        None => s.groups.push(Group {
            failure: f,
            key,
            count: 1,
            schedule,
            preemptions,
            found_at: n,
            steps: steps(),
        }),
    }
}

/// Runs `schedule` again under the recorder, so that its log replays,
/// diffs and checks as any other; what the recorded run failed of, if it
/// did.
pub fn record_schedule(
    hooks: &Hooks,
    loaded: &Loaded,
    entry: &Entry,
    cfg: &RecordConfig,
    schedule: &[Actor],
    exp: &Expectations,
) -> std::io::Result<(Recording, Option<Failure>)> {
    hooks.start(Plan {
        prefix: schedule.to_vec(),
        max_steps: usize::MAX,
        ..Plan::default()
    });
    let mut c = cfg.clone();
    c.run.schedulers = 1;
    c.run.capture_reports = Some(Arc::new(Mutex::new(Vec::new())));
    let out = Captured::default();
    let rec = record_directed(
        loaded,
        entry.clone(),
        &c,
        Box::new(out.clone()),
        None,
        Arc::new(hooks.clone()),
    )?;
    let stdout = std::mem::take(&mut *out.0.lock().unwrap_or_else(|e| e.into_inner()));
    let failure = match classify(&rec.outcome, &stdout, exp) {
        Some(f) => Some(f),
        None => trace_search::failure::check_log(&rec.path, exp).map_err(std::io::Error::other)?,
    };
    Ok((rec, failure))
}
