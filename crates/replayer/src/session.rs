//! One replay: check the program against the log, run it under the log's
//! Director, and say how it went — the run's own outcome, the first
//! divergence, and the logged events that never happened. With holds, each
//! process replays only a prefix of its log and is held there (the drivers
//! above decide which prefixes: a causal past, the consistent part of a
//! log cut short).

use crate::director::LogDirector;
use crate::identity::{check_identity, IdentityMismatch};
use std::io::Write;
use std::sync::Arc;
use trace_format::{LogReader, ProcId};
use trace_runtime::hooks::Native;
use trace_runtime::{Loaded, RunOptions, RunOutcome, Runtime, Verdict};

/// How to replay.
#[derive(Clone, Debug, Default)]
pub struct ReplayConfig {
    pub run: RunOptions,
    /// Replay even if the program is not the one recorded.
    pub force: bool,
    /// Replay each process (by dense id) only up to this many of its events,
    /// and hold it there; `None`: every process log to its end.
    pub holds: Option<Vec<u64>>,
}

/// Why a replay could not start.
#[derive(Debug)]
pub enum ReplayError {
    /// The program is not the one the log was recorded from.
    Identity(Vec<IdentityMismatch>),
    /// The log's entry call does not exist in this program.
    Entry(String),
}

impl std::fmt::Display for ReplayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReplayError::Identity(m) => {
                f.write_str(&crate::identity::not_the_program(m, "replays"))
            }
            ReplayError::Entry(e) => write!(f, "the log's entry call: {e}"),
        }
    }
}

/// A process that could not replay its whole log: the run ended with no
/// process able to go on, and this one's next logged event never happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stuck {
    pub id: ProcId,
    pub pid: u64,
    pub replayed: usize,
    pub total: usize,
    /// The event that cannot happen, as `trace dump` prints it.
    pub next: String,
}

/// How a replay went.
pub struct ReplayResult {
    /// The replayed run's outcome (its divergence, if any, is the first one).
    pub outcome: RunOutcome,
    /// Processes left with logged events that did not happen (only when the
    /// run did not diverge: after a divergence the rest is moot).
    pub stuck: Vec<Stuck>,
    /// Processes of the log that the replay never started.
    pub never_started: Vec<(ProcId, u64)>,
    /// Processes were held where their holds said.
    pub held: bool,
}

impl ReplayResult {
    /// The verdict: `Diverged` when the log was not followed (to its end,
    /// or to the holds), else the run's own (a replay held short of the end
    /// leaves processes waiting on purpose: that is success).
    pub fn verdict(&self) -> Verdict {
        if !self.stuck.is_empty() || self.outcome.divergence.is_some() {
            Verdict::Diverged
        } else if self.outcome.interrupted {
            // Ctrl-C: the run's own verdict says so, whatever was replayed.
            self.outcome.verdict()
        } else if self.held {
            Verdict::Ok
        } else {
            self.outcome.verdict()
        }
    }
}

/// What every run replaying `log` is set to, over `run`: timers fire at
/// once (every timeout and receipt is forced from the log, so waiting for
/// real time would only slow the replay down), and the run ends by the
/// log's rule.
pub fn replay_options(log: &LogReader, run: RunOptions) -> RunOptions {
    RunOptions {
        instant_timers: true,
        end_rule: trace_capture::flags::end_rule(log.header()),
        ..run
    }
}

/// A replay a tool runs inside itself to read the run (`trace debug`'s
/// snapshots, `trace why`'s observation): [`replay_options`] on one
/// scheduler thread, with no crash reports and no report of blocked
/// processes, and the log's entry call, or why it is not in `loaded`.
pub fn in_tool_replay(
    loaded: &Loaded,
    log: &LogReader,
    run: RunOptions,
) -> Result<(trace_runtime::Entry, RunOptions), String> {
    let (entry, _) = trace_runtime::entry(loaded, Some(&log.header().entry))
        .map_err(|_| "the log's entry call is not in this program".to_string())?;
    let run = RunOptions {
        schedulers: 1,
        reports: false,
        report_blocked: false,
        ..replay_options(log, run)
    };
    Ok((entry, run))
}

/// Replays `log` with the program `loaded`; program output goes to `stdout`.
pub fn replay(
    loaded: &Loaded,
    log: Arc<LogReader>,
    cfg: &ReplayConfig,
    stdout: Box<dyn Write + Send>,
) -> Result<ReplayResult, ReplayError> {
    let mismatches = check_identity(log.header(), loaded);
    if !mismatches.is_empty() && !cfg.force {
        return Err(ReplayError::Identity(mismatches));
    }
    let (entry, _) =
        trace_runtime::entry(loaded, Some(&log.header().entry)).map_err(ReplayError::Entry)?;
    let holds = cfg.holds.clone();
    let held = holds.is_some();
    let director = Arc::new(LogDirector::new(log.clone(), holds));
    let mut run = replay_options(&log, cfg.run.clone());
    if held {
        // Processes held on purpose are no deadlock.
        run.report_blocked = false;
    }
    let rt = Runtime::new(
        loaded.program.clone(),
        run,
        Arc::new(Native),
        director.clone(),
        stdout,
    );
    let outcome = trace_runtime::run(rt, entry);
    let stuck = if outcome.divergence.is_none() && !outcome.interrupted {
        director
            .unfinished()
            .into_iter()
            .map(|l| Stuck {
                id: l.id,
                pid: director.pid_of(l.id),
                replayed: l.replayed,
                total: l.total,
                next: l.next,
            })
            .collect()
    } else {
        Vec::new()
    };
    let never_started = director
        .never_started()
        .into_iter()
        .map(|id| (id, director.pid_of(id)))
        .collect();
    Ok(ReplayResult {
        outcome,
        stuck,
        never_started,
        held,
    })
}
