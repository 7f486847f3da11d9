//! The ways a log departs from any run that could have happened, and what
//! an incomplete log does not let us check: found while the model is built
//! (spawns, exits) and by [`crate::validate`], and held by the model.

use crate::facts::{Destination, EventId, ReceiptKind, SignalClass};
use trace_format::{MsgId, ProcId};

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

/// Why a stuck event cannot happen yet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum WaitReason {
    /// It receives this signal, which is sent at the awaited event.
    Signal(MsgId),
    /// It is the process's first event; the awaited event spawns the process.
    Spawn,
    /// Its operation on a shared object follows the awaited one.
    Shared,
}

/// An event that cannot happen before another one.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Wait {
    pub event: EventId,
    pub needs: EventId,
    pub why: WaitReason,
}
