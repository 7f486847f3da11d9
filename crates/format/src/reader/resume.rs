//! Reading a block a few events at a time, for readers that keep many
//! blocks open at once (a replay holds one per live process): a
//! [`BlockCursor`] owns the block's decoded bytes and the decoder's place in
//! them, and holds no events.

use super::decode::{with_scratch, BlockInfo, Events};
use super::LogReader;
use crate::codec::{BlockDecoder, DecoderState};
use crate::error::FormatError;
use crate::event::ProcId;
use crate::view::EventRef;

/// One block, read on demand.
pub struct BlockCursor {
    info: BlockInfo,
    raw: Vec<u8>,
    /// `None` once the block is read to its end or failed.
    state: Option<DecoderState>,
    seen: u32,
}

impl LogReader {
    /// A reader of the block at position `block` of [`blocks`](Self::blocks):
    /// its checksum is checked and it is decompressed now, its events are
    /// decoded as [`BlockCursor::next_events`] asks for them. `None` when
    /// there is no such block.
    pub fn block_cursor(&self, block: usize) -> Option<Result<BlockCursor, FormatError>> {
        let b = self.seg(block)?;
        Some(with_scratch(|scratch| {
            let raw = self.raw_alone(b, scratch)?.to_vec();
            let rec = &self.records[b.record as usize];
            let st = BlockDecoder::new(
                &raw,
                ProcId(b.process),
                b.pid,
                b.first_signal,
                rec.timestamps,
            )
            .with_version(self.binding.version)
            .detach();
            Ok(BlockCursor {
                info: BlockInfo::of(b, rec),
                raw,
                state: Some(st),
                seen: 0,
            })
        }))
    }
}

impl BlockCursor {
    /// The block being read.
    pub fn info(&self) -> &BlockInfo {
        &self.info
    }

    /// Decodes up to `max` more events, in program order, handing each to
    /// `f` with its index in the process log. Returns whether events are
    /// left. The block's end is checked as a whole read checks it: a
    /// malformed event, or more or fewer events than the block's header
    /// says, is an error (after `f` saw the events before it), and ends
    /// the block.
    pub fn next_events(
        &mut self,
        max: usize,
        mut f: impl FnMut(u64, EventRef<'_>),
    ) -> Result<bool, FormatError> {
        self.next_timed_events(max, |i, _, e| f(i, e))
    }

    /// [`next_events`](Self::next_events), with each event's time since the
    /// run started when the block has timestamps.
    pub fn next_timed_events(
        &mut self,
        max: usize,
        mut f: impl FnMut(u64, Option<u64>, EventRef<'_>),
    ) -> Result<bool, FormatError> {
        let Some(st) = self.state.take() else {
            return Ok(false);
        };
        let mut ev = Events::resume(&self.raw, self.info, st, self.seen);
        for _ in 0..max {
            let Some(e) = ev.next() else { break };
            f(ev.index(), ev.time(), e);
        }
        if ev.done() {
            return ev.finish().map(|()| false);
        }
        (self.state, self.seen) = {
            let (st, seen) = ev.suspend();
            (Some(st), seen)
        };
        Ok(true)
    }
}
