//! Read-only views of what the model holds about each process — its
//! receipts, the signals it sent, the processes it spawned — for analyses
//! outside this crate (`trace check` evaluates event predicates on them
//! without decoding the log again). `Model::receipts_in`, `signals_from`
//! and `spawns_by` give them.

use crate::model::{Destination, ReceiptKind, SignalClass};
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
