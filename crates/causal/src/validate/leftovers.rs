//! What a run left behind: signals sent to a process of the log that it
//! never received (still in flight, or left in its mailbox), counted per
//! sender in parallel from the marks the receipt checks set.

use super::receipts::{Marks, CONVERTED, DELIVERED, RECEIVED, TAKEN};
use crate::facts::{Destination, EventId, SignalClass, TableRow, DEST_FOREIGN, DEST_UNKNOWN};
use crate::model::Model;
use rayon::prelude::*;
use trace_format::MsgId;

/// How far a signal that was never received got.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// It never arrived: not delivered (deliveries are logged), or a
    /// non-message signal never taken.
    NotArrived,
    /// It arrived (delivered, or an exit or 'DOWN' signal turned into a
    /// message) but no `receive` consumed it.
    InMailbox,
    /// A message never consumed; without deliveries in the log we cannot
    /// tell whether it arrived.
    Unknown,
}

/// A signal never received.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unreceived {
    pub msg: MsgId,
    pub send: EventId,
    pub class: SignalClass,
    pub dest: Destination,
    pub arrival: Arrival,
    /// The destination process exited (a signal to a dead process is dropped).
    pub receiver_exited: bool,
}

pub(super) fn unreceived(m: &Model, marks: &Marks) -> (Vec<Unreceived>, u64) {
    let per_sender: Vec<(Vec<Unreceived>, u64)> = (0..m.procs.len() as TableRow)
        .into_par_iter()
        .with_min_len(64)
        .map(|s| {
            let start = m.procs[s as usize].signals.start;
            let mut left = Vec::new();
            let mut foreign = 0u64;
            let sigs = m.signals_of(s);
            for (k, (sig, &mark)) in sigs.iter().zip(marks.of(start, sigs.len())).enumerate() {
                // Most signals are messages received: nothing to list. (No
                // receipt marks a signal sent outside the log.)
                if mark & RECEIVED != 0 && sig.class.is_message() {
                    continue;
                }
                if sig.dest == DEST_FOREIGN {
                    foreign += 1;
                    continue;
                }
                let arrival = if sig.class.is_message() {
                    match (m.deliveries, mark & DELIVERED != 0) {
                        (false, _) => Arrival::Unknown,
                        (true, true) => Arrival::InMailbox,
                        (true, false) => Arrival::NotArrived,
                    }
                } else if mark & TAKEN == 0 {
                    Arrival::NotArrived
                } else if mark & CONVERTED != 0 && mark & RECEIVED == 0 {
                    Arrival::InMailbox
                } else {
                    continue;
                };
                let msg = MsgId {
                    sender: m.id(s),
                    index: k as u64,
                };
                left.push(Unreceived {
                    msg,
                    send: EventId::new(msg.sender, sig.at as u64),
                    class: sig.class,
                    dest: m.destination(sig.dest),
                    arrival,
                    receiver_exited: sig.dest != DEST_UNKNOWN
                        && m.procs[sig.dest as usize].exit.is_some(),
                });
            }
            (left, foreign)
        })
        .collect();
    let mut all = Vec::new();
    let mut foreign = 0;
    for (l, f) in per_sender {
        // Moved, not copied, when one sender left them all (a log of
        // millions of sends that nobody received would otherwise need twice
        // the memory).
        if all.is_empty() {
            all = l;
        } else {
            all.extend(l);
        }
        foreign += f;
    }
    (all, foreign)
}
