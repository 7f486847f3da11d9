//! Matching one predicate against one event: the event's processes (as raw
//! pids) and terms (ETF bytes or a term built for it) against the
//! predicate's process arguments, term patterns and guard, producing the
//! values of the variables the predicate binds.

use crate::compile::{CPred, ProcArg};
use trace_pattern::Bindings;
use trace_term::{Pid, Term};

/// The values of a property's variables, as far as they are bound.
pub type Env = Vec<Option<Term>>;

/// One event a predicate matched, with the values of its variables
/// (aligned with [`CPred::binds`]).
#[derive(Clone, Debug)]
pub struct Match {
    pub ev: trace_causal::EventId,
    pub vals: Box<[Term]>,
}

/// A term of an event, as the log has it.
#[derive(Clone, Copy, Debug)]
pub enum TermIn<'a> {
    Etf(&'a [u8]),
    /// Built for the event (a converted exit signal, a nondet kind).
    Built(&'a Term),
    /// The log does not hold it (recorded without payloads).
    Missing,
}

/// What a predicate sees of an event.
#[derive(Clone, Copy, Debug)]
pub struct View<'a> {
    /// Raw pids of the canonical process arguments; `None`: not recorded.
    pub procs: [Option<u64>; 2],
    pub terms: [TermIn<'a>; 2],
}

/// Resolved process names: the pid each fixed process argument stands for
/// (`None` when the name names no process of this log: it matches nothing).
pub trait Fixed {
    fn pid(&self, r: &trace_causal::ProcRef) -> Option<u64>;
}

pub fn pid_term(pid: Option<u64>) -> Term {
    match pid {
        Some(n) => Term::Pid(Pid(n)),
        None => Term::atom("undefined"),
    }
}

fn bind(env: &mut Env, v: usize, t: Term) -> bool {
    match &env[v] {
        Some(x) => trace_term::order::exact_eq(x, &t),
        None => {
            env[v] = Some(t);
            true
        }
    }
}

/// Builds the guard's bindings from `env`.
pub fn guard_holds(pred: &CPred, env: &Env) -> bool {
    let Some(g) = &pred.guard else { return true };
    let mut b = Bindings::new(env.len());
    for &v in &g.vars {
        match &env[v] {
            Some(t) => b.set(v, t.clone()),
            None => return false,
        }
    }
    g.guard.holds(&b)
}

/// Matches `pred` against the event `view`, starting from `consts` (the
/// named processes). Returns the values of `pred.binds`.
pub fn match_view(
    pred: &CPred,
    consts: &Env,
    fixed: &dyn Fixed,
    view: &View<'_>,
) -> Option<Box<[Term]>> {
    for (a, pid) in pred.procs.iter().zip(view.procs) {
        if let ProcArg::Fixed(r) = a {
            if pid.is_none() || fixed.pid(r) != pid {
                return None;
            }
        }
    }
    let mut env = consts.clone();
    for (a, pid) in pred.procs.iter().zip(view.procs) {
        if let ProcArg::Var(v) = a {
            if !bind(&mut env, *v, pid_term(pid)) {
                return None;
            }
        }
    }
    for (arg, t) in pred.terms.iter().zip(view.terms) {
        if arg.trivial {
            continue;
        }
        let owned;
        let term = match t {
            TermIn::Etf(bytes) => {
                owned = trace_term::etf::decode(bytes).ok()?;
                &owned
            }
            TermIn::Built(t) => t,
            TermIn::Missing => return None,
        };
        let mut b = Bindings::new(arg.map.len());
        for (i, &v) in arg.map.iter().enumerate() {
            if let Some(x) = &env[v] {
                b.set(i, x.clone());
            }
        }
        let b = arg.pattern.matches_with(term, b)?;
        for (i, &v) in arg.map.iter().enumerate() {
            if let Some(x) = b.get(i) {
                if !bind(&mut env, v, x.clone()) {
                    return None;
                }
            }
        }
    }
    if pred.local_guard && !guard_holds(pred, &env) {
        return None;
    }
    Some(
        pred.binds
            .iter()
            .map(|&v| env[v].clone().expect("a bound variable"))
            .collect(),
    )
}

/// Extends `env` with a match of `pred`, if their shared variables agree and
/// a guard left for later holds.
pub fn join(pred: &CPred, env: &Env, vals: &[Term]) -> Option<Env> {
    let mut out = env.clone();
    for (&v, x) in pred.binds.iter().zip(vals) {
        if !bind(&mut out, v, x.clone()) {
            return None;
        }
    }
    if !pred.local_guard && !guard_holds(pred, &out) {
        return None;
    }
    Some(out)
}

/// True when a match of `pred` agrees with `env` (see [`join`]), without
/// building the joined environment when no guard needs it.
pub fn agrees(pred: &CPred, env: &Env, vals: &[Term]) -> bool {
    if !pred.local_guard {
        return join(pred, env, vals).is_some();
    }
    pred.binds.iter().zip(vals).all(|(&v, x)| match &env[v] {
        Some(y) => trace_term::order::exact_eq(x, y),
        None => true,
    })
}
