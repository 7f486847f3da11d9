//! Explaining a failure: the pair of racing steps whose order decides it,
//! shown with a passing interleaving that is the failing one up to the
//! race, with the race reversed.

use crate::control::{Hooks, Plan};
use crate::dpor::races;
use crate::explore::{run_once, Config, Group};
use crate::step::{Access, Actor, Step};
use trace_capture::{EventSpec, ProcRef};
use trace_runtime::{Entry, Loaded};

/// Races tried, from the one nearest the end, before giving up.
const MAX_TRIES: usize = 32;

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
}

/// The race of `g`'s simplest interleaving whose reversal passes (the
/// latest such race), if one does.
pub fn explain(
    hooks: &Hooks,
    loaded: &Loaded,
    entry: &Entry,
    cfg: &Config,
    g: &Group,
) -> Option<Explanation> {
    let steps: Vec<&Step> = g.steps.iter().collect();
    let mut found = races(&steps, 0, cfg.output_matters());
    found.reverse();
    for r in found.into_iter().take(MAX_TRIES) {
        let mut prefix: Vec<Actor> = g.schedule[..r.first].to_vec();
        prefix.extend(r.reversal.iter().map(|&k| g.schedule[k]));
        let plan = Plan {
            prefix,
            max_steps: cfg.max_steps,
            ..Plan::default()
        };
        let Ok(run) = run_once(loaded, entry, hooks, plan, cfg) else {
            continue;
        };
        let log = &run.log;
        if log.departed || log.cut || run.outcome.interrupted {
            continue;
        }
        // With --check, the run passes only if its log satisfies the
        // properties too.
        if !matches!(run.failure(&cfg.expectations), Ok(None)) {
            continue;
        }
        let passing: Vec<Actor> = log.steps.iter().map(|s| s.actor).collect();
        return Some(Explanation {
            first: describe(hooks, r.first, g.steps[r.first].clone()),
            second: describe(hooks, r.second, g.steps[r.second].clone()),
            passing,
        });
    }
    None
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
