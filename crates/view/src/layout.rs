//! Where each event goes in a picture: its causes (the send it received,
//! the spawn that started its process) and its row.
//!
//! Rows are Lamport clocks over the events placed: an event's row is one
//! more than the latest of its process's previous event, its causes and
//! the previous operation placed on the shared object it touched. A cause
//! always lies on an earlier row, so every arrow points down (or right, in
//! time-based viewers), and concurrent events of different processes share
//! rows: the picture is as short as happened-before allows.

use std::collections::HashMap;
use trace_causal::{EventId, Model, SignalClass, Step};
use trace_format::{EventRef, MsgId, ObjectId, ProcId};

/// What an arrow into an event stands for: how the event received its cause.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Link {
    /// A `receive` consumed the message.
    Message,
    /// The message entered the mailbox (logs recorded with deliveries).
    Delivery,
    /// A `receive` consumed an exit or 'DOWN' signal turned into a message.
    Converted,
    /// A non-message signal was taken.
    Signal(SignalClass),
}

impl Link {
    /// Every link, in the order of [`Link::code`].
    pub const NAMES: [&'static str; 10] = [
        "message",
        "delivery",
        "converted",
        "link",
        "unlink",
        "exit",
        "exit_link",
        "monitor",
        "demonitor",
        "down",
    ];

    /// Its index in [`Link::NAMES`], what the page and the exports name it by.
    pub fn code(self) -> u8 {
        match self {
            Link::Message => 0,
            Link::Delivery => 1,
            Link::Converted => 2,
            Link::Signal(c) => class_code(c),
        }
    }

    pub fn name(self) -> &'static str {
        Link::NAMES[self.code() as usize]
    }
}

/// A signal class's index in [`Link::NAMES`] (a message is `message`).
pub fn class_code(c: SignalClass) -> u8 {
    match c {
        SignalClass::Message => 0,
        SignalClass::Link => 3,
        SignalClass::Unlink => 4,
        SignalClass::Exit { linked: false } => 5,
        SignalClass::Exit { linked: true } => 6,
        SignalClass::Monitor => 7,
        SignalClass::Demonitor => 8,
        SignalClass::Down => 9,
    }
}

/// One event placed in the picture.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Placed {
    pub row: u32,
    /// The send (or signal) this event received, and how.
    pub cause: Option<(EventId, Link)>,
    /// The row of the cause, when it was placed.
    pub cause_row: Option<u32>,
    /// The spawn that created this process, for its first event.
    pub spawned_by: Option<EventId>,
    /// The row of that spawn, when it was placed.
    pub spawn_row: Option<u32>,
}

/// Places events one by one, in an order that respects happened-before (a
/// derivation, or a convex part of one). Memory: a row per process, per
/// signal sent and per shared object placed.
pub struct Layout<'m> {
    model: &'m Model,
    /// Per process: the row after its last placed event.
    next_row: HashMap<ProcId, u32>,
    /// The row of each placed send or signal, until its last receipt.
    sent: UntilReceived<u32>,
    /// The row of each placed spawn, by child.
    spawned: HashMap<ProcId, u32>,
    /// Per shared object: the row after its last placed operation.
    objects: HashMap<ObjectId, u32>,
    /// Rows used so far.
    rows: u32,
}

impl<'m> Layout<'m> {
    pub fn new(model: &'m Model) -> Self {
        Layout {
            model,
            next_row: HashMap::new(),
            sent: UntilReceived::default(),
            spawned: HashMap::new(),
            objects: HashMap::new(),
            rows: 0,
        }
    }

    /// How many rows the placed events take.
    pub fn rows(&self) -> u32 {
        self.rows
    }

    /// Places the next event.
    pub fn place(&mut self, step: &Step<'_>) -> Placed {
        let e = step.event;
        let event = step.as_event_ref();
        let cause = cause_of(self.model, &event);
        let spawned_by = (e.index == 0)
            .then(|| self.model.spawn_of(e.proc))
            .flatten();
        let mut row = self.next_row.get(&e.proc).copied().unwrap_or(0);
        let cause_row = cause
            .and(received(&event))
            .and_then(|msg| self.sent.take(msg));
        let spawn_row = spawned_by.and(self.spawned.get(&e.proc).copied());
        for r in [cause_row, spawn_row].into_iter().flatten() {
            row = row.max(r + 1);
        }
        if let EventRef::Shared {
            object: Some(o), ..
        } = event
        {
            let next = self.objects.entry(o).or_insert(0);
            row = row.max(*next);
            *next = row + 1;
        }
        match event {
            EventRef::Send { msg, .. } | EventRef::Signal { signal: msg, .. } => {
                self.sent.keep(self.model, msg, row);
            }
            EventRef::Spawn { child, .. } => {
                self.spawned.insert(child, row);
            }
            _ => {}
        }
        self.next_row.insert(e.proc, row + 1);
        self.rows = self.rows.max(row + 1);
        Placed {
            row,
            cause,
            cause_row,
            spawned_by,
            spawn_row,
        }
    }
}

/// What a send leaves for its receipts, kept until the last of them takes
/// it: memory grows with the signals in flight, not all those of a log.
pub(crate) struct UntilReceived<V> {
    held: HashMap<MsgId, (V, usize)>,
}

impl<V> Default for UntilReceived<V> {
    fn default() -> Self {
        UntilReceived {
            held: HashMap::new(),
        }
    }
}

impl<V: Clone> UntilReceived<V> {
    /// Keeps `v` for the receipts of `msg` the model knows (none: not
    /// kept); returns how many there are.
    pub fn keep(&mut self, model: &Model, msg: MsgId, v: V) -> usize {
        let receipts = model.receipts_of_msg(msg).len();
        if receipts > 0 {
            self.held.insert(msg, (v, receipts));
        }
        receipts
    }

    /// What `msg`'s send left, for one of its receipts.
    pub fn take(&mut self, msg: MsgId) -> Option<V> {
        let (v, left) = self.held.get_mut(&msg)?;
        *left -= 1;
        if *left == 0 {
            return self.held.remove(&msg).map(|(v, _)| v);
        }
        Some(v.clone())
    }
}

/// The signal a receipt event received.
pub(crate) fn received(e: &EventRef<'_>) -> Option<MsgId> {
    match *e {
        EventRef::Deliver { msg } | EventRef::Receive { msg } => Some(msg),
        EventRef::SignalTaken { signal, .. } => Some(signal),
        _ => None,
    }
}

/// The send an event received, as the causal model knows it, and how.
pub fn cause_of(model: &Model, e: &EventRef<'_>) -> Option<(EventId, Link)> {
    let (send, class, _) = model.send_of(received(e)?)?;
    let link = match (e, class) {
        (EventRef::Deliver { .. }, _) => Link::Delivery,
        (EventRef::Receive { .. }, SignalClass::Message) => Link::Message,
        (EventRef::Receive { .. }, _) => Link::Converted,
        (_, c) => Link::Signal(c),
    };
    Some((send, link))
}
