//! Dwyer's patterns over one set of matches: scopes cut into segments, then
//! occurrence and order patterns decided in each segment, on an [`Order`]
//! (a process's program order for a local property, happened-before
//! otherwise). The semantics are those of docs/spec-language.md; the
//! comments below refer to its definitions.

use super::hb::Order;
use super::matcher::{agrees, join, Env, Match};
use super::Violation;
use crate::compile::{CPred, CProp, CScope, Shape};
use crate::spec::{EventKind, Occurrence, OrderKind};
use std::collections::HashMap;
use trace_causal::EventId;
use trace_term::Term;

/// Chain searches give up past this many steps (per property and process).
pub const STEP_BUDGET: u64 = 200_000_000;

/// Why a search stopped without a verdict.
#[derive(Debug, Clone)]
pub struct GaveUp(pub String);

pub struct Engine<'a> {
    pub prop: &'a CProp,
    pub consts: &'a Env,
    /// Matches of each predicate, each list in position order.
    pub m: Vec<Vec<Match>>,
    pub order: &'a dyn Order,
    steps: std::cell::Cell<u64>,
    /// Per predicate: its matches grouped by the values of the variables
    /// it shares with what it sees.
    index: Vec<std::cell::OnceCell<HashMap<Vec<u8>, Vec<usize>>>>,
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

fn etf_key(vals: &[&Term]) -> Vec<u8> {
    let mut out = Vec::new();
    for v in vals {
        trace_term::etf::encode(v, &mut out);
    }
    out
}

impl<'a> Engine<'a> {
    pub fn new(prop: &'a CProp, consts: &'a Env, m: Vec<Vec<Match>>, order: &'a dyn Order) -> Self {
        let index = m.iter().map(|_| std::cell::OnceCell::new()).collect();
        Engine {
            prop,
            consts,
            m,
            order,
            steps: std::cell::Cell::new(0),
            index,
        }
    }

    fn pred(&self, k: usize) -> &'a CPred {
        &self.prop.preds[k]
    }

    fn step(&self, n: u64) -> Result<(), GaveUp> {
        let s = self.steps.get() + n;
        self.steps.set(s);
        if s > STEP_BUDGET {
            return Err(GaveUp(format!(
                "gave up after {STEP_BUDGET} steps of matching events against each other"
            )));
        }
        Ok(())
    }

    /// The variables of predicate `k` that what it sees may have bound.
    fn key_vars(&self, k: usize) -> Vec<usize> {
        let p = self.pred(k);
        p.binds
            .iter()
            .copied()
            .filter(|v| p.sees.contains(v))
            .collect()
    }

    /// Indices of the matches of `k` that may agree with `env`.
    fn candidates(&self, k: usize, env: &Env) -> Vec<usize> {
        let keys = self.key_vars(k);
        let bound: Vec<&Term> = keys.iter().filter_map(|&v| env[v].as_ref()).collect();
        if keys.is_empty() || bound.len() != keys.len() || self.m[k].len() < 16 {
            return (0..self.m[k].len()).collect();
        }
        let index = self.index[k].get_or_init(|| {
            let p = self.pred(k);
            let pos: Vec<usize> = keys
                .iter()
                .map(|v| {
                    p.binds
                        .iter()
                        .position(|b| b == v)
                        .expect("a key var is bound")
                })
                .collect();
            let mut map: HashMap<Vec<u8>, Vec<usize>> = HashMap::new();
            for (i, mt) in self.m[k].iter().enumerate() {
                let vals: Vec<&Term> = pos.iter().map(|&j| &mt.vals[j]).collect();
                map.entry(etf_key(&vals)).or_default().push(i);
            }
            map
        });
        index.get(&etf_key(&bound)).cloned().unwrap_or_default()
    }

    fn segments(&self, scope: CScope) -> Result<Vec<Segment>, GaveUp> {
        let base = self.consts.clone();
        let o = self.order;
        Ok(match scope {
            CScope::Global => vec![Segment {
                env: base,
                kind: SegKind::Global,
            }],
            CScope::Before(r) => {
                let rs: Vec<EventId> = self.m[r].iter().map(|x| x.ev).collect();
                if rs.is_empty() {
                    vec![]
                } else {
                    vec![Segment {
                        env: base,
                        kind: SegKind::Before(rs),
                    }]
                }
            }
            CScope::After(q) | CScope::Between(q, _) | CScope::AfterUntil(q, _) => {
                let close = scope.closer();
                let between = matches!(scope, CScope::Between(..));
                // Openings, per binding of Q: a Q not inside the segment of
                // an earlier Q with the same binding.
                let mut opened: HashMap<Vec<u8>, Vec<(EventId, Vec<EventId>)>> = HashMap::new();
                let mut segs = Vec::new();
                for qm in &self.m[q] {
                    let Some(env) = join(self.pred(q), &base, &qm.vals) else {
                        continue;
                    };
                    let key = etf_key(&qm.vals.iter().collect::<Vec<_>>());
                    let earlier = opened.entry(key).or_default();
                    self.step(earlier.len() as u64 + 1)?;
                    let inside = earlier.iter().any(|(open, closes)| {
                        o.before(*open, qm.ev) && !closes.iter().any(|&r| o.before_eq(r, qm.ev))
                    });
                    if inside {
                        continue;
                    }
                    let closes = match close {
                        Some(r) => {
                            let after: Vec<EventId> = self
                                .candidates(r, &env)
                                .into_iter()
                                .map(|i| &self.m[r][i])
                                .filter(|rm| {
                                    o.before(qm.ev, rm.ev) && agrees(self.pred(r), &env, &rm.vals)
                                })
                                .map(|rm| rm.ev)
                                .collect();
                            self.step(after.len() as u64)?;
                            minimal(o, after)
                        }
                        None => vec![],
                    };
                    earlier.push((qm.ev, closes.clone()));
                    if between && closes.is_empty() {
                        continue;
                    }
                    segs.push(Segment {
                        env,
                        kind: SegKind::From {
                            open: qm.ev,
                            closes,
                            between,
                        },
                    });
                }
                segs
            }
        })
    }

    /// The matches of `k` in `seg` that agree with its binding.
    fn within<'s>(&'s self, k: usize, seg: &'s Segment) -> impl Iterator<Item = &'s Match> + 's {
        let p = self.pred(k);
        self.candidates(k, &seg.env)
            .into_iter()
            .map(move |i| &self.m[k][i])
            .filter(move |x| seg.contains(self.order, x.ev) && agrees(p, &seg.env, &x.vals))
    }

    fn bindings(&self, env: &Env) -> Vec<(String, Term)> {
        let vars = &self.prop.vars;
        env.iter()
            .enumerate()
            .filter(|(i, v)| v.is_some() && !vars.is_constant(*i))
            .map(|(i, v)| (vars.names[i].clone(), v.clone().expect("filtered")))
            .collect()
    }

    pub fn run(&self) -> Result<Vec<Violation>, GaveUp> {
        match &self.prop.shape {
            Shape::Occurrence {
                kind,
                pred,
                select,
                scope,
            } => self.occurrence(*kind, *pred, *select, *scope),
            Shape::Order {
                kind,
                trigger,
                other,
                scope,
            } => self.order_pattern(*kind, trigger, other, *scope),
            Shape::History(_) => Ok(vec![]),
        }
    }

    fn occurrence(
        &self,
        kind: Occurrence,
        k: usize,
        select: Option<usize>,
        scope: CScope,
    ) -> Result<Vec<Violation>, GaveUp> {
        let text = &self.pred(k).text;
        let mut out = Vec::new();
        for seg in self.segments(scope)? {
            self.step(self.m[k].len() as u64)?;
            let found: Vec<&Match> = self.within(k, &seg).collect();
            let env_of = |x: &Match| join(self.pred(k), &seg.env, &x.vals).unwrap_or_default();
            match kind {
                Occurrence::Absence => {
                    let what = match self.pred(k).kind {
                        EventKind::Blocked => {
                            "never exited: blocked at the end of the run (its last event is shown)"
                                .to_string()
                        }
                        EventKind::Unreceived => "sent, but no receive ever consumed it".into(),
                        _ => format!("matches `{text}`, which must not happen{}", seg.phrase()),
                    };
                    for x in found {
                        out.push(Violation {
                            slice: Vec::new(),
                            slice_omitted: 0,
                            event: Some(x.ev),
                            what: what.clone(),
                            bindings: self.bindings(&env_of(x)),
                            related: seg.related(),
                        });
                    }
                }
                Occurrence::Universality => {
                    let s = select.expect("universality has a selection");
                    let sp = self.pred(s);
                    self.step(self.m[s].len() as u64)?;
                    let ok: std::collections::HashSet<EventId> =
                        found.iter().map(|x| x.ev).collect();
                    for x in self.within(s, &seg) {
                        if !ok.contains(&x.ev) {
                            let env = join(sp, &seg.env, &x.vals).unwrap_or_default();
                            out.push(Violation {
                                slice: Vec::new(),
                                slice_omitted: 0,
                                event: Some(x.ev),
                                what: format!("does not match `{text}`{}", seg.phrase()),
                                bindings: self.bindings(&env),
                                related: seg.related(),
                            });
                        }
                    }
                }
                Occurrence::Existence
                | Occurrence::AtLeast(_)
                | Occurrence::AtMost(_)
                | Occurrence::Exactly(_) => {
                    let n = found.len() as u64;
                    let (lo, hi) = match kind {
                        Occurrence::Existence => (1, u64::MAX),
                        Occurrence::AtLeast(a) => (a, u64::MAX),
                        Occurrence::AtMost(b) => (0, b),
                        Occurrence::Exactly(c) => (c, c),
                        _ => unreachable!(),
                    };
                    if n < lo {
                        out.push(Violation {
                            slice: Vec::new(),
                            slice_omitted: 0,
                            event: seg.anchor(self.order),
                            what: match (kind, n) {
                                (Occurrence::Existence, _) => {
                                    format!("no event matches `{text}`{}", seg.phrase())
                                }
                                (_, 0) => format!(
                                    "no event matches `{text}`{}, where {} must",
                                    seg.phrase(),
                                    lo
                                ),
                                _ => format!(
                                    "only {n} event{} match `{text}`{}, where {lo} must",
                                    plural(n),
                                    seg.phrase()
                                ),
                            },
                            bindings: self.bindings(&seg.env),
                            related: seg
                                .related()
                                .into_iter()
                                .chain(found.iter().map(|x| ("it matches".to_string(), x.ev)))
                                .collect(),
                        });
                    } else if n > hi {
                        let mut sorted: Vec<&Match> = found.clone();
                        sorted.sort_by_key(|x| self.order.position(x.ev));
                        let last = sorted[hi as usize];
                        out.push(Violation {
                            slice: Vec::new(),
                            slice_omitted: 0,
                            event: Some(last.ev),
                            what: format!(
                                "{n} events match `{text}`{}, where at most {hi} may; \
                                 this is number {}",
                                seg.phrase(),
                                hi + 1
                            ),
                            bindings: self.bindings(&env_of(last)),
                            related: seg
                                .related()
                                .into_iter()
                                .chain(
                                    sorted[..hi as usize]
                                        .iter()
                                        .map(|x| ("it matches".to_string(), x.ev)),
                                )
                                .collect(),
                        });
                    }
                }
            }
        }
        Ok(out)
    }

    /// Occurrences of `chain` in `seg` agreeing with `env`: events each in the
    /// causal future of the one before, the first after `after` (if given).
    /// `f` gets each occurrence's first event, last event and binding, and
    /// returns false to stop.
    fn chains(
        &self,
        chain: &[usize],
        seg: &Segment,
        env: &Env,
        b: Bounds,
        f: &mut dyn FnMut(EventId, EventId, &Env) -> bool,
    ) -> Result<bool, GaveUp> {
        let Bounds {
            after,
            before,
            first,
        } = b;
        let Some((&k, rest)) = chain.split_first() else {
            return Ok(true);
        };
        let p = self.pred(k);
        let cands = self.candidates(k, env);
        self.step(cands.len() as u64)?;
        for i in cands {
            let x = &self.m[k][i];
            if after.is_some_and(|a| !self.order.before(a, x.ev))
                || before.is_some_and(|b| !self.order.before(x.ev, b))
                || !seg.contains(self.order, x.ev)
            {
                continue;
            }
            let Some(env2) = join(p, env, &x.vals) else {
                continue;
            };
            let start = first.unwrap_or(x.ev);
            let go_on = if rest.is_empty() {
                f(start, x.ev, &env2)
            } else {
                let b = Bounds {
                    after: Some(x.ev),
                    before,
                    first: Some(start),
                };
                self.chains(rest, seg, &env2, b, f)?
            };
            if !go_on {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn order_pattern(
        &self,
        kind: OrderKind,
        trigger: &[usize],
        other: &[usize],
        scope: CScope,
    ) -> Result<Vec<Violation>, GaveUp> {
        let other_text = other
            .iter()
            .map(|&k| format!("`{}`", self.pred(k).text))
            .collect::<Vec<_>>()
            .join(" then ");
        let mut out = Vec::new();
        let mut seen: std::collections::HashSet<(EventId, Vec<u8>)> = Default::default();
        for seg in self.segments(scope)? {
            let mut occurrences = Vec::new();
            self.chains(trigger, &seg, &seg.env, Bounds::NONE, &mut |a, b, env| {
                occurrences.push((a, b, env.clone()));
                true
            })?;
            for (first, last, env) in occurrences {
                let found = match kind {
                    OrderKind::Response => {
                        let mut found = false;
                        let b = Bounds {
                            after: Some(last),
                            ..Bounds::NONE
                        };
                        self.chains(other, &seg, &env, b, &mut |_, _, _| {
                            found = true;
                            false
                        })?;
                        found
                    }
                    OrderKind::Precedence => {
                        let mut found = false;
                        let b = Bounds {
                            before: Some(first),
                            ..Bounds::NONE
                        };
                        self.chains(other, &seg, &env, b, &mut |_, _, _| {
                            found = true;
                            false
                        })?;
                        found
                    }
                };
                if found {
                    continue;
                }
                let at = match kind {
                    OrderKind::Response => last,
                    OrderKind::Precedence => first,
                };
                let bindings = self.bindings(&env);
                let key = etf_key(&bindings.iter().map(|(_, t)| t).collect::<Vec<_>>());
                if !seen.insert((at, key)) {
                    continue;
                }
                let mut related = seg.related();
                if first != last {
                    related.push(("the chain starts at".to_string(), first));
                }
                related.extend(self.near_misses(kind, other[0], &env, at, &seg));
                out.push(Violation {
                    slice: Vec::new(),
                    slice_omitted: 0,
                    event: Some(at),
                    what: match kind {
                        OrderKind::Response => {
                            format!("no {other_text} in its causal future{}", seg.phrase())
                        }
                        OrderKind::Precedence => {
                            format!("no {other_text} in its causal past{}", seg.phrase())
                        }
                    },
                    bindings,
                    related,
                });
            }
        }
        Ok(out)
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
        let mut out = Vec::new();
        for i in self.candidates(k, env) {
            let x = &self.m[k][i];
            if x.ev == at || !agrees(p, env, &x.vals) {
                continue;
            }
            let why = if !seg.contains(o, x.ev) {
                "matches, but lies outside the scope"
            } else if match kind {
                OrderKind::Response => o.before(x.ev, at),
                OrderKind::Precedence => o.before(at, x.ev),
            } {
                match kind {
                    OrderKind::Response => "matches, but happened before it",
                    OrderKind::Precedence => "matches, but happened after it",
                }
            } else {
                "matches, but is concurrent with it"
            };
            out.push((why.to_string(), x.ev));
            if out.len() == 3 {
                break;
            }
        }
        out
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

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
