//! Crowds: a scheduler thread's block buffer for the first slices of new
//! processes. A process whose first slice is also its last (spawned, a
//! message sent, ended) would otherwise open a segment of its own, close
//! it and queue it, and the compressor would take, sort and copy it: a
//! crowd takes its events at the end of one buffer, one row of the segment
//! table each, and goes to the compressor whole, a block's worth at a
//! time. A process that lives on writes its later events into segments of
//! its own, as before; its first slice stays a segment in the crowd.
//!
//! Each thread writes into the crowd of its shard (the open lists' shard):
//! a process takes it for its first slice only if no one holds it (another
//! thread dealt the same shard, the flusher), and otherwise opens a segment
//! of its own, as does one whose first event comes outside its slice (a
//! delivery, on the sender's thread, would hold the crowd until then). The
//! flusher cuts a crowd that has waited the flush interval, as it cuts an
//! open segment: if a process holds it, the process's slice end does.

use super::cell::BufCell;
use super::process::ProcState;
use super::sink::{Queued, Wake};
use super::Inner;
use crate::codec::BlockEncoder;
use crate::container::NO_PARENT;
use crate::segment::Segment;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Room for a row is made for each this many bytes of a crowd: a short
/// process's events take about 25 (a spawn_many child's send and exit).
const ROW_BYTES: usize = 24;

/// A crowd's rows and body, cut and waiting for a compressor: one block.
#[derive(Default)]
pub(crate) struct CrowdBlock {
    /// One row per segment, in the order they were written.
    pub rows: Vec<Segment>,
    /// The rows' events, one after another.
    pub bytes: Vec<u8>,
    pub timestamps: bool,
}

/// A crowd being filled.
pub(crate) struct Crowd {
    /// The encoder of the rows, reset for each; lent with `bytes` to the
    /// process writing a row.
    pub enc: Option<Box<BlockEncoder>>,
    pub bytes: Vec<u8>,
    rows: Vec<Segment>,
    /// Where the row being written starts in `bytes`.
    row_start: usize,
    /// When its first row started: the flusher cuts it a flush interval on.
    opened_at: Option<Instant>,
}

/// One shard's crowd, alone on its cache lines.
#[repr(align(128))]
pub(crate) struct CrowdCell {
    pub crowd: BufCell<Crowd>,
    /// Set by the flusher when it found the crowd held: the holder's slice
    /// end checks whether it is due.
    pub flush_hint: AtomicBool,
}

impl CrowdCell {
    pub fn new() -> Self {
        CrowdCell {
            crowd: BufCell::new(Crowd {
                enc: Some(Box::new(BlockEncoder::new(crate::event::ProcId(0), 0))),
                bytes: Vec::new(),
                rows: Vec::new(),
                row_start: 0,
                opened_at: None,
            }),
            flush_hint: AtomicBool::new(false),
        }
    }
}

impl Crowd {
    /// Starts a row for `state`'s events from here on.
    pub fn start_row(&mut self, state: &ProcState, block_size: usize) {
        if self.opened_at.is_none() {
            self.opened_at = Some(Instant::now());
            // The block's size and one event past it, and a row for every
            // ROW_BYTES of it: no reallocation for a crowd of short
            // processes (a no-op when the vectors came back from a
            // compressor with their room).
            self.bytes.reserve(block_size + 256);
            self.rows.reserve(block_size / ROW_BYTES);
        }
        self.row_start = self.bytes.len();
        if let Some(enc) = self.enc.as_mut() {
            enc.reset(state.id, state.pid);
        }
    }

    /// Ends the row being written: `events` events of `state`'s, the first
    /// its `first_event`-th, its first signal `first_signal`.
    pub fn end_row(&mut self, state: &ProcState, first_event: u64, first_signal: u64, events: u32) {
        if events == 0 {
            return;
        }
        let origin =
            (first_event == 0).then(|| (state.pid, state.parent.map_or(NO_PARENT, |p| p.0)));
        self.rows.push(Segment {
            process: state.id.0,
            first_event,
            first_signal,
            events,
            raw_len: (self.bytes.len() - self.row_start) as u32,
            origin,
        });
        self.row_start = self.bytes.len();
    }

    /// Whether the crowd holds a block's worth.
    #[inline]
    pub fn full(&self, block_size: usize) -> bool {
        self.bytes.len() >= block_size
    }

    /// Whether a flush interval has passed since its first row started.
    pub fn due(&self, inner: &Inner) -> bool {
        self.opened_at
            .is_some_and(|t| t.elapsed() >= inner.opts.flush_interval)
    }

    /// Hands the ended rows to the compressors as one block (none if no row
    /// ended). Call between rows.
    pub fn cut(&mut self, inner: &Inner, wake: Wake) {
        self.opened_at = None;
        self.row_start = 0;
        if self.rows.is_empty() {
            self.bytes.clear();
            return;
        }
        // The crowd goes on with a spent block's vectors, emptied, when a
        // compressor has handed one back.
        let mut block = inner.queue.spare_crowd().unwrap_or_default();
        std::mem::swap(&mut block.rows, &mut self.rows);
        std::mem::swap(&mut block.bytes, &mut self.bytes);
        block.timestamps = inner.opts.timestamps;
        inner.submit_queued(Queued::Crowd(block), wake);
    }
}

/// Whether a holder's slice end should cut the crowd: the flusher found it
/// due while it was held.
#[inline]
pub(crate) fn take_hint(cell: &CrowdCell) -> bool {
    cell.flush_hint.load(Ordering::Relaxed) && {
        cell.flush_hint.store(false, Ordering::Relaxed);
        true
    }
}
