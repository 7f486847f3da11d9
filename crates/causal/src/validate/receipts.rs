//! Every receipt against the signal it names, one receiver per task: the
//! signal exists, was sent to this process, is of a kind this receipt can
//! take, and is taken once; a `receive` consumes only what is in the
//! mailbox; arrivals from one sender keep the order it sent in.
//!
//! "Taken once" spans receivers (an imported log may not say where a signal
//! went), so each signal has a byte of marks set atomically.

use crate::facts::{
    EventId, ReceiptFact, ReceiptKind, SignalClass, SignalFact, TableRow, DEST_UNKNOWN,
};
use crate::inconsistency::{Inconsistency, Overtaken, Unverifiable};
use crate::model::Model;
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU8, Ordering};
use trace_format::prefetch::prefetch;
use trace_format::{MsgId, ProcId, SignalEffect};

pub(super) const DELIVERED: u8 = 1;
pub(super) const TAKEN: u8 = 2;
pub(super) const CONVERTED: u8 = 4;
pub(super) const RECEIVED: u8 = 8;

/// One byte of marks per signal (global index), shared by the tasks.
pub(super) struct Marks(Vec<u8>);

impl Marks {
    fn new(n: usize) -> Self {
        Marks(vec![0; n])
    }

    fn atomics(&self) -> &[AtomicU8] {
        // SAFETY: AtomicU8 has the size, alignment and bit validity of u8, and
        // while the slice is borrowed every access goes through the atomics.
        unsafe { &*(self.0.as_slice() as *const [u8] as *const [AtomicU8]) }
    }

    /// Sets `bit`; true if it was set already.
    fn set(&self, g: usize, bit: u8) -> bool {
        self.atomics()[g].fetch_or(bit, Ordering::Relaxed) & bit != 0
    }

    /// As [`set`](Self::set), for a signal only the calling task marks (it
    /// was sent to the task's process): a plain read and write, no lock.
    fn set_owned(&self, g: usize, bit: u8) -> bool {
        let a = &self.atomics()[g];
        let old = a.load(Ordering::Relaxed);
        a.store(old | bit, Ordering::Relaxed);
        old & bit != 0
    }

    /// The marks of `n` signals from global index `g` on.
    pub fn of(&self, g: usize, n: usize) -> &[u8] {
        &self.0[g..g + n]
    }
}

/// How many receipts ahead the signal lookups are prefetched.
const PREFETCH_AHEAD: usize = 16;

fn bit_of(kind: ReceiptKind) -> u8 {
    match kind {
        ReceiptKind::Deliver => DELIVERED,
        ReceiptKind::Taken(_) => TAKEN,
        ReceiptKind::Receive => RECEIVED,
    }
}

/// What one receiver's task found.
#[derive(Default)]
struct Found {
    problems: Vec<Inconsistency>,
    unverifiable: Vec<Unverifiable>,
    /// (signal, kind) seen a second time; resolved into `Twice` afterwards.
    twice: Vec<(usize, ReceiptKind)>,
    overtaken: Vec<Overtaken>,
}

/// What the receipt checks found.
pub(super) struct Checked {
    pub problems: Vec<Inconsistency>,
    pub unverifiable: Vec<Unverifiable>,
    pub overtaken: Vec<Overtaken>,
    pub marks: Marks,
}

/// Per row: its signals and the global index of the first, side by side:
/// a receipt finds its signal and the signal's marks with one lookup of
/// its sender (the model keeps the two in arrays of their own).
type Senders<'m> = [(&'m [SignalFact], usize)];

pub(super) fn check(m: &Model) -> Checked {
    let marks = Marks::new(m.total_signals());
    let senders: Vec<(&[SignalFact], usize)> = (0..m.procs.len())
        .map(|s| (m.signals_of(s as TableRow), m.facts.signal_start[s]))
        .collect();
    let found: Vec<Found> = (0..m.procs.len() as TableRow)
        .into_par_iter()
        .with_min_len(64)
        .map(|r| check_receiver(m, &senders, r, &marks))
        .collect();
    let mut problems = Vec::new();
    let mut unverifiable = Vec::new();
    let mut twice = Vec::new();
    let mut overtaken = Vec::new();
    for f in found {
        problems.extend(f.problems);
        unverifiable.extend(f.unverifiable);
        twice.extend(f.twice);
        overtaken.extend(f.overtaken);
    }
    twice.sort_by_key(|&(g, k)| (g, bit_of(k)));
    twice.dedup_by_key(|&mut (g, k)| (g, bit_of(k)));
    if !twice.is_empty() {
        let idx = m.receipt_index();
        for (g, kind) in twice {
            let (sender, index) = locate_signal(m, g);
            let msg = MsgId {
                sender: m.id(sender),
                index: index as u64,
            };
            let receipts = idx
                .of(m, sender, index)
                .iter()
                .map(|&j| idx.receipt(m, j))
                .filter(|(_, rc)| bit_of(rc.kind) == bit_of(kind))
                .map(|(s, rc)| EventId::new(m.id(s), rc.at as u64))
                .collect();
            problems.push(Inconsistency::Twice {
                msg,
                kind,
                receipts,
            });
        }
    }
    Checked {
        problems,
        unverifiable,
        overtaken,
        marks,
    }
}

/// The sender and index of the signal with global index `g`.
pub(super) fn locate_signal(m: &Model, g: usize) -> (TableRow, u32) {
    // Signal ranges follow each other in row order.
    let s = m.procs.partition_point(|p| p.signals.end <= g);
    (s as TableRow, (g - m.procs[s].signals.start) as u32)
}

fn check_receiver(m: &Model, senders: &Senders<'_>, r: TableRow, marks: &Marks) -> Found {
    let mut f = Found::default();
    let mut rest = Receiver {
        me: m.id(r),
        mailbox: HashSet::new(),
        order: SenderOrder::default(),
    };
    let recs = m.receipts_of(r);
    for (j, rc) in recs.iter().enumerate() {
        // The signal a receipt names is anywhere in memory: ask for the one
        // a few receipts ahead now, so that it is in cache when its turn comes.
        // (A prefetch never faults: an index beyond the signals is harmless.)
        if let Some(ahead) = recs.get(j + PREFETCH_AHEAD) {
            if let Some(&(sigs, start)) = senders.get(ahead.sender as usize) {
                let i = ahead.index as usize;
                prefetch(sigs.as_ptr().wrapping_add(i));
                prefetch(marks.0.as_ptr().wrapping_add(start.wrapping_add(i)));
            }
        }
        // A sender of NO_ROW, beyond the table, has no log: reported while building.
        let Some(&(sigs, start)) = senders.get(rc.sender as usize) else {
            continue;
        };
        // Most receipts are a `receive` of a message sent to this process,
        // in a log without deliveries: all there is to check is that it is
        // taken once.
        if rc.kind == ReceiptKind::Receive && !m.deliveries {
            // One bounds check: the signal's own, in its sender's array.
            if let Some(sig) = sigs.get(rc.index as usize) {
                if sig.dest == r && sig.class.is_message() {
                    let g = start + rc.index as usize;
                    if marks.set_owned(g, RECEIVED) {
                        f.twice.push((g, rc.kind));
                    }
                    continue;
                }
            }
        }
        rest.check(m, r, rc, marks, &mut f);
    }
    rest.order.count_more(m, &mut f);
    f
}

/// What a receiver's check keeps from receipt to receipt, for the
/// receipts the quick test above leaves.
struct Receiver {
    me: ProcId,
    /// Delivered messages and converted signals not consumed yet.
    mailbox: HashSet<usize>,
    order: SenderOrder,
}

impl Receiver {
    /// Checks receipt `rc` of process `r` against its signal.
    fn check(&mut self, m: &Model, r: TableRow, rc: &ReceiptFact, marks: &Marks, f: &mut Found) {
        let me = self.me;
        let receipt = EventId::new(me, rc.at as u64);
        let Some(sig) = m.signal(rc.sender, rc.index) else {
            missing(m, rc, receipt, f);
            return;
        };
        let msg = MsgId {
            sender: m.id(rc.sender),
            index: rc.index as u64,
        };
        let t = Taking {
            rc,
            sig: *sig,
            g: m.facts.signal_start[rc.sender as usize] + rc.index as usize,
            receipt,
            msg,
            send: EventId::new(msg.sender, sig.at as u64),
        };
        if t.sig.dest != r && t.sig.dest != DEST_UNKNOWN {
            // Reported once; the signal's marks belong to its destination.
            f.problems.push(Inconsistency::WrongReceiver {
                receipt,
                kind: rc.kind,
                msg,
                send: t.send,
                dest: m.destination(t.sig.dest),
            });
            return;
        }
        let arrival = take(m, r, &t, marks, &mut self.mailbox, &mut f.problems);
        // Only this task marks the signals sent to its process; those of
        // unknown destination may be received anywhere.
        let again = if t.sig.dest == r {
            marks.set_owned(t.g, bit_of(rc.kind))
        } else {
            marks.set(t.g, bit_of(rc.kind))
        };
        if again {
            f.twice.push((t.g, rc.kind));
        }
        // Signals arrive in the order each sender sent them; messages'
        // arrivals are only seen when deliveries are logged.
        if arrival {
            self.order.arrive(me, &t, f);
        }
    }
}

/// A receipt, with the signal it names.
struct Taking<'a> {
    rc: &'a ReceiptFact,
    sig: SignalFact,
    /// The signal's global index.
    g: usize,
    receipt: EventId,
    msg: MsgId,
    send: EventId,
}

/// Checks that the receipt's kind suits the signal and keeps the mailbox:
/// deliveries and conversions put in, receives take out. Says whether the
/// receipt is an arrival.
fn take(
    m: &Model,
    r: TableRow,
    t: &Taking<'_>,
    marks: &Marks,
    mailbox: &mut HashSet<usize>,
    problems: &mut Vec<Inconsistency>,
) -> bool {
    let (sig, g) = (t.sig, t.g);
    let wrong_kind = |class: SignalClass| Inconsistency::WrongKind {
        receipt: t.receipt,
        kind: t.rc.kind,
        msg: t.msg,
        send: t.send,
        class,
    };
    match t.rc.kind {
        ReceiptKind::Deliver => {
            if !sig.class.is_message() {
                problems.push(wrong_kind(sig.class));
            }
            mailbox.insert(g);
            true
        }
        ReceiptKind::Taken(effect) => {
            if sig.class.is_message() || effect == SignalEffect::Converted && !sig.class.converts()
            {
                problems.push(wrong_kind(sig.class));
            }
            if effect == SignalEffect::Converted {
                if sig.dest == r {
                    marks.set_owned(g, CONVERTED);
                } else {
                    marks.set(g, CONVERTED);
                }
                mailbox.insert(g);
            }
            true
        }
        ReceiptKind::Receive => {
            let needs_arrival = !sig.class.is_message() || m.deliveries;
            if needs_arrival && !mailbox.remove(&g) {
                problems.push(Inconsistency::NotArrived {
                    receipt: t.receipt,
                    msg: t.msg,
                    class: sig.class,
                });
            }
            false
        }
    }
}

/// Per sender, the highest signal index that arrived and where, and how
/// many inversions followed the first reported one (per sender and whether
/// the signal is a message).
#[derive(Default)]
struct SenderOrder {
    arrivals: HashMap<TableRow, (u32, u32)>,
    inversions: HashMap<(TableRow, bool), usize>,
}

impl SenderOrder {
    /// Records an arrival; the first that overtakes an earlier signal of
    /// its sender is reported.
    fn arrive(&mut self, me: ProcId, t: &Taking<'_>, f: &mut Found) {
        let rc = t.rc;
        match self.arrivals.get_mut(&{ rc.sender }) {
            Some((last, at)) if *last > rc.index => {
                // The overtaken one may be a timer's message (below).
                let key = (rc.sender, t.sig.class.is_message());
                let n = self.inversions.entry(key).or_insert(0);
                if *n == 0 {
                    let first = (
                        EventId::new(me, *at as u64),
                        MsgId {
                            sender: t.msg.sender,
                            index: *last as u64,
                        },
                    );
                    let inversion = Overtaken {
                        receiver: me,
                        first,
                        then: (t.receipt, t.msg),
                        more: 0,
                    };
                    if key.1 {
                        f.overtaken.push(inversion);
                    } else {
                        f.problems.push(Inconsistency::Fifo(inversion));
                    }
                }
                *n += 1;
            }
            Some(entry) => *entry = (rc.index, rc.at),
            None => {
                self.arrivals.insert(rc.sender, (rc.index, rc.at));
            }
        }
    }

    /// Counts the further inversions into the reports made for each pair.
    fn count_more(&self, m: &Model, f: &mut Found) {
        let more = |o: &mut Overtaken, message: bool| {
            if let Some(slot) = m.slot(o.first.1.sender) {
                o.more = self
                    .inversions
                    .get(&(slot, message))
                    .map_or(0, |n| (*n as u64).saturating_sub(1));
            }
        };
        for p in &mut f.problems {
            if let Inconsistency::Fifo(o) = p {
                more(o, false);
            }
        }
        for o in &mut f.overtaken {
            more(o, true);
        }
    }
}

/// A receipt of a signal its sender's log does not hold: an inconsistency in
/// a complete log, unverifiable when part of the log is missing.
fn missing(m: &Model, rc: &ReceiptFact, receipt: EventId, f: &mut Found) {
    let sender = &m.procs[rc.sender as usize];
    let msg = MsgId {
        sender: sender.id,
        index: rc.index as u64,
    };
    if !m.complete || sender.incomplete() {
        f.unverifiable.push(Unverifiable::Receipt {
            receipt,
            kind: rc.kind,
            msg,
        });
    } else {
        f.problems.push(Inconsistency::NoSuchSignal {
            receipt,
            kind: rc.kind,
            msg,
            sent: Some(sender.signals_sent()),
        });
    }
}
