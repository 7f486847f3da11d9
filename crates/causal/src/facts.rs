//! The facts a log gives, as the model keeps them: for every process, the
//! signals it sent (and to whom), its receipts (delivered, taken or
//! consumed), the processes it spawned, where it exited — in compact
//! arrays, without payloads — and the read-only views of them that
//! analyses outside this crate use (`trace check` evaluates event
//! predicates on `Model::receipts_in`, `signals_from` and `spawns_by`
//! without decoding the log again).
//!
//! Processes are addressed internally by their index in the reader's
//! process table (the same as the dense `ProcId` unless a recovered log
//! lost whole processes). Event positions inside a process are `u32`: the
//! model refuses process logs of more than `u32::MAX - 1` events.

use std::ops::Range;
pub use trace_format::SignalClass;
use trace_format::{EventKind, MsgId, ProcId, SignalEffect};

/// An event: a process and the event's index in that process's log (from 0,
/// as `trace dump` numbers them).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EventId {
    pub proc: ProcId,
    pub index: u64,
}

impl EventId {
    pub fn new(proc: ProcId, index: u64) -> Self {
        EventId { proc, index }
    }
}

/// A process row (position in the process table), or none: the id named a
/// process that has no log.
pub(crate) use trace_capture::{TableRow, NO_ROW};

/// Destination codes of [`SignalFact::dest`] beside rows.
pub(crate) const DEST_FOREIGN: u32 = u32::MAX - 1;
pub(crate) const DEST_UNKNOWN: u32 = u32::MAX;

/// Where a signal went.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Destination {
    Proc(ProcId),
    /// A pid no process of this log had: the signal went nowhere.
    Foreign,
    /// The log does not say (CauDEr logs record no destination).
    Unknown,
}

/// One signal sent, at index `k` of its sender's signals. Packed (9 bytes,
/// not 12): a model holds one per signal of the log, and on large logs
/// the time to touch fresh memory for them outweighs unaligned reads.
#[derive(Copy, Clone, Debug)]
#[repr(C, packed)]
pub(crate) struct SignalFact {
    /// Event index of the Send/Signal event in the sender's log.
    pub at: u32,
    /// A row, [`DEST_FOREIGN`] or [`DEST_UNKNOWN`].
    pub dest: u32,
    pub class: SignalClass,
}

/// How a process received a signal.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ReceiptKind {
    /// The message entered the mailbox (logs recorded with deliveries).
    Deliver,
    /// A `receive` consumed it.
    Receive,
    /// A non-message signal was taken, with this effect.
    Taken(SignalEffect),
}

impl ReceiptKind {
    /// The kind of event the receipt is in the receiver's log.
    pub fn event_kind(self) -> EventKind {
        match self {
            ReceiptKind::Deliver => EventKind::Deliver,
            ReceiptKind::Receive => EventKind::Receive,
            ReceiptKind::Taken(_) => EventKind::SignalTaken,
        }
    }

    pub fn name(self) -> &'static str {
        self.event_kind().name()
    }
}

/// One receipt, in the receiver's program order. Packed (13 bytes, not
/// 20), as [`SignalFact`]; the rebuild of a derivation counts the signals
/// the receiver sent before it from the receiver's own signal facts.
#[derive(Copy, Clone, Debug)]
#[repr(C, packed)]
pub(crate) struct ReceiptFact {
    pub at: u32,
    /// The sender's row, or [`NO_ROW`].
    pub sender: TableRow,
    /// The signal index (`u32::MAX` when it is beyond any log).
    pub index: u32,
    pub kind: ReceiptKind,
}

/// One spawn, in the parent's program order.
#[derive(Copy, Clone, Debug)]
pub(crate) struct SpawnFact {
    pub at: u32,
    /// The child's row, or [`NO_ROW`] when the child has no log.
    pub child: TableRow,
}

/// What the model knows about one process.
#[derive(Clone, Debug)]
pub struct ProcFacts {
    pub id: ProcId,
    /// Raw pid number (`<0.N.0>`).
    pub pid: u64,
    /// The parent the process table names.
    pub parent: Option<ProcId>,
    /// Readable events.
    pub events: u64,
    /// Events the footer says it recorded, when the footer was read.
    pub recorded: Option<u64>,
    /// Index of its first `exit` event.
    pub exit: Option<u64>,
    /// A block of its log did not decode: the log stops before it.
    pub cut_short: bool,
    /// The run ended with it waiting in `receive` (format version 2 says
    /// so): `Some(true)` stuck, part of a deadlock; `Some(false)` idle.
    pub blocked: Option<bool>,
    /// Its signals and receipts in the numbering of all the log's signals
    /// (receipts), process after process: the index of mark and index arrays.
    pub(crate) signals: Range<usize>,
    pub(crate) receipts: Range<usize>,
}

/// A process's facts, in its program order.
#[derive(Default)]
pub(crate) struct Facts {
    pub signals: Vec<SignalFact>,
    pub receipts: Vec<ReceiptFact>,
    pub spawns: Vec<SpawnFact>,
}

/// Every process's facts, one array of arrays per kind: the checks and the
/// rebuild jump from process to process, and the array headers of all
/// processes stay in cache this way.
#[derive(Default)]
pub(crate) struct AllFacts {
    pub signals: Vec<Vec<SignalFact>>,
    pub receipts: Vec<Vec<ReceiptFact>>,
    pub spawns: Vec<Vec<SpawnFact>>,
    /// Per row: the global index of its first signal (`procs[s].signals.start`).
    pub signal_start: Vec<usize>,
}

impl FromIterator<Facts> for AllFacts {
    fn from_iter<I: IntoIterator<Item = Facts>>(it: I) -> Self {
        let mut all = AllFacts::default();
        let mut start = 0;
        for f in it {
            all.signal_start.push(start);
            start += f.signals.len();
            all.signals.push(f.signals);
            all.receipts.push(f.receipts);
            all.spawns.push(f.spawns);
        }
        all
    }
}

impl ProcFacts {
    /// Number of signals (messages included) it sent.
    pub fn signals_sent(&self) -> u64 {
        self.signals.len() as u64
    }

    /// True when fewer events are readable than were recorded.
    pub fn incomplete(&self) -> bool {
        self.cut_short || self.recorded.is_some_and(|r| r != self.events)
    }
}

/// One receipt of a process: its delivery, taking or consumption of a signal.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Receipt {
    /// Event index in the receiver's log.
    pub at: u64,
    /// The signal received; `None` when its sender has no log here.
    pub msg: Option<MsgId>,
    pub kind: ReceiptKind,
}

/// One signal a process sent (a message is a signal too).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Sent {
    /// Event index in the sender's log.
    pub at: u64,
    /// The sender's signal index: the signal is `MsgId { sender, index }`.
    pub index: u64,
    pub class: SignalClass,
    pub to: Destination,
}

/// One spawn a process made.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Spawned {
    /// Event index in the parent's log.
    pub at: u64,
    /// The child, `None` when the log holds nothing of it.
    pub child: Option<ProcId>,
}
