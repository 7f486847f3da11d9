//! Decoding blocks: check the body's checksum, decompress it (zstd, with the
//! decoded size known and bounded in advance), and run the codec over it.
//! Blocks decode independently, so whole logs decode in parallel with rayon.

use super::table::BlockRef;
use super::LogReader;
use crate::codec::{BlockDecoder, CodecError, DecoderState};
use crate::container::{Storage, BLOCK_HEADER_LEN};
use crate::error::{FormatError, Warning};
use crate::event::{Event, ProcId, ProcessLog};
use crate::prefetch::prefetch_entry;
use crate::view::EventRef;
use rayon::prelude::*;

/// Where a block sits and what it holds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BlockInfo {
    pub process: ProcId,
    /// The process's raw pid number.
    pub pid: u64,
    /// Index of the block's first event in the process log.
    pub first_event: u64,
    pub events: u32,
    /// Signal index of the block's first `Send`/`Signal`.
    pub first_signal: u64,
    /// Offset of the block record in the file.
    pub offset: u64,
    /// Bytes of the stored (compressed) body and of the decoded body.
    pub stored_len: u32,
    pub raw_len: u32,
}

impl BlockInfo {
    pub(super) fn of(b: &BlockRef) -> Self {
        let h = &b.header;
        BlockInfo {
            process: ProcId(h.process),
            pid: h.pid,
            first_event: h.first_event,
            events: h.events,
            first_signal: h.first_signal,
            offset: b.offset,
            stored_len: h.stored_len,
            raw_len: h.raw_len,
        }
    }
}

/// The events of one block, borrowed from its decoded bytes. Iteration stops
/// at the first malformed event; the caller that handed out the iterator
/// reports the error.
pub struct Events<'a> {
    dec: BlockDecoder<'a>,
    info: BlockInfo,
    seen: u32,
    error: Option<CodecError>,
}

impl<'a> Events<'a> {
    pub(super) fn new(raw: &'a [u8], b: &BlockRef) -> Self {
        let h = &b.header;
        Events {
            dec: BlockDecoder::new(
                raw,
                ProcId(h.process),
                h.pid,
                h.first_signal,
                h.timestamps(),
            )
            .with_version(b.version),
            info: BlockInfo::of(b),
            seen: 0,
            error: None,
        }
    }

    /// Events over `raw` resumed where a decoder over the same bytes was
    /// detached, after `seen` events.
    pub(super) fn resume(raw: &'a [u8], info: BlockInfo, st: DecoderState, seen: u32) -> Self {
        Events {
            dec: BlockDecoder::attach(raw, st),
            info,
            seen,
            error: None,
        }
    }

    /// Whether the block is read to its end, or failed ([`finish`](Self::finish) says which).
    pub(super) fn done(&self) -> bool {
        self.error.is_some() || self.dec.position() >= self.dec.len()
    }

    /// The decoder's place and the events read, to resume later.
    pub(super) fn suspend(self) -> (DecoderState, u32) {
        (self.dec.detach(), self.seen)
    }

    /// The block being read.
    pub fn info(&self) -> &BlockInfo {
        &self.info
    }

    /// Index in the process log of the event last returned.
    pub fn index(&self) -> u64 {
        self.info.first_event + self.seen as u64 - 1
    }

    /// Time of the event last returned (ns since the run started), if the log has timestamps.
    pub fn time(&self) -> Option<u64> {
        self.dec.time()
    }

    /// Checks that the block decoded completely and held the declared number of events.
    pub(super) fn finish(mut self) -> Result<(), FormatError> {
        // Drain what the caller left unread so the count is checked too.
        while self.next().is_some() {}
        let offset = self.info.offset;
        let what = |s: String| {
            FormatError::corrupt(
                offset,
                format!(
                    "a block of process {} (events {}..{}) that decodes: {s}",
                    self.info.process.0,
                    self.info.first_event,
                    self.info.first_event + self.info.events as u64
                ),
            )
        };
        if let Some(e) = self.error.take() {
            return Err(what(e.to_string()));
        }
        if self.seen != self.info.events {
            return Err(what(format!(
                "{} events as its header says, found {}",
                self.info.events, self.seen
            )));
        }
        Ok(())
    }
}

impl<'a> Iterator for Events<'a> {
    type Item = EventRef<'a>;

    #[inline(always)]
    fn next(&mut self) -> Option<EventRef<'a>> {
        if self.error.is_some() {
            return None;
        }
        match self.dec.next() {
            Ok(Some(e)) => {
                self.seen += 1;
                if self.seen > self.info.events {
                    self.error = Some(CodecError {
                        at: self.dec.position(),
                        expected: format!("the end of the block after {} events", self.info.events),
                    });
                    return None;
                }
                Some(e)
            }
            Ok(None) => None,
            Err(e) => {
                self.error = Some(e);
                None
            }
        }
    }
}

/// Per-thread decompression state.
pub(super) struct Scratch {
    zstd: Option<zstd::bulk::Decompressor<'static>>,
    buf: Vec<u8>,
}

impl Scratch {
    pub fn new() -> Self {
        Scratch {
            zstd: None,
            buf: Vec::new(),
        }
    }
}

thread_local! {
    /// Decompression state kept per thread between one-process and one-block
    /// reads: a zstd context and its buffer cost more to create than a small
    /// block costs to decode, and callers (diff, replay) read many of them.
    static SPARE: std::cell::Cell<Option<Scratch>> = const { std::cell::Cell::new(None) };
}

/// Runs `f` with this thread's spare scratch; it is taken out for the call,
/// so a read nested in `f` gets a scratch of its own.
pub(super) fn with_scratch<R>(f: impl FnOnce(&mut Scratch) -> R) -> R {
    let mut s = SPARE.with(|c| c.take()).unwrap_or_else(Scratch::new);
    let r = f(&mut s);
    SPARE.with(|c| c.set(Some(s)));
    r
}

/// Blocks per task of [`LogReader::par_map_blocks`], and how far ahead in
/// file order a block's entry in the table is asked for.
const CHUNK: usize = 256;
const AHEAD: usize = 8;

/// Largest zstd window a block may ask for: blocks are at most 64 MiB.
const WINDOW_LOG_MAX: u32 = 27;

impl LogReader {
    /// The decoded body of a block: checksum checked, decompressed into
    /// `scratch` (or borrowed from the file when stored raw).
    pub(super) fn raw<'s>(
        &'s self,
        b: &BlockRef,
        scratch: &'s mut Scratch,
    ) -> Result<&'s [u8], FormatError> {
        let h = &b.header;
        let body_at = b.offset as usize + BLOCK_HEADER_LEN;
        let stored = &self.data[body_at..body_at + h.stored_len as usize];
        let fail = |what: String| {
            FormatError::corrupt(
                b.offset,
                format!(
                    "an intact block of process {} (events {}..{}): {what}",
                    h.process,
                    h.first_event,
                    h.first_event + h.events as u64
                ),
            )
        };
        if self.binding.body_crc(stored) != h.body_crc {
            return Err(fail("body checksum mismatch".into()));
        }
        match h.storage {
            Storage::Raw => Ok(stored),
            Storage::Zstd => {
                if scratch.zstd.is_none() {
                    let mut d =
                        zstd::bulk::Decompressor::new().map_err(|e| fail(format!("zstd: {e}")))?;
                    d.set_parameter(zstd::zstd_safe::DParameter::WindowLogMax(WINDOW_LOG_MAX))
                        .map_err(|e| fail(format!("zstd: {e}")))?;
                    scratch.zstd = Some(d);
                }
                let d = scratch.zstd.as_mut().expect("created above");
                let raw_len = h.raw_len as usize;
                scratch.buf.clear();
                // raw_len was bounded against MAX_BLOCK_RAW and the stored size when the header was parsed.
                scratch.buf.reserve(raw_len);
                match d.decompress_to_buffer(stored, &mut scratch.buf) {
                    Ok(n) if n == raw_len => Ok(&scratch.buf[..n]),
                    Ok(n) => Err(fail(format!("{raw_len} decompressed bytes, found {n}"))),
                    Err(e) => Err(fail(format!(
                        "zstd data that decompresses to {raw_len} bytes: {e}"
                    ))),
                }
            }
        }
    }

    fn blocks_of(&self, id: ProcId) -> &[BlockRef] {
        match self.process(id) {
            Some(p) => &self.blocks[p.blocks.clone()],
            None => &[],
        }
    }

    /// Every readable block, grouped by process in id order, each process's in event order.
    pub fn blocks(&self) -> impl ExactSizeIterator<Item = BlockInfo> + '_ {
        self.blocks.iter().map(BlockInfo::of)
    }

    /// The block at a position of [`blocks`](Self::blocks).
    pub fn block(&self, block: usize) -> Option<BlockInfo> {
        self.blocks.get(block).map(BlockInfo::of)
    }

    /// The bytes of a block (its position in [`blocks`](Self::blocks)) as
    /// the file holds them, header record and stored body: two blocks with
    /// equal bytes decode to equal events (diff compares them so, without
    /// decoding, when two logs number their processes alike).
    pub fn block_bytes(&self, block: usize) -> Option<&[u8]> {
        let b = self.blocks.get(block)?;
        let at = b.offset as usize;
        self.data
            .get(at..at + BLOCK_HEADER_LEN + b.header.stored_len as usize)
    }

    /// Calls `f` on each event of process `id`, in program order, without
    /// allocating per event. `f` gets the event's index in the process log,
    /// its time when the log has timestamps, and the event.
    pub fn for_each_event_of(
        &self,
        id: ProcId,
        mut f: impl FnMut(u64, Option<u64>, EventRef<'_>),
    ) -> Result<(), FormatError> {
        with_scratch(|scratch| {
            for b in self.blocks_of(id) {
                let raw = self.raw(b, scratch)?;
                let mut ev = Events::new(raw, b);
                let mut i = b.header.first_event;
                while let Some(e) = ev.next() {
                    f(i, ev.time(), e);
                    i += 1;
                }
                ev.finish()?;
            }
            Ok(())
        })
    }

    /// The events of one process, in program order.
    pub fn events_of(&self, id: ProcId) -> Result<Vec<Event>, FormatError> {
        let n = self.process(id).map_or(0, |p| p.events);
        // Capacity from the table is bounded: every counted event is at least one decoded byte.
        let mut v = Vec::with_capacity(n.min(1 << 20) as usize);
        self.for_each_event_of(id, |_, _, e| v.push(e.to_owned()))?;
        Ok(v)
    }

    /// One process's log.
    pub fn process_log(&self, id: ProcId) -> Result<ProcessLog, FormatError> {
        let (pid, parent) = self.process(id).map_or((0, None), |p| (p.pid, p.parent));
        Ok(ProcessLog {
            id,
            pid,
            parent,
            events: self.events_of(id)?,
        })
    }

    /// Decodes every readable block in parallel; `f` sees each block's events
    /// (borrowed, no allocation per event) and returns a value per block.
    /// Results come back in [`blocks`](Self::blocks) order, whatever order
    /// the blocks were decoded in. A block that fails to decode makes the
    /// whole call fail, with the error of the first such block in that order.
    pub fn par_map_blocks<T, F>(&self, f: F) -> Result<Vec<T>, FormatError>
    where
        T: Send,
        F: Fn(&mut Events<'_>) -> T + Sync,
    {
        // Blocks are decoded in file order (each touches the next part of the
        // file, which matters when blocks are small and many), and their
        // results put back in `blocks` order.
        // In file order, a block's entry in the table is anywhere: it is
        // asked for a few blocks ahead, or every small block waits for it.
        let decoded: Vec<Vec<Result<T, FormatError>>> = self
            .file_order
            .par_chunks(CHUNK)
            .map_init(Scratch::new, |scratch, ks| {
                let mut out = Vec::with_capacity(ks.len());
                for (i, &k) in ks.iter().enumerate() {
                    if let Some(&n) = ks.get(i + AHEAD) {
                        prefetch_entry(&self.blocks[n as usize]);
                    }
                    let b = &self.blocks[k as usize];
                    out.push(self.raw(b, scratch).and_then(|raw| {
                        let mut ev = Events::new(raw, b);
                        let t = f(&mut ev);
                        ev.finish()?;
                        Ok(t)
                    }));
                }
                out
            })
            .collect();
        let mut out: Vec<Option<Result<T, FormatError>>> = Vec::with_capacity(self.blocks.len());
        out.resize_with(self.blocks.len(), || None);
        for (&k, r) in self.file_order.iter().zip(decoded.into_iter().flatten()) {
            out[k as usize] = Some(r);
        }
        // The error of the first failing block in `blocks` order, if any.
        out.into_iter()
            .map(|r| r.expect("file_order is a permutation of the blocks"))
            .collect()
    }

    /// Every process's log, decoded in parallel. Fails on the first block that
    /// does not decode; see [`salvage`](Self::salvage) for a lenient read.
    pub fn read_all(&self) -> Result<Vec<ProcessLog>, FormatError> {
        let per_block =
            self.par_map_blocks(|ev| ev.map(EventRef::to_owned).collect::<Vec<Event>>())?;
        let mut per_block = per_block.into_iter();
        Ok(self
            .processes
            .iter()
            .map(|p| {
                let mut events = Vec::with_capacity(p.events.min(1 << 24) as usize);
                for _ in p.blocks.clone() {
                    events.append(&mut per_block.next().unwrap_or_default());
                }
                ProcessLog {
                    id: p.id,
                    pid: p.pid,
                    parent: p.parent,
                    events,
                }
            })
            .collect())
    }

    /// Every process's log up to its first block that does not decode, with a
    /// warning for each process cut short. Never fails: damage shortens logs.
    pub fn salvage(&self) -> (Vec<ProcessLog>, Vec<Warning>) {
        let results: Vec<(ProcessLog, Option<Warning>)> = self
            .processes
            .par_iter()
            .map_init(Scratch::new, |scratch, p| {
                let mut events = Vec::new();
                let mut warning = None;
                for b in &self.blocks[p.blocks.clone()] {
                    let r = self.raw(b, scratch).and_then(|raw| {
                        let mut ev = Events::new(raw, b);
                        let mut got: Vec<Event> = ev.by_ref().map(EventRef::to_owned).collect();
                        ev.finish()?;
                        events.append(&mut got);
                        Ok(())
                    });
                    if let Err(e) = r {
                        warning = Some(Warning::at(
                            e.offset().unwrap_or(b.offset),
                            format!(
                                "process {} {}: {e}; its log is read up to event {}",
                                p.id.0,
                                crate::text::pid_text(p.pid),
                                b.header.first_event
                            ),
                        ));
                        break;
                    }
                }
                let log = ProcessLog {
                    id: p.id,
                    pid: p.pid,
                    parent: p.parent,
                    events,
                };
                (log, warning)
            })
            .collect();
        let mut warnings = Vec::new();
        let logs = results
            .into_iter()
            .map(|(l, w)| {
                warnings.extend(w);
                l
            })
            .collect();
        (logs, warnings)
    }
}

/// Block-wise access, for readers that keep the intact part of a damaged log
/// or resume a process log block by block (the causal model, derivations).
impl LogReader {
    /// As [`par_map_blocks`](Self::par_map_blocks), but a block that fails to
    /// decode gives its own error instead of failing the call, so a caller
    /// can keep every process's intact part (the blocks before its first bad one).
    pub fn par_map_each_block<T, F>(&self, f: F) -> Vec<Result<T, FormatError>>
    where
        T: Send,
        F: Fn(&mut Events<'_>) -> T + Sync,
    {
        self.blocks
            .par_iter()
            .map_init(Scratch::new, |scratch, b| {
                let raw = self.raw(b, scratch)?;
                let mut ev = Events::new(raw, b);
                let t = f(&mut ev);
                ev.finish()?;
                Ok(t)
            })
            .collect()
    }

    /// Calls `f` on each event of one block (its position in
    /// [`blocks`](Self::blocks)), in program order, as
    /// [`for_each_event_of`](Self::for_each_event_of) does: a reader can
    /// resume a process log block by block.
    pub fn for_each_event_in_block(
        &self,
        block: usize,
        mut f: impl FnMut(u64, Option<u64>, EventRef<'_>),
    ) -> Result<(), FormatError> {
        let Some(b) = self.blocks.get(block) else {
            return Ok(());
        };
        with_scratch(|scratch| {
            let raw = self.raw(b, scratch)?;
            let mut ev = Events::new(raw, b);
            let mut i = b.header.first_event;
            while let Some(e) = ev.next() {
                f(i, ev.time(), e);
                i += 1;
            }
            ev.finish()
        })
    }
}
