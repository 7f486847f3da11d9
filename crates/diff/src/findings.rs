//! From what the pass found to the report: differences per process,
//! processes only one run has, the root divergences (walked in each run)
//! with their context, and the notes on what was not compared.

use crate::comparison::{Comparison, PairOutcome};
use crate::context;
use crate::matching::{Matching, Naming};
use crate::options::Options;
use crate::report::{Diff, Kind, Level, OnlyIn, ProcessDiff, Root, RunSummary, RUNS};
use crate::roots::{Candidate, Walker};
use crate::run::Run;
use crate::source::Cut;
use std::collections::HashMap;
use trace_format::{LogReader, RunEnd, Warning};

/// A first difference and, so far, in which runs it is a root.
struct Found {
    pair: u32,
    root_in: [bool; 2],
    at: [Option<u64>; 2],
    /// Its position among the compared events.
    position: u64,
}

fn complete(r: &LogReader) -> bool {
    r.warnings().is_empty()
        && r.outcome().is_some_and(|(o, _)| o.end == RunEnd::Completed)
        && r.processes()
            .iter()
            .all(|p| p.recorded.is_none_or(|n| n == p.events))
}

/// The report of a pass; also says in which runs a spawn did not create
/// the child the process table names (see `Run::name_from_model`).
pub(crate) fn report(
    pass: &Comparison<'_>,
    outcomes: &[PairOutcome],
    opts: &Options,
    mut notes: Vec<String>,
) -> (Diff, [bool; 2]) {
    let runs = pass.runs;
    let mut names_wrong = [false, false];
    let mut warnings: Vec<(usize, Warning)> = Vec::new();
    for (x, run) in runs.iter().enumerate() {
        warnings.extend(run.reader.warnings().iter().map(|w| (x, w.clone())));
    }
    for o in outcomes {
        names_wrong[0] |= o.names_wrong[0];
        names_wrong[1] |= o.names_wrong[1];
        warnings.extend(o.warnings.iter().cloned());
    }
    let mut tally = tally(pass, outcomes);
    let mut roots = roots(pass, &mut tally, opts);
    rank_roots(&mut roots, &tally.differences);
    let summaries = [0, 1].map(|x| {
        let r = runs[x].reader;
        RunSummary {
            entry: r.header().entry.clone(),
            processes: r.processes().len() as u64,
            events: r.event_count(),
            complete: complete(r),
        }
    });
    add_notes(&mut notes, pass, opts, &summaries);
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
        processes: tally.processes,
        events: tally.events,
        only_in: tally.only_in,
        differences: tally.differences,
        roots,
        notes,
        warnings,
    };
    (diff, names_wrong)
}

/// What the pairs' outcomes add up to, and what the walk for roots starts from.
struct Tally {
    differences: Vec<ProcessDiff>,
    only_in: Vec<OnlyIn>,
    processes: u64,
    events: [u64; 2],
    /// Per run and process row: the whole log read.
    totals: [Vec<Option<Cut>>; 2],
    /// Per run: the first differences (pair, where, position among the
    /// compared events), for the roots.
    candidates: [Vec<(u32, Candidate, u64)>; 2],
}

/// The differences per process, the processes one run only has, and the
/// first differences of each run.
fn tally(pass: &Comparison<'_>, outcomes: &[PairOutcome]) -> Tally {
    let (runs, matching): ([&Run<'_>; 2], &Matching) = (pass.runs, pass.matching);
    let mut t = Tally {
        differences: Vec::new(),
        only_in: Vec::new(),
        processes: 0,
        events: [0, 0],
        totals: [0, 1].map(|x| vec![None; runs[x].procs.len()]),
        candidates: [Vec::new(), Vec::new()],
    };
    for o in outcomes {
        let slots = matching.pairs[o.pair as usize].slot;
        for (x, slot) in slots.into_iter().enumerate() {
            if let Some(s) = slot {
                t.totals[x][s as usize] = match (&o.compared, o.alone) {
                    (Some(c), _) => c.read[x],
                    (None, alone) => alone,
                };
            }
        }
    }
    for o in outcomes {
        let pair = &matching.pairs[o.pair as usize];
        match &o.compared {
            Some(c) => {
                t.processes += 1;
                t.events[0] += c.events[0];
                t.events[1] += c.events[1];
                let Some(f) = &c.first else { continue };
                let slots = pair.slot.map(|s| s.expect("compared pairs have both"));
                for (x, slot) in slots.into_iter().enumerate() {
                    if let Some(it) = f.item[x] {
                        let before = Cut {
                            events: it.index,
                            signals: it.signals,
                            spawns: it.spawns,
                        };
                        let c = Candidate { slot, before };
                        t.candidates[x].push((o.pair, c, f.position));
                    }
                }
                t.differences.push(ProcessDiff {
                    name: matching.name(o.pair),
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
                    t.candidates[x].push((o.pair, c, 0));
                }
                t.only_in.push(OnlyIn {
                    run: x,
                    name: matching.name(o.pair),
                    pid: runs[x].pid(s),
                    events: n,
                });
            }
        }
    }
    t
}

/// The root divergences, walked in each run; a pair is one if it is one in
/// either run. Each comes with its context from both runs.
fn roots(pass: &Comparison<'_>, tally: &mut Tally, opts: &Options) -> Vec<Root> {
    let (runs, matching): ([&Run<'_>; 2], &Matching) = (pass.runs, pass.matching);
    let mut found: Vec<Found> = Vec::new();
    let mut found_at: HashMap<u32, usize> = HashMap::new();
    for (x, run) in runs.into_iter().enumerate() {
        let candidates = &tally.candidates[x];
        let cands: Vec<Candidate> = candidates.iter().map(|c| c.1).collect();
        let mut walker = Walker::new(run, &cands, std::mem::take(&mut tally.totals[x]));
        for (pair, c, position) in candidates {
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
    found
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
                    &pass.comparer,
                    [&pass.namers[0], &pass.namers[1]],
                    slots,
                    [a.as_deref_mut(), b.as_deref_mut()],
                    position,
                    opts.context,
                );
                Root {
                    name: matching.name(pair),
                    at,
                    root_in,
                    context,
                }
            },
        )
        .collect()
}

/// Control flow first: a root where the runs did something else (took
/// another message, timed out, exited, ended) comes before one where they
/// did the same with another value (a random number, a payload), which is
/// more often noise that changed nothing. Otherwise in pair order.
fn rank_roots(roots: &mut [Root], differences: &[ProcessDiff]) {
    let value_only = |r: &Root| {
        differences
            .iter()
            .find(|d| d.name == r.name)
            .is_some_and(|d| d.kind == Kind::Payload)
    };
    // Each root's rank worked out once, not at every comparison.
    roots.sort_by_cached_key(value_only);
}

/// The notes on what was not compared, and on logs cut short.
fn add_notes(
    notes: &mut Vec<String>,
    pass: &Comparison<'_>,
    opts: &Options,
    summaries: &[RunSummary; 2],
) {
    let runs = pass.runs;
    let headers = [runs[0].reader.header(), runs[1].reader.header()];
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
        .comparer
        .unknown_dest
        .load(std::sync::atomic::Ordering::Relaxed)
    {
        notes.push(
            "one log does not record where messages went (imported from CauDEr): destinations \
             were compared only where both logs record them"
                .into(),
        );
    }
    let unnamed = pass
        .matching
        .pairs
        .iter()
        .filter(|p| matches!(p.naming, Naming::Pid(_)))
        .count();
    if unnamed > 0 {
        notes.push(format!(
            "{unnamed} process(es) no spawn in the logs creates have no symbolic name: matched by raw pid"
        ));
    }
    for x in 0..2 {
        if !summaries[x].complete {
            notes.push(format!(
                "{}: the log is incomplete (the run was cut short or parts are damaged): compared as far as it goes",
                RUNS[x]
            ));
        }
    }
}
