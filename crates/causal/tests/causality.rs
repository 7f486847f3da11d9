//! Happened-before, causal pasts and futures, and rebuilt derivations,
//! against a brute-force reachability over the same hand-built runs.

mod common;

use common::*;
use std::collections::{HashMap, HashSet};
use trace_causal::{EventId, Model};
use trace_format::{Event, MsgId, ProcId};

/// Happened-before by depth-first search over the run's edges.
struct Brute {
    nodes: Vec<EventId>,
    succ: HashMap<EventId, Vec<EventId>>,
    reach: HashMap<EventId, HashSet<EventId>>,
}

impl Brute {
    fn new(procs: &[Proc]) -> Brute {
        let mut nodes = Vec::new();
        let mut succ: HashMap<EventId, Vec<EventId>> = HashMap::new();
        let mut send_at: HashMap<MsgId, EventId> = HashMap::new();
        for p in procs {
            let mut k = 0;
            for (i, ev) in p.events.iter().enumerate() {
                let here = EventId::new(ProcId(p.id), i as u64);
                nodes.push(here);
                if i + 1 < p.events.len() {
                    succ.entry(here)
                        .or_default()
                        .push(EventId::new(ProcId(p.id), i as u64 + 1));
                }
                if let Event::Spawn { child, .. } = ev {
                    if !procs[child.0 as usize].events.is_empty() {
                        succ.entry(here).or_default().push(EventId::new(*child, 0));
                    }
                }
                if ev.sends_signal() {
                    send_at.insert(m(p.id, k), here);
                    k += 1;
                }
            }
        }
        for p in procs {
            for (i, ev) in p.events.iter().enumerate() {
                if let Event::Receive { msg }
                | Event::Deliver { msg }
                | Event::SignalTaken { signal: msg, .. } = ev
                {
                    let here = EventId::new(ProcId(p.id), i as u64);
                    succ.entry(send_at[msg]).or_default().push(here);
                }
            }
        }
        let mut b = Brute {
            nodes,
            succ,
            reach: HashMap::new(),
        };
        for &a in &b.nodes {
            let mut seen = HashSet::new();
            let mut stack = b.succ.get(&a).cloned().unwrap_or_default();
            while let Some(x) = stack.pop() {
                if seen.insert(x) {
                    stack.extend(b.succ.get(&x).cloned().unwrap_or_default());
                }
            }
            b.reach.insert(a, seen);
        }
        b
    }

    /// True when `a` happened before `b`.
    fn hb(&self, a: EventId, b: EventId) -> bool {
        self.reach[&a].contains(&b)
    }
}

fn model(dir: &Scratch, procs: &[Proc]) -> Model {
    Model::build(&open(dir, procs))
}

#[test]
fn happened_before_agrees_with_reachability() {
    for seed in 1..25 {
        let procs = random_run(seed, 120);
        let dir = Scratch::new("hb");
        let m = model(&dir, &procs);
        let brute = Brute::new(&procs);
        for &a in &brute.nodes {
            for &b in &brute.nodes {
                assert_eq!(
                    m.happened_before(a, b),
                    brute.hb(a, b),
                    "seed {seed}: {a:?} -> {b:?}"
                );
            }
        }
    }
}

#[test]
fn causal_past_and_future_agree_with_reachability() {
    for seed in 30..45 {
        let procs = random_run(seed, 150);
        let dir = Scratch::new("past");
        let m = model(&dir, &procs);
        let brute = Brute::new(&procs);
        for &x in &brute.nodes {
            let past = m.causal_past(x);
            let future = m.causal_future(x);
            for &y in &brute.nodes {
                let before = y == x || brute.hb(y, x);
                let after = y == x || brute.hb(x, y);
                assert_eq!(
                    past.contains(y),
                    before,
                    "seed {seed}: {y:?} in past of {x:?}"
                );
                assert_eq!(
                    future.contains(y),
                    after,
                    "seed {seed}: {y:?} in future of {x:?}"
                );
            }
            let n_before = brute.nodes.iter().filter(|&&y| past.contains(y)).count() as u64;
            assert_eq!(past.len(), n_before);
            let n_after = brute.nodes.iter().filter(|&&y| future.contains(y)).count() as u64;
            assert_eq!(future.len(), n_after);
        }
    }
}

#[test]
fn a_derivation_given_up_is_built_in_full_when_asked_for() {
    use std::sync::atomic::AtomicBool;
    let procs = random_run(61, 400);
    let dir = Scratch::new("derive-cancel");
    let m = model(&dir, &procs);
    m.place_events_unless(&AtomicBool::new(true));
    let mut n = 0;
    trace_causal::derive(&m, |p, range| {
        for i in range {
            assert_eq!(m.position(EventId::new(p, i)), Some(n));
            n += 1;
        }
    });
    assert_eq!(n, m.event_count());
}

#[test]
fn a_derivation_places_every_event_after_its_causes() {
    for seed in 50..70 {
        let procs = random_run(seed, 400);
        let dir = Scratch::new("derive");
        let m = model(&dir, &procs);
        let mut pos: HashMap<EventId, usize> = HashMap::new();
        let out = trace_causal::derive(&m, |p, range| {
            for i in range {
                let n = pos.len();
                assert!(pos.insert(EventId::new(p, i), n).is_none(), "placed twice");
            }
        });
        let brute = Brute::new(&procs);
        assert_eq!(pos.len(), brute.nodes.len(), "seed {seed}");
        assert_eq!(out.ordered, brute.nodes.len() as u64);
        assert!(out.cycles.is_empty() && out.behind.is_empty());
        for (a, next) in &brute.succ {
            for b in next {
                assert!(pos[a] < pos[b], "seed {seed}: {a:?} placed after {b:?}");
            }
        }
        // The same order, positions included, is what the model answers.
        for (e, &n) in &pos {
            assert_eq!(m.position(*e), Some(n as u64));
        }
    }
}

#[test]
fn a_derivation_within_a_causal_past_is_that_past() {
    let procs = random_run(77, 400);
    let dir = Scratch::new("within");
    let m = model(&dir, &procs);
    let last = procs
        .iter()
        .filter(|p| !p.events.is_empty())
        .map(|p| EventId::new(ProcId(p.id), p.events.len() as u64 - 1))
        .max_by_key(|e| m.causal_past(*e).len())
        .unwrap();
    let past = m.causal_past(last);
    let mut n = 0;
    let out = trace_causal::derive_within(&m, Some(past.as_limits()), |p, range| {
        for i in range {
            assert!(past.contains(EventId::new(p, i)));
            n += 1;
        }
    });
    assert_eq!(n, past.len());
    assert_eq!(out.ordered, past.len());
    assert!(out.cycles.is_empty());
}

#[test]
fn queries_on_events_outside_the_log_answer_no() {
    let procs = random_run(3, 50);
    let dir = Scratch::new("outside");
    let m = model(&dir, &procs);
    let nowhere = EventId::new(ProcId(0), 10_000);
    assert!(!m.happened_before(EventId::new(ProcId(0), 0), nowhere));
    assert!(m.causal_past(nowhere).is_empty());
    assert!(m.causal_future(EventId::new(ProcId(99), 0)).is_empty());
    assert_eq!(m.position(nowhere), None);
}

#[test]
fn causal_pasts_of_many_events_are_their_causal_pasts() {
    for seed in 80..95 {
        let procs = random_run(seed, 300);
        let dir = Scratch::new("pasts");
        let m = model(&dir, &procs);
        let all: Vec<EventId> = procs
            .iter()
            .flat_map(|p| (0..p.events.len() as u64).map(move |i| EventId::new(ProcId(p.id), i)))
            .collect();
        // Every event (sweeps of 64), a few late ones, one twice, and one
        // the log does not have.
        let mut some: Vec<EventId> = all.iter().rev().step_by(7).take(10).copied().collect();
        some.push(some[0]);
        some.push(EventId::new(ProcId(9999), 0));
        for asked in [&all, &some] {
            let pasts = trace_causal::causal_pasts(&m, asked);
            assert_eq!(pasts.len(), asked.len());
            for (e, past) in asked.iter().zip(&pasts) {
                assert_eq!(past, &m.causal_past(*e), "seed {seed}: past of {e:?}");
            }
        }
    }
}
