//! `--until-failure`: record runs again and again, keep the first failing one.
//!
//! With chaos scheduling each attempt runs on one scheduler thread whose
//! random choices (preemption points, run-queue order, delivery delays
//! between senders) come from seed `seed + attempt`, so a search can be
//! repeated with `--seed`.

use crate::failure::{check_log, classify, Expectations, Failure};
use std::io;
use std::path::PathBuf;
use trace_recorder::{record, Captured, RecordConfig, Recording};
use trace_runtime::{Chaos, Entry, Loaded};

#[derive(Clone, Debug)]
pub struct HuntConfig {
    pub attempts: u32,
    pub chaos: bool,
    pub seed: u64,
    pub expectations: Expectations,
}

/// The search's result.
pub struct HuntResult {
    /// Attempts made (1-based number of the last one).
    pub attempts: u32,
    /// The failing run, if one was found (its log is kept at the output path).
    pub failure: Option<(Failure, Recording, Vec<u8>)>,
    /// The seed of the failing attempt (with chaos).
    pub seed: Option<u64>,
    /// Ctrl-C stopped the last attempt; its log (finalised, and marked
    /// interrupted) is kept at the output path.
    pub interrupted: bool,
}

fn temp_path(out: &std::path::Path) -> PathBuf {
    let mut name = out
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    // Per process, as the recorder's partial files are: two searches for
    // one output do not record into each other's attempts.
    name.push(format!(".attempt-{}", std::process::id()));
    out.with_file_name(name)
}

pub fn hunt(
    loaded: &Loaded,
    entry: &Entry,
    cfg: &RecordConfig,
    h: &HuntConfig,
) -> io::Result<HuntResult> {
    // The output is checked before the first attempt runs.
    let final_path = trace_recorder::output::prepare(&cfg.out)?.path;
    let tmp = temp_path(&final_path);
    for attempt in 1..=h.attempts {
        let mut c = cfg.clone();
        c.out = tmp.clone();
        let seed = h.seed.wrapping_add(attempt as u64);
        if h.chaos {
            c.run.chaos = Some(Chaos { seed });
            c.run.schedulers = 1;
        }
        let out = Captured::default();
        let rec = record(loaded, entry.clone(), &c, Box::new(out.clone()), None)?;
        let stdout = std::mem::take(&mut *out.0.lock().unwrap_or_else(|e| e.into_inner()));
        if rec.outcome.interrupted {
            std::fs::rename(&tmp, &final_path)?;
            return Ok(HuntResult {
                attempts: attempt,
                failure: None,
                seed: h.chaos.then_some(seed),
                interrupted: true,
            });
        }
        let failure = match classify(&rec.outcome, &stdout, &h.expectations) {
            Some(f) => Some(f),
            None => check_log(&tmp, &h.expectations).map_err(|e| {
                let _ = std::fs::remove_file(&tmp);
                io::Error::other(format!("--check: {e}"))
            })?,
        };
        if let Some(f) = failure {
            std::fs::rename(&tmp, &final_path)?;
            let rec = Recording {
                path: final_path.clone(),
                ..rec
            };
            return Ok(HuntResult {
                attempts: attempt,
                failure: Some((f, rec, stdout)),
                seed: h.chaos.then_some(seed),
                interrupted: false,
            });
        }
    }
    let _ = std::fs::remove_file(&tmp);
    Ok(HuntResult {
        attempts: h.attempts,
        failure: None,
        seed: None,
        interrupted: false,
    })
}
