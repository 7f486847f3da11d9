//! Comparing two runs up to causal equivalence (`trace diff`).
//!
//! A log fixes, per process, the sequence of its events and, for each
//! receipt, the message taken; two derivations with equal per-process logs
//! are causally equivalent (Palacios 2020, Theorem 5.12). Two runs never share
//! raw pids or an interleaving, so processes are matched by symbolic name
//! (their spawn path, `P.2.1`) and messages by (sender's symbolic name,
//! send index); pids inside payloads compare by the process they name. Runs
//! whose matched process logs are equal are `equivalent`. Otherwise the
//! differences are listed — a process only one run has, a different event
//! at the same position, a different payload, a different exit — and the
//! root divergences singled out: differing events whose causal past holds
//! no other difference, each with events around it from both runs.
//!
//! Levels: full events with payloads (default); `ignore_payloads`;
//! [`Abstraction`]s wildcarding parts of payloads; and `observe`, the
//! observational comparison of Bereczky et al. 2024 (only what observer processes
//! consume and send, in their order).
//!
//! ```text
//! LogReader ×2 ─► run (process table: rows, blocks, spawn tree)
//!                  └─► matching (pairs by symbolic name)
//! comparison, per pair in parallel: blocks stored alike are skipped; otherwise
//!   source (blocks decoded a window at a time, or an observer's projection:
//!   observe) ─► compare (event by event: event's comparer, payloads through
//!   pids and abstraction) ─► first difference, exits
//! findings: first differences ─► roots (causal past walked backwards in
//!   each log) ─► context (events around each root), notes
//!   ─► report::Diff ─► render (text, JSON; events as show writes them)
//! ```
//!
//! Memory: a window of a block's events (and the block's bytes) per
//! compared process and thread, plus per-process tables; never the whole
//! log, nor a whole block decoded. An observer's projection is held whole.

mod abstraction;
mod compare;
mod comparison;
mod context;
mod event;
mod findings;
mod matching;
mod observe;
mod options;
mod pids;
pub mod render;
mod report;
mod roots;
mod run;
mod show;
mod source;

pub use abstraction::{Abstraction, AbstractionError};
pub use event::Kind;
pub use matching::ProcName;
pub use options::Options;
pub use report::{Diff, ExitDiff, Level, OnlyIn, ProcessDiff, Root, Row, RunSummary, RUNS};
pub use show::Shown;

use comparison::{Comparison, PairOutcome};
use event::EventComparer;
use matching::Matching;
use pids::PidMapping;
use rayon::prelude::*;
use run::Run;
use show::Namer;
use std::fmt;
use trace_capture::SymbolicName;
use trace_format::LogReader;

/// Why two logs could not be compared as asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DiffError {
    /// An `--observe` process neither run has.
    NoSuchObserver(SymbolicName),
}

impl fmt::Display for DiffError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DiffError::NoSuchObserver(n) => {
                write!(f, "--observe {n}: neither log has a process {n}")
            }
        }
    }
}

impl std::error::Error for DiffError {}

/// Compares run `a` with run `b`.
pub fn diff(a: &LogReader, b: &LogReader, opts: &Options) -> Result<Diff, DiffError> {
    let mut runs = [Run::new(a), Run::new(b)];
    let (d, names_wrong) = attempt(&runs, opts, Vec::new())?;
    if names_wrong == [false, false] {
        return Ok(d);
    }
    // A process table that does not list children in spawn order (not one
    // the recorder writes): name that log from its spawn events and start over.
    let mut notes = Vec::new();
    for x in 0..2 {
        if names_wrong[x] {
            runs[x].name_from_model();
            notes.push(format!(
                "{}: its process table does not list children in spawn order; processes \
                 were named from its spawn events",
                RUNS[x]
            ));
        }
    }
    Ok(attempt(&runs, opts, notes)?.0)
}

/// One pass over both logs with the names they have now.
fn attempt(
    runs: &[Run<'_>; 2],
    opts: &Options,
    notes: Vec<String>,
) -> Result<(Diff, [bool; 2]), DiffError> {
    let runs = [&runs[0], &runs[1]];
    let matching = Matching::new(runs);
    let observed: Option<Vec<bool>> = if opts.observe.is_empty() {
        None
    } else {
        let mut o = vec![false; matching.pairs.len()];
        for name in &opts.observe {
            let p = matching
                .find(name)
                .ok_or_else(|| DiffError::NoSuchObserver(name.clone()))?;
            o[p as usize] = true;
        }
        Some(o)
    };
    let headers = [runs[0].reader.header(), runs[1].reader.header()];
    let same_pids = matching.same_pids(runs);
    let skip_deliveries = headers[0].options.deliveries != headers[1].options.deliveries;
    let pass = Comparison {
        runs,
        matching: &matching,
        comparer: EventComparer {
            pids: PidMapping {
                runs,
                matching: &matching,
                observed: observed.as_deref(),
                abstractions: &opts.abstractions,
                same_pids,
            },
            ignore_payloads: opts.ignore_payloads,
            unknown_dest: Default::default(),
        },
        namers: [0, 1].map(|x| Namer {
            run: runs[x],
            matching: &matching,
            x,
        }),
        observed: observed.as_deref(),
        skip_deliveries,
        same_layout: observed.is_none()
            && !skip_deliveries
            && same_pids
            && matching.same_ids(runs)
            && headers[0].nondet_names == headers[1].nondet_names,
    };
    let selected: Vec<u32> = (0..matching.pairs.len() as u32)
        .filter(|&p| observed.as_ref().is_none_or(|o| o[p as usize]))
        .collect();
    let outcomes: Vec<PairOutcome> = selected.par_iter().map(|&p| pass.compare_pair(p)).collect();
    Ok(findings::report(&pass, &outcomes, opts, notes))
}
