//! Comparing two runs up to causal equivalence (`trace diff`).
//!
//! A log fixes, per process, the sequence of its events and, for each
//! receipt, the message taken; two derivations with equal per-process logs
//! are causally equivalent (seed 003, Theorem 5.12). Two runs never share
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
//! observational comparison of seed 002 (only what observer processes
//! consume and send, in their order).
//!
//! ```text
//! LogReader ×2 ─► run (process table: slots, blocks, spawn tree)
//!                  └─► matching (pairs by symbolic name)
//! per pair, in parallel: source (blocks decoded one at a time, or an
//!   observer's projection: observe) ─► compare (event by event: event's
//!   judge, payloads through canon, abstraction) ─► first difference, exits
//! first differences ─► roots (causal past walked backwards in each log)
//!   ─► context (events around each root) ─► report::Diff ─► render (text, JSON)
//! ```
//!
//! Memory: a block per compared process and thread, plus per-process
//! tables; never the whole log. An observer's projection is held whole.

mod abstraction;
mod canon;
mod compare;
mod context;
mod event;
mod matching;
mod observe;
pub mod render;
mod report;
mod roots;
mod run;
mod show;
mod source;

pub use abstraction::{Abstraction, AbstractionError};
pub use event::Kind;
pub use matching::ProcName;
pub use report::{Diff, ExitDiff, Level, OnlyIn, ProcessDiff, Root, Row, RunSummary, RUNS};
pub use show::Shown;

use canon::Canon;
use compare::{compare, Compared};
use event::Judge;
use matching::Matching;
use rayon::prelude::*;
use roots::{Candidate, Cut, Walker};
use run::{Run, Slot};
use show::Namer;
use source::{BlockStream, Projected, Source};
use std::fmt;
use trace_causal::SymbolicName;
use trace_format::{LogReader, RunEnd, Warning};

/// How to compare.
#[derive(Clone, Debug)]
pub struct Options {
    /// Compare events without their payloads.
    pub ignore_payloads: bool,
    /// Wildcard parts of payloads before comparing them.
    pub abstractions: Vec<Abstraction>,
    /// Compare only what these processes consume and send.
    pub observe: Vec<SymbolicName>,
    /// Events shown before and after each root divergence.
    pub context: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            ignore_payloads: false,
            abstractions: Vec::new(),
            observe: Vec::new(),
            context: 2,
        }
    }
}

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

/// What comparing one pair gave.
struct PairOutcome {
    pair: u32,
    compared: Option<Compared>,
    /// A process one run only has: its whole log.
    alone: Option<Cut>,
    names_wrong: [bool; 2],
    warnings: Vec<(usize, Warning)>,
}

/// A first difference and, so far, in which runs it is a root.
struct Found {
    pair: u32,
    root_in: [bool; 2],
    at: [Option<u64>; 2],
    /// Its position among the compared events.
    position: u64,
}

/// Everything one comparison pass shares.
struct Pass<'a> {
    runs: [&'a Run<'a>; 2],
    matching: &'a Matching,
    judge: Judge<'a>,
    namers: [Namer<'a>; 2],
    observed: Option<&'a [bool]>,
    skip_deliveries: bool,
    /// Equal blocks hold equal events (same process ids and pids, same
    /// events compared): equal blocks are not decoded.
    same_layout: bool,
}

impl Pass<'_> {
    /// The two sources of a pair (a side without the process has none).
    fn sources(
        &self,
        slots: [Option<Slot>; 2],
        warnings: &mut Vec<(usize, Warning)>,
    ) -> [Option<Box<dyn Source + '_>>; 2] {
        let mut out: [Option<Box<dyn Source + '_>>; 2] = [None, None];
        for x in 0..2 {
            if let Some(s) = slots[x] {
                out[x] = Some(if self.observed.is_some() {
                    let mut w = Vec::new();
                    let p: Projected = observe::project(self.runs[x], s, &mut w);
                    warnings.extend(w.into_iter().map(|w| (x, w)));
                    Box::new(p)
                } else {
                    Box::new(BlockStream::new(self.runs[x], s, self.skip_deliveries))
                });
            }
        }
        out
    }

    /// Both process logs are stored in the same blocks, byte for byte.
    fn same_blocks(&self, sa: Slot, sb: Slot) -> bool {
        let (ka, kb) = (self.runs[0].blocks(sa), self.runs[1].blocks(sb));
        ka.len() == kb.len()
            && ka.zip(kb).all(|(x, y)| {
                let a = self.runs[0].reader.block_bytes(x);
                a.is_some() && a == self.runs[1].reader.block_bytes(y)
            })
    }

    fn compare_pair(&self, pair: u32) -> PairOutcome {
        let slots = self.matching.pairs[pair as usize].slot;
        let mut warnings = Vec::new();
        let mut names_wrong = [false, false];
        let compared = match slots {
            [Some(sa), Some(sb)] if self.same_layout && self.same_blocks(sa, sb) => {
                Some(Compared::equal(self.runs[0].events(sa)))
            }
            [Some(sa), Some(sb)] => {
                if self.observed.is_some() {
                    let mut w = Vec::new();
                    let mut a = observe::project(self.runs[0], sa, &mut w);
                    warnings.extend(w.drain(..).map(|w| (0, w)));
                    let mut b = observe::project(self.runs[1], sb, &mut w);
                    warnings.extend(w.into_iter().map(|w| (1, w)));
                    Some(compare(
                        &self.judge,
                        [&self.namers[0], &self.namers[1]],
                        [sa, sb],
                        &mut a,
                        &mut b,
                    ))
                } else {
                    let mut a = BlockStream::new(self.runs[0], sa, self.skip_deliveries);
                    let mut b = BlockStream::new(self.runs[1], sb, self.skip_deliveries);
                    let c = compare(
                        &self.judge,
                        [&self.namers[0], &self.namers[1]],
                        [sa, sb],
                        &mut a,
                        &mut b,
                    );
                    for (x, mut s) in [(0, a), (1, b)] {
                        names_wrong[x] = s.names_wrong;
                        warnings.extend(s.damaged.take().map(|w| (x, w)));
                    }
                    Some(c)
                }
            }
            _ => None,
        };
        // A process only one run has is a difference from its first event.
        let alone = match slots {
            [Some(s), None] | [None, Some(s)] => {
                let x = if slots[0].is_some() { 0 } else { 1 };
                Some(if self.observed.is_some() {
                    observe::project(self.runs[x], s, &mut Vec::new()).read()
                } else {
                    BlockStream::new(self.runs[x], s, false).drain()
                })
            }
            _ => None,
        };
        PairOutcome {
            pair,
            compared,
            alone,
            names_wrong,
            warnings,
        }
    }
}

fn complete(r: &LogReader) -> bool {
    r.warnings().is_empty()
        && r.outcome().is_some_and(|(o, _)| o.end == RunEnd::Completed)
        && r.processes()
            .iter()
            .all(|p| p.recorded.is_none_or(|n| n == p.events))
}

fn attempt(
    runs: &[Run<'_>; 2],
    opts: &Options,
    mut notes: Vec<String>,
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
    let pass = Pass {
        runs,
        matching: &matching,
        judge: Judge {
            canon: Canon {
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
    let mut names_wrong = [false, false];
    let mut warnings: Vec<(usize, Warning)> = Vec::new();
    for (x, run) in runs.iter().enumerate() {
        warnings.extend(run.reader.warnings().iter().map(|w| (x, w.clone())));
    }
    for o in &outcomes {
        names_wrong[0] |= o.names_wrong[0];
        names_wrong[1] |= o.names_wrong[1];
        warnings.extend(o.warnings.iter().cloned());
    }

    let mut differences = Vec::new();
    let mut only_in = Vec::new();
    let mut processes = 0u64;
    let mut events = [0u64; 2];
    // Per run: each whole log read, and the first differences, for the roots.
    let mut totals: [Vec<Option<Cut>>; 2] = [0, 1].map(|x| vec![None; runs[x].procs.len()]);
    for o in &outcomes {
        let slots = matching.pairs[o.pair as usize].slot;
        for x in 0..2 {
            if let Some(s) = slots[x] {
                totals[x][s as usize] = match (&o.compared, o.alone) {
                    (Some(c), _) => c.read[x],
                    (None, alone) => alone,
                };
            }
        }
    }
    let mut candidates: [Vec<(u32, Candidate, u64)>; 2] = [Vec::new(), Vec::new()];
    for o in &outcomes {
        let pair = &matching.pairs[o.pair as usize];
        match &o.compared {
            Some(c) => {
                processes += 1;
                events[0] += c.events[0];
                events[1] += c.events[1];
                let Some(f) = &c.first else { continue };
                let slots = pair.slot.map(|s| s.expect("compared pairs have both"));
                for x in 0..2 {
                    if let Some(it) = f.item[x] {
                        let before = Cut {
                            events: it.index,
                            signals: it.signals,
                            spawns: it.spawns,
                        };
                        let c = Candidate {
                            slot: slots[x],
                            before,
                        };
                        candidates[x].push((o.pair, c, f.position));
                    }
                }
                differences.push(ProcessDiff {
                    name: pair.name.clone(),
                    pids: [0, 1].map(|x| runs[x].pid(slots[x])),
                    events: c.events,
                    kind: f.kind,
                    position: f.position,
                    first: f.shown.clone(),
                    differing: c.differing,
                    exit: c.exit.as_deref().cloned(),
                });
            }
            None => {
                let x = if pair.slot[0].is_some() { 0 } else { 1 };
                let s = pair.slot[x].expect("a pair has a process on one side at least");
                let n = runs[x].events(s);
                if n > 0 {
                    let c = Candidate {
                        slot: s,
                        before: Cut::default(),
                    };
                    candidates[x].push((o.pair, c, 0));
                }
                only_in.push(OnlyIn {
                    run: x,
                    name: pair.name.clone(),
                    pid: runs[x].pid(s),
                    events: n,
                });
            }
        }
    }

    // Roots, per run; a pair is a root divergence if it is one in either run.
    let mut found: Vec<Found> = Vec::new();
    let mut found_at: std::collections::HashMap<u32, usize> = Default::default();
    for x in 0..2 {
        let cands: Vec<Candidate> = candidates[x].iter().map(|c| c.1).collect();
        let mut walker = Walker::new(runs[x], &cands, std::mem::take(&mut totals[x]));
        for (pair, c, position) in &candidates[x] {
            let root = walker.is_root(c);
            let at = *found_at.entry(*pair).or_insert_with(|| {
                found.push(Found {
                    pair: *pair,
                    root_in: [false, false],
                    at: [None, None],
                    position: *position,
                });
                found.len() - 1
            });
            found[at].at[x] = Some(c.before.events);
            found[at].root_in[x] |= root;
        }
    }
    found.retain(|r| r.root_in != [false, false]);
    found.sort_by_key(|r| r.pair);
    let roots = found
        .into_iter()
        .map(
            |Found {
                 pair,
                 root_in,
                 at,
                 position,
             }| {
                let slots = matching.pairs[pair as usize].slot;
                let mut w = Vec::new();
                let mut srcs = pass.sources(slots, &mut w);
                let [a, b] = &mut srcs;
                let context = context::rows(
                    &pass.judge,
                    [&pass.namers[0], &pass.namers[1]],
                    slots,
                    [a.as_deref_mut(), b.as_deref_mut()],
                    position,
                    opts.context,
                );
                Root {
                    name: matching.pairs[pair as usize].name.clone(),
                    at,
                    root_in,
                    context,
                }
            },
        )
        .collect();

    if !opts.ignore_payloads {
        for x in 0..2 {
            if !headers[x].options.payloads {
                notes.push(format!(
                    "{}: the log holds no payloads (recorded with --no-payloads, or imported): \
                     events were compared without them",
                    RUNS[x]
                ));
            }
        }
        if headers[0].options.output != headers[1].options.output {
            notes.push("output bytes are recorded in one log only: they were not compared".into());
        }
    }
    if pass.skip_deliveries {
        notes.push("deliveries are recorded in one log only: they were not compared".into());
    }
    if pass
        .judge
        .unknown_dest
        .load(std::sync::atomic::Ordering::Relaxed)
    {
        notes.push(
            "one log does not record where messages went (imported from CauDEr): destinations \
             were compared only where both logs record them"
                .into(),
        );
    }
    let unnamed = matching
        .pairs
        .iter()
        .filter(|p| matches!(p.name, ProcName::Pid(_)))
        .count();
    if unnamed > 0 {
        notes.push(format!(
            "{unnamed} process(es) no spawn in the logs creates have no symbolic name: matched by raw pid"
        ));
    }
    let summaries = [0, 1].map(|x| {
        let r = runs[x].reader;
        RunSummary {
            entry: r.header().entry.clone(),
            processes: r.processes().len() as u64,
            events: r.event_count(),
            complete: complete(r),
        }
    });
    for x in 0..2 {
        if !summaries[x].complete {
            notes.push(format!(
                "{}: the log is incomplete (the run was cut short or parts are damaged): compared as far as it goes",
                RUNS[x]
            ));
        }
    }
    let diff = Diff {
        runs: summaries,
        level: Level {
            ignore_payloads: opts.ignore_payloads,
            abstractions: opts
                .abstractions
                .iter()
                .map(|a| a.text().to_string())
                .collect(),
            observe: opts.observe.clone(),
        },
        processes,
        events,
        only_in,
        differences,
        roots,
        notes,
        warnings,
    };
    Ok((diff, names_wrong))
}
