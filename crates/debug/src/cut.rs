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

use trace_causal::{EventId, Model};
use trace_format::{EventRef, ProcId};

/// Per process (by model slot), how many of its events are done.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cut(pub Vec<u64>);

/// Where each process can stop: before any event except one the engine
/// does together with the event before it, and never after a trailing
/// `blocked` event (the mark a run's end leaves, not a step).
pub struct StopPoints {
    /// Per slot: events up to the end of the process's steps.
    len: Vec<u64>,
    /// Per slot: the indices of events done together with the one before
    /// (sorted).
    glued: Vec<Vec<u64>>,
}

impl StopPoints {
    /// From each process's events, by model slot, as [`Kind`]s (what
    /// [`crate::scan`] gathers in its one pass over the log).
    pub(crate) fn of_kinds(kinds: &[Vec<Kind>]) -> StopPoints {
        let mut len = Vec::with_capacity(kinds.len());
        let mut glued = Vec::with_capacity(kinds.len());
        for ks in kinds {
            let mut g = Vec::new();
            let mut prev: Option<Kind> = None;
            for (i, &k) in ks.iter().enumerate() {
                if glued_to(prev, k) {
                    g.push(i as u64);
                }
                prev = Some(k);
            }
            // Exit's group starts at the tables its end released.
            mark_exit_groups(&mut g, ks);
            g.sort_unstable();
            g.dedup();
            let n = ks.len() as u64;
            let tail_blocked = ks.last() == Some(&Kind::Blocked);
            len.push(if tail_blocked { n - 1 } else { n });
            glued.push(g);
        }
        StopPoints { len, glued }
    }

    /// Events of the process at `slot`, its trailing `blocked` left out.
    pub fn len(&self, slot: usize) -> u64 {
        self.len.get(slot).copied().unwrap_or(0)
    }

    fn is_glued(&self, slot: usize, i: u64) -> bool {
        self.glued
            .get(slot)
            .is_some_and(|g| g.binary_search(&i).is_ok())
    }

    /// The last place at or before `k` where the process can stop.
    pub fn at_or_before(&self, slot: usize, k: u64) -> u64 {
        let mut k = k.min(self.len(slot));
        while k > 0 && k < self.len(slot) && self.is_glued(slot, k) {
            k -= 1;
        }
        k
    }

    /// The first place at or after `k` where the process can stop.
    pub fn at_or_after(&self, slot: usize, k: u64) -> u64 {
        let mut k = k.min(self.len(slot));
        while k < self.len(slot) && self.is_glued(slot, k) {
            k += 1;
        }
        k
    }

    /// The cut where every process has done all its steps.
    pub fn end(&self) -> Cut {
        Cut(self.len.clone())
    }
}

/// What the glue rules look at in an event.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A signal to a process, or to itself (with the signal's index).
    Signal {
        to_self: bool,
    },
    /// Taking a signal this process sent itself just before.
    TakenOwn,
    Alive,
    Shared,
    /// `ets:give_away`, which sends the new owner its message at once.
    GiveAway,
    Send,
    ExitShared,
    Exit,
    Deliver,
    Blocked,
    Other,
}

impl Kind {
    pub(crate) fn of(e: &EventRef<'_>, me: ProcId, exit_fn: u16, give_fn: u16) -> Kind {
        use trace_format::{Dest, NondetKind};
        match *e {
            EventRef::Signal { to, .. } => Kind::Signal {
                to_self: to == Dest::Proc(me),
            },
            EventRef::SignalTaken { signal, .. } if signal.sender == me => Kind::TakenOwn,
            EventRef::Nondet {
                kind: NondetKind::IsProcessAlive,
                ..
            } => Kind::Alive,
            EventRef::Shared { function, .. } if function == exit_fn => Kind::ExitShared,
            EventRef::Shared { function, .. } if function == give_fn => Kind::GiveAway,
            EventRef::Send { .. } => Kind::Send,
            EventRef::Shared { .. } => Kind::Shared,
            EventRef::Exit { .. } => Kind::Exit,
            EventRef::Deliver { .. } => Kind::Deliver,
            EventRef::Blocked { .. } => Kind::Blocked,
            _ => Kind::Other,
        }
    }
}

/// Whether the engine does an event of kind `k` together with the one
/// before it (`prev`), with no place to stop the process in between: the
/// signals a death sends come with the exit; whether the partner of a
/// link or monitor was alive comes with its signal (and an operation on a
/// table that asked whether its heir lives, with that answer); a signal a
/// process sends itself is taken at once; an arrival is no step; the
/// tables a process's end releases go with the end; a table given away
/// sends its message with the gift. (The signals a death sends are marked
/// by [`mark_exit_groups`].)
fn glued_to(prev: Option<Kind>, k: Kind) -> bool {
    matches!(
        (prev, k),
        (_, Kind::Deliver | Kind::Blocked)
            | (Some(Kind::Signal { .. }), Kind::Alive)
            | (Some(Kind::Alive), Kind::Shared | Kind::GiveAway)
            | (Some(Kind::GiveAway), Kind::Send)
            | (Some(Kind::Signal { to_self: true }), Kind::TakenOwn)
            | (Some(Kind::ExitShared), Kind::ExitShared | Kind::Exit)
    )
}

/// Marks as glued every signal of the run that follows an `exit` (the
/// signals the death sends). Table releases before an exit are glued by
/// [`glued_to`]: all but the first, where the process stops before its end.
fn mark_exit_groups(g: &mut Vec<u64>, kinds: &[Kind]) {
    let mut after_exit = false;
    for (i, k) in kinds.iter().enumerate() {
        match k {
            Kind::Exit => after_exit = true,
            Kind::Signal { .. } | Kind::Send if after_exit => g.push(i as u64),
            Kind::Deliver | Kind::Blocked | Kind::ExitShared => {}
            _ => after_exit = false,
        }
    }
}

impl Cut {
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
