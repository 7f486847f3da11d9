//! The causal model of a log: for every process, the facts happened-before
//! is made of — which signals it sent (and to whom), which signals it
//! received (delivered, took or consumed), which processes it spawned, where
//! it exited — in compact arrays, without payloads.
//!
//! Processes are addressed internally by their *slot*, their position in the
//! reader's process table (the same as the dense `ProcId` unless a recovered
//! log lost whole processes). Event positions inside a process are `u32`:
//! the model refuses process logs of more than `u32::MAX - 1` events.

use crate::facts::{Receipt, Sent, Spawned};
use std::ops::Range;
use trace_capture::Names;
pub use trace_format::SignalClass;
use trace_format::{EventKind, MsgId, ProcId, SignalEffect, Warning};

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

/// A process slot (position in the process table), or none: the id named a
/// process that has no log.
pub(crate) use trace_capture::{Slot, NO_SLOT};

/// Destination codes of [`SignalFact::dest`] beside slots.
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
    /// A slot, [`DEST_FOREIGN`] or [`DEST_UNKNOWN`].
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
    /// The sender's slot, or [`NO_SLOT`].
    pub sender: Slot,
    /// The signal index (`u32::MAX` when it is beyond any log).
    pub index: u32,
    pub kind: ReceiptKind,
}

/// One spawn, in the parent's program order.
#[derive(Copy, Clone, Debug)]
pub(crate) struct SpawnFact {
    pub at: u32,
    /// The child's slot, or [`NO_SLOT`] when the child has no log.
    pub child: Slot,
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
    /// Per slot: the global index of its first signal (`procs[s].signals.start`).
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

/// The causal model of one log. Built by [`Model::build`](crate::Model::build).
pub struct Model {
    pub(crate) procs: Vec<ProcFacts>,
    /// Per slot: each process's facts live in their own arrays, so that a
    /// process written in one block needs no copy.
    pub(crate) facts: AllFacts,
    /// Signals each slot sent (hot in the rebuild of a derivation).
    pub(crate) sent: Vec<u32>,
    /// Each slot's id and raw pid, apart from the rest of its facts: turning
    /// a signal's destination or a receipt's sender into them is a lookup
    /// per fact, and these arrays stay in cache where the table does not.
    pub(crate) ids: Vec<ProcId>,
    pub(crate) pids: Vec<u64>,
    /// For each slot, the spawn event that created it (the first, if several).
    pub(crate) spawned_by: Vec<Option<(Slot, u32)>>,
    pub(crate) names: Names,
    /// Deliveries were recorded (the header says so).
    pub(crate) deliveries: bool,
    /// Exits are in the log (CauDEr's logs, imported, have none).
    pub(crate) records_exits: bool,
    /// The log says which processes ended waiting, and whether stuck
    /// (version 2); older logs leave it to "never exited".
    pub(crate) records_blocked: bool,
    /// The log is complete: it has a footer and the run was not cut short.
    /// In an incomplete log a receipt of a signal no log holds is not an
    /// inconsistency: the sender's last block may simply not have been written.
    pub(crate) complete: bool,
    /// What was lost reading the log (damaged blocks), with byte offsets.
    pub(crate) warnings: Vec<Warning>,
    /// Problems found while collecting facts (spawns of unknown processes, ...).
    pub(crate) early: Vec<crate::validate::Inconsistency>,
    pub(crate) early_unverifiable: Vec<crate::validate::Unverifiable>,
    pub(crate) positions: std::sync::OnceLock<crate::query::Positions>,
    pub(crate) receipts_of: std::sync::OnceLock<crate::query::ReceiptIndex>,
    /// Per slot: its operations on shared state, in program order.
    pub(crate) shared: Vec<Vec<crate::shared::SharedFact>>,
    /// Per slot: the operations of other processes its own follow, sorted
    /// by event (see [`crate::shared`]).
    pub(crate) deps: Vec<Vec<crate::shared::DepFact>>,
    /// Per slot: the events of other processes that follow its own (the
    /// reverse of `deps`: event, then the follower), built on first use.
    pub(crate) dependents: std::sync::OnceLock<Vec<Vec<(u32, Slot, u32)>>>,
}

impl Model {
    /// The processes, in table order.
    pub fn processes(&self) -> &[ProcFacts] {
        &self.procs
    }

    /// One past the largest process id: the length of a table indexed by id.
    pub fn id_slots(&self) -> usize {
        self.procs
            .iter()
            .map(|f| f.id.0 as usize + 1)
            .max()
            .unwrap_or(0)
    }

    /// Total readable events.
    pub fn event_count(&self) -> u64 {
        self.procs.iter().map(|p| p.events).sum()
    }

    pub fn process(&self, id: ProcId) -> Option<&ProcFacts> {
        self.slot(id).map(|s| &self.procs[s as usize])
    }

    /// The process that had raw pid number `pid`.
    pub fn process_by_pid(&self, pid: u64) -> Option<&ProcFacts> {
        self.procs.iter().find(|p| p.pid == pid)
    }

    /// The symbolic names of the processes.
    pub fn names(&self) -> &Names {
        &self.names
    }

    /// Deliveries are in the log.
    pub fn has_deliveries(&self) -> bool {
        self.deliveries
    }

    /// The log records exits (a log imported from CauDEr does not).
    pub fn records_exits(&self) -> bool {
        self.records_exits
    }

    /// The log says how processes that never exited ended (idle or stuck).
    pub fn records_blocked(&self) -> bool {
        self.records_blocked
    }

    /// The log has its footer and the run ended normally.
    pub fn is_complete(&self) -> bool {
        self.complete
    }

    /// What could not be read (damaged or missing blocks), with byte offsets.
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    pub(crate) fn slot(&self, id: ProcId) -> Option<Slot> {
        id.position_in(&self.procs, |p| p.id).map(|s| s as Slot)
    }

    /// Where the model holds event `e`: its process's slot and its index
    /// there (`None` for a process or an index the log does not have).
    pub(crate) fn locate(&self, e: EventId) -> Option<(Slot, u32)> {
        let s = self.slot(e.proc)?;
        (e.index < self.procs[s as usize].events).then_some((s, e.index as u32))
    }

    #[inline]
    pub(crate) fn id(&self, s: Slot) -> ProcId {
        self.ids[s as usize]
    }

    pub(crate) fn signals_of(&self, s: Slot) -> &[SignalFact] {
        &self.facts.signals[s as usize]
    }

    pub(crate) fn receipts_of(&self, s: Slot) -> &[ReceiptFact] {
        &self.facts.receipts[s as usize]
    }

    pub(crate) fn spawns_of(&self, s: Slot) -> &[SpawnFact] {
        &self.facts.spawns[s as usize]
    }

    /// Signals of all processes.
    pub(crate) fn total_signals(&self) -> usize {
        self.procs.last().map_or(0, |p| p.signals.end)
    }

    /// Receipts of all processes.
    pub(crate) fn total_receipts(&self) -> usize {
        self.procs.last().map_or(0, |p| p.receipts.end)
    }

    /// The signal `(sender, index)`, if a log holds it.
    pub(crate) fn signal(&self, sender: Slot, index: u32) -> Option<&SignalFact> {
        if sender == NO_SLOT {
            return None;
        }
        self.signals_of(sender).get(index as usize)
    }

    /// The position of signal `(sender, index)` in the signal array.
    #[inline]
    pub(crate) fn signal_global(&self, sender: Slot, index: u32) -> Option<usize> {
        if sender == NO_SLOT || index >= *self.sent.get(sender as usize)? {
            return None;
        }
        Some(self.facts.signal_start[sender as usize] + index as usize)
    }

    /// Where the signal `msg` was sent, and what it was.
    pub fn send_of(&self, msg: MsgId) -> Option<(EventId, SignalClass, Destination)> {
        let s = self.slot(msg.sender)?;
        let i = u32::try_from(msg.index).ok()?;
        let f = self.signal(s, i)?;
        Some((
            EventId::new(msg.sender, f.at as u64),
            f.class,
            self.destination(f.dest),
        ))
    }

    pub(crate) fn destination(&self, dest: u32) -> Destination {
        match dest {
            DEST_FOREIGN => Destination::Foreign,
            DEST_UNKNOWN => Destination::Unknown,
            d => Destination::Proc(self.id(d)),
        }
    }

    /// The spawn event that created `id`.
    pub fn spawn_of(&self, id: ProcId) -> Option<EventId> {
        let (parent, at) = self.spawned_by[self.slot(id)? as usize]?;
        Some(EventId::new(self.id(parent), at as u64))
    }

    /// The events that received `msg`, in the receivers' program order:
    /// delivery, taking (signals) and consumption.
    pub fn receipts_of_msg(&self, msg: MsgId) -> Vec<(EventId, ReceiptKind)> {
        let Some(s) = self.slot(msg.sender) else {
            return Vec::new();
        };
        let Ok(i) = u32::try_from(msg.index) else {
            return Vec::new();
        };
        let idx = self.receipt_index();
        idx.of(self, s, i)
            .iter()
            .map(|&r| {
                let (slot, f) = idx.receipt(self, r);
                (EventId::new(self.id(slot), f.at as u64), f.kind)
            })
            .collect()
    }
}

impl Model {
    // Views of each process's facts for analyses outside this crate (see
    // `facts`).

    /// The operations of process `p` on shared state, in its program order.
    pub fn shared_ops(&self, p: ProcId) -> &[crate::shared::SharedFact] {
        self.slot(p)
            .and_then(|s| self.shared.get(s as usize))
            .map_or(&[], Vec::as_slice)
    }

    /// The event of another process whose shared-state operation event
    /// `e` (itself such an operation) follows on its object, if any.
    pub fn shared_predecessor(&self, e: EventId) -> Option<EventId> {
        let (s, at) = self.locate(e)?;
        let deps = self.deps_of(s);
        let d = deps.get(deps.partition_point(|d| d.at < at))?;
        (d.at == at).then(|| EventId::new(self.id(d.after), d.after_at as u64))
    }

    /// The receipts of process `p`, in its program order.
    pub fn receipts_in(&self, p: ProcId) -> impl ExactSizeIterator<Item = Receipt> + '_ {
        let recs = self.slot(p).map_or(&[][..], |s| self.receipts_of(s));
        recs.iter().map(move |r| Receipt {
            at: r.at as u64,
            msg: (r.sender != NO_SLOT).then(|| MsgId {
                sender: self.id(r.sender),
                index: r.index as u64,
            }),
            kind: r.kind,
        })
    }

    /// The signals process `p` sent, in its program order.
    pub fn signals_from(&self, p: ProcId) -> impl ExactSizeIterator<Item = Sent> + '_ {
        let sigs = self.slot(p).map_or(&[][..], |s| self.signals_of(s));
        sigs.iter().enumerate().map(move |(k, f)| Sent {
            at: f.at as u64,
            index: k as u64,
            class: f.class,
            to: self.destination(f.dest),
        })
    }

    /// The signals process `p` sent, in its program order, each with the
    /// raw pid of its destination when that is a process of the log (as
    /// [`signals_from`](Self::signals_from), for analyses that match on
    /// pids: no destination is looked up in the process table).
    pub fn signals_from_pids(
        &self,
        p: ProcId,
    ) -> impl ExactSizeIterator<Item = (Sent, Option<u64>)> + '_ {
        let sigs = self.slot(p).map_or(&[][..], |s| self.signals_of(s));
        sigs.iter().enumerate().map(move |(k, f)| {
            let to = self.destination(f.dest);
            let pid = match to {
                Destination::Proc(_) => Some(self.pids[f.dest as usize]),
                Destination::Foreign | Destination::Unknown => None,
            };
            (
                Sent {
                    at: f.at as u64,
                    index: k as u64,
                    class: f.class,
                    to,
                },
                pid,
            )
        })
    }

    /// The receipts of process `p`, in its program order, each with the raw
    /// pid of the signal's sender (see [`signals_from_pids`](Self::signals_from_pids)).
    pub fn receipts_in_pids(
        &self,
        p: ProcId,
    ) -> impl ExactSizeIterator<Item = (Receipt, Option<u64>)> + '_ {
        let recs = self.slot(p).map_or(&[][..], |s| self.receipts_of(s));
        recs.iter().map(move |r| {
            let known = r.sender != NO_SLOT;
            (
                Receipt {
                    at: r.at as u64,
                    msg: known.then(|| MsgId {
                        sender: self.id(r.sender),
                        index: r.index as u64,
                    }),
                    kind: r.kind,
                },
                known.then(|| self.pids[r.sender as usize]),
            )
        })
    }

    /// The spawns process `p` made, in its program order.
    pub fn spawns_by(&self, p: ProcId) -> impl ExactSizeIterator<Item = Spawned> + '_ {
        let spawns = self.slot(p).map_or(&[][..], |s| self.spawns_of(s));
        spawns.iter().map(move |f| Spawned {
            at: f.at as u64,
            child: (f.child != NO_SLOT).then(|| self.id(f.child)),
        })
    }

    /// The event that consumed (`receive`), delivered or took signal `msg`
    /// as `kind` says, if any.
    pub fn receipt_of(&self, msg: MsgId, kind: impl Fn(ReceiptKind) -> bool) -> Option<EventId> {
        self.receipts_of_msg(msg)
            .into_iter()
            .find(|(_, k)| kind(*k))
            .map(|(e, _)| e)
    }
}
