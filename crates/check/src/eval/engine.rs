//! Dwyer's patterns over one set of matches: scopes cut into segments, then
//! occurrence and order patterns decided in each segment, on an [`Order`]
//! (a process's program order for a local property, happened-before
//! otherwise). The semantics are those of docs/spec-language.md.
//!
//! A run yields [`Found`] records — the violating event and little else —
//! so that a run with a million violations stays cheap; [`Engine::describe`]
//! turns the few that are reported into [`Violation`]s with words,
//! bindings and related events.

use super::hb::Order;
use super::key::{FxBuild, FxMap, Key};
use super::matcher::{agrees, join, join_into, Env, Matches};
use super::verdict::{GaveUp, Violation};
use crate::compiled::{CompiledPredicate, CompiledProperty, CompiledScope, PropertyPattern};
use crate::spec::{Occurrence, OrderKind, PredicateKind};
use std::cell::{Cell, OnceCell, RefCell};
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use trace_causal::EventId;
use trace_term::Term;

/// Searches give up past this many steps, per property: the engines of one
/// property (one per process, run in parallel) draw on one [`Budget`].
pub const STEP_BUDGET: u64 = 200_000_000;

/// Steps one property's searches have taken, over all its engines.
#[derive(Default)]
pub struct Budget {
    used: AtomicU64,
}

/// Steps an engine takes before it adds them to the shared [`Budget`] (one
/// atomic operation per this many, not per step).
const BUDGET_BATCH: u64 = 1 << 20;

/// A violation found, not yet described.
#[derive(Clone, Debug)]
pub struct Found {
    pub event: Option<EventId>,
    seg: u32,
    /// The binding, when the run keeps them (for describing).
    env: Option<Env>,
    what: What,
}

#[derive(Clone, Debug)]
enum What {
    /// An event the pattern forbids.
    Forbidden,
    /// A selected event that does not match (universality).
    Mismatch,
    /// Fewer matches than required.
    TooFew(u64),
    /// More matches than allowed; the event is the first one too many.
    TooMany(u64),
    /// No response / no cause; the trigger chain began at `first`.
    Missing { first: EventId },
}

/// A part of the run a pattern applies to (Dwyer's scope instance).
struct Segment {
    env: Env,
    kind: SegKind,
}

enum SegKind {
    Global,
    /// Before the closing events `rs` (all of them).
    Before(Vec<EventId>),
    /// From `open`; closed by the (minimal) `closes`; `between` requires a close.
    From {
        open: EventId,
        closes: Vec<EventId>,
        between: bool,
    },
}

impl Segment {
    fn contains(&self, o: &dyn Order, e: EventId) -> bool {
        match &self.kind {
            SegKind::Global => true,
            SegKind::Before(rs) => {
                !rs.iter().any(|&r| o.before_eq(r, e)) && rs.iter().any(|&r| o.before(e, r))
            }
            SegKind::From {
                open,
                closes,
                between,
            } => {
                o.before_eq(*open, e)
                    && !closes.iter().any(|&r| o.before_eq(r, e))
                    && (!between || closes.iter().any(|&r| o.before(e, r)))
            }
        }
    }

    /// The event a violation of an existence-like pattern points at.
    fn anchor(&self, o: &dyn Order) -> Option<EventId> {
        match &self.kind {
            SegKind::Global => None,
            SegKind::Before(rs) => rs.iter().copied().min_by_key(|&r| o.position(r)),
            SegKind::From {
                open,
                closes,
                between: true,
            } => closes
                .iter()
                .copied()
                .min_by_key(|&r| o.position(r))
                .or(Some(*open)),
            SegKind::From { open, .. } => Some(*open),
        }
    }

    fn related(&self) -> Vec<(String, EventId)> {
        match &self.kind {
            SegKind::Global => vec![],
            SegKind::Before(rs) => rs
                .iter()
                .take(1)
                .map(|&r| ("the scope ends at".to_string(), r))
                .collect(),
            SegKind::From { open, closes, .. } => {
                let mut v = vec![("the scope opens at".to_string(), *open)];
                v.extend(
                    closes
                        .iter()
                        .take(1)
                        .map(|&r| ("the scope closes at".to_string(), r)),
                );
                v
            }
        }
    }

    fn phrase(&self) -> &'static str {
        match &self.kind {
            SegKind::Global => "",
            SegKind::Before(_) => " before the scope's end",
            SegKind::From { between: true, .. } => " between the scope's opening and closing",
            SegKind::From { .. } => " in the scope",
        }
    }
}

/// The matches of a predicate worth trying against a binding.
enum Cands<'e> {
    All(usize),
    Some(&'e [u32]),
}

impl Cands<'_> {
    fn len(&self) -> usize {
        match self {
            Cands::All(n) => *n,
            Cands::Some(v) => v.len(),
        }
    }

    fn get(&self, i: usize) -> usize {
        match self {
            Cands::All(_) => i,
            Cands::Some(v) => v[i] as usize,
        }
    }
}

/// Where a chain's events may lie: its first after `after`, all before
/// `before`; `first` is the chain's first event once it is chosen.
#[derive(Copy, Clone)]
struct Bounds {
    after: Option<EventId>,
    before: Option<EventId>,
    first: Option<EventId>,
}

impl Bounds {
    const NONE: Bounds = Bounds {
        after: None,
        before: None,
        first: None,
    };
}

pub struct Engine<'a> {
    pub prop: &'a CompiledProperty,
    pub consts: &'a Env,
    /// Matches of each predicate, each list in position order.
    pub m: Vec<Matches>,
    /// The position of each match (see [`Order::position`]).
    pos: Vec<Vec<u64>>,
    pub order: &'a dyn Order,
    /// Steps not yet added to `budget`.
    steps: Cell<u64>,
    budget: &'a Budget,
    /// Per predicate: the variables it shares with what it sees (the join
    /// key), and where they are among its values.
    keys: Vec<Vec<usize>>,
    key_at: Vec<Vec<usize>>,
    /// Per predicate: its matches grouped by key.
    index: Vec<OnceCell<FxMap<Key, Vec<u32>>>>,
    /// The segments of the last run, for describing what it found.
    segs: RefCell<Vec<Segment>>,
}

impl<'a> Engine<'a> {
    /// `owner`: the variable every event's process is bound to when the
    /// matches all come from one process (it is the same in every match,
    /// so no key needs it).
    pub fn new(
        prop: &'a CompiledProperty,
        consts: &'a Env,
        m: Vec<Matches>,
        order: &'a dyn Order,
        owner: Option<usize>,
        budget: &'a Budget,
    ) -> Self {
        let index = m.iter().map(|_| OnceCell::new()).collect();
        let pos = m
            .iter()
            .map(|l| l.events().iter().map(|&e| order.position(e)).collect())
            .collect();
        let keys: Vec<Vec<usize>> = prop
            .preds
            .iter()
            .map(|p| {
                p.binds
                    .iter()
                    .copied()
                    .filter(|v| {
                        p.sees.contains(v) && Some(*v) != owner && !prop.vars.is_constant(*v)
                    })
                    .collect()
            })
            .collect();
        let key_at = prop
            .preds
            .iter()
            .zip(&keys)
            .map(|(p, ks)| {
                ks.iter()
                    .map(|v| {
                        p.binds
                            .iter()
                            .position(|b| b == v)
                            .expect("a key var is bound")
                    })
                    .collect()
            })
            .collect();
        Engine {
            prop,
            consts,
            m,
            pos,
            order,
            steps: Cell::new(0),
            budget,
            keys,
            key_at,
            index,
            segs: RefCell::new(Vec::new()),
        }
    }

    fn pred(&self, k: usize) -> &'a CompiledPredicate {
        &self.prop.preds[k]
    }

    fn step(&self, n: u64) -> Result<(), GaveUp> {
        let s = self.steps.get() + n;
        if s < BUDGET_BATCH {
            self.steps.set(s);
            return Ok(());
        }
        self.steps.set(0);
        if self.budget.used.fetch_add(s, Ordering::Relaxed) + s > STEP_BUDGET {
            return Err(GaveUp(format!(
                "gave up after {STEP_BUDGET} steps of matching events against each other"
            )));
        }
        Ok(())
    }

    /// The matches of `k` that may agree with `env`, in position order.
    fn candidates(&self, k: usize, env: &Env) -> Cands<'_> {
        let n = self.m[k].len();
        if self.keys[k].is_empty() || n < 8 {
            return Cands::All(n);
        }
        let Some(key) = Key::of_env(env, &self.keys[k]) else {
            return Cands::All(n);
        };
        let index = self.index[k].get_or_init(|| {
            let mut map: FxMap<Key, Vec<u32>> = FxMap::default();
            for i in 0..n {
                map.entry(Key::pick(self.m[k].vals(i), &self.key_at[k]))
                    .or_default()
                    .push(i as u32);
            }
            map
        });
        match index.get(&key) {
            Some(v) => Cands::Some(v),
            None => Cands::Some(&[]),
        }
    }

    fn segments(&self, scope: CompiledScope) -> Result<Vec<Segment>, GaveUp> {
        let base = self.consts.clone();
        let o = self.order;
        Ok(match scope {
            CompiledScope::Global => vec![Segment {
                env: base,
                kind: SegKind::Global,
            }],
            CompiledScope::Before(r) => {
                let rs: Vec<EventId> = self.m[r].events().to_vec();
                if rs.is_empty() {
                    vec![]
                } else {
                    vec![Segment {
                        env: base,
                        kind: SegKind::Before(rs),
                    }]
                }
            }
            CompiledScope::After(q)
            | CompiledScope::Between(q, _)
            | CompiledScope::AfterUntil(q, _) => {
                let close = scope.closer();
                let between = matches!(scope, CompiledScope::Between(..));
                // Openings, per binding of Q: a Q not inside the segment of
                // an earlier Q with the same binding.
                let all_q: Vec<usize> = (0..self.pred(q).binds.len()).collect();
                let mut opened: FxMap<Key, Vec<(EventId, Vec<EventId>)>> = FxMap::default();
                let mut segs = Vec::new();
                for qi in 0..self.m[q].len() {
                    let qv = self.m[q].vals(qi);
                    let qev = self.m[q].ev(qi);
                    let Some(env) = join(self.pred(q), &base, qv) else {
                        continue;
                    };
                    let earlier = opened.entry(Key::pick(qv, &all_q)).or_default();
                    self.step(earlier.len() as u64 + 1)?;
                    let inside = earlier.iter().any(|(open, closes)| {
                        o.before(*open, qev) && !closes.iter().any(|&r| o.before_eq(r, qev))
                    });
                    if inside {
                        continue;
                    }
                    let closes = match close {
                        Some(r) => {
                            let c = self.candidates(r, &env);
                            let after: Vec<EventId> = (0..c.len())
                                .map(|j| c.get(j))
                                .filter(|&j| {
                                    o.before(qev, self.m[r].ev(j))
                                        && agrees(self.pred(r), &env, self.m[r].vals(j))
                                })
                                .map(|j| self.m[r].ev(j))
                                .collect();
                            self.step(c.len() as u64)?;
                            minimal(o, after)
                        }
                        None => vec![],
                    };
                    earlier.push((qev, closes.clone()));
                    if between && closes.is_empty() {
                        continue;
                    }
                    segs.push(Segment {
                        env,
                        kind: SegKind::From {
                            open: qev,
                            closes,
                            between,
                        },
                    });
                }
                segs
            }
        })
    }

    /// The matches of `k` in `seg` that agree with its binding (indices, in
    /// position order).
    fn within(&self, k: usize, seg: &Segment) -> Vec<usize> {
        let p = self.pred(k);
        let c = self.candidates(k, &seg.env);
        (0..c.len())
            .map(|j| c.get(j))
            .filter(|&i| {
                seg.contains(self.order, self.m[k].ev(i)) && agrees(p, &seg.env, self.m[k].vals(i))
            })
            .collect()
    }

    fn bindings(&self, env: &Env) -> Vec<(String, Term)> {
        let vars = &self.prop.vars;
        env.iter()
            .enumerate()
            .filter(|(i, v)| v.is_some() && !vars.is_constant(*i))
            .map(|(i, v)| (vars.names[i].clone(), v.clone().expect("filtered")))
            .collect()
    }

    /// Finds the violations; with `keep`, each keeps its binding for
    /// [`describe`](Self::describe).
    pub fn run(&self, keep: bool) -> Result<Vec<Found>, GaveUp> {
        let (scope, found) = match &self.prop.pattern {
            PropertyPattern::Occurrence {
                kind,
                pred,
                select,
                scope,
            } => {
                let segs = self.segments(*scope)?;
                let f = self.occurrence(&segs, *kind, *pred, *select, keep)?;
                (segs, f)
            }
            PropertyPattern::Order {
                kind,
                trigger,
                other,
                scope,
            } => {
                let segs = self.segments(*scope)?;
                let f = self.order_pattern(&segs, *kind, trigger, other, keep)?;
                (segs, f)
            }
            PropertyPattern::History(_) => (Vec::new(), Vec::new()),
        };
        *self.segs.borrow_mut() = scope;
        Ok(found)
    }

    fn occurrence(
        &self,
        segs: &[Segment],
        kind: Occurrence,
        k: usize,
        select: Option<usize>,
        keep: bool,
    ) -> Result<Vec<Found>, GaveUp> {
        let m = &self.m[k];
        let mut out = Vec::new();
        for (si, seg) in segs.iter().enumerate() {
            self.step(m.len() as u64)?;
            let found = self.within(k, seg);
            let env_of = |i: usize| {
                keep.then(|| join(self.pred(k), &seg.env, m.vals(i)).unwrap_or_default())
            };
            let found_at = |event, env, what| Found {
                event,
                seg: si as u32,
                env,
                what,
            };
            match kind {
                Occurrence::Absence => {
                    for i in found {
                        out.push(found_at(Some(m.ev(i)), env_of(i), What::Forbidden));
                    }
                }
                Occurrence::Universality => {
                    let s = select.expect("universality has a selection");
                    self.step(self.m[s].len() as u64)?;
                    let ok: std::collections::HashSet<EventId, super::key::FxBuild> =
                        found.iter().map(|&i| m.ev(i)).collect();
                    for j in self.within(s, seg) {
                        let ev = self.m[s].ev(j);
                        if !ok.contains(&ev) {
                            let env = keep.then(|| {
                                join(self.pred(s), &seg.env, self.m[s].vals(j)).unwrap_or_default()
                            });
                            out.push(found_at(Some(ev), env, What::Mismatch));
                        }
                    }
                }
                Occurrence::Existence
                | Occurrence::AtLeast(_)
                | Occurrence::AtMost(_)
                | Occurrence::Exactly(_) => {
                    let n = found.len() as u64;
                    let (lo, hi) = bounds(kind);
                    if n < lo {
                        let env = keep.then(|| seg.env.clone());
                        out.push(found_at(seg.anchor(self.order), env, What::TooFew(n)));
                    } else if n > hi {
                        // `found` is in position order, a linear extension.
                        let last = found[hi as usize];
                        out.push(found_at(Some(m.ev(last)), env_of(last), What::TooMany(n)));
                    }
                }
            }
        }
        Ok(out)
    }

    /// Whether a chain of `chain` lies in `seg` within `b`, agreeing with `env`.
    fn exists(&self, chain: &[usize], seg: &Segment, env: &Env, b: Bounds) -> Result<bool, GaveUp> {
        let Some((&k, rest)) = chain.split_first() else {
            return Ok(true);
        };
        let p = self.pred(k);
        let m = &self.m[k];
        let pos = &self.pos[k];
        let cands = self.candidates(k, env);
        let n = cands.len();
        // Candidates are in position order, which every order respects: an
        // event after `after` has a greater position, one before `before` a
        // smaller one. Walk from the promising end and stop past the bound.
        let after_pos = b.after.map(|e| self.order.position(e));
        let before_pos = b.before.map(|e| self.order.position(e));
        let descending = after_pos.is_some() && before_pos.is_none();
        let mut scratch: Env = Vec::new();
        let mut tried = 0u64;
        let mut found = false;
        for j in 0..n {
            let i = cands.get(if descending { n - 1 - j } else { j });
            tried += 1;
            if after_pos.is_some_and(|a| pos[i] <= a) {
                if descending {
                    break;
                }
                continue;
            }
            if before_pos.is_some_and(|bp| pos[i] >= bp) {
                break;
            }
            let ev = m.ev(i);
            if b.after.is_some_and(|a| !self.order.before(a, ev))
                || b.before.is_some_and(|x| !self.order.before(ev, x))
                || !seg.contains(self.order, ev)
            {
                continue;
            }
            if rest.is_empty() {
                if agrees(p, env, m.vals(i)) {
                    found = true;
                    break;
                }
                continue;
            }
            if !join_into(p, env, m.vals(i), &mut scratch) {
                continue;
            }
            let next = Bounds {
                after: Some(ev),
                before: b.before,
                first: None,
            };
            if self.exists(rest, seg, &scratch, next)? {
                found = true;
                break;
            }
        }
        self.step(tried)?;
        Ok(found)
    }

    /// Occurrences of `chain` in `seg` agreeing with `env`: events each in
    /// the causal future of the one before; `f` gets each one's first and
    /// last event and binding.
    fn occurrences(
        &self,
        chain: &[usize],
        seg: &Segment,
        env: &Env,
        b: Bounds,
        walked: &mut Walked,
        f: &mut dyn FnMut(EventId, EventId, &Env) -> Result<(), GaveUp>,
    ) -> Result<(), GaveUp> {
        let Some((&k, rest)) = chain.split_first() else {
            return Ok(());
        };
        let p = self.pred(k);
        let m = &self.m[k];
        let cands = self.candidates(k, env);
        self.step(cands.len() as u64)?;
        let mut scratch: Env = Vec::new();
        for j in 0..cands.len() {
            let i = cands.get(j);
            let ev = m.ev(i);
            if b.after.is_some_and(|a| !self.order.before(a, ev)) || !seg.contains(self.order, ev) {
                continue;
            }
            if !join_into(p, env, m.vals(i), &mut scratch) {
                continue;
            }
            let first = b.first.unwrap_or(ev);
            if rest.is_empty() {
                f(first, ev, &scratch)?;
            } else if walked.precedence {
                // A precedence is judged at the chain's first event with
                // its final binding: the ways to go on from here are
                // summed up by those bindings.
                for end in self.chain_ends(rest, seg, &scratch, ev, walked)?.iter() {
                    f(first, ev, end)?;
                }
            } else {
                if !walked.first_visit(rest.len(), ev, &scratch) {
                    continue;
                }
                let next = Bounds {
                    after: Some(ev),
                    before: None,
                    first: Some(first),
                };
                self.occurrences(rest, seg, &scratch, next, walked, f)?;
            }
        }
        Ok(())
    }

    /// The bindings `chain` can end with, its first event after `after` in
    /// `seg`, starting from `env` (each binding once), remembered per state
    /// so that a state is walked once whatever path reaches it.
    fn chain_ends(
        &self,
        chain: &[usize],
        seg: &Segment,
        env: &Env,
        after: EventId,
        walked: &mut Walked,
    ) -> Result<Rc<Vec<Env>>, GaveUp> {
        let Some((&k, rest)) = chain.split_first() else {
            return Ok(Rc::new(vec![env.clone()]));
        };
        let state = env_key(env).map(|(bound, values)| (chain.len(), after, bound, values));
        if let Some(known) = state.as_ref().and_then(|s| walked.ends.get(s)) {
            return Ok(known.clone());
        }
        let p = self.pred(k);
        let m = &self.m[k];
        let cands = self.candidates(k, env);
        self.step(cands.len() as u64)?;
        let mut ends = Vec::new();
        let mut distinct: std::collections::HashSet<(u128, Key), FxBuild> = Default::default();
        let mut scratch: Env = Vec::new();
        for j in 0..cands.len() {
            let i = cands.get(j);
            let ev = m.ev(i);
            if !self.order.before(after, ev) || !seg.contains(self.order, ev) {
                continue;
            }
            if !join_into(p, env, m.vals(i), &mut scratch) {
                continue;
            }
            for end in self.chain_ends(rest, seg, &scratch, ev, walked)?.iter() {
                if env_key(end).is_none_or(|key| distinct.insert(key)) {
                    ends.push(end.clone());
                }
            }
        }
        let ends = Rc::new(ends);
        if let Some(s) = state {
            walked.ends.insert(s, ends.clone());
        }
        Ok(ends)
    }

    fn order_pattern(
        &self,
        segs: &[Segment],
        kind: OrderKind,
        trigger: &[usize],
        other: &[usize],
        keep: bool,
    ) -> Result<Vec<Found>, GaveUp> {
        let mut out = Vec::new();
        for (si, seg) in segs.iter().enumerate() {
            // A chain of triggers may end at one event in several ways: one
            // violation per event.
            let mut seen: std::collections::HashSet<EventId, super::key::FxBuild> =
                Default::default();
            let mut walked = Walked::new(kind == OrderKind::Precedence);
            self.occurrences(
                trigger,
                seg,
                &seg.env,
                Bounds::NONE,
                &mut walked,
                &mut |first, last, env| {
                    let bounds = match kind {
                        OrderKind::Response => Bounds {
                            after: Some(last),
                            ..Bounds::NONE
                        },
                        OrderKind::Precedence => Bounds {
                            before: Some(first),
                            ..Bounds::NONE
                        },
                    };
                    if self.exists(other, seg, env, bounds)? {
                        return Ok(());
                    }
                    let at = match kind {
                        OrderKind::Response => last,
                        OrderKind::Precedence => first,
                    };
                    if trigger.len() > 1 && !seen.insert(at) {
                        return Ok(());
                    }
                    out.push(Found {
                        event: Some(at),
                        seg: si as u32,
                        env: keep.then(|| env.clone()),
                        what: What::Missing { first },
                    });
                    Ok(())
                },
            )?;
        }
        Ok(out)
    }

    /// A missing response or cause at `event` (a trigger matched with
    /// `env`), found without a run; see [`prepare`](Self::prepare).
    pub fn missing(event: EventId, env: Env) -> Found {
        Found {
            event: Some(event),
            seg: 0,
            env: Some(env),
            what: What::Missing { first: event },
        }
    }

    /// Cuts the segments of the property's scope, for describing what was
    /// found without [`run`](Self::run).
    pub fn prepare(&self) -> Result<(), GaveUp> {
        let scope = match &self.prop.pattern {
            PropertyPattern::Occurrence { scope, .. } | PropertyPattern::Order { scope, .. } => {
                *scope
            }
            PropertyPattern::History(_) => CompiledScope::Global,
        };
        *self.segs.borrow_mut() = self.segments(scope)?;
        Ok(())
    }

    /// Words, bindings and related events for a violation of the last run.
    pub fn describe(&self, f: &Found) -> Violation {
        let segs = self.segs.borrow();
        let Some(seg) = segs.get(f.seg as usize) else {
            return Violation::at(f.event, String::new());
        };
        let env = f.env.clone().unwrap_or_else(|| seg.env.clone());
        let mut v = Violation::at(f.event, String::new());
        v.bindings = self.bindings(&env);
        v.related = seg.related();
        match (&self.prop.pattern, &f.what) {
            (PropertyPattern::Occurrence { pred, .. }, What::Forbidden) => {
                let p = self.pred(*pred);
                v.what = match p.kind {
                    PredicateKind::Blocked => {
                        "never exited: blocked at the end of the run (its last event is shown)"
                            .into()
                    }
                    PredicateKind::Unreceived => "sent, but no receive ever consumed it".into(),
                    _ => format!(
                        "matches `{}`, which must not happen{}",
                        p.text,
                        seg.phrase()
                    ),
                };
            }
            (PropertyPattern::Occurrence { pred, .. }, What::Mismatch) => {
                v.what = format!("does not match `{}`{}", self.pred(*pred).text, seg.phrase());
            }
            (PropertyPattern::Occurrence { kind, pred, .. }, What::TooFew(n)) => {
                let text = &self.pred(*pred).text;
                let (lo, _) = bounds(*kind);
                v.what = match (kind, n) {
                    (Occurrence::Existence, _) => {
                        format!("no event matches `{text}`{}", seg.phrase())
                    }
                    (_, 0) => format!("no event matches `{text}`{}, where {lo} must", seg.phrase()),
                    _ => format!(
                        "only {n} event{} match `{text}`{}, where {lo} must",
                        if *n == 1 { "" } else { "s" },
                        seg.phrase()
                    ),
                };
                let m = &self.m[*pred];
                v.related.extend(
                    self.within(*pred, seg)
                        .into_iter()
                        .map(|i| ("it matches".to_string(), m.ev(i))),
                );
            }
            (PropertyPattern::Occurrence { kind, pred, .. }, What::TooMany(n)) => {
                let (_, hi) = bounds(*kind);
                v.what = format!(
                    "{n} events match `{}`{}, where at most {hi} may; this is number {}",
                    self.pred(*pred).text,
                    seg.phrase(),
                    hi + 1
                );
                let m = &self.m[*pred];
                v.related.extend(
                    self.within(*pred, seg)
                        .into_iter()
                        .take(hi as usize)
                        .map(|i| ("it matches".to_string(), m.ev(i))),
                );
            }
            (PropertyPattern::Order { kind, other, .. }, What::Missing { first }) => {
                let other_text = other
                    .iter()
                    .map(|&k| format!("`{}`", self.pred(k).text))
                    .collect::<Vec<_>>()
                    .join(" then ");
                v.what = match kind {
                    OrderKind::Response => {
                        format!("no {other_text} in its causal future{}", seg.phrase())
                    }
                    OrderKind::Precedence => {
                        format!("no {other_text} in its causal past{}", seg.phrase())
                    }
                };
                if let Some(at) = f.event {
                    if *first != at {
                        v.related.push(("the chain starts at".to_string(), *first));
                    }
                    v.related
                        .extend(self.near_misses(*kind, other[0], &env, at, seg));
                }
            }
            _ => {}
        }
        v
    }

    /// Events that match the awaited predicate with this binding but are on
    /// the wrong side of `at` (or outside the scope): what a user looks at
    /// first when an order pattern fails.
    fn near_misses(
        &self,
        kind: OrderKind,
        k: usize,
        env: &Env,
        at: EventId,
        seg: &Segment,
    ) -> Vec<(String, EventId)> {
        let p = self.pred(k);
        let o = self.order;
        let m = &self.m[k];
        let c = self.candidates(k, env);
        // The candidates nearest `at` in position: the likeliest near
        // misses, and a bounded number of order queries.
        const NEAR: usize = 16;
        let at_pos = o.position(at);
        let mid = {
            let (mut lo, mut hi) = (0, c.len());
            while lo < hi {
                let h = (lo + hi) / 2;
                if self.pos[k][c.get(h)] < at_pos {
                    lo = h + 1;
                } else {
                    hi = h;
                }
            }
            lo
        };
        let window = mid.saturating_sub(NEAR / 2)..(mid + NEAR / 2).min(c.len());
        let mut out = Vec::new();
        for j in window {
            let i = c.get(j);
            let ev = m.ev(i);
            if ev == at || !agrees(p, env, m.vals(i)) {
                continue;
            }
            let why = if !seg.contains(o, ev) {
                "matches, but lies outside the scope"
            } else if match kind {
                OrderKind::Response => o.before(ev, at),
                OrderKind::Precedence => o.before(at, ev),
            } {
                match kind {
                    OrderKind::Response => "matches, but happened before it",
                    OrderKind::Precedence => "matches, but happened after it",
                }
            } else {
                "matches, but is concurrent with it"
            };
            out.push((why.to_string(), ev));
            if out.len() == 3 {
                break;
            }
        }
        out
    }
}

/// The counts an occurrence pattern allows.
fn bounds(kind: Occurrence) -> (u64, u64) {
    match kind {
        Occurrence::Existence => (1, u64::MAX),
        Occurrence::AtLeast(a) => (a, u64::MAX),
        Occurrence::AtMost(b) => (0, b),
        Occurrence::Exactly(c) => (c, c),
        Occurrence::Absence => (0, 0),
        Occurrence::Universality => (0, u64::MAX),
    }
}

/// The elements of `evs` after none of the others.
fn minimal(o: &dyn Order, mut evs: Vec<EventId>) -> Vec<EventId> {
    evs.sort_by_key(|&e| o.position(e));
    evs.dedup();
    let mut out: Vec<EventId> = Vec::new();
    for e in evs {
        if !out.iter().any(|&m| o.before(m, e)) {
            out.push(e);
        }
    }
    out
}

/// What a walk of a chain of triggers has done. A response is judged at the
/// chain's last event: the walk remembers the states it has been in (links
/// left, the event it is at, the binding so far), since a state reached
/// again by another path has the same continuations. A precedence is
/// judged at its first event: the walk remembers, per state, the bindings
/// the chain can end with. Either way the cost is the states (at most
/// events times bindings per link), not the paths, which grow
/// exponentially with the length of the chain.
struct Walked {
    precedence: bool,
    seen: std::collections::HashSet<(usize, EventId, u128, Key), FxBuild>,
    ends: FxMap<(usize, EventId, u128, Key), Rc<Vec<Env>>>,
}

impl Walked {
    fn new(precedence: bool) -> Walked {
        Walked {
            precedence,
            seen: Default::default(),
            ends: Default::default(),
        }
    }

    /// Whether this state is new (and now seen).
    fn first_visit(&mut self, left: usize, ev: EventId, env: &Env) -> bool {
        match env_key(env) {
            Some((bound, values)) => self.seen.insert((left, ev, bound, values)),
            None => true,
        }
    }
}

/// A binding as a key: which variables are bound, and to what (`None` for a
/// property of more than 128 variables, which is not remembered).
fn env_key(env: &Env) -> Option<(u128, Key)> {
    if env.len() > 128 {
        return None;
    }
    let bound = env
        .iter()
        .enumerate()
        .fold(0u128, |m, (i, v)| m | (u128::from(v.is_some()) << i));
    Some((bound, Key::Many(env.iter().flatten().cloned().collect())))
}
