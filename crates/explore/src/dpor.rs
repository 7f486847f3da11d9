//! Source-set DPOR (Abdulla, Aronis, Jonsson and Sagonas, "Optimal Dynamic
//! Partial Order Reduction", POPL 2014, Algorithm 1 with sleep sets): the
//! tree of explored runs, the races of each new run, and the next run to
//! make.
//!
//! Each run is made from scratch: a prefix of forced choices, one new
//! choice, then whatever actor is first and awake. After it, each race
//! between a step `i` and a later step `j` (dependent, of other actors, and
//! `j` not ordered after `i` through other steps) adds to the choices at
//! `i` an actor that starts the rest of the run without `i` (an initial of
//! `v`), unless one of them is there already. Actors explored at a node go
//! to sleep there; a sleeping actor wakes when a step dependent with its
//! own is taken.

use crate::control::{Plan, RunLog};
use crate::step::{may_depend, relation, Access, Actor, Context, Kinds, Relation, Step};
use std::sync::Arc;

/// One state of the current run: what could go, what went, and what is
/// still to explore from here.
struct Node {
    ready: Vec<Actor>,
    step: Step,
    backtrack: Vec<Actor>,
    done: Vec<Actor>,
    /// Steps explored from here already (shared: a sleep set is copied
    /// into every step of the run that follows it).
    sleep: Vec<Arc<Step>>,
}

/// What a bounded exploration counts along a schedule.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BoundKind {
    /// Switches away from an actor that could have gone on.
    Preemption,
    /// Choices other than the default one (the last actor if it can go
    /// on, else the first ready).
    Delay,
}

/// A bound on the schedules explored.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Bound {
    pub kind: BoundKind,
    pub max: u32,
}

/// The explored tree, as the path of the current run.
#[derive(Default)]
pub struct Tree {
    nodes: Vec<Node>,
    /// Choices past this bound are not explored.
    pub bound: Option<Bound>,
    /// Some choice was left out because of the bound.
    pub pruned: bool,
    /// Where the run being made departs from the previous one.
    branch: usize,
    /// Races found so far.
    pub races: u64,
}

impl Tree {
    /// Takes in the run just made from the plan [`Tree::next`] gave.
    pub fn absorb(&mut self, log: RunLog, output_matters: bool) {
        let k = self.branch;
        let len = log.steps.len();
        self.nodes.truncate(k + 1);
        let mut ready = log.ready.into_iter().skip(k);
        let mut sleep = log.sleep.into_iter().skip(k);
        for (n, step) in log.steps.into_iter().enumerate().skip(k) {
            let (ready, sleep) = (ready.next(), sleep.next());
            if n == k && n < self.nodes.len() {
                self.nodes[n].step = step;
                continue;
            }
            self.nodes.push(Node {
                ready: ready.unwrap_or_default(),
                backtrack: vec![step.actor],
                step,
                done: Vec::new(),
                sleep: sleep.unwrap_or_default(),
            });
        }
        self.nodes.truncate(len);
        self.add_races(k, output_matters);
    }

    /// The steps of the current run.
    pub fn steps(&self) -> impl Iterator<Item = &Step> {
        self.nodes.iter().map(|n| &n.step)
    }

    /// Steps where the current run switched away from an actor that could
    /// have gone on (a preemption).
    pub fn preemptions(&self) -> usize {
        self.nodes
            .windows(2)
            .filter(|w| {
                let prev = w[0].step.actor;
                w[1].step.actor != prev && w[1].ready.contains(&prev)
            })
            .count()
    }

    /// The next run to make, or `None` when the tree is explored.
    pub fn next(&mut self, max_steps: usize) -> Option<Plan> {
        while let Some(node) = self.nodes.last_mut() {
            let went = node.step.actor;
            if !node.done.contains(&went) {
                node.done.push(went);
                node.sleep.push(Arc::new(node.step.clone()));
            }
            let open = node
                .backtrack
                .iter()
                .find(|a| !node.done.contains(a) && !node.sleep.iter().any(|q| q.actor == **a))
                .copied();
            if let Some(p) = open {
                let at = self.nodes.len() - 1;
                if !self.within_bound(at, p) {
                    self.pruned = true;
                    self.nodes[at].done.push(p);
                    continue;
                }
                let mut prefix: Vec<Actor> =
                    self.nodes[..at].iter().map(|n| n.step.actor).collect();
                prefix.push(p);
                self.branch = at;
                return Some(Plan {
                    prefix,
                    sleep: self.nodes[at].sleep.clone(),
                    sleep_at: at,
                    max_steps,
                });
            }
            self.nodes.pop();
        }
        None
    }

    /// Whether the current run's choices before `at`, then `p` at `at`,
    /// stay within the bound.
    fn within_bound(&self, at: usize, p: Actor) -> bool {
        let Some(b) = self.bound else {
            return true;
        };
        let mut cost = 0u32;
        let mut prev: Option<Actor> = None;
        for k in 0..=at {
            let c = if k == at { p } else { self.nodes[k].step.actor };
            let ready = &self.nodes[k].ready;
            let continues = prev.filter(|a| ready.contains(a));
            let counted = match b.kind {
                BoundKind::Preemption => continues.is_some_and(|a| a != c),
                BoundKind::Delay => Some(c) != continues.or(ready.first().copied()),
            };
            cost += counted as u32;
            prev = Some(c);
        }
        cost <= b.max
    }

    /// Finds the races whose later step is new (at `from` or after) and
    /// adds their reversals to the choices.
    fn add_races(&mut self, from: usize, output_matters: bool) {
        self.add_cancelled(from);
        let steps: Vec<&Step> = self.nodes.iter().map(|n| &n.step).collect();
        for (i, initials) in race_initials(&steps, from, output_matters) {
            self.races += 1;
            let node = &mut self.nodes[i];
            let initials: Vec<Actor> = initials
                .into_iter()
                .filter(|a| node.ready.contains(a))
                .collect();
            if initials.iter().any(|a| node.backtrack.contains(a)) {
                continue;
            }
            let pick = initials
                .iter()
                .find(|a| !node.sleep.iter().any(|q| q.actor == **a))
                .or(initials.first());
            if let Some(&a) = pick {
                node.backtrack.push(a);
            }
        }
    }
}

impl Tree {
    /// A step that cancelled a pending timer (its destination ended)
    /// races with the timer's delivery, which takes no step of its own in
    /// this run: the timer firing just before it is the reversal.
    fn add_cancelled(&mut self, from: usize) {
        for node in self.nodes.iter_mut().skip(from) {
            for a in &node.step.accesses {
                let Access::Cancel { msg } = a else {
                    continue;
                };
                let t = Actor::Timer(*msg);
                if node.ready.contains(&t) && !node.backtrack.contains(&t) {
                    self.races += 1;
                    node.backtrack.push(t);
                }
            }
        }
    }
}

/// A race of a run: steps `first` and `second` are dependent, of
/// different actors, and ordered by nothing else.
pub struct Race {
    pub first: usize,
    pub second: usize,
    /// The actors that could start the run from `first` on without it:
    /// the steps between the two that do not need `first`, then `second`.
    pub initials: Vec<Actor>,
    /// Those steps, in order (their indices).
    pub reversal: Vec<usize>,
}

/// The races of a run whose second step is at `from` or after.
pub fn races(steps: &[&Step], from: usize, output_matters: bool) -> Vec<Race> {
    let cx = context(steps, output_matters);
    let hb = HappensBefore::of(steps, &cx);
    hb.races(from)
        .map(|(i, j)| {
            let mut reversal: Vec<usize> = (i + 1..j).filter(|&k| !hb.before(i, k)).collect();
            reversal.push(j);
            Race {
                first: i,
                second: j,
                initials: hb.initials(i, j),
                reversal,
            }
        })
        .collect()
}

/// The races of a run whose second step is at `from` or after, as the
/// tree takes them: each race's first step and its initials (the
/// reversal's steps themselves are not listed).
fn race_initials(steps: &[&Step], from: usize, output_matters: bool) -> Vec<(usize, Vec<Actor>)> {
    let cx = context(steps, output_matters);
    let hb = HappensBefore::of(steps, &cx);
    hb.races(from)
        .map(|(i, j)| (i, hb.initials(i, j)))
        .collect()
}

/// What the whole run says about mailboxes (see [`Context`]).
fn context(steps: &[&Step], output_matters: bool) -> Context {
    let mut cx = Context {
        output_matters,
        complete: true,
        ..Context::default()
    };
    for s in steps {
        if let Actor::Process(p) = s.actor {
            for a in &s.accesses {
                if let Access::Filter { filter, .. } = a {
                    cx.filters.entry(p).or_default().push(filter.clone());
                }
            }
        }
        // register/2 names the name and the process it goes to.
        for a in &s.accesses {
            if let Access::Name(n) = a {
                for b in &s.accesses {
                    if let Access::Liveness(p) = b {
                        cx.holders.entry(*n).or_default().push(*p);
                    }
                }
            }
        }
    }
    cx
}

/// The happens-before order of one run, as vector clocks.
struct HappensBefore {
    /// Each step's actor, as a dense index into `actors`.
    actor: Vec<usize>,
    actors: Vec<Actor>,
    /// Each step's number among its actor's steps, from 1.
    local: Vec<u32>,
    /// Each step's clock, `width` entries a step (one allocation for the
    /// run): for each actor, how many of its steps come before it (itself
    /// included).
    clock: Vec<u32>,
    width: usize,
    /// The steps each step depends on directly, and how: its actor's
    /// previous step, and the steps of other actors it depends on.
    preds: Vec<Vec<(usize, Relation)>>,
}

impl HappensBefore {
    fn of(steps: &[&Step], cx: &Context) -> HappensBefore {
        // A run has a handful of actors: a dense index found by a scan.
        let mut actors: Vec<Actor> = Vec::new();
        let actor: Vec<usize> = steps
            .iter()
            .map(|s| match actors.iter().position(|a| *a == s.actor) {
                Some(i) => i,
                None => {
                    actors.push(s.actor);
                    actors.len() - 1
                }
            })
            .collect();
        let width = actors.len();
        let mut hb = HappensBefore {
            actor,
            actors,
            local: Vec::with_capacity(steps.len()),
            clock: vec![0; steps.len() * width],
            width,
            preds: Vec::with_capacity(steps.len()),
        };
        let kinds: Vec<Kinds> = steps.iter().map(|s| Kinds::of(s)).collect();
        let mut count = vec![0u32; width];
        // Each actor's latest step: of an actor's own earlier steps only
        // that one is a predecessor (its clock holds the others').
        let mut last: Vec<Option<usize>> = vec![None; width];
        for j in 0..steps.len() {
            let (done, rest) = hb.clock.split_at_mut(j * width);
            let clock = &mut rest[..width];
            let mut preds = Vec::new();
            let timer = matches!(steps[j].actor, Actor::Timer(_));
            for i in 0..j {
                let r = if hb.actor[i] == hb.actor[j] {
                    if last[hb.actor[j]] != Some(i) {
                        continue;
                    }
                    Relation::Causal
                } else if !may_depend(kinds[i], kinds[j], timer) {
                    Relation::Independent
                } else {
                    relation(steps[i], steps[j], cx)
                };
                if r == Relation::Independent {
                    continue;
                }
                preds.push((i, r));
                let theirs = &done[i * width..(i + 1) * width];
                for (c, x) in clock.iter_mut().zip(theirs) {
                    *c = (*c).max(*x);
                }
            }
            last[hb.actor[j]] = Some(j);
            count[hb.actor[j]] += 1;
            clock[hb.actor[j]] = count[hb.actor[j]];
            hb.local.push(count[hb.actor[j]]);
            hb.preds.push(preds);
        }
        hb
    }

    /// Whether step `i` happens before step `k`.
    fn before(&self, i: usize, k: usize) -> bool {
        self.clock[k * self.width + self.actor[i]] >= self.local[i]
    }

    /// Whether `i` happens before `j` through some other step.
    fn ordered_without(&self, i: usize, j: usize) -> bool {
        self.preds[j]
            .iter()
            .any(|&(k, _)| k > i && self.before(i, k))
    }

    /// The pairs of steps `(i, j)`, `j` at `from` or after, that race: a
    /// direct dependence of `j` on `i` that may go either way, and `i`
    /// ordered before `j` through no other step.
    fn races(&self, from: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
        (from..self.preds.len()).flat_map(move |j| {
            self.preds[j]
                .iter()
                .filter(move |&&(i, rel)| rel == Relation::Race && !self.ordered_without(i, j))
                .map(move |&(i, _)| (i, j))
        })
    }

    /// The actors that can start `v` (the steps after race `(i, j)`'s
    /// first step not ordered after it), then `j`: the first step of each
    /// actor in `v` that no earlier step of `v` happens before. An actor's
    /// first step in `v` comes before its others, so it is enough to test
    /// each actor's first step (`first`, by its number among the actor's
    /// steps) against the clock of the step in question.
    fn initials(&self, i: usize, j: usize) -> Vec<Actor> {
        let mut first = vec![0u32; self.width];
        let preceded = |k: usize, first: &[u32]| {
            let clock = &self.clock[k * self.width..(k + 1) * self.width];
            first.iter().zip(clock).any(|(&f, &c)| f != 0 && c >= f)
        };
        let mut out: Vec<Actor> = Vec::new();
        for k in (i + 1..j).filter(|&k| !self.before(i, k)) {
            let a = self.actor[k];
            if first[a] != 0 {
                continue;
            }
            if !preceded(k, &first) {
                out.push(self.actors[a]);
            }
            first[a] = self.local[k];
        }
        let a = self.actor[j];
        if first[a] == 0 && !preceded(j, &first) {
            out.push(self.actors[a]);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::step::MsgKey;
    use trace_term::Term;

    fn step(actor: u32, accesses: Vec<Access>) -> Step {
        Step {
            actor: Actor::Process(actor),
            accesses,
        }
    }

    fn send(from: u32, index: u64, to: u32) -> Access {
        Access::Send {
            to,
            msg: MsgKey {
                sender: from,
                index,
            },
            payload: Term::Int(index as i64),
        }
    }

    fn receive(from: u32, index: u64) -> Vec<Access> {
        vec![
            Access::Receive {
                msg: MsgKey {
                    sender: from,
                    index,
                },
            },
            Access::Filter {
                filter: None,
                timed_out: false,
            },
        ]
    }

    /// A race's initials by their definition: the first step of each
    /// actor in the reversal that no earlier step of it happens before.
    fn initials_by_definition(hb: &HappensBefore, i: usize, j: usize) -> Vec<Actor> {
        let v: Vec<usize> = (i + 1..j).filter(|&k| !hb.before(i, k)).collect();
        let mut out = Vec::new();
        let mut seen = Vec::new();
        for (n, &k) in v.iter().enumerate() {
            let a = hb.actor[k];
            if seen.contains(&a) {
                continue;
            }
            seen.push(a);
            if !v[..n].iter().any(|&m| hb.before(m, k)) {
                out.push(hb.actors[a]);
            }
        }
        let a = hb.actor[j];
        if !seen.contains(&a) && !v.iter().any(|&m| hb.before(m, j)) {
            out.push(hb.actors[a]);
        }
        out
    }

    #[test]
    fn initials_from_clocks_are_the_initials_by_definition() {
        // P (0) spawns three senders; 1 and 2 send to P, 3 sends to 1
        // first (1 takes it before sending), then all are received.
        let run = vec![
            step(0, vec![Access::Spawn { child: 1 }]),
            step(0, vec![Access::Spawn { child: 2 }]),
            step(0, vec![Access::Spawn { child: 3 }]),
            step(2, vec![send(2, 0, 0)]),
            step(3, vec![send(3, 0, 1)]),
            step(1, receive(3, 0)),
            step(1, vec![send(1, 0, 0)]),
            step(2, vec![send(2, 1, 0)]),
            step(0, receive(1, 0)),
            step(0, receive(2, 0)),
            step(0, receive(2, 1)),
        ];
        let steps: Vec<&Step> = run.iter().collect();
        let cx = context(&steps, false);
        let hb = HappensBefore::of(&steps, &cx);
        let pairs: Vec<(usize, usize)> = hb.races(0).collect();
        assert!(!pairs.is_empty(), "the sends to P race");
        for (i, j) in pairs {
            assert_eq!(
                hb.initials(i, j),
                initials_by_definition(&hb, i, j),
                "race {i} {j}"
            );
        }
    }
}
