//! The causal model of a log: it composes the facts the log gives
//! ([`crate::facts`]), the operations on shared state ([`crate::shared`]),
//! the indexes built on first use ([`crate::index`]) and the symbolic names
//! of the processes, and answers the lookups every analysis shares. The
//! analyses themselves (queries, validation, the rebuild of a derivation)
//! live above it and read it; nothing here reaches up to them.

use crate::facts::{
    AllFacts, Destination, EventId, ProcFacts, Receipt, ReceiptFact, ReceiptKind, Sent,
    SignalClass, SignalFact, SpawnFact, Spawned, TableRow, DEST_FOREIGN, DEST_UNKNOWN, NO_ROW,
};
use crate::inconsistency::{Inconsistency, Unverifiable};
use crate::index::{Positions, ReceiptIndex};
use crate::shared::{DepFact, SharedFact};
use std::sync::OnceLock;
use trace_capture::Names;
use trace_format::{MsgId, ProcId, Warning};

/// The causal model of one log. Built by [`Model::build`](crate::Model::build).
pub struct Model {
    pub(crate) procs: Vec<ProcFacts>,
    /// Per row: each process's facts live in their own arrays, so that a
    /// process written in one block needs no copy.
    pub(crate) facts: AllFacts,
    /// Signals each row sent (hot in the rebuild of a derivation).
    pub(crate) sent: Vec<u32>,
    /// Each row's id and raw pid, apart from the rest of its facts: turning
    /// a signal's destination or a receipt's sender into them is a lookup
    /// per fact, and these arrays stay in cache where the table does not.
    pub(crate) ids: Vec<ProcId>,
    pub(crate) pids: Vec<u64>,
    /// For each row, the spawn event that created it (the first, if several).
    pub(crate) spawned_by: Vec<Option<(TableRow, u32)>>,
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
    pub(crate) early: Vec<Inconsistency>,
    pub(crate) early_unverifiable: Vec<Unverifiable>,
    pub(crate) positions: OnceLock<Positions>,
    pub(crate) receipts_of: OnceLock<ReceiptIndex>,
    /// Per row: its operations on shared state, in program order.
    pub(crate) shared: Vec<Vec<SharedFact>>,
    /// Per row: the operations of other processes its own follow, sorted
    /// by event (see [`crate::shared`]).
    pub(crate) deps: Vec<Vec<DepFact>>,
    /// Per row: the events of other processes that follow its own (the
    /// reverse of `deps`: event, then the follower), built on first use.
    pub(crate) dependents: OnceLock<Vec<Vec<(u32, TableRow, u32)>>>,
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

    pub(crate) fn slot(&self, id: ProcId) -> Option<TableRow> {
        id.position_in(&self.procs, |p| p.id).map(|s| s as TableRow)
    }

    /// Where the model holds event `e`: its process's row and its index
    /// there (`None` for a process or an index the log does not have).
    pub(crate) fn locate(&self, e: EventId) -> Option<(TableRow, u32)> {
        let s = self.slot(e.proc)?;
        (e.index < self.procs[s as usize].events).then_some((s, e.index as u32))
    }

    #[inline]
    pub(crate) fn id(&self, s: TableRow) -> ProcId {
        self.ids[s as usize]
    }

    pub(crate) fn signals_of(&self, s: TableRow) -> &[SignalFact] {
        &self.facts.signals[s as usize]
    }

    pub(crate) fn receipts_of(&self, s: TableRow) -> &[ReceiptFact] {
        &self.facts.receipts[s as usize]
    }

    /// The child that `parent`'s spawn `s` started, if it is the spawn the
    /// child's log names (a log may repeat a pid; only one spawn starts it).
    #[inline]
    pub(crate) fn starts_child(&self, parent: TableRow, s: &SpawnFact) -> Option<TableRow> {
        let c = s.child;
        (c != NO_ROW && self.spawned_by[c as usize] == Some((parent, s.at))).then_some(c)
    }

    pub(crate) fn spawns_of(&self, s: TableRow) -> &[SpawnFact] {
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
    pub(crate) fn signal(&self, sender: TableRow, index: u32) -> Option<&SignalFact> {
        if sender == NO_ROW {
            return None;
        }
        self.signals_of(sender).get(index as usize)
    }

    /// The position of signal `(sender, index)` in the signal array.
    #[inline]
    pub(crate) fn signal_global(&self, sender: TableRow, index: u32) -> Option<usize> {
        if sender == NO_ROW || index >= *self.sent.get(sender as usize)? {
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
    // `crate::facts`).

    /// The operations of process `p` on shared state, in its program order.
    pub fn shared_ops(&self, p: ProcId) -> &[SharedFact] {
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
            msg: (r.sender != NO_ROW).then(|| MsgId {
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
            let known = r.sender != NO_ROW;
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
            child: (f.child != NO_ROW).then(|| self.id(f.child)),
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
