//! Where a process can stop: before any event of its log except one the
//! engine does together with the event before it, with no place to hold
//! the process in between (the signals a death sends, after the `exit`;
//! whether a link's or monitor's partner lives, after its signal; ...).
//! Every cut a replay holds processes at must fall on these places: the
//! debugger's moves and `--until`'s causal past both round to them.

use crate::{EventVisitor, Model};
use trace_format::{BlockInfo, EventRef, LogReader, ProcId};

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
    /// From each process's events, by slot, as [`Kind`]s.
    pub fn of_kinds(kinds: &[Vec<Kind>]) -> StopPoints {
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

    /// Per slot, the place where the process has done all its steps.
    pub fn ends(&self) -> Vec<u64> {
        self.len.clone()
    }
}

/// A log read once for a replay that holds processes: its model, and each
/// process's events as [`Kind`]s.
pub struct Scanned<V> {
    pub model: Model,
    /// Per slot of the model, its process log's events as kinds (as many
    /// as the model's log of the process holds).
    pub kinds: Vec<Vec<Kind>>,
    /// The visitors `start` made for the blocks that make each process's
    /// log, with the process's slot, in event order. A visitor may have
    /// seen events past the model's end of its log.
    pub blocks: Vec<(usize, V)>,
}

/// Reads `log` once, in the model's own parallel pass over every block
/// (`Model::build_visiting`): the model, and each event's [`Kind`] — what
/// `--until`'s plan and the debugger's stop points are made of. `start`
/// makes a visitor per block that sees every event as well.
pub fn scan<V, F>(log: &LogReader, start: F) -> Scanned<V>
where
    V: EventVisitor,
    F: Fn(&BlockInfo) -> V + Sync,
{
    let (exit_fn, give_fn) = glue_functions(log);
    let (model, blocks) = Model::build_visiting(log, |info| BlockKinds {
        process: info.process,
        first: None,
        kinds: Vec::new(),
        exit_fn,
        give_fn,
        inner: start(info),
    });
    let mut blocks: Vec<(usize, BlockKinds<V>)> = blocks
        .into_iter()
        .flatten()
        .filter_map(|b| Some((b.process.position_in(model.processes(), |p| p.id)?, b)))
        .collect();
    blocks.sort_by_key(|(slot, b)| (*slot, b.first));
    let mut kinds: Vec<Vec<Kind>> = vec![Vec::new(); model.processes().len()];
    let mut kept = Vec::with_capacity(blocks.len());
    for (slot, b) in blocks {
        let k = &mut kinds[slot];
        // A block that does not follow on: the model ends the log before it.
        if b.first.is_some_and(|f| f != k.len() as u64) {
            continue;
        }
        k.extend(b.kinds);
        kept.push((slot, b.inner));
    }
    for (k, p) in kinds.iter_mut().zip(model.processes()) {
        k.truncate(p.events as usize);
    }
    Scanned {
        model,
        kinds,
        blocks: kept,
    }
}

/// One block's events as kinds, and what another visitor makes of them.
struct BlockKinds<V> {
    process: ProcId,
    /// Index of the block's first event in its process log.
    first: Option<u64>,
    kinds: Vec<Kind>,
    exit_fn: u16,
    give_fn: u16,
    inner: V,
}

impl<V: EventVisitor> EventVisitor for BlockKinds<V> {
    fn event(&mut self, index: u64, e: &EventRef<'_>) {
        self.first.get_or_insert(index);
        self.kinds
            .push(Kind::of(e, self.process, self.exit_fn, self.give_fn));
        self.inner.event(index, e);
    }
}

/// What the glue rules look at in an event.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A signal to a process, or to itself.
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

/// The numbers `log` gives the shared functions [`Kind::of`] tells apart:
/// `exit` (a table released by its owner's end) and `give_away`.
pub fn glue_functions(log: &LogReader) -> (u16, u16) {
    let functions =
        trace_capture::mapping::SharedFunctions::of_names(&log.header().shared_functions);
    (functions.index("exit"), functions.index("give_away"))
}

impl Kind {
    pub fn of(e: &EventRef<'_>, me: ProcId, exit_fn: u16, give_fn: u16) -> Kind {
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
