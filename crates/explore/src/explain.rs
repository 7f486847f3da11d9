//! Explaining a failure: the pair of racing steps whose order decides it,
//! shown with a passing interleaving that is the failing one with that
//! race reversed and every other step kept in its order.

use crate::control::{Hooks, Plan};
use crate::dpor::{races, reorderings, Reordering};
use crate::explore::{run_once, Config, Group};
use crate::step::{Access, Actor, Step};
use trace_capture::{EventSpec, ProcRef};
use trace_runtime::{Entry, Loaded};

/// Races tried with every other step kept in its order, smallest first.
const MAX_KEPT_TRIES: usize = 256;
/// Races tried with the run going on as the explorer goes, from the last,
/// when no race decides the failure alone.
const MAX_FREE_TRIES: usize = 32;
/// Races reported beside the first one that decide the failure alone too.
const MAX_ALSO: usize = 2;

/// One of the two racing steps, in words and as an event.
#[derive(Clone, Debug)]
pub struct StepInfo {
    /// Its number in the failing interleaving (from 0).
    pub index: usize,
    pub process: String,
    pub what: String,
    /// The step's event in EVENT syntax (docs/events.md), when it has one
    /// that syntax names.
    pub event: Option<String>,
}

/// Why a failure happens.
#[derive(Clone, Debug)]
pub struct Explanation {
    pub first: StepInfo,
    pub second: StepInfo,
    /// The passing interleaving's schedule.
    pub passing: Vec<Actor>,
    /// The passing interleaving keeps every step of the failing one but
    /// the race's in the failing order, as far as the program lets it: the
    /// race alone decides the failure. When no race does, the passing run
    /// went on from the reversed race as the explorer goes.
    pub decides_alone: bool,
    /// Other races that decide the failure alone too, each a larger change
    /// (at most [`MAX_ALSO`]): where the race above is the failure's
    /// nearest cause, one of these is often its root (a lease that
    /// expired before its release, beside two clients inside at once).
    pub also: Vec<(StepInfo, StepInfo)>,
}

/// Why `g`'s simplest interleaving fails: the race whose reversal, with
/// every other step kept in its order, passes, and moves the fewest steps
/// (others that do so too are listed beside it). When no race decides it
/// alone, the latest race whose reversal passes with the run going on
/// freely from there.
pub fn explain(
    hooks: &Hooks,
    loaded: &Loaded,
    entry: &Entry,
    cfg: &Config,
    g: &Group,
) -> Option<Explanation> {
    let steps: Vec<&Step> = g.steps.iter().collect();
    let reverse =
        |r: &Reordering, keep: bool| passing_reversal(hooks, loaded, entry, cfg, g, r, keep);
    let pair = |r: &Reordering| {
        (
            describe(hooks, r.first, g.steps[r.first].clone()),
            describe(hooks, r.second, g.steps[r.second].clone()),
        )
    };
    // The smallest change first: fewest steps moved, then the earliest.
    let mut candidates = reorderings(&steps, cfg.output_matters());
    candidates.sort_by_key(|r| (r.moved.len(), r.first, r.second));
    let mut deciding = candidates
        .into_iter()
        .take(MAX_KEPT_TRIES)
        .filter_map(|r| {
            let passing = reverse(&r, true)?;
            Some((r, passing))
        })
        .take(1 + MAX_ALSO);
    if let Some((root, passing)) = deciding.next() {
        let (first, second) = pair(&root);
        let also = deciding.map(|(r, _)| pair(&r)).collect();
        return Some(Explanation {
            first,
            second,
            passing,
            decides_alone: true,
            also,
        });
    }
    let found = races(&steps, 0, cfg.output_matters());
    let (r, passing) = found
        .iter()
        .rev()
        .take(MAX_FREE_TRIES)
        .map(|r| Reordering {
            first: r.first,
            second: r.second,
            moved: r.reversal.clone(),
        })
        .find_map(|r| {
            let passing = reverse(&r, false)?;
            Some((r, passing))
        })?;
    let (first, second) = pair(&r);
    Some(Explanation {
        first,
        second,
        passing,
        decides_alone: false,
        also: Vec::new(),
    })
}

/// The schedule of a run that is `g`'s simplest interleaving up to race
/// `r`'s first step, then takes the race's reversal (the steps that do not
/// need the first step, and the second), then goes on keeping `g`'s order
/// (`keep`) or as the explorer goes, a process waiting at an `after`
/// going only when nothing else can; if that run passes.
fn passing_reversal(
    hooks: &Hooks,
    loaded: &Loaded,
    entry: &Entry,
    cfg: &Config,
    g: &Group,
    r: &Reordering,
    keep: bool,
) -> Option<Vec<Actor>> {
    let mut prefix: Vec<Actor> = g.schedule[..r.first].to_vec();
    prefix.extend(r.moved.iter().map(|&k| g.schedule[k]));
    let follow = if keep {
        (r.first..g.schedule.len())
            .filter(|k| !r.moved.contains(k))
            .map(|k| {
                (
                    g.schedule[k],
                    g.steps[k]
                        .accesses
                        .iter()
                        .any(|a| matches!(a, Access::Timeout)),
                )
            })
            .collect()
    } else {
        Vec::new()
    };
    let plan = Plan {
        prefix,
        follow,
        timeouts_last: true,
        max_steps: cfg.max_steps,
        ..Plan::default()
    };
    let run = run_once(loaded, entry, hooks, plan, cfg).ok()?;
    let log = &run.log;
    if log.departed || log.cut || run.outcome.interrupted {
        return None;
    }
    // With --check, the run passes only if its log satisfies the
    // properties too.
    if !matches!(run.failure(&cfg.expectations), Ok(None)) {
        return None;
    }
    Some(log.steps.iter().map(|s| s.actor).collect())
}

/// A step in words: its main access.
fn describe(hooks: &Hooks, index: usize, s: Step) -> StepInfo {
    let name = |p: u32| hooks.name(p);
    let process = hooks.symbolic(s.actor);
    let msg = |m: &crate::step::MsgKey| hooks.msg(*m);
    let mut what = String::from("takes a step");
    let mut event = None;
    for a in &s.accesses {
        let (w, e) = match a {
            Access::Send {
                to,
                msg: m,
                payload,
            } => (
                format!(
                    "sends {} to {}",
                    trace_term::pretty(payload, &Default::default()),
                    name(*to)
                ),
                Some(EventSpec::Send(msg(m)).to_string()),
            ),
            Access::Receive { msg: m } => (
                format!("receives message {}", msg(m)),
                Some(EventSpec::Receive(msg(m)).to_string()),
            ),
            Access::Timeout => ("times out in a receive".into(), None),
            Access::Spawn { child } => (
                format!("spawns {}", name(*child)),
                Some(EventSpec::Spawn(ProcRef::Name(name(*child))).to_string()),
            ),
            Access::Signal { to } => (format!("sends a signal to {}", name(*to)), None),
            Access::Name(n) => (format!("looks up or changes the name {}", n.name()), None),
            Access::Liveness(p) => (format!("observes whether {} is alive", name(*p)), None),
            Access::Inspect(p) => (format!("inspects {}", name(*p)), None),
            Access::Exit => (
                "ends".into(),
                match s.actor {
                    Actor::Process(p) => Some(EventSpec::Exit(ProcRef::Name(name(p))).to_string()),
                    Actor::Timer(_) => None,
                },
            ),
            Access::Output => ("writes to standard output".into(), None),
            Access::Shared { write } => (
                format!(
                    "{} shared state (a table, counter or persistent term)",
                    if *write { "changes" } else { "reads" }
                ),
                None,
            ),
            Access::OwnSignals => (
                "changes its monitors or how it takes exit signals".into(),
                None,
            ),
            Access::Arm { .. }
            | Access::Cancel { .. }
            | Access::Filter { .. }
            | Access::NoClauses
            | Access::MayTimeOut => continue,
        };
        what = w;
        event = e;
        break;
    }
    StepInfo {
        index,
        process,
        what,
        event,
    }
}
