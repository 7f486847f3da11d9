//! Matching one predicate against one event: the event's processes (as raw
//! pids) and terms (ETF bytes or a term built for it) against the
//! predicate's process arguments, term patterns and guard, producing the
//! values of the variables the predicate binds. Matches of a predicate are
//! kept flat ([`Matches`]): two vectors, whatever their number.

use crate::compiled::{CompiledPredicate, ProcArg};
use trace_causal::EventId;
use trace_pattern::{Bindings, EtfMatch, EtfTest};
use trace_term::{Pid, Term};

/// The values of a property's variables, as far as they are bound.
pub type Env = Vec<Option<Term>>;

/// The events a predicate matched, with the values of its variables
/// (`stride` values per event, aligned with [`CompiledPredicate::binds`]).
#[derive(Clone, Debug, Default)]
pub struct Matches {
    evs: Vec<EventId>,
    vals: Vec<Term>,
    stride: usize,
}

impl Matches {
    pub fn new(stride: usize) -> Matches {
        Matches {
            evs: Vec::new(),
            vals: Vec::new(),
            stride,
        }
    }

    pub fn len(&self) -> usize {
        self.evs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.evs.is_empty()
    }

    pub fn ev(&self, i: usize) -> EventId {
        self.evs[i]
    }

    pub fn vals(&self, i: usize) -> &[Term] {
        &self.vals[i * self.stride..(i + 1) * self.stride]
    }

    pub fn events(&self) -> &[EventId] {
        &self.evs
    }

    pub fn push(&mut self, ev: EventId, vals: &[Term]) {
        debug_assert_eq!(vals.len(), self.stride);
        self.evs.push(ev);
        self.vals.extend_from_slice(vals);
    }

    /// Appends the values last written to `scratch` by [`match_view`].
    pub fn push_from(&mut self, ev: EventId, scratch: &mut Vec<Term>) {
        self.evs.push(ev);
        self.vals.append(scratch);
    }

    pub fn append(&mut self, other: &mut Matches) {
        self.evs.append(&mut other.evs);
        self.vals.append(&mut other.vals);
    }

    /// Reorders the matches by `key`.
    pub fn sort_by_key<K: Ord>(&mut self, mut key: impl FnMut(EventId) -> K) {
        let mut order: Vec<(K, usize)> = self
            .evs
            .iter()
            .enumerate()
            .map(|(i, &e)| (key(e), i))
            .collect();
        if order.windows(2).all(|w| w[0].0 <= w[1].0) {
            return;
        }
        order.sort_by(|a, b| a.0.cmp(&b.0));
        let mut evs = Vec::with_capacity(self.evs.len());
        let mut vals = Vec::with_capacity(self.vals.len());
        for (_, i) in order {
            evs.push(self.evs[i]);
            vals.extend_from_slice(self.vals(i));
        }
        self.evs = evs;
        self.vals = vals;
    }
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

/// The most terms a predicate has (`ets(P, Table, Op, Key)`).
pub const TERMS: usize = 3;

/// What a predicate sees of an event.
#[derive(Clone, Copy, Debug)]
pub struct View<'a> {
    /// Raw pids of the canonical process arguments; `None`: not recorded.
    pub procs: [Option<u64>; 2],
    pub terms: [TermIn<'a>; TERMS],
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

fn same_pid(x: &Option<Term>, pid: Option<u64>) -> Option<bool> {
    match (x, pid) {
        (None, _) => None,
        (Some(Term::Pid(p)), Some(n)) => Some(p.0 == n),
        (Some(t), None) => Some(trace_term::order::exact_eq(t, &pid_term(None))),
        (Some(_), Some(_)) => Some(false),
    }
}

/// Whether the guard holds with the variables of `env`.
pub fn guard_holds(pred: &CompiledPredicate, env: &Env) -> bool {
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

/// Matches `pred` against the event `view`, starting from `init` (the named
/// processes, or nothing while names are not resolved yet). On success the
/// values of `pred.binds` are appended to `out`. `env` is scratch space.
pub fn match_view(
    pred: &CompiledPredicate,
    init: &Env,
    env: &mut Env,
    view: &View<'_>,
    out: &mut Vec<Term>,
) -> bool {
    // Cheap rejections first: a named process, a term's first bytes.
    for (a, pid) in pred.procs.iter().zip(view.procs) {
        if let ProcArg::Var(v) = a {
            if same_pid(&init[*v], pid) == Some(false) {
                return false;
            }
        }
    }
    // A term whose pattern binds nothing and that the quick test accepts
    // for sure need not be decoded.
    let mut decided = [false; TERMS];
    for (k, (arg, t)) in pred.terms.iter().zip(view.terms).enumerate() {
        if let (false, TermIn::Etf(bytes)) = (arg.trivial, t) {
            match arg.pattern.test_etf(bytes) {
                EtfTest::No => return false,
                EtfTest::Yes if arg.map.is_empty() => decided[k] = true,
                _ => {}
            }
        }
    }
    if pred.structural || (decided_all(pred, &decided) && pred.guard.is_none()) {
        return structural(pred, init, view, out);
    }
    env.clone_from(init);
    for (a, pid) in pred.procs.iter().zip(view.procs) {
        if let ProcArg::Var(v) = a {
            if !bind(env, *v, pid_term(pid)) {
                return false;
            }
        }
    }
    for (k, (arg, t)) in pred.terms.iter().zip(view.terms).enumerate() {
        if arg.trivial || decided[k] {
            continue;
        }
        let mut b = Bindings::new(arg.map.len());
        for (i, &v) in arg.map.iter().enumerate() {
            if let Some(x) = &env[v] {
                b.set(i, x.clone());
            }
        }
        let owned;
        let term = match t {
            // Decoding only the parts the variables bind, where the bytes
            // can tell; the whole term otherwise.
            TermIn::Etf(bytes) => match arg.pattern.match_etf_with(bytes, b) {
                EtfMatch::No => return false,
                EtfMatch::Yes(bound) => {
                    b = bound;
                    None
                }
                EtfMatch::Unknown(given) => {
                    b = given;
                    match trace_term::etf::decode(bytes) {
                        Ok(t) => {
                            owned = t;
                            Some(&owned)
                        }
                        Err(_) => return false,
                    }
                }
            },
            TermIn::Built(t) => Some(t),
            TermIn::Missing => return false,
        };
        if let Some(term) = term {
            let Some(matched) = arg.pattern.matches_with(term, b) else {
                return false;
            };
            b = matched;
        }
        for (i, &v) in arg.map.iter().enumerate() {
            if let Some(x) = b.get(i) {
                if !bind(env, v, x.clone()) {
                    return false;
                }
            }
        }
    }
    if pred.local_guard && !guard_holds(pred, env) {
        return false;
    }
    for &v in &pred.binds {
        match &env[v] {
            Some(t) => out.push(t.clone()),
            // A named process the event does not bind (only in a guard).
            None => out.push(Term::Nil),
        }
    }
    true
}

/// How a predicate that binds only processes gets its values from an
/// event's pids, without an environment: the cheap path for the predicates
/// every event of a kind is tried against.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Per bind: the process argument its value comes from.
    from: Vec<usize>,
    /// Process arguments that hold the same variable.
    same: Vec<(usize, usize)>,
    /// Process arguments that must be this (named, resolved) process.
    fixed: Vec<(usize, Term)>,
    /// Terms the quick test must accept for sure (`decided_by_etf_test`).
    quick: Vec<usize>,
}

impl Plan {
    /// The plan of `pred` with `init` (named processes resolved or not), if
    /// its terms are decided by the quick test and no guard is decided on
    /// the event.
    pub fn of(pred: &CompiledPredicate, init: &Env) -> Option<Plan> {
        if pred.guard.is_some() && pred.local_guard {
            return None;
        }
        let mut quick = Vec::new();
        for (k, t) in pred.terms.iter().enumerate() {
            if !t.trivial {
                if !t.map.is_empty() || !t.pattern.decided_by_etf_test() {
                    return None;
                }
                quick.push(k);
            }
        }
        let pos = |v: usize| {
            pred.procs
                .iter()
                .position(|a| *a == ProcArg::Var(v))
                .expect("a predicate without terms binds processes only")
        };
        let mut same = Vec::new();
        let mut fixed = Vec::new();
        for (j, a) in pred.procs.iter().enumerate() {
            if let ProcArg::Var(v) = a {
                let first = pos(*v);
                if first != j {
                    same.push((first, j));
                }
                if let Some(t) = &init[*v] {
                    fixed.push((j, t.clone()));
                }
            }
        }
        Some(Plan {
            from: pred.binds.iter().map(|&v| pos(v)).collect(),
            same,
            fixed,
            quick,
        })
    }

    /// The process argument each bind's value comes from.
    pub fn sources(&self) -> &[usize] {
        &self.from
    }

    /// Whether the event's processes satisfy the plan (repeated and named
    /// processes); its terms are checked by [`apply`](Self::apply).
    #[inline]
    pub fn admits(&self, procs: &[Option<u64>; 2]) -> bool {
        for &(a, b) in &self.same {
            if procs[a] != procs[b] {
                return false;
            }
        }
        for (j, t) in &self.fixed {
            match (t, procs[*j]) {
                (Term::Pid(p), Some(n)) if p.0 == n => {}
                _ => return false,
            }
        }
        true
    }

    /// Whether the event's terms pass the quick test (decided by it).
    #[inline]
    pub fn terms_ok(&self, pred: &CompiledPredicate, terms: &[TermIn<'_>; TERMS]) -> bool {
        self.quick.iter().all(|&k| {
            let pattern = &pred.terms[k].pattern;
            match terms[k] {
                TermIn::Etf(bytes) => pattern.test_etf(bytes) == EtfTest::Yes,
                TermIn::Built(t) => pattern.matches(t).is_some(),
                TermIn::Missing => false,
            }
        })
    }

    /// Matches the event; on success appends the values to `out`.
    #[inline]
    pub fn apply(&self, pred: &CompiledPredicate, view: &View<'_>, out: &mut Vec<Term>) -> bool {
        self.terms_ok(pred, &view.terms) && self.apply_checked(view, out)
    }

    /// [`apply`](Self::apply) for an event whose terms passed [`terms_ok`](Self::terms_ok).
    #[inline]
    pub fn apply_checked(&self, view: &View<'_>, out: &mut Vec<Term>) -> bool {
        if !self.admits(&view.procs) {
            return false;
        }
        for &j in &self.from {
            out.push(pid_term(view.procs[j]));
        }
        true
    }
}

/// Every term of `pred` is trivial or decided by the quick test.
fn decided_all(pred: &CompiledPredicate, decided: &[bool; TERMS]) -> bool {
    pred.terms
        .iter()
        .enumerate()
        .all(|(k, t)| t.trivial || decided[k])
}

/// [`match_view`] for a predicate on processes only (no term to read, no
/// guard to decide now): the values are the pids, with no environment.
fn structural(pred: &CompiledPredicate, init: &Env, view: &View<'_>, out: &mut Vec<Term>) -> bool {
    let start = out.len();
    for &v in &pred.binds {
        let mut value: Option<Term> = None;
        for (a, pid) in pred.procs.iter().zip(view.procs) {
            if *a == ProcArg::Var(v) {
                let t = pid_term(pid);
                match &value {
                    Some(x) if !trace_term::order::exact_eq(x, &t) => {
                        out.truncate(start);
                        return false;
                    }
                    Some(_) => {}
                    None => value = Some(t),
                }
            }
        }
        let t = value.unwrap_or(Term::Nil);
        if let Some(x) = &init[v] {
            if !trace_term::order::exact_eq(x, &t) {
                out.truncate(start);
                return false;
            }
        }
        out.push(t);
    }
    true
}

/// Extends `env` with a match of `pred`, if their shared variables agree and
/// a guard left for later holds.
pub fn join(pred: &CompiledPredicate, env: &Env, vals: &[Term]) -> Option<Env> {
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

/// [`join`] into `out` (its allocation reused).
pub fn join_into(pred: &CompiledPredicate, env: &Env, vals: &[Term], out: &mut Env) -> bool {
    out.clone_from(env);
    for (&v, x) in pred.binds.iter().zip(vals) {
        if !bind(out, v, x.clone()) {
            return false;
        }
    }
    pred.local_guard || guard_holds(pred, out)
}

/// True when a match of `pred` agrees with `env` (see [`join`]), without
/// building the joined environment when no guard needs it.
pub fn agrees(pred: &CompiledPredicate, env: &Env, vals: &[Term]) -> bool {
    if !pred.local_guard {
        return join(pred, env, vals).is_some();
    }
    pred.binds.iter().zip(vals).all(|(&v, x)| match &env[v] {
        Some(y) => trace_term::order::exact_eq(x, y),
        None => true,
    })
}
