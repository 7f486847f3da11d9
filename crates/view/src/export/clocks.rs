//! Vector clocks of the events of a derivation, computed as it goes: an
//! event's clock is its process's previous clock with its own entry set to
//! its index plus one, joined with the clocks of the send it received and
//! of the spawn that started its process, and, for an operation on shared
//! state, with the clock of the object's operation before it. It equals the causal model's
//! `vector_clock` (the size of its causal past in every process); the
//! tests check that they agree.
//!
//! Clocks are sparse (the processes an event has heard of) and shared:
//! a send keeps its clock until its last receipt, a process copies its
//! own only when a send kept the one it had. What is held at once is
//! bounded by [`HELD_ENTRIES`].

use crate::layout::{received, Placed, UntilReceived};
use std::collections::HashMap;
use std::rc::Rc;
use trace_causal::{Model, Step};
use trace_format::{EventRef, ObjectId, ProcId};

/// A vector clock: (process, events of it in the causal past), by process.
pub type Clock = [(ProcId, u64)];

/// Clock entries (16 bytes each) held at once at most: the clocks of every
/// process and of the signals in flight. A run of many processes that all
/// hear of each other, with many messages in flight, needs more; its
/// export stops with an error instead of exhausting memory.
pub const HELD_ENTRIES: usize = 1 << 26;

pub struct Clocks<'m> {
    model: &'m Model,
    current: HashMap<ProcId, Rc<Vec<(ProcId, u64)>>>,
    sent: UntilReceived<Rc<Vec<(ProcId, u64)>>>,
    spawned: HashMap<ProcId, Rc<Vec<(ProcId, u64)>>>,
    /// Per shared object: the clock of its last operation.
    objects: HashMap<ObjectId, Rc<Vec<(ProcId, u64)>>>,
    /// Entries of the clocks held (a shared clock counted each time).
    held: usize,
}

/// The clocks would take more than [`HELD_ENTRIES`].
#[derive(Debug)]
pub struct TooLarge;

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

/// Sets `p`'s own entry to `n` in place: every event does this, and a join
/// would build a new clock for it.
fn tick_own(c: &mut Vec<(ProcId, u64)>, p: ProcId, n: u64) {
    match c.binary_search_by_key(&p, |x| x.0) {
        Ok(i) => c[i].1 = c[i].1.max(n),
        Err(i) => c.insert(i, (p, n)),
    }
}

impl<'m> Clocks<'m> {
    pub fn new(model: &'m Model) -> Self {
        Clocks {
            model,
            current: HashMap::new(),
            sent: UntilReceived::default(),
            spawned: HashMap::new(),
            objects: HashMap::new(),
            held: 0,
        }
    }

    /// The clock of the next event of the derivation, placed by a layout.
    pub fn tick(
        &mut self,
        step: &Step<'_>,
        placed: &Placed,
    ) -> Result<Rc<Vec<(ProcId, u64)>>, TooLarge> {
        let e = step.event;
        let mut clock = self.current.remove(&e.proc).unwrap_or_default();
        self.held -= clock.len();
        let c = Rc::make_mut(&mut clock);
        let ev = step.as_event_ref();
        if placed.cause.is_some() {
            if let Some(other) = received(&ev).and_then(|m| self.sent.take(m)) {
                join(c, &other);
                self.held -= other.len();
            }
        }
        if placed.spawned_by.is_some() {
            if let Some(other) = self.spawned.remove(&e.proc) {
                join(c, &other);
                self.held -= other.len();
            }
        }
        let object = match ev {
            EventRef::Shared { object, .. } => object,
            _ => None,
        };
        if let Some(other) = object.and_then(|o| self.objects.remove(&o)) {
            join(c, &other);
            self.held -= other.len();
        }
        tick_own(c, e.proc, e.index + 1);
        let n = clock.len();
        if let Some(o) = object {
            self.objects.insert(o, clock.clone());
            self.held += n;
        }
        match ev {
            EventRef::Send { msg, .. } | EventRef::Signal { signal: msg, .. } => {
                // Counted once per receipt to come; each receipt releases one.
                self.held += n * self.sent.keep(self.model, msg, clock.clone());
            }
            EventRef::Spawn { child, .. } => {
                self.spawned.insert(child, clock.clone());
                self.held += n;
            }
            _ => {}
        }
        self.current.insert(e.proc, clock.clone());
        self.held += n;
        if self.held > HELD_ENTRIES {
            return Err(TooLarge);
        }
        Ok(clock)
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
