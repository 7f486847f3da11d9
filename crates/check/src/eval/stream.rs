//! Fast paths for the commonest order properties.
//!
//! About one process's order:
//! `every T is followed by R` and `every T is preceded by R` over the whole
//! run, with one event on each side — "every request a server receives is
//! answered", "every reply was asked for".
//!
//! The general engine gathers the matches of both predicates and joins
//! them. Here the triggers (usually few) are gathered first; then R's
//! matches are only streamed past, each looked up by the values it shares
//! with the triggers, keeping per value the last R (for a response) or the
//! first (for a precedence). A trigger is satisfied when that R lies after
//! (before) it in the process's order.
//!
//! Across processes, when R shares no variable with T: every trigger is
//! decided by one set, the events that happened strictly before some R
//! (for a response) or strictly after some R (for a precedence), computed
//! once over the causal model.
//!
//! The verdicts are the engine's (tests compare them); only the violating
//! events come out, described later by the engine.

use super::key::{FxMap, Key};
use super::resolve::Resolved;
use super::source::Sources;
use crate::compiled::{CompiledProperty, CompiledScope, PropertyPattern};
use crate::spec::OrderKind;
use trace_causal::EventId;
use trace_format::ProcId;
use trace_term::Term;

/// `every T is followed by / preceded by R` over the whole run, one event
/// on each side: `(kind, T, R)`.
fn single(prop: &CompiledProperty) -> Option<(OrderKind, usize, usize)> {
    let PropertyPattern::Order {
        kind,
        trigger,
        other,
        scope: CompiledScope::Global,
    } = &prop.pattern
    else {
        return None;
    };
    match (trigger.as_slice(), other.as_slice()) {
        (&[t], &[o]) => Some((*kind, t, o)),
        _ => None,
    }
}

/// The pattern the fast path takes: `(kind, trigger, other)`.
pub fn applies(prop: &CompiledProperty) -> Option<(OrderKind, usize, usize)> {
    let (kind, t, o) = single(prop)?;
    // A guard of R that needs T's variables is decided per pair: the engine.
    if !prop.preds[o].local_guard || prop.local.is_none() {
        return None;
    }
    Some((kind, t, o))
}

/// The pattern the cross-process fast path takes.
pub fn applies_across(prop: &CompiledProperty) -> Option<(OrderKind, usize, usize)> {
    let (kind, t, o) = single(prop)?;
    let (tp, op) = (&prop.preds[t], &prop.preds[o]);
    let shares = op
        .binds
        .iter()
        .any(|v| tp.binds.contains(v) && !prop.vars.is_constant(*v));
    (prop.local.is_none() && op.local_guard && !shares).then_some((kind, t, o))
}

/// The triggers no R answers (happened before) or causes (happened after).
pub fn across(
    model: &trace_causal::Model,
    kind: OrderKind,
    triggers: &[EventId],
    others: &[EventId],
) -> Vec<EventId> {
    match kind {
        OrderKind::Response => {
            let before = model.causal_past_before(others);
            triggers
                .iter()
                .copied()
                .filter(|&t| !before.contains(t))
                .collect()
        }
        OrderKind::Precedence => {
            let after = model.causal_future_after(others);
            triggers
                .iter()
                .copied()
                .filter(|&t| !after.contains(t))
                .collect()
        }
    }
}

/// The violating triggers of property `i` in process `p`.
pub fn violations(
    props: &[&CompiledProperty],
    resolved: &[Resolved],
    i: usize,
    sources: &Sources<'_>,
    p: ProcId,
    (kind, t, o): (OrderKind, usize, usize),
) -> Vec<EventId> {
    let prop = props[i];
    let (tp, op) = (&prop.preds[t], &prop.preds[o]);
    // The variables R shares with T (the process's own and named ones are
    // the same in every match).
    let shared: Vec<usize> = op
        .binds
        .iter()
        .copied()
        .filter(|v| tp.binds.contains(v) && Some(*v) != prop.local && !prop.vars.is_constant(*v))
        .collect();
    let at = |binds: &[usize]| -> Vec<usize> {
        shared
            .iter()
            .map(|v| {
                binds
                    .iter()
                    .position(|b| b == v)
                    .expect("a shared variable")
            })
            .collect()
    };
    let (t_at, o_at) = (at(&tp.binds), at(&op.binds));
    const NONE: u64 = u64::MAX;
    // R matches only on processes: its shared values are pids, keyed as
    // numbers, read straight from the model's facts (no term is built).
    if let (true, Some(plan)) = (shared.len() <= 2, sources.plan(props, resolved, i, o)) {
        let tkey = |vals: &[Term]| -> Option<(u64, u64)> {
            let mut k = [0u64; 2];
            for (slot, &j) in k.iter_mut().zip(&t_at) {
                *slot = pid_key(&vals[j])?;
            }
            Some((k[0], k[1]))
        };
        // Each trigger with its key, read off its values as they stream
        // past: no match is stored with its terms.
        let mut triggers: Vec<(EventId, Option<(u64, u64)>)> = Vec::new();
        sources.for_each(props, resolved, i, t, p, &mut |ev, vals| {
            triggers.push((ev, tkey(vals)))
        });
        if triggers.is_empty() {
            return Vec::new();
        }
        let from: Vec<usize> = o_at.iter().map(|&j| plan.sources()[j]).collect();
        // The triggers' keys, sorted: few per process, read through or
        // searched, cheaper than hashing every R.
        let mut keys: Vec<(u64, u64)> = triggers.iter().filter_map(|&(_, k)| k).collect();
        keys.sort_unstable();
        keys.dedup();
        let mut best = vec![NONE; keys.len()];
        let slot_of = |keys: &[(u64, u64)], k: (u64, u64)| {
            if keys.len() <= 16 {
                keys.iter().position(|&x| x == k)
            } else {
                keys.binary_search(&k).ok()
            }
        };
        sources.for_each_procs(props, &plan, i, o, p, |ev, procs| {
            let mut k = [0u64; 2];
            for (slot, &j) in k.iter_mut().zip(&from) {
                *slot = procs[j].unwrap_or(u64::MAX);
            }
            if let Some(s) = slot_of(&keys, (k[0], k[1])) {
                note(kind, &mut best[s], ev.index);
            }
        });
        return triggers
            .into_iter()
            .map(|(ev, k)| (ev, k.and_then(|k| slot_of(&keys, k)).map(|s| best[s])))
            .filter(|(ev, b)| !satisfied(kind, *b, ev.index))
            .map(|(ev, _)| ev)
            .collect();
    }
    let triggers = sources.matches(props, resolved, i, t, p);
    if triggers.is_empty() {
        return Vec::new();
    }
    let mut best: FxMap<Key, u64> = FxMap::default();
    for j in 0..triggers.len() {
        best.entry(Key::pick(triggers.vals(j), &t_at))
            .or_insert(NONE);
    }
    sources.for_each(props, resolved, i, o, p, &mut |ev, vals| {
        if let Some(b) = best.get_mut(&Key::pick(vals, &o_at)) {
            note(kind, b, ev.index);
        }
    });
    (0..triggers.len())
        .map(|j| {
            (
                triggers.ev(j),
                best.get(&Key::pick(triggers.vals(j), &t_at)),
            )
        })
        .filter(|(ev, b)| !satisfied(kind, b.copied(), ev.index))
        .map(|(ev, _)| ev)
        .collect()
}

const NONE: u64 = u64::MAX;

/// Records an R at `index`: in program order, the last one for a response,
/// the first for a precedence.
fn note(kind: OrderKind, best: &mut u64, index: u64) {
    match kind {
        OrderKind::Response => *best = index,
        OrderKind::Precedence => {
            if *best == NONE {
                *best = index
            }
        }
    }
}

/// Whether the R kept for a trigger at `index` answers it.
fn satisfied(kind: OrderKind, best: Option<u64>, index: u64) -> bool {
    match best {
        None | Some(NONE) => false,
        Some(b) => match kind {
            OrderKind::Response => b > index,
            OrderKind::Precedence => b < index,
        },
    }
}

/// A process value as a number: a pid's, or one no pid has for `undefined`
/// (an unrecorded destination).
fn pid_key(t: &Term) -> Option<u64> {
    match t {
        Term::Pid(p) => Some(p.0),
        Term::Atom(a) if a.name() == "undefined" => Some(u64::MAX),
        _ => None,
    }
}
