//! The state of a session: a consistent cut of the run — for every process,
//! how many events of its process log are done — and the moves between
//! cuts: rollback (an event and its causal future undone), forward (an
//! event and its causal past done), one step of one process.
//!
//! Cuts are computed on the log's causal model (trace-causal), so every cut
//! a command reaches is closed under happened-before: a state a real run
//! could have been in. A process can only stop before certain events: the
//! engine does some events together, with no place to hold the process in
//! between ([`StopPoints`]); a cut never falls inside such a group.

pub(crate) use trace_causal::stop_points::StopPoints;
use trace_causal::{EventId, Model};
use trace_format::ProcId;

/// Per process (by model slot), how many of its events are done.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cut(pub Vec<u64>);

impl Cut {
    /// The cut where every process has done all its steps.
    pub fn end(stops: &StopPoints) -> Cut {
        Cut(stops.ends())
    }

    /// Nothing done.
    pub fn start(n: usize) -> Cut {
        Cut(vec![0; n])
    }

    pub fn get(&self, slot: usize) -> u64 {
        self.0.get(slot).copied().unwrap_or(0)
    }

    /// Whether the cut holds event `e` (at model slot `slot`).
    pub fn holds(&self, slot: usize, e: EventId) -> bool {
        e.index < self.get(slot)
    }

    /// Whether the process at `slot` exists at this cut: the entry, or one
    /// whose spawn the cut holds.
    pub fn exists(&self, model: &Model, slot: usize) -> bool {
        match model.spawn_of(model.processes()[slot].id) {
            None => model.processes()[slot].parent.is_none(),
            Some(e) => slot_of(model, e.proc).is_some_and(|s| self.holds(s, e)),
        }
    }

    /// Events done in all.
    pub fn events(&self) -> u64 {
        self.0.iter().sum()
    }
}

/// The model slot of process `id`.
pub fn slot_of(model: &Model, id: ProcId) -> Option<usize> {
    id.position_in(model.processes(), |p| p.id)
}

/// `cut` with `events` and everything that happened after one of them
/// undone; each process then stops at a place it can stop at (so a group
/// of events done together is undone whole).
pub fn rollback(model: &Model, stops: &StopPoints, cut: &Cut, events: &[EventId]) -> Cut {
    let mut out = cut.clone();
    let mut undo: Vec<EventId> = events.to_vec();
    while !undo.is_empty() {
        let future = model.causal_future_of(&undo);
        undo.clear();
        for (slot, p) in model.processes().iter().enumerate() {
            let first = future.first(p.id).unwrap_or(u64::MAX);
            let want = out.0[slot].min(first);
            let stop = stops.at_or_before(slot, want);
            if stop < want {
                // The group the cut fell in goes too, and what followed it.
                undo.push(EventId::new(p.id, stop));
            }
            out.0[slot] = stop;
        }
    }
    out
}

/// `cut` with `events` and everything that happened before one of them
/// done; each process then stops at a place it can stop at (so a group of
/// events done together is done whole, with its causes).
pub fn forward(model: &Model, stops: &StopPoints, cut: &Cut, events: &[EventId]) -> Cut {
    let mut out = cut.clone();
    let mut todo: Vec<EventId> = events.to_vec();
    while !todo.is_empty() {
        let past = model.causal_past_of(&todo);
        todo.clear();
        for (slot, p) in model.processes().iter().enumerate() {
            let want = out.0[slot].max(past.count(p.id));
            let stop = stops.at_or_after(slot, want);
            if stop > want {
                todo.push(EventId::new(p.id, stop - 1));
            }
            out.0[slot] = stop;
        }
    }
    out
}
