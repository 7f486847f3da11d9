//! The causal slice of a violation: the events in its causal past that the
//! property involves — those matching one of its predicates with bindings
//! that agree with the violation's — and, for each message received among
//! them, the send that caused it.
//!
//! For a property about one process's order the past events it involves are
//! that process's, so no causal past is computed: the slice is the
//! process's matching events before the violation, in program order, each
//! `receive` preceded by its message's send. Otherwise the violation's
//! causal past is computed and the slice listed in the order of a rebuilt
//! derivation. The described violations of a property have their pasts
//! computed together (one sweep of the log for all, not a walk each) and
//! the matches of the processes their slices read gathered once.

use super::matcher::{agrees, Env, Matches};
use super::source::Sources;
use super::verdict::Violation;
use crate::compiled::CompiledProperty;
use crate::spec::PredicateKind;
use rayon::prelude::*;
use std::collections::HashMap;
use trace_causal::{EventId, Model, Past};
use trace_format::ProcId;

/// Events listed per slice; earlier ones are counted, not listed.
pub const SLICE_MAX: usize = 20;

fn env_of(prop: &CompiledProperty, v: &Violation, consts: &Env) -> Env {
    let mut env = consts.clone();
    for (name, t) in &v.bindings {
        if let Some(i) = prop.vars.names.iter().position(|n| n == name) {
            env[i] = Some(t.clone());
        }
    }
    env
}

/// The causal past of each violation's event, for [`fill`]: `None` for a
/// property about one process's order (its slice is that process's) and
/// for a history (which has no slice).
pub fn pasts(
    prop: &CompiledProperty,
    model: &Model,
    local: bool,
    violations: &[Violation],
) -> Vec<Option<Past>> {
    if local || matches!(prop.pattern, crate::compiled::PropertyPattern::History(_)) {
        return vec![None; violations.len()];
    }
    let events: Vec<EventId> = violations.iter().filter_map(|v| v.event).collect();
    let mut pasts = trace_causal::causal_pasts(model, &events).into_iter();
    violations
        .iter()
        .map(|v| v.event.and_then(|_| pasts.next()))
        .collect()
}

/// The matches of each predicate of property `i` in each process the
/// slices of `violations` read (with their `pasts`), gathered once: the
/// described violations are often in one process, or share most of
/// their pasts.
pub fn gather(
    props: &[&CompiledProperty],
    resolved: &[super::resolve::Resolved],
    i: usize,
    sources: &Sources<'_>,
    violations: &[Violation],
    pasts: &[Option<Past>],
) -> Gathered {
    if matches!(
        props[i].pattern,
        crate::compiled::PropertyPattern::History(_)
    ) {
        return Gathered::new();
    }
    let mut procs: Vec<ProcId> = Vec::new();
    for (v, past) in violations.iter().zip(pasts) {
        match (v.event, past) {
            (Some(_), Some(past)) => procs.extend(past.processes().map(|(p, _)| p)),
            (Some(at), None) => procs.push(at.proc),
            (None, _) => {}
        }
    }
    procs.sort_unstable();
    procs.dedup();
    procs
        .into_par_iter()
        .map(|p| {
            let m = (0..props[i].preds.len())
                .map(|k| sources.matches(props, resolved, i, k, p))
                .collect();
            (p, m)
        })
        .collect()
}

/// Per process, the matches of each predicate (see [`gather`]).
pub type Gathered = HashMap<ProcId, Vec<Matches>>;

/// Fills `v.slice` (and `v.slice_omitted`); `past` is its event's causal
/// past ([`pasts`]), `None` for a property about one process's order;
/// `gathered` holds the matches of the processes it reads ([`gather`]).
pub fn fill(
    prop: &CompiledProperty,
    consts: &Env,
    gathered: &Gathered,
    model: &Model,
    past: Option<&Past>,
    v: &mut Violation,
) {
    let Some(at) = v.event else { return };
    if matches!(prop.pattern, crate::compiled::PropertyPattern::History(_)) {
        return;
    }
    let env = env_of(prop, v, consts);
    let mut events: Vec<EventId> = Vec::new();
    let add = |p: ProcId, limit: u64, events: &mut Vec<EventId>| {
        let Some(gathered) = gathered.get(&p) else {
            return;
        };
        for (pred, m) in prop.preds.iter().zip(gathered) {
            for j in 0..m.len() {
                let ev = m.ev(j);
                if ev.index <= limit && agrees(pred, &env, m.vals(j)) {
                    events.push(ev);
                }
            }
        }
    };
    let local = past.is_none();
    match past {
        None => add(at.proc, at.index, &mut events),
        Some(past) => {
            for (p, count) in past.processes() {
                add(p, count - 1, &mut events);
            }
        }
    }
    events.push(at);
    events.sort();
    events.dedup();
    // Each message received in the slice comes with its send.
    let receipts = receipt_kinds(prop);
    let mut with_sends = Vec::with_capacity(events.len());
    for &e in &events {
        if receipts {
            if let Some(send) = send_of_receipt(model, e) {
                with_sends.push((e, Some(send)));
                continue;
            }
        }
        with_sends.push((e, None));
    }
    let mut ordered: Vec<EventId> = Vec::new();
    if local {
        for (e, send) in with_sends {
            if let Some(s) = send {
                ordered.push(s);
            }
            ordered.push(e);
        }
    } else {
        for (e, send) in with_sends {
            ordered.extend(send);
            ordered.push(e);
        }
        // A position is a search: one per event, not one per comparison.
        ordered.sort_by_cached_key(|&e| (model.position(e).unwrap_or(u64::MAX), e));
    }
    let mut seen = std::collections::HashSet::new();
    ordered.retain(|e| seen.insert(*e));
    if ordered.len() > SLICE_MAX {
        v.slice_omitted = ordered.len() - SLICE_MAX;
        ordered.drain(..v.slice_omitted);
    }
    v.slice = ordered;
}

fn receipt_kinds(prop: &CompiledProperty) -> bool {
    prop.preds.iter().any(|p| {
        matches!(
            p.kind,
            PredicateKind::Receive | PredicateKind::Deliver | PredicateKind::Killed
        )
    })
}

/// The send of the message a receipt event received.
fn send_of_receipt(model: &Model, e: EventId) -> Option<EventId> {
    let r = model.receipts_in(e.proc).find(|r| r.at == e.index)?;
    let (send, _, _) = model.send_of(r.msg?)?;
    Some(send)
}
