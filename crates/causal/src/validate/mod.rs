//! Checking that a log is causally consistent: that it describes a run that
//! could have happened. Each kind of inconsistency names the events
//! involved; what a consistent log may still hold (messages never received,
//! processes that never exited) is listed beside the verdict.
//!
//! ```text
//! Model ──► receipts (parallel, per receiver): each receipt matches a signal sent to it,
//!           │         of the right kind, taken once, in FIFO order per sender when arrivals are logged
//!           ├► tree: the spawn tree is well formed (facts gathered while building)
//!           ├► after exit (found while building)
//!           ├► derive: happened-before has no cycle (each process acts after its spawn, ...)
//!           └► leftovers (parallel, per sender): signals never received, processes never exited
//! ```

mod leftovers;
mod receipts;
mod tree;

use crate::derive::Wait;
use crate::model::{Destination, EventId, Model, ReceiptKind, SignalClass};
use trace_format::{MsgId, ProcId};

pub use leftovers::{Arrival, Unreceived};

/// One way a log departs from any run that could have happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Inconsistency {
    /// A receipt names a signal that its sender's log does not hold.
    NoSuchSignal {
        receipt: EventId,
        kind: ReceiptKind,
        msg: MsgId,
        /// How many signals the sender's log holds (`None`: no such process).
        sent: Option<u64>,
    },
    /// The signal was sent to another process.
    WrongReceiver {
        receipt: EventId,
        kind: ReceiptKind,
        msg: MsgId,
        send: EventId,
        dest: Destination,
    },
    /// The receipt does not fit what was sent: a message taken as a signal, a
    /// signal delivered as a message, a link signal turned into a message.
    WrongKind {
        receipt: EventId,
        kind: ReceiptKind,
        msg: MsgId,
        send: EventId,
        class: SignalClass,
    },
    /// A signal delivered, taken or consumed more than once.
    Twice {
        msg: MsgId,
        kind: ReceiptKind,
        receipts: Vec<EventId>,
    },
    /// A `receive` consumed something that was not in the mailbox: a message
    /// not delivered before (when deliveries are logged), or an exit or
    /// 'DOWN' signal not turned into a message before.
    NotArrived {
        receipt: EventId,
        msg: MsgId,
        class: SignalClass,
    },
    /// Non-message signals from one sender arrived out of the order they
    /// were sent in.
    Fifo(Overtaken),
    /// The process did something after it exited (other than the exit and
    /// 'DOWN' signals its death sends).
    AfterExit {
        exit: EventId,
        event: EventId,
        kind: &'static str,
    },
    /// A spawn names a process the log has no trace of.
    SpawnUnknown {
        spawn: EventId,
        child: ProcId,
        pid: u64,
    },
    /// A spawn gives the child another raw pid than the process table.
    SpawnPid {
        spawn: EventId,
        child: ProcId,
        logged: u64,
        table: u64,
    },
    /// Two spawns name the same process.
    SpawnedTwice {
        child: ProcId,
        first: EventId,
        again: EventId,
    },
    /// The spawn is not by the parent the process table names (or it spawns
    /// the entry process).
    SpawnParent {
        spawn: EventId,
        child: ProcId,
        table: Option<ProcId>,
    },
    /// A process other than the entry process that no spawn created.
    NeverSpawned {
        process: ProcId,
        parent: Option<ProcId>,
    },
    /// Happened-before has a cycle: each event must come after the next.
    Cycle { waits: Vec<Wait> },
    /// Two operations claim the same place among one shared object's
    /// operations.
    SameTurn(crate::shared::SameTurn),
}

impl Inconsistency {
    /// The event it is first about, for sorting reports.
    pub fn event(&self) -> Option<EventId> {
        use Inconsistency::*;
        match self {
            NoSuchSignal { receipt, .. }
            | WrongReceiver { receipt, .. }
            | WrongKind { receipt, .. }
            | NotArrived { receipt, .. } => Some(*receipt),
            Twice { receipts, .. } => receipts.first().copied(),
            Fifo(o) => Some(o.first.0),
            AfterExit { event, .. } => Some(*event),
            SpawnUnknown { spawn, .. } | SpawnPid { spawn, .. } | SpawnParent { spawn, .. } => {
                Some(*spawn)
            }
            SpawnedTwice { again, .. } => Some(*again),
            NeverSpawned { process, .. } => Some(EventId::new(*process, 0)),
            Cycle { waits } => waits.iter().map(|w| w.event).min(),
            SameTurn(t) => Some(t.second),
        }
    }

    /// A short name of the kind of problem (`--format json`'s "problem").
    pub fn code(&self) -> &'static str {
        use Inconsistency::*;
        match self {
            NoSuchSignal { .. } => "no_such_signal",
            WrongReceiver { .. } => "wrong_receiver",
            WrongKind { .. } => "wrong_kind",
            Twice { .. } => "twice",
            NotArrived { .. } => "not_arrived",
            Fifo(_) => "fifo",
            AfterExit { .. } => "after_exit",
            SpawnUnknown { .. } => "spawn_unknown",
            SpawnPid { .. } => "spawn_pid",
            SpawnedTwice { .. } => "spawned_twice",
            SpawnParent { .. } => "spawn_parent",
            NeverSpawned { .. } => "never_spawned",
            Cycle { .. } => "cycle",
            SameTurn(_) => "same_turn",
        }
    }
}

/// Two arrivals from one sender in the reverse of their sending order:
/// `first` arrived first although it was sent after `then`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Overtaken {
    pub receiver: ProcId,
    pub first: (EventId, MsgId),
    pub then: (EventId, MsgId),
    /// Further inversions between the same two processes.
    pub more: u64,
}

/// Something the log does not let us check, because it is incomplete (no
/// footer, an interrupted run, damaged blocks): the missing part may hold
/// what would make it consistent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unverifiable {
    /// A receipt of a signal beyond what its sender's readable log holds.
    Receipt {
        receipt: EventId,
        kind: ReceiptKind,
        msg: MsgId,
    },
    /// A process no readable spawn created.
    Spawn { process: ProcId },
}

/// The outcome of checking a log.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub processes: u64,
    pub events: u64,
    /// Events placed in the rebuilt derivation (all of them unless
    /// happened-before has a cycle).
    pub ordered: u64,
    pub inconsistencies: Vec<Inconsistency>,
    pub unverifiable: Vec<Unverifiable>,
    /// Processes stuck only behind a happened-before cycle.
    pub behind_cycles: Vec<ProcId>,
    /// Messages delivered after a later message of the same sender (with
    /// deliveries in the log). Not an inconsistency: a message of
    /// `erlang:send_after` or `erlang:start_timer` is sent (and named) when
    /// the timer starts but arrives when it fires, and the log does not mark
    /// such messages.
    pub overtaken: Vec<Overtaken>,
    /// Signals sent to a process of the log and never received.
    pub unreceived: Vec<Unreceived>,
    /// Signals sent to pids that no process of the log had.
    pub to_foreign: u64,
    /// Processes without an exit event (blocked at the end, or the run was
    /// cut); empty when the log does not record exits.
    pub never_exited: Vec<ProcId>,
    /// The log records exits (CauDEr's logs do not).
    pub exits_recorded: bool,
    /// The log is complete (footer present, run not interrupted).
    pub complete: bool,
}

impl Report {
    pub fn is_consistent(&self) -> bool {
        self.inconsistencies.is_empty()
    }
}

/// Checks the log's causal consistency. The checks of receipts and the
/// listing of leftovers run in parallel (rayon's pool); the rebuild of
/// the derivation, which finds cycles, is one pass over receipts.
pub fn validate(model: &Model) -> Report {
    // The rebuild is sequential: it runs beside the parallel checks.
    let (outcome, (checked, (unreceived, to_foreign))) = rayon::join(
        || crate::derive::derive_slots(model, None, |_, _, _| {}),
        || {
            let checked = receipts::check(model);
            let left = leftovers::unreceived(model, &checked.marks);
            (checked, left)
        },
    );
    let mut inconsistencies = checked.problems;
    let mut unverifiable = checked.unverifiable;
    inconsistencies.extend(model.early.iter().cloned());
    unverifiable.extend(model.early_unverifiable.iter().cloned());
    tree::check(model, &mut inconsistencies, &mut unverifiable);
    for waits in outcome.cycles {
        inconsistencies.push(Inconsistency::Cycle { waits });
    }
    inconsistencies.sort_by_key(|i| (i.event(), i.code()));
    Report {
        processes: model.procs.len() as u64,
        events: model.event_count(),
        ordered: outcome.ordered,
        inconsistencies,
        unverifiable,
        behind_cycles: outcome.behind,
        overtaken: checked.overtaken,
        unreceived,
        to_foreign,
        never_exited: model
            .procs
            .iter()
            .filter(|p| p.exit.is_none() && model.records_exits)
            .map(|p| p.id)
            .collect(),
        exits_recorded: model.records_exits,
        complete: model.complete,
    }
}
