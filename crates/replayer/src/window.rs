//! The part of a process log a cursor holds: the events of one block at a
//! time, decoded when the cursor reaches the block. A replay then holds a
//! block per live process, not every process's whole log: replaying a run
//! of millions of events per process takes the memory recording it took.

use std::ops::Range;
use trace_format::{Event, EventRef, LogReader, ProcId};

pub(crate) struct Window {
    /// Blocks of the process not loaded yet (positions in the reader's list).
    blocks: Range<usize>,
    /// The events of the block being replayed (its `Deliver` events left
    /// out: arrivals are not choices), each with its index in the recorded
    /// process log; `at` is the next one.
    events: Vec<(u64, Event)>,
    at: usize,
    /// Events of the blocks before this one.
    before: usize,
    /// Events at this index and later are not replayed (a hold).
    limit: u64,
    /// No block is left to load: the last one was loaded, reached the
    /// limit, or did not decode (the process log ends there).
    ended: bool,
    spare: Vec<(u64, Event)>,
}

impl Window {
    /// The start of process `id`'s log (empty when the log has no such
    /// process), up to event `limit`.
    pub fn new(log: &LogReader, id: Option<ProcId>, limit: u64) -> Window {
        let blocks = id
            .and_then(|id| log.process(id))
            .map_or(0..0, |p| p.block_positions());
        let mut w = Window {
            blocks,
            events: Vec::new(),
            at: 0,
            before: 0,
            limit,
            ended: false,
            spare: Vec::new(),
        };
        w.fill(log);
        w
    }

    /// The next event to replay and its index in the process log.
    pub fn current(&self) -> Option<&(u64, Event)> {
        self.events.get(self.at)
    }

    /// Events replayed so far (`Deliver` events not counted).
    pub fn position(&self) -> usize {
        self.before + self.at
    }

    /// The index in the process log of the last event held, if any.
    pub fn last_index(&self) -> Option<u64> {
        self.events.last().map(|(i, _)| *i)
    }

    /// Every event up to the limit has been replayed.
    pub fn exhausted(&self) -> bool {
        self.ended && self.at >= self.events.len()
    }

    /// Moves past the current event, loading the next block when this one
    /// is done.
    pub fn advance(&mut self, log: &LogReader) {
        self.at += 1;
        self.fill(log);
    }

    /// Loads blocks until one has an event to replay or none is left. The
    /// events of the block just finished stay until then, so that
    /// [`last_index`](Self::last_index) still names the last one.
    fn fill(&mut self, log: &LogReader) {
        while self.at >= self.events.len() && !self.ended {
            let Some(b) = self.blocks.next() else {
                self.ended = true;
                break;
            };
            let mut next = std::mem::take(&mut self.spare);
            next.clear();
            let (limit, mut past_limit) = (self.limit, false);
            // A block that does not decode ends the process log there (the
            // command that opened the log has shown the reader's warnings);
            // the events before the bad one are kept.
            let read = log.for_each_event_in_block(b, |i, _, e| {
                if i >= limit {
                    past_limit = true;
                } else if !matches!(e, EventRef::Deliver { .. }) {
                    next.push((i, e.to_owned()));
                }
            });
            self.ended = read.is_err() || past_limit || self.blocks.is_empty();
            if next.is_empty() {
                self.spare = next;
                continue;
            }
            self.before += self.events.len();
            self.spare = std::mem::replace(&mut self.events, next);
            self.at = 0;
        }
    }
}
