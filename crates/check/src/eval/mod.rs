//! Checking compiled properties against one log.
//!
//! ```text
//! LogReader ──Model::build_visiting──► Model + per-block scans (scan)
//!   hits gathered by process; names resolved (resolve)
//! Model facts + hits ──source──► matches of a predicate in a process
//!   local property:  per process, in parallel ──engine on program order──┐
//!                    (stream: response/precedence without a scope)      │
//!   other property:  all processes together ──engine on happened-before──┼─► Verdicts
//!                    (stream: one strict past/future when nothing shared)│
//!   history:         steps of the processes ──history matcher────────────┘
//! the first violations: described by the engine, with a causal slice (slice)
//! ```

pub mod engine;
mod first;
pub mod hb;
mod hits;
mod key;
pub mod matcher;
mod registry;
pub(crate) mod resolve;
mod scan;
pub mod slice;
pub mod source;
mod stream;
mod tables;
pub mod verdict;

pub(crate) use crate::compiled::{Compiled, CompiledProperty, PropertyPattern};
use crate::spec::{Occurrence, PredicateKind};
use engine::Engine;
use hb::{Causal, ProgramOrder};
use matcher::Matches;
use rayon::prelude::*;
pub use resolve::show as show_proc;
use resolve::Resolved as Names;
use source::Sources;
use std::sync::atomic::{AtomicBool, Ordering};
use trace_causal::{EventId, Model};
use trace_format::{LogReader, ProcId};
pub use verdict::{CheckError, GaveUp, Status, Verdict, Violation};

/// What the log must hold for a property to be checked.
/// Removes the properties this log cannot answer (they read payloads or
/// deliveries it was recorded without) and returns why, one line each. For
/// the built-in checks, which run on any log; a property the user wrote and
/// the log cannot answer is an error instead ([`check`]).
pub fn retain_answerable(spec: &mut Compiled, reader: &LogReader) -> Vec<String> {
    let why: Vec<Option<String>> = spec
        .properties
        .iter()
        .map(|p| {
            requirements(spec, p, reader)
                .err()
                .map(|e| format!("{}, because {}", p.name, e.message))
        })
        .collect();
    let mut it = why.iter();
    spec.properties
        .retain(|_| it.next().is_some_and(Option::is_none));
    why.into_iter().flatten().collect()
}

fn requirements(
    spec: &Compiled,
    prop: &CompiledProperty,
    reader: &LogReader,
) -> Result<(), CheckError> {
    let opts = &reader.header().options;
    let at = |p: &crate::compiled::CompiledPredicate| {
        format!(
            "{}:{}:{}: {}",
            spec.path.display(),
            p.pos.line,
            p.pos.col,
            p.text
        )
    };
    let mut preds: Vec<&crate::compiled::CompiledPredicate> = prop.preds.iter().collect();
    let hist;
    if let PropertyPattern::History(h) = &prop.pattern {
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
    // CauDEr's logs hold spawns, sends and receives only.
    let cauder = opts.imported_from_cauder();
    for p in preds {
        if cauder && matches!(p.kind, PredicateKind::Exit | PredicateKind::Blocked) {
            return Err(CheckError {
                message: format!(
                    "{}: the log holds no exits (it was imported from CauDEr's format, which \
                     has none), so how a process {} cannot be decided",
                    at(p),
                    match p.kind {
                        PredicateKind::Exit => "exited",
                        _ => "ended, blocked or not,",
                    }
                ),
            });
        }
        if p.kind == PredicateKind::Deliver && !opts.deliveries {
            return Err(CheckError {
                message: format!(
                    "{}: the log has no deliveries (record with trace record --deliveries)",
                    at(p)
                ),
            });
        }
        if p.reads_terms() && !opts.payloads && p.kind != PredicateKind::Nondet {
            let why = match cauder {
                true => "it was imported from CauDEr's format, which has no messages",
                false => "it was recorded without payloads (trace record --no-payloads)",
            };
            return Err(CheckError {
                message: format!("{}: reads terms the log does not hold: {why}", at(p)),
            });
        }
    }
    Ok(())
}

/// How much to find out.
#[derive(Copy, Clone, Debug)]
pub struct Options {
    /// Violations per property described (with their causal slice).
    pub detail: usize,
    /// Use the fast paths for the commonest properties (only tests that
    /// compare them with the general engine turn this off).
    pub fast: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            detail: 10,
            fast: true,
        }
    }
}

/// Checks every property of `spec` on the log: builds the causal model,
/// matching the predicates that read terms while it decodes the log.
/// Returns the model with the verdicts (reports name events through it).
pub fn check(spec: &Compiled, reader: &LogReader) -> Result<(Model, Vec<Verdict>), CheckError> {
    check_with(spec, reader, Options::default())
}

/// [`check`] with options.
pub fn check_with(
    spec: &Compiled,
    reader: &LogReader,
    opts: Options,
) -> Result<(Model, Vec<Verdict>), CheckError> {
    for p in &spec.properties {
        requirements(spec, p, reader)?;
    }
    let props: Vec<&CompiledProperty> = spec.properties.iter().collect();
    let tasks = scan::tasks(&props);
    let scanner = scan::Scanner::new(&props, &tasks, reader);
    let (model, blocks) = if scanner.is_empty() {
        (Model::build(reader), Vec::new())
    } else {
        Model::build_visiting(reader, |info| scanner.block(info))
    };
    let mut lens = vec![0u64; model.id_slots()];
    for f in model.processes() {
        lens[f.id.0 as usize] = f.events;
    }
    let hits = hits::gather(&props, &tasks, blocks, &lens);
    let registry = if props.iter().any(|p| p.vars.uses_log_names()) {
        registry::Registry::read(reader)
    } else {
        registry::Registry::default()
    };
    let resolved: Vec<Names> = props
        .iter()
        .map(|p| resolve::resolve(p, &model, &registry))
        .collect();
    let mut task_of: Vec<Vec<Option<usize>>> =
        props.iter().map(|p| vec![None; p.preds.len()]).collect();
    for (i, t) in tasks.iter().enumerate() {
        task_of[t.prop][t.pred] = Some(i);
    }
    let sources = Sources::new(&model, &hits, task_of);
    let damage = model.warnings().iter().find(|w| w.is_damage());
    let mut verdicts = Vec::new();
    for (i, prop) in props.iter().enumerate() {
        let r = &resolved[i];
        let mut warnings = r.warnings.clone();
        warn_of_unknown_tables(prop, scanner.tables(), &model, &mut warnings);
        let local = prop.local.is_some()
            || matches!(&prop.pattern, PropertyPattern::History(h)
                if !matches!(h.subject, crate::compiled::CompiledSubject::Global));
        let result = match (&r.ambiguous, &prop.pattern) {
            (Some(why), _) => Err(GaveUp(why.clone())),
            (None, PropertyPattern::History(h)) => {
                crate::history::check(h, prop, r, reader, &model).map(|v| (v.len(), v))
            }
            (None, _) => evaluate(&props, &resolved, i, &sources, &model, &mut warnings, opts),
        };
        let (status, total, mut violations) = match result {
            // Events skipped for damage could hold a violation.
            Ok((0, v)) if damage.is_some() => (Status::GaveUp(damaged(damage)), 0, v),
            Ok((0, v)) => (Status::Satisfied, 0, v),
            Ok((n, v)) => (Status::Violated, n, v),
            Err(GaveUp(why)) => (Status::GaveUp(why), 0, Vec::new()),
        };
        violations.sort_by_key(|v| v.event.map(|e| (e.proc, e.index)));
        violations.truncate(opts.detail);
        // Each violation's slice is its own causal past: one task each,
        // with the pasts found together (one sweep of the log for all).
        let pasts = slice::pasts(prop, &model, local, &violations);
        let gathered = slice::gather(&props, &resolved, i, &sources, &violations, &pasts);
        let consts = &resolved[i].consts;
        violations
            .par_iter_mut()
            .zip(pasts.par_iter())
            .for_each(|(v, past)| slice::fill(prop, consts, &gathered, &model, past.as_ref(), v));
        if !model.is_complete() {
            warnings.push(
                "the log is incomplete (the run was cut short or blocks are damaged): \
                 the verdict is about the events it holds"
                    .into(),
            );
        }
        verdicts.push(Verdict {
            property: i,
            status,
            violations,
            total,
            warnings,
            local,
        });
    }
    drop(sources);
    Ok((model, verdicts))
}

/// An `ets` predicate whose table matches no table the log created is
/// almost always a misnamed table (an unnamed table is `{Creator, N}`, not
/// the name given to `ets:new`): say so, with the tables there are.
fn warn_of_unknown_tables(
    prop: &CompiledProperty,
    tables: &tables::TableNames,
    model: &Model,
    warnings: &mut Vec<String>,
) {
    let pid = |p| model.process(p).map(|f| f.pid);
    let mut all: Option<Vec<trace_term::Term>> = None;
    for p in prop.preds.iter().filter(|p| p.kind == PredicateKind::Ets) {
        let table = &p.terms[0];
        if table.trivial {
            continue;
        }
        let all = all.get_or_insert_with(|| tables.all_terms(pid));
        if all.iter().any(|t| table.pattern.matches(t).is_some()) {
            continue;
        }
        let listed: Vec<String> = all
            .iter()
            .take(5)
            .map(trace_format::text::render_term)
            .collect();
        warnings.push(format!(
            "{}: no table of this log is matched by its table argument; the log's tables are \
             [{}]{} (an unnamed table is {{Creator, N}}, not the name given to ets:new)",
            p.text,
            listed.join(", "),
            if all.len() > 5 { ", ..." } else { "" }
        ));
    }
}

/// Why a property without violations is not satisfied: part of the run
/// was skipped as damaged (`w`, the first such part).
fn damaged(w: Option<&trace_format::Warning>) -> String {
    let first = w.map(|w| w.to_string()).unwrap_or_default();
    format!("the log is damaged, part of the run was skipped ({first}): no violation in the rest")
}

/// Runs the engine on a property; returns how many violations there are
/// and the first `detail` of them (in process order), described.
fn evaluate(
    props: &[&CompiledProperty],
    resolved: &[Names],
    i: usize,
    sources: &Sources<'_>,
    model: &Model,
    warnings: &mut Vec<String>,
    opts: Options,
) -> Result<(usize, Vec<Violation>), GaveUp> {
    let prop = props[i];
    let uses_blocked = prop.preds.iter().any(|p| p.kind == PredicateKind::Blocked);
    if uses_blocked && !model.is_complete() {
        warnings.push(
            "blocked(P) needs a complete log: in a run cut short, a process that had not \
             exited may still have been running, so none is counted as blocked"
                .into(),
        );
    }
    let ev = Evaluation {
        props,
        resolved,
        i,
        sources,
        model,
        prop,
        names: &resolved[i],
        budget: engine::Budget::default(),
        opts,
    };
    let all: Vec<ProcId> = model.processes().iter().map(|f| f.id).collect();
    // Occurrence patterns on the whole run need no order but the count's.
    let unordered = matches!(
        &prop.pattern,
        PropertyPattern::Occurrence {
            kind: Occurrence::Absence | Occurrence::Universality,
            scope: crate::compiled::CompiledScope::Global,
            ..
        }
    );
    // Counting patterns over the whole run count across processes; with a
    // scope opened per binding of the process variable they count per process.
    let counts_across = matches!(
        &prop.pattern,
        PropertyPattern::Occurrence {
            kind: Occurrence::Existence
                | Occurrence::AtLeast(_)
                | Occurrence::AtMost(_)
                | Occurrence::Exactly(_),
            scope,
            ..
        } if scope.opener().is_none()
    );
    match prop.local {
        Some(v) if prop.vars.is_constant(v) => match ev.names.proc_of(v) {
            Some(p) => ev.whole(ev.gather(p), &ProgramOrder, prop.local),
            None => ev.whole(ev.empty(), &ProgramOrder, prop.local),
        },
        Some(_) if !counts_across => ev.per_process(&all, true),
        None if unordered => ev.per_process(&all, true),
        _ => ev.across(&all),
    }
}

/// The evaluation of property `i`: what it reads, and the ways to run the
/// engine on it.
struct Evaluation<'a> {
    props: &'a [&'a CompiledProperty],
    resolved: &'a [Names],
    i: usize,
    sources: &'a Sources<'a>,
    model: &'a Model,
    prop: &'a CompiledProperty,
    names: &'a Names,
    budget: engine::Budget,
    opts: Options,
}

/// How many violations, and the first of them described.
type Counted = Result<(usize, Vec<Violation>), GaveUp>;

impl Evaluation<'_> {
    /// The matches of each predicate in process `p`.
    fn gather(&self, p: ProcId) -> Vec<Matches> {
        (0..self.prop.preds.len())
            .map(|k| {
                self.sources
                    .matches(self.props, self.resolved, self.i, k, p)
            })
            .collect()
    }

    /// The matches of every predicate in all processes, gathered in parallel.
    fn all_matches(&self, all: &[ProcId]) -> Vec<Matches> {
        let per: Vec<Vec<Matches>> = all.par_iter().map(|&p| self.gather(p)).collect();
        let mut m = self.empty();
        for mut proc_m in per {
            for (k, list) in proc_m.iter_mut().enumerate() {
                m[k].append(list);
            }
        }
        m
    }

    /// No matches of any predicate.
    fn empty(&self) -> Vec<Matches> {
        self.prop
            .preds
            .iter()
            .map(|p| Matches::new(p.binds.len()))
            .collect()
    }

    /// One engine for the whole run: find, then describe the first ones.
    fn whole(&self, m: Vec<Matches>, order: &dyn hb::Order, owner: Option<usize>) -> Counted {
        let e = Engine::new(self.prop, &self.names.consts, m, order, owner, &self.budget);
        let mut found = e.run(true)?;
        let total = found.len();
        first::first_by_key(&mut found, self.opts.detail, |f| {
            f.event.map(|e| (e.proc, e.index))
        });
        let described = found.iter().map(|f| e.describe(f)).collect();
        Ok((total, described))
    }

    /// One engine per process: count everywhere, then run again where the
    /// first violations are, to describe them.
    fn per_process(&self, procs: &[ProcId], skip_empty: bool) -> Counted {
        let (prop, detail) = (self.prop, self.opts.detail);
        let owner = prop.local;
        let fast = stream::applies(prop).filter(|_| self.opts.fast);
        let key = |(e, _): &Spotted| e.map(|e| (e.proc, e.index));
        // Per process: how many violations, and the first `detail` of them
        // (violating event, the process whose matches found it). Only those
        // can be among the first `detail` of the run, and a property can be
        // broken millions of times: the rest is counted, not gathered.
        let results: Vec<Result<(usize, Vec<Spotted>), GaveUp>> = procs
            .par_iter()
            .map(|&p| {
                let mut v: Vec<Spotted> = if let Some(pattern) = fast {
                    let v = stream::violations(
                        self.props,
                        self.resolved,
                        self.i,
                        self.sources,
                        p,
                        pattern,
                    );
                    v.into_iter().map(|e| (Some(e), p)).collect()
                } else {
                    let m = self.gather(p);
                    if skip_empty && m.iter().all(Matches::is_empty) {
                        return Ok((0, Vec::new()));
                    }
                    let consts = &self.names.consts;
                    let e = Engine::new(prop, consts, m, &ProgramOrder, owner, &self.budget);
                    e.run(false)?.into_iter().map(|f| (f.event, p)).collect()
                };
                let n = v.len();
                first::first_by_key(&mut v, detail, key);
                Ok((n, v))
            })
            .collect();
        let mut total = 0;
        let mut events = Vec::new();
        for x in results {
            let (n, v) = x?;
            total += n;
            events.extend(v);
        }
        first::first_by_key(&mut events, detail, key);
        let mut wanted_procs: Vec<ProcId> = events.iter().map(|(_, p)| *p).collect();
        wanted_procs.sort();
        wanted_procs.dedup();
        let mut described = Vec::new();
        for p in wanted_procs {
            let consts = &self.names.consts;
            let e = Engine::new(
                prop,
                consts,
                self.gather(p),
                &ProgramOrder,
                owner,
                &self.budget,
            );
            for f in e.run(true)? {
                if events.contains(&(f.event, p)) {
                    described.push(e.describe(&f));
                }
            }
        }
        Ok((total, described))
    }

    /// All processes' matches together, on happened-before.
    fn across(&self, all: &[ProcId]) -> Counted {
        let (prop, model, r) = (self.prop, self.model, self.names);
        let fast = stream::applies_across(prop).filter(|_| self.opts.fast);
        // The matches are ordered for the engine by the rebuilt derivation
        // (one sequential pass over the log), which the fast path needs
        // only when it finds violations: built beside the search, and
        // given up when none is found.
        // (On one thread the search runs first, and the derivation after it.)
        let unneeded = AtomicBool::new(false);
        let ((mut m, found), ()) = rayon::join(
            || {
                let m = self.all_matches(all);
                let found = fast
                    .map(|(kind, t, o)| stream::across(model, kind, m[t].events(), m[o].events()));
                if found.as_ref().is_some_and(Vec::is_empty) {
                    unneeded.store(true, Ordering::Relaxed);
                }
                (m, found)
            },
            || model.place_events_unless(&unneeded),
        );
        let order = Causal(model);
        let sort = |m: &mut Vec<Matches>| {
            for list in m {
                list.sort_by_key(|e| (order_position(model, e), e));
            }
        };
        let (Some((_, t, _)), Some(mut v)) = (fast, found) else {
            sort(&mut m);
            return self.whole(m, &order, None);
        };
        let total = v.len();
        first::first_by_key(&mut v, self.opts.detail, |e| (e.proc, e.index));
        if v.is_empty() {
            return Ok((total, Vec::new()));
        }
        sort(&mut m);
        let e = Engine::new(prop, &r.consts, m, &order, None, &self.budget);
        e.prepare()?;
        let described = v
            .into_iter()
            .map(|ev| {
                let j = e.m[t].events().iter().position(|&x| x == ev);
                let env = j
                    .and_then(|j| matcher::join(&prop.preds[t], &r.consts, e.m[t].vals(j)))
                    .unwrap_or_else(|| r.consts.clone());
                e.describe(&Engine::missing(ev, env))
            })
            .collect();
        Ok((total, described))
    }
}

/// A violating event, and the process whose matches found it.
type Spotted = (Option<EventId>, ProcId);

fn order_position(model: &Model, e: EventId) -> u64 {
    model.position(e).unwrap_or(u64::MAX)
}
