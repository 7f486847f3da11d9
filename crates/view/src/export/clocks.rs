//! Vector clocks of the events of a derivation, computed as it goes: an
//! event's clock is its process's previous clock with its own entry set to
//! its index plus one, joined with the clocks of the send it received and
//! of the spawn that started its process. It equals the causal model's
//! `vector_clock` (the size of its causal past in every process); the
//! tests check that they agree.
//!
//! Clocks are sparse (the processes an event has heard of) and shared:
//! a send keeps its clock until the end, a process copies its own only
//! when a send kept the one it had.

use crate::layout::Placed;
use std::collections::HashMap;
use std::rc::Rc;
use trace_causal::Step;
use trace_format::{EventRef, MsgId, ProcId};

/// A vector clock: (process, events of it in the causal past), by process.
pub type Clock = [(ProcId, u64)];

#[derive(Default)]
pub struct Clocks {
    current: HashMap<ProcId, Rc<Vec<(ProcId, u64)>>>,
    sent: HashMap<MsgId, Rc<Vec<(ProcId, u64)>>>,
    spawned: HashMap<ProcId, Rc<Vec<(ProcId, u64)>>>,
}

/// `into` joined with `other` (both sorted by process).
fn join(into: &mut Vec<(ProcId, u64)>, other: &Clock) {
    let mut out = Vec::with_capacity(into.len().max(other.len()));
    let (mut i, mut j) = (0, 0);
    while i < into.len() || j < other.len() {
        match (into.get(i), other.get(j)) {
            (Some(&a), Some(&b)) if a.0 == b.0 => {
                out.push((a.0, a.1.max(b.1)));
                i += 1;
                j += 1;
            }
            (Some(&a), Some(&b)) if a.0 < b.0 => {
                out.push(a);
                i += 1;
            }
            (Some(&a), None) => {
                out.push(a);
                i += 1;
            }
            (_, Some(&b)) => {
                out.push(b);
                j += 1;
            }
            (None, None) => break,
        }
    }
    *into = out;
}

impl Clocks {
    /// The clock of the next event of the derivation, placed by a layout.
    pub fn tick(&mut self, step: &Step<'_>, placed: &Placed) -> Rc<Vec<(ProcId, u64)>> {
        let e = step.event;
        let mut clock = self.current.remove(&e.proc).unwrap_or_default();
        let c = Rc::make_mut(&mut clock);
        let ev = step.as_event_ref();
        if placed.cause.is_some() {
            let msg = match ev {
                EventRef::Deliver { msg } | EventRef::Receive { msg } => Some(msg),
                EventRef::SignalTaken { signal, .. } => Some(signal),
                _ => None,
            };
            if let Some(other) = msg.and_then(|m| self.sent.get(&m)) {
                join(c, other);
            }
        }
        if placed.spawned_by.is_some() {
            if let Some(other) = self.spawned.get(&e.proc) {
                join(c, other);
            }
        }
        join(c, &[(e.proc, e.index + 1)]);
        match ev {
            EventRef::Send { msg, .. } | EventRef::Signal { signal: msg, .. } => {
                self.sent.insert(msg, clock.clone());
            }
            EventRef::Spawn { child, .. } => {
                self.spawned.insert(child, clock.clone());
            }
            _ => {}
        }
        self.current.insert(e.proc, clock.clone());
        clock
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_keeps_the_larger_count_of_every_process() {
        let mut a = vec![(ProcId(0), 3), (ProcId(2), 1)];
        join(&mut a, &[(ProcId(1), 4), (ProcId(2), 5), (ProcId(3), 1)]);
        assert_eq!(
            a,
            vec![
                (ProcId(0), 3),
                (ProcId(1), 4),
                (ProcId(2), 5),
                (ProcId(3), 1)
            ]
        );
    }
}
