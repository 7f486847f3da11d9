//! Read-only views of what the model holds about each process — its
//! receipts, the signals it sent, the processes it spawned — for analyses
//! outside this crate (`trace check` evaluates event predicates on them
//! without decoding the log again).

use crate::model::{Destination, EventId, Model, ReceiptKind, SignalClass, NO_SLOT};
use trace_format::{MsgId, ProcId};

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

impl Model {
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
