//! The part of a process log a cursor holds: a few events at a time,
//! decoded from the process's current block when the cursor reaches them.
//! A replay then holds one block's bytes per live process, not every
//! process's whole log decoded: replaying a run of millions of events per
//! process takes about the memory recording it took.

use std::ops::Range;
use trace_format::{BlockCursor, Event, EventRef, FormatError, LogReader, ProcId};

/// Events decoded at a time.
const CHUNK: usize = 64;

pub(crate) struct Window {
    /// Blocks of the process not opened yet (positions in the reader's list).
    blocks: Range<usize>,
    /// The block being read, while it has events left to decode. Boxed: a
    /// cursor holds the decoder's predictors (over a kilobyte), and most
    /// processes of a large run have no block open.
    block: Option<Box<BlockCursor>>,
    /// The events decoded and not all replayed (`Deliver` events left out:
    /// arrivals are not choices), each with its index in the recorded
    /// process log; `at` is the next one.
    events: Vec<(u64, Event)>,
    at: usize,
    /// Events replayed before those in `events`.
    before: usize,
    /// Events at this index and later are not replayed (a hold).
    limit: u64,
    /// Nothing is left to decode: the last block was read, the limit was
    /// reached, or a block did not decode (the process log ends there).
    ended: bool,
    /// The allocation of the events replayed before, reused.
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
            block: None,
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

    /// The `k`-th event after the current one (`k = 0`: the current one),
    /// decoding ahead as far as that needs.
    pub fn ahead(&mut self, log: &LogReader, k: usize) -> Option<&(u64, Event)> {
        while self.events.len() <= self.at + k && !self.ended {
            let more = self.decode_chunk(log);
            self.events.extend(more);
        }
        self.events.get(self.at + k)
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

    /// Reads the next events of `block`, keeping it open while it has more;
    /// returns whether it has.
    fn read_chunk(
        &mut self,
        mut block: Box<BlockCursor>,
        keep: impl FnMut(u64, EventRef<'_>),
    ) -> Result<bool, FormatError> {
        let more = block.next_events(CHUNK, keep);
        if matches!(more, Ok(true)) {
            self.block = Some(block);
        }
        more
    }

    /// Decodes until an event to replay is at hand or none is left. The
    /// events just replayed stay until then, so that
    /// [`last_index`](Self::last_index) still names the last one.
    fn fill(&mut self, log: &LogReader) {
        while self.at >= self.events.len() && !self.ended {
            let next = self.decode_chunk(log);
            if next.is_empty() {
                self.spare = next;
                continue;
            }
            self.before += self.events.len();
            self.spare = std::mem::replace(&mut self.events, next);
            self.at = 0;
        }
    }

    /// The next events to replay of the process log (possibly none, when a
    /// chunk held only deliveries), marking the window ended when nothing
    /// is left to decode.
    fn decode_chunk(&mut self, log: &LogReader) -> Vec<(u64, Event)> {
        let mut next = std::mem::take(&mut self.spare);
        next.clear();
        let (limit, mut past_limit) = (self.limit, false);
        let mut keep = |i: u64, e: EventRef<'_>| {
            if i >= limit {
                past_limit = true;
            } else if !matches!(e, EventRef::Deliver { .. }) {
                next.push((i, e.to_owned()));
            }
        };
        // A malformed block or event ends the process log there, the
        // events before it kept (the command that opened the log has
        // shown the reader's warnings).
        let more = match self.block.take() {
            Some(block) => self.read_chunk(block, &mut keep),
            None => match self.blocks.next() {
                None => Ok(false),
                // A short block is decoded whole, without a cursor.
                Some(b) if log.block(b).is_some_and(|i| i.events as usize <= CHUNK) => log
                    .for_each_event_in_block(b, |i, _, e| keep(i, e))
                    .map(|()| false),
                Some(b) => match log.block_cursor(b) {
                    Some(Ok(block)) => self.read_chunk(Box::new(block), &mut keep),
                    Some(Err(e)) => Err(e),
                    None => Ok(false),
                },
            },
        };
        self.ended = match more {
            Err(_) => true,
            Ok(more) => past_limit || !more && self.blocks.is_empty(),
        };
        if past_limit {
            self.block = None;
        }
        next
    }
}
