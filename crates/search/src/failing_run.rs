//! `--until-failure`: record runs again and again, keep the first failing one.
//!
//! With chaos scheduling each attempt runs on one scheduler thread whose
//! random choices (preemption points, run-queue order, delivery delays
//! between senders) come from seed `seed + attempt`, so a search can be
//! repeated with `--seed`.
//!
//! The engine's reports of each attempt (crashes, the end of the run) are
//! captured, not printed: hundreds of attempts would bury the one that
//! matters. The failing attempt's reports come back with it.
//!
//! With `--check`, an attempt is stopped at the first violation of a safety
//! property (`never`, `at most`, `always`, a precedence) instead of at its
//! end ([`crate::watch`]); its log ends there, marked interrupted.

use crate::failure::{check_log, classify, first_violation, Expectations, Failure};
use crate::watch::SafetyWatch;
use std::io;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use trace_recorder::{record, Captured, RecordConfig, Recording};
use trace_runtime::{Chaos, Entry, Loaded};

#[derive(Clone, Debug)]
pub struct SearchConfig {
    pub attempts: u32,
    pub chaos: bool,
    pub seed: u64,
    pub expectations: Expectations,
}

/// Where a search stands, after each attempt.
#[derive(Copy, Clone, Debug)]
pub struct SearchProgress {
    /// Attempts finished so far.
    pub done: u32,
    pub attempts: u32,
    pub elapsed: Duration,
}

/// A failing run that was found.
pub struct Found {
    pub failure: Failure,
    /// Its recording; the log is kept at the output path.
    pub recording: Recording,
    /// What it printed.
    pub stdout: Vec<u8>,
    /// The engine's reports of that run (crashes, the end of the run).
    pub reports: Vec<u8>,
    /// The attempt was stopped at its first violation of a safety property
    /// of `--check`: its log ends there (marked interrupted).
    pub stopped_at_violation: bool,
}

/// The search's result.
pub struct SearchResult {
    /// Attempts made (1-based number of the last one).
    pub attempts: u32,
    /// The failing run, if one was found.
    pub failure: Option<Found>,
    /// The seed of the failing (or interrupted) attempt, with chaos.
    pub seed: Option<u64>,
    /// Ctrl-C stopped the last attempt; its log (finalised, and marked
    /// interrupted) is kept at the output path.
    pub interrupted: bool,
    pub elapsed: Duration,
}

/// Where attempts are recorded: per process, as the recorder's partial
/// files are, so two searches for one output do not record into each
/// other's attempts.
fn temp_path(out: &std::path::Path) -> PathBuf {
    trace_recorder::output::sibling(out, "attempt")
}

/// Records attempts until one fails or `h.attempts` are made; `progress`
/// (if any) hears of each finished attempt.
pub fn find_failing_run(
    loaded: &Loaded,
    entry: &Entry,
    cfg: &RecordConfig,
    h: &SearchConfig,
    progress: Option<&dyn Fn(SearchProgress)>,
) -> io::Result<SearchResult> {
    // The output is checked before the first attempt runs.
    let final_path = trace_recorder::output::prepare(&cfg.out)?.path;
    let tmp = temp_path(&final_path);
    let start = Instant::now();
    let result = |attempts, failure, seed, interrupted| SearchResult {
        attempts,
        failure,
        seed,
        interrupted,
        elapsed: start.elapsed(),
    };
    for attempt in 1..=h.attempts {
        let mut c = cfg.clone();
        c.out = tmp.clone();
        let seed = h.seed.wrapping_add(attempt as u64);
        if h.chaos {
            c.run.chaos = Some(Chaos { seed });
            c.run.schedulers = 1;
        }
        let reports = Arc::new(Mutex::new(Vec::new()));
        c.run.capture_reports = Some(reports.clone());
        let safety = h.expectations.check.as_ref().and_then(|s| s.safety_part());
        let watch = safety.clone().map(|s| {
            let partial = trace_recorder::output::partial_path(&tmp);
            SafetyWatch::start(partial, s, c.run.interrupt.clone())
        });
        if let Some(w) = &watch {
            c.run.interrupt = Some(w.stop_flag());
        }
        let out = Captured::default();
        let rec = record(loaded, entry.clone(), &c, Box::new(out.clone()), None);
        let stopped_at_violation = watch.is_some_and(|w| w.finish());
        let rec = rec?;
        let stdout = std::mem::take(&mut *out.0.lock().unwrap_or_else(|e| e.into_inner()));
        let reports = std::mem::take(&mut *reports.lock().unwrap_or_else(|e| e.into_inner()));
        let seed_used = h.chaos.then_some(seed);
        if rec.outcome.interrupted && !stopped_at_violation {
            std::fs::rename(&tmp, &final_path)?;
            return Ok(result(attempt, None, seed_used, true));
        }
        let checked = match (&safety, stopped_at_violation) {
            // Cut short: only what a prefix decides is judged.
            (Some(s), true) => first_violation(&tmp, s),
            _ => match classify(&rec.outcome, &stdout, &h.expectations) {
                Some(f) => Ok(Some(f)),
                None => check_log(&tmp, &h.expectations),
            },
        };
        let failure = checked.map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            io::Error::other(format!("--check: {e}"))
        })?;
        if let Some(p) = progress {
            p(SearchProgress {
                done: attempt,
                attempts: h.attempts,
                elapsed: start.elapsed(),
            });
        }
        if let Some(failure) = failure {
            std::fs::rename(&tmp, &final_path)?;
            let recording = Recording {
                path: final_path.clone(),
                ..rec
            };
            let found = Found {
                failure,
                recording,
                stdout,
                reports,
                stopped_at_violation,
            };
            return Ok(result(attempt, Some(found), seed_used, false));
        }
    }
    let _ = std::fs::remove_file(&tmp);
    Ok(result(h.attempts, None, None, false))
}
