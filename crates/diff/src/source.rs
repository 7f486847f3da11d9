//! Where compared events come from: a process log decoded a window of events
//! at a time ([`BlockStream`], memory bounded by the window and a block's
//! stored bytes), or a projection held
//! whole ([`Projected`], an observer's log under `--observe`).

use crate::event::{Item, LoggedEvent};
use crate::run::{Run, TableRow};
use std::ops::Range;
use trace_format::{BlockCursor, EventRef, Warning};

/// A prefix of a process log: its first `events` events, holding `signals`
/// signals sent and `spawns` spawns.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Cut {
    pub events: u64,
    pub signals: u64,
    pub spawns: u64,
}

impl Cut {
    pub(crate) fn covers(&self, need: &Cut) -> bool {
        self.events >= need.events && self.signals >= need.signals && self.spawns >= need.spawns
    }
}

/// A sequence of events, read by peeking and advancing.
pub(crate) trait Source {
    /// The next event (with [`Source::arena`] for its payloads).
    fn peek(&mut self) -> Option<Item>;
    fn arena(&self) -> &[u8];
    fn advance(&mut self);
    /// The events at hand from the next one on (refilled when used up;
    /// empty at the end), with the arena of their payloads.
    fn window(&mut self) -> (&[Item], &[u8]);
    /// Moves past the first `n` events of the window.
    fn consume(&mut self, n: usize);
    /// The whole log read so far: events, signals and spawns (all of them
    /// once the source is exhausted, compared or not).
    fn read(&self) -> Cut;
}

/// One process's log, block by block.
pub(crate) struct BlockStream<'a> {
    run: &'a Run<'a>,
    slot: TableRow,
    blocks: Range<usize>,
    /// The block being read (`block`), while events are left in it.
    cursor: Option<BlockCursor>,
    block: usize,
    items: Vec<Item>,
    arena: Vec<u8>,
    pos: usize,
    events: u64,
    signals: u64,
    spawns: u64,
    /// Deliveries are left out (the other log did not record them).
    skip_deliveries: bool,
    /// A spawn's child is not the child the names say (see [`crate::run`]).
    pub names_wrong: bool,
    /// A block did not decode: the process log ends before it.
    pub damaged: Option<Warning>,
}

type Buffers = (Vec<Item>, Vec<u8>);

thread_local! {
    /// Buffers of finished streams, for the next ones on this thread: a
    /// comparison makes two streams per process, and growing their buffers
    /// anew each time costs more than comparing a small process.
    static SPARE: std::cell::RefCell<Vec<Buffers>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl Drop for BlockStream<'_> {
    fn drop(&mut self) {
        let mut b = (
            std::mem::take(&mut self.items),
            std::mem::take(&mut self.arena),
        );
        b.0.clear();
        b.1.clear();
        SPARE.with(|s| {
            let mut s = s.borrow_mut();
            if s.len() < 4 {
                s.push(b);
            }
        });
    }
}

impl<'a> BlockStream<'a> {
    pub fn new(run: &'a Run<'a>, slot: TableRow, skip_deliveries: bool) -> Self {
        let (items, arena) = SPARE.with(|s| s.borrow_mut().pop()).unwrap_or_default();
        BlockStream {
            run,
            slot,
            blocks: run.blocks(slot),
            cursor: None,
            block: 0,
            items,
            arena,
            pos: 0,
            events: 0,
            signals: 0,
            spawns: 0,
            skip_deliveries,
            names_wrong: false,
            damaged: None,
        }
    }

    /// Decodes the next events, at most [`WINDOW`] of them: a block of
    /// millions of tiny events (a log a thousand times smaller decoded) is
    /// never held decoded whole.
    fn refill(&mut self) {
        while self.pos == self.items.len() && (self.cursor.is_some() || !self.blocks.is_empty()) {
            self.items.clear();
            self.arena.clear();
            self.pos = 0;
            let cursor = match self.cursor.take() {
                Some(c) => Ok(c),
                None => {
                    self.block = self.blocks.start;
                    self.blocks.start += 1;
                    match self.run.reader.block_cursor(self.block) {
                        Some(c) => c,
                        None => continue,
                    }
                }
            };
            let r = cursor.and_then(|mut c| {
                let more = self.decode(&mut c)?;
                self.cursor = more.then_some(c);
                Ok(())
            });
            if let Err(e) = r {
                // As the reader serves damaged logs: up to the first bad block.
                let first = self.run.block_first_event(self.block);
                self.damaged = Some(Warning::at(
                    e.offset().unwrap_or(0),
                    format!(
                        "process {} {}: {e}; its log is compared up to event {first}",
                        self.run.id(self.slot).0,
                        trace_format::text::pid_text(self.run.pid(self.slot))
                    ),
                ));
                self.items.clear();
                self.cursor = None;
                self.blocks.start = self.blocks.end;
            }
        }
    }

    /// One window of `c`'s events into the items; whether events are left.
    fn decode(&mut self, c: &mut BlockCursor) -> Result<bool, trace_format::FormatError> {
        let (run, slot, skip) = (self.run, self.slot, self.skip_deliveries);
        let (items, arena) = (&mut self.items, &mut self.arena);
        let (mut sig, mut sp, mut wrong, mut n) = (self.signals, self.spawns, false, self.events);
        let r = c.next_events(WINDOW, |index, e| {
            let mut ev = LoggedEvent::from_ref(&e, arena);
            if let LoggedEvent::Shared { after, .. } = &mut ev {
                *after = run.shared_predecessor(run.id(slot), index);
            }
            let item = Item {
                index,
                signals: sig,
                spawns: sp,
                ev,
            };
            match e {
                EventRef::Send { .. } | EventRef::Signal { .. } => sig += 1,
                EventRef::Spawn { child, .. } => {
                    sp += 1;
                    wrong |= run.child(slot, sp) != run.slot(child);
                }
                _ => {}
            }
            if !(skip && matches!(e, EventRef::Deliver { .. })) {
                items.push(item);
            }
            n = index + 1;
        });
        // The counts move on only with what decoded well, as before the
        // first bad block.
        if r.is_ok() {
            self.events = n;
            self.signals = sig;
            self.spawns = sp;
            self.names_wrong |= wrong;
        }
        r
    }
}

/// Events decoded at a time from one block.
const WINDOW: usize = 4096;

impl Source for BlockStream<'_> {
    fn peek(&mut self) -> Option<Item> {
        if self.pos == self.items.len() {
            self.refill();
        }
        self.items.get(self.pos).copied()
    }

    fn arena(&self) -> &[u8] {
        &self.arena
    }

    fn advance(&mut self) {
        self.pos += 1;
    }

    fn window(&mut self) -> (&[Item], &[u8]) {
        if self.pos == self.items.len() {
            self.refill();
        }
        (&self.items[self.pos..], &self.arena)
    }

    fn consume(&mut self, n: usize) {
        self.pos += n;
    }

    fn read(&self) -> Cut {
        Cut {
            events: self.events,
            signals: self.signals,
            spawns: self.spawns,
        }
    }
}

impl BlockStream<'_> {
    /// Reads to the end, comparing nothing.
    pub fn drain(&mut self) -> Cut {
        while self.peek().is_some() {
            self.pos = self.items.len();
        }
        self.read()
    }
}

/// Events held whole.
#[derive(Default)]
pub(crate) struct Projected {
    pub items: Vec<Item>,
    pub arena: Vec<u8>,
    pub pos: usize,
    /// The whole log the projection was taken from.
    pub total: Cut,
}

impl Source for Projected {
    fn peek(&mut self) -> Option<Item> {
        self.items.get(self.pos).copied()
    }

    fn arena(&self) -> &[u8] {
        &self.arena
    }

    fn advance(&mut self) {
        self.pos += 1;
    }

    fn window(&mut self) -> (&[Item], &[u8]) {
        (&self.items[self.pos.min(self.items.len())..], &self.arena)
    }

    fn consume(&mut self, n: usize) {
        self.pos += n;
    }

    fn read(&self) -> Cut {
        self.total
    }
}
