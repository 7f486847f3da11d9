//! Checking compiled properties against one log.
//!
//! ```text
//! Compiled ──resolve──► names → pids (per property)
//! LogReader ──scan (one parallel decode)──► hits: matches needing terms
//! Model (facts) + hits ──source──► matches of a predicate in a process
//!   local property:  per process, in parallel ──engine on program order──┐
//!   other property:  all processes together ──engine on happened-before──┼─► Verdicts
//!   history:         steps of the processes ──history matcher─────────────┘
//! ```

pub mod engine;
pub mod hb;
pub mod matcher;
pub(crate) mod resolve;
mod scan;
pub mod slice;
pub mod source;

pub(crate) use crate::compile::{CProp, Compiled, ProcArg, Shape};
use crate::spec::{EventKind, Occurrence};
use engine::Engine;
use hb::{Causal, ProgramOrder};
use rayon::prelude::*;
pub use resolve::show as show_proc;
use resolve::Resolved as Names;
use source::Sources;
use std::fmt;
use trace_causal::{EventId, Model};
use trace_format::{LogReader, ProcId};
use trace_term::Term;

/// One way a run breaks a property.
#[derive(Clone, Debug)]
pub struct Violation {
    /// The event that breaks it; `None` when the whole run does (a global
    /// existence that nothing satisfies).
    pub event: Option<EventId>,
    /// What is wrong, in words.
    pub what: String,
    /// The property's variables as bound for this violation.
    pub bindings: Vec<(String, Term)>,
    /// Other events worth seeing, each with what it is to the violation.
    pub related: Vec<(String, EventId)>,
    /// The causal slice: the events in its causal past that the property
    /// involves, in an order that respects happened-before (filled for the
    /// violations reported in detail).
    pub slice: Vec<EventId>,
    /// Earlier slice events left out (the slice lists the latest ones).
    pub slice_omitted: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    Satisfied,
    Violated,
    /// The check could not be completed (CRV's `GaveUp`), with why.
    GaveUp(String),
}

/// A property's verdict on one run.
#[derive(Clone, Debug)]
pub struct Verdict {
    /// Index of the property in the compiled specification.
    pub property: usize,
    pub status: Status,
    /// Every violation found, events in process order.
    pub violations: Vec<Violation>,
    /// Things worth knowing that do not change the verdict.
    pub warnings: Vec<String>,
    /// The property is about one process's order (else about happened-before).
    pub local: bool,
}

/// A property that cannot be checked on this log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckError {
    pub message: String,
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CheckError {}

/// What the log must hold for a property to be checked.
fn requirements(spec: &Compiled, prop: &CProp, reader: &LogReader) -> Result<(), CheckError> {
    let opts = &reader.header().options;
    let at = |p: &crate::compile::CPred| {
        format!(
            "{}:{}:{}: {}",
            spec.path.display(),
            p.pos.line,
            p.pos.col,
            p.text
        )
    };
    let mut preds: Vec<&crate::compile::CPred> = prop.preds.iter().collect();
    let hist;
    if let Shape::History(h) = &prop.shape {
        hist = h.needs_payloads();
        if hist && !opts.payloads {
            return Err(CheckError {
                message: format!(
                    "{}:{}:{}: history {} reads messages, but the log was recorded \
                     without payloads (trace record --no-payloads)",
                    spec.path.display(),
                    prop.pos.line,
                    prop.pos.col,
                    prop.name
                ),
            });
        }
        preds.clear();
    }
    for p in preds {
        if p.kind == EventKind::Deliver && !opts.deliveries {
            return Err(CheckError {
                message: format!(
                    "{}: the log has no deliveries (record with trace record --deliveries)",
                    at(p)
                ),
            });
        }
        if p.reads_terms() && !opts.payloads && p.kind != EventKind::Nondet {
            return Err(CheckError {
                message: format!(
                    "{}: reads terms the log does not hold: it was recorded without \
                     payloads (trace record --no-payloads)",
                    at(p)
                ),
            });
        }
    }
    Ok(())
}

/// How much to find out.
#[derive(Copy, Clone, Debug)]
pub struct Options {
    /// Violations per property whose causal slice is computed.
    pub detail: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options { detail: 10 }
    }
}

/// Checks every property of `spec` on the log; the model must be built from
/// the same reader.
pub fn check(
    spec: &Compiled,
    reader: &LogReader,
    model: &Model,
) -> Result<Vec<Verdict>, CheckError> {
    check_with(spec, reader, model, Options::default())
}

/// [`check`] with options.
pub fn check_with(
    spec: &Compiled,
    reader: &LogReader,
    model: &Model,
    opts: Options,
) -> Result<Vec<Verdict>, CheckError> {
    for p in &spec.properties {
        requirements(spec, p, reader)?;
    }
    let props: Vec<&CProp> = spec.properties.iter().collect();
    let resolved: Vec<Names> = props.iter().map(|p| resolve::resolve(p, model)).collect();
    let tasks = scan::tasks(&props);
    let lens: Vec<u64> = model.processes().iter().map(|f| f.events).collect();
    let hits = scan::scan(reader, &props, &resolved, &tasks, &lens);
    let mut task_of: Vec<Vec<Option<usize>>> =
        props.iter().map(|p| vec![None; p.preds.len()]).collect();
    for (i, t) in tasks.iter().enumerate() {
        task_of[t.prop][t.pred] = Some(i);
    }
    let sources = Sources::new(model, &hits, task_of);
    let mut verdicts = Vec::new();
    for (i, prop) in props.iter().enumerate() {
        let r = &resolved[i];
        let mut warnings = r.warnings.clone();
        let local = prop.local.is_some()
            || matches!(&prop.shape, Shape::History(h)
                if !matches!(h.subject, crate::history::CSubject::Global));
        let result = match &prop.shape {
            Shape::History(h) => crate::history::check(h, prop, r, reader, model),
            _ => evaluate(&props, &resolved, i, &sources, model, &mut warnings),
        };
        let (status, mut violations) = match result {
            Ok(v) if v.is_empty() => (Status::Satisfied, v),
            Ok(v) => (Status::Violated, v),
            Err(engine::GaveUp(why)) => (Status::GaveUp(why), Vec::new()),
        };
        violations.sort_by_key(|v| v.event.map(|e| (e.proc, e.index)));
        for v in violations.iter_mut().take(opts.detail) {
            slice::fill(&props, &resolved, i, &sources, model, local, v);
        }
        if !model.is_complete() && status != Status::Satisfied {
            warnings.push(
                "the log is incomplete (the run was cut short or blocks are damaged): \
                 events missing from it may change the verdict"
                    .into(),
            );
        }
        verdicts.push(Verdict {
            property: i,
            status,
            violations,
            warnings,
            local,
        });
    }
    Ok(verdicts)
}

fn evaluate(
    props: &[&CProp],
    resolved: &[Names],
    i: usize,
    sources: &Sources<'_>,
    model: &Model,
    warnings: &mut Vec<String>,
) -> Result<Vec<Violation>, engine::GaveUp> {
    let prop = props[i];
    let r = &resolved[i];
    let uses_blocked = prop.preds.iter().any(|p| p.kind == EventKind::Blocked);
    if uses_blocked && !model.is_complete() {
        warnings.push(
            "blocked(P) needs a complete log: in a run cut short, a process that had not \
             exited may still have been running, so none is counted as blocked"
                .into(),
        );
    }
    let gather = |p: ProcId| -> Vec<Vec<source_match::Match>> {
        (0..prop.preds.len())
            .map(|k| sources.matches(props, resolved, i, k, p))
            .collect()
    };
    let all: Vec<ProcId> = model.processes().iter().map(|f| f.id).collect();
    // Occurrence patterns on the whole run need no order but the count's.
    let unordered = matches!(
        &prop.shape,
        Shape::Occurrence {
            kind: Occurrence::Absence | Occurrence::Universality,
            scope: crate::compile::CScope::Global,
            ..
        }
    );
    // Counting patterns over the whole run count across processes; with a
    // scope opened per binding of the process variable they count per process.
    let counts_across = matches!(
        &prop.shape,
        Shape::Occurrence {
            kind: Occurrence::Existence
                | Occurrence::AtLeast(_)
                | Occurrence::AtMost(_)
                | Occurrence::Exactly(_),
            scope,
            ..
        } if scope.opener().is_none()
    );
    let per_process =
        |procs: &[ProcId], skip_empty: bool| -> Result<Vec<Violation>, engine::GaveUp> {
            let results: Vec<Result<Vec<Violation>, engine::GaveUp>> = procs
                .par_iter()
                .map(|&p| {
                    let m = gather(p);
                    if skip_empty && m.iter().all(Vec::is_empty) {
                        return Ok(Vec::new());
                    }
                    Engine::new(prop, &r.consts, m, &ProgramOrder).run()
                })
                .collect();
            let mut out = Vec::new();
            for x in results {
                out.extend(x?);
            }
            Ok(out)
        };
    match &prop.local {
        Some(ProcArg::Fixed(name)) => match r.proc(model, name) {
            Some(p) => per_process(&[p], false),
            None => Engine::new(
                prop,
                &r.consts,
                vec![Vec::new(); prop.preds.len()],
                &ProgramOrder,
            )
            .run(),
        },
        Some(_) if !counts_across => per_process(&all, true),
        None if unordered => per_process(&all, true),
        _ => {
            let per: Vec<Vec<Vec<source_match::Match>>> =
                all.par_iter().map(|&p| gather(p)).collect();
            let mut m: Vec<Vec<source_match::Match>> = vec![Vec::new(); prop.preds.len()];
            for proc_m in per {
                for (k, list) in proc_m.into_iter().enumerate() {
                    m[k].extend(list);
                }
            }
            let order = Causal(model);
            for list in &mut m {
                list.sort_by_cached_key(|x| order_position(model, x.ev));
            }
            Engine::new(prop, &r.consts, m, &order).run()
        }
    }
}

fn order_position(model: &Model, e: EventId) -> u64 {
    model.position(e).unwrap_or(u64::MAX)
}

mod source_match {
    pub use super::matcher::Match;
}
