//! Decoding blocks: check the body's checksum, decompress it (zstd, with the
//! decoded size known and bounded in advance), and run the codec over each
//! of its segments. Blocks decode independently, so whole logs decode in
//! parallel with rayon, a block's body once for all its segments.

use super::table::{BlockRef, Record, SegTable};
use super::LogReader;
use crate::codec::{BlockDecoder, CodecError, DecoderState};
use crate::container::Storage;
use crate::error::{FormatError, Warning};
use crate::event::{Event, ProcId, ProcessLog};
use crate::sync::lock;
use crate::view::EventRef;
use rayon::prelude::*;
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

/// Where a block sits and what it holds.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct BlockInfo {
    pub process: ProcId,
    /// The process's raw pid number.
    pub pid: u64,
    /// Index of the block's first event in the process log.
    pub first_event: u64,
    pub events: u32,
    /// Signal index of the block's first `Send`/`Signal`.
    pub first_signal: u64,
    /// Offset of its block record in the file, and of the record's stored body.
    pub offset: u64,
    pub body_offset: u64,
    /// Bytes of the record's stored (compressed) body, and of this segment's
    /// encoded events once decoded.
    pub stored_len: u32,
    pub raw_len: u32,
    /// Bytes of the record's whole body once decoded (all its segments).
    pub body_raw_len: u32,
}

impl BlockInfo {
    /// Segment `b` of record `rec`.
    pub(super) fn of(b: &BlockRef, rec: &Record) -> Self {
        let record = BlockInfo {
            offset: rec.offset,
            body_offset: rec.body_at,
            stored_len: rec.stored_len,
            body_raw_len: rec.raw_len,
            ..BlockInfo::default()
        };
        record.with_segment(b)
    }

    /// Another segment `b` of the same record: what differs from segment
    /// to segment, the record's offsets and lengths kept.
    fn with_segment(self, b: &BlockRef) -> Self {
        BlockInfo {
            process: ProcId(b.process),
            pid: b.pid,
            first_event: b.first_event,
            events: b.events,
            first_signal: b.first_signal,
            raw_len: b.raw_len,
            ..self
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
    pub(super) fn new(raw: &'a [u8], b: &BlockRef, rec: &Record, version: u16) -> Self {
        Events {
            dec: BlockDecoder::new(
                raw,
                ProcId(b.process),
                b.pid,
                b.first_signal,
                rec.timestamps,
            )
            .with_version(version),
            info: BlockInfo::of(b, rec),
            seen: 0,
            error: None,
        }
    }

    /// Makes these events those of segment `b` of the same record, as
    /// [`new`](Self::new) would, reusing the decoder (see
    /// [`BlockDecoder::restart`]): only what differs from segment to
    /// segment is written (a crowd's record holds thousands).
    #[inline]
    pub(super) fn restart(&mut self, raw: &'a [u8], b: &BlockRef) {
        let timestamps = self.dec.time().is_some();
        self.dec
            .restart(raw, ProcId(b.process), b.pid, b.first_signal, timestamps);
        self.info = self.info.with_segment(b);
        self.seen = 0;
        self.error = None;
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
        self.check()
    }

    /// As [`finish`](Self::finish), leaving the events to be restarted;
    /// a segment read to its end as its row says is passed at once (a
    /// crowd's log has millions of segments of a few events).
    #[inline]
    fn check(&mut self) -> Result<(), FormatError> {
        if self.error.is_none()
            && self.seen == self.info.events
            && self.dec.position() >= self.dec.len()
        {
            return Ok(());
        }
        self.check_rest()
    }

    /// [`check`](Self::check) past its quick test.
    #[inline(never)]
    fn check_rest(&mut self) -> Result<(), FormatError> {
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

/// A zstd context and the buffer it decompresses into.
#[derive(Default)]
pub(super) struct Inflater {
    zstd: Option<zstd::bulk::Decompressor<'static>>,
    buf: Vec<u8>,
}

impl Inflater {
    /// Decompresses `stored` into exactly `raw_len` bytes (bounded by the
    /// caller against the format's limits), or says why not.
    pub fn inflate(&mut self, stored: &[u8], raw_len: u32) -> Result<&[u8], String> {
        if self.zstd.is_none() {
            let mut d = zstd::bulk::Decompressor::new().map_err(|e| format!("zstd: {e}"))?;
            d.set_parameter(zstd::zstd_safe::DParameter::WindowLogMax(WINDOW_LOG_MAX))
                .map_err(|e| format!("zstd: {e}"))?;
            self.zstd = Some(d);
        }
        let d = self.zstd.as_mut().expect("created above");
        let raw_len = raw_len as usize;
        self.buf.clear();
        self.buf.reserve(raw_len);
        match d.decompress_to_buffer(stored, &mut self.buf) {
            Ok(n) if n == raw_len => Ok(&self.buf[..n]),
            Ok(n) => Err(format!("{raw_len} decompressed bytes, found {n}")),
            Err(e) => Err(format!(
                "zstd data that decompresses to {raw_len} bytes: {e}"
            )),
        }
    }
}

/// What a thread decoding records one at a time keeps from one to the
/// next (see [`LogReader::map_record_in_file`]).
pub struct RecordScratch(Scratch);

impl Default for RecordScratch {
    fn default() -> Self {
        RecordScratch(Scratch::new())
    }
}

/// Per-thread decompression state: the last block body decompressed stays
/// there, for the next of its segments.
pub(super) struct Scratch {
    inf: Inflater,
    /// Whose body `inf` (or `shared`) holds: the reader's id and the record's position.
    holds: Option<(u64, u32)>,
    /// A body from the reader's [`BodyCache`], when it came from there.
    shared: Option<Arc<[u8]>>,
}

impl Scratch {
    pub fn new() -> Self {
        Scratch {
            inf: Inflater::default(),
            holds: None,
            shared: None,
        }
    }
}

/// Decoded bodies of blocks shared by many processes, for readers that go
/// process by process (dump, replay, diff): each such block would otherwise
/// be decompressed once for every segment in it. Bounded in bytes; the
/// oldest body leaves first.
#[derive(Default)]
pub(super) struct BodyCache {
    bodies: HashMap<u32, Arc<[u8]>>,
    order: VecDeque<u32>,
    bytes: usize,
}

/// What [`BodyCache`] holds at most.
const BODY_CACHE_BYTES: usize = 256 << 20;

impl BodyCache {
    fn get(&self, k: u32) -> Option<Arc<[u8]>> {
        self.bodies.get(&k).cloned()
    }

    fn put(&mut self, k: u32, body: Arc<[u8]>) {
        self.bytes += body.len();
        self.bodies.insert(k, body);
        self.order.push_back(k);
        while self.bytes > BODY_CACHE_BYTES {
            let Some(old) = self.order.pop_front() else {
                break;
            };
            if let Some(b) = self.bodies.remove(&old) {
                self.bytes -= b.len();
            }
        }
    }
}

thread_local! {
    /// Decompression state kept per thread between one-process and one-block
    /// reads: a zstd context and its buffer cost more to create than a small
    /// block costs to decode, callers (diff, replay) read many of them, and
    /// consecutive segments often share a block.
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

/// Largest zstd window a block may ask for: blocks are at most 64 MiB.
const WINDOW_LOG_MAX: u32 = 27;

impl LogReader {
    /// The decoded body of a block record, for a read of one segment: a
    /// body that several segments share goes through the reader's
    /// [`BodyCache`].
    fn shared_body<'s>(
        &'s self,
        k: u32,
        scratch: &'s mut Scratch,
    ) -> Result<&'s [u8], FormatError> {
        let rec = &self.records[k as usize];
        if rec.segments < 2 || rec.storage == Storage::Raw || scratch.holds == Some((self.id, k)) {
            return self.body(k, scratch);
        }
        let cached = lock(&self.bodies).get(k);
        let body = match cached {
            Some(b) => b,
            None => {
                let b: Arc<[u8]> = Arc::from(self.body(k, scratch)?);
                lock(&self.bodies).put(k, b.clone());
                b
            }
        };
        scratch.holds = Some((self.id, k));
        Ok(&scratch.shared.insert(body)[..])
    }

    /// The decoded body of a block record: checksum checked, decompressed
    /// into `scratch` (or borrowed from the file when stored raw).
    fn body<'s>(&'s self, k: u32, scratch: &'s mut Scratch) -> Result<&'s [u8], FormatError> {
        let rec = &self.records[k as usize];
        let stored =
            &self.data[rec.body_at as usize..rec.body_at as usize + rec.stored_len as usize];
        if rec.storage == Storage::Zstd && scratch.holds == Some((self.id, k)) {
            return Ok(match &scratch.shared {
                Some(b) => b,
                None => &scratch.inf.buf,
            });
        }
        let fail =
            |what: String| FormatError::corrupt(rec.offset, format!("an intact block: {what}"));
        if self.binding.body_crc(stored) != rec.body_crc {
            return Err(fail("body checksum mismatch".into()));
        }
        match rec.storage {
            Storage::Raw => Ok(stored),
            Storage::Zstd => {
                scratch.holds = None;
                scratch.shared = None;
                // raw_len was bounded against MAX_BLOCK_RAW and the stored size when the header was parsed.
                scratch.inf.inflate(stored, rec.raw_len).map_err(fail)?;
                scratch.holds = Some((self.id, k));
                Ok(&scratch.inf.buf)
            }
        }
    }

    /// The decoded events of a segment, read alone (see [`BodyCache`]).
    pub(super) fn raw_alone<'s>(
        &'s self,
        b: &BlockRef,
        scratch: &'s mut Scratch,
    ) -> Result<&'s [u8], FormatError> {
        self.shared_body(b.record, scratch)
            .map_err(|e| segment_error(e, b))?;
        self.raw(b, scratch)
    }

    /// The decoded events of a segment.
    pub(super) fn raw<'s>(
        &'s self,
        b: &BlockRef,
        scratch: &'s mut Scratch,
    ) -> Result<&'s [u8], FormatError> {
        let body = self
            .body(b.record, scratch)
            .map_err(|e| segment_error(e, b))?;
        Ok(&body[b.start as usize..b.start as usize + b.raw_len as usize])
    }

    fn record_of(&self, b: &BlockRef) -> &Record {
        &self.records[b.record as usize]
    }

    /// The events of segment `b`, decoded from its bytes.
    pub(super) fn events<'a>(&self, raw: &'a [u8], b: &BlockRef) -> Events<'a> {
        Events::new(raw, b, self.record_of(b), self.binding.version)
    }

    fn blocks_of(&self, id: ProcId) -> impl Iterator<Item = &BlockRef> + '_ {
        let ks = match self.process(id) {
            Some(p) => &self.index()[p.blocks.clone()],
            None => &[],
        };
        let blocks = &self.listing().blocks;
        ks.iter().map(|&i| &blocks[i as usize])
    }

    /// Every readable block (segment), grouped by process in id order, each
    /// process's in event order.
    pub fn blocks(&self) -> impl ExactSizeIterator<Item = BlockInfo> + '_ {
        let blocks = &self.listing().blocks;
        self.index().iter().map(|&i| {
            let b = &blocks[i as usize];
            BlockInfo::of(b, self.record_of(b))
        })
    }

    /// The block at a position of [`blocks`](Self::blocks).
    pub fn block(&self, block: usize) -> Option<BlockInfo> {
        self.seg(block).map(|b| BlockInfo::of(b, self.record_of(b)))
    }

    /// The bytes of the block record that holds a block (its position in
    /// [`blocks`](Self::blocks)) as the file holds them, with where the
    /// block's events start in the record's decoded body: two blocks whose
    /// records are equal and that start at the same place decode to equal
    /// events (diff compares them so, without decoding, when two logs number
    /// their processes alike).
    pub fn block_bytes(&self, block: usize) -> Option<(&[u8], u32)> {
        let b = self.seg(block)?;
        let rec = self.record_of(b);
        let at = rec.offset as usize;
        Some((self.data.get(at..at + rec.len as usize)?, b.start))
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
                let raw = self.raw_alone(b, scratch)?;
                let mut ev = self.events(raw, b);
                let mut i = b.first_event;
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
        self.par_map_each_block(f).into_iter().collect()
    }

    /// Every process's log, decoded in parallel. Fails on the first block that
    /// does not decode; see [`salvage`](Self::salvage) for a lenient read.
    pub fn read_all(&self) -> Result<Vec<ProcessLog>, FormatError> {
        let per_block =
            self.par_map_blocks(|ev| ev.map(EventRef::to_owned).collect::<Vec<Event>>())?;
        let mut per_block = per_block.into_iter();
        Ok(self
            .processes()
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
        let mut per_block = self
            .par_map_each_block(|ev| ev.map(EventRef::to_owned).collect::<Vec<Event>>())
            .into_iter();
        let mut warnings = Vec::new();
        let logs = self
            .processes()
            .iter()
            .map(|p| {
                let mut events = Vec::new();
                let mut failed = false;
                for (k, r) in p.blocks.clone().zip(per_block.by_ref()) {
                    match r {
                        Ok(mut got) if !failed => events.append(&mut got),
                        Ok(_) => {}
                        Err(e) if !failed => {
                            failed = true;
                            let b = &self.listing().blocks[self.index()[k] as usize];
                            warnings.push(Warning::at(
                                e.offset().unwrap_or(self.record_of(b).offset),
                                format!(
                                    "process {} {}: {e}; its log is read up to event {}",
                                    p.id.0,
                                    crate::text::pid_text(p.pid),
                                    b.first_event
                                ),
                            ));
                        }
                        Err(_) => {}
                    }
                }
                ProcessLog {
                    id: p.id,
                    pid: p.pid,
                    parent: p.parent,
                    events,
                }
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
        // Blocks are decoded a record at a time, in file order (each touches
        // the next part of the file, and a record's body is decompressed
        // once for all its segments), and their results put back in
        // `blocks` order.
        let listing = self.listing();
        let decoded: Vec<Vec<Result<T, FormatError>>> = listing
            .record_spans
            .par_iter()
            .map_init(Scratch::new, |scratch, span| {
                let ks = &listing.served[span.start as usize..span.end as usize];
                self.map_record(ks, scratch, &f)
            })
            .collect();
        let position = &self.by_process().position;
        let mut out: Vec<Option<Result<T, FormatError>>> = Vec::with_capacity(position.len());
        out.resize_with(position.len(), || None);
        for (&k, r) in position.iter().zip(decoded.into_iter().flatten()) {
            out[k as usize] = Some(r);
        }
        out.into_iter()
            .map(|r| r.expect("the positions are a permutation of the blocks"))
            .collect()
    }

    /// The block records a whole-log read takes, in file order: what
    /// [`map_record_in_file`](Self::map_record_in_file) numbers.
    pub fn records_in_file(&self) -> usize {
        self.listing().record_spans.len()
    }

    /// Decodes the `i`-th record in file order, for a reader that takes
    /// records one at a time as it needs them (the causal model's rebuild
    /// of a derivation, beside the decoding): `f` sees each of its blocks'
    /// events, and `sink` each result with the block's position in
    /// [`blocks`](Self::blocks) order. Nothing for an `i` past the last.
    pub fn map_record_in_file<T>(
        &self,
        i: usize,
        scratch: &mut RecordScratch,
        f: impl FnMut(&mut Events<'_>) -> T,
        mut sink: impl FnMut(usize, Result<T, FormatError>),
    ) {
        let listing = self.listing();
        let Some(span) = listing.record_spans.get(i) else {
            return;
        };
        let ks = &listing.served[span.start as usize..span.end as usize];
        let mut positions = self.by_process().position[span.start as usize..].iter();
        self.visit_record(ks, &mut scratch.0, f, |r| {
            if let Some(&k) = positions.next() {
                sink(k as usize, r)
            }
        });
    }

    /// `f` over the segments `ks` (indices into `self.blocks`, of one
    /// record, in file order), each result put into `sink`: the body is
    /// decoded once and one decoder restarted for each segment.
    fn visit_record<T>(
        &self,
        ks: &[u32],
        scratch: &mut Scratch,
        mut f: impl FnMut(&mut Events<'_>) -> T,
        mut sink: impl FnMut(Result<T, FormatError>),
    ) {
        let Some(&k0) = ks.first() else {
            return;
        };
        let blocks = &self.listing().blocks;
        let at = |k: u32| &blocks[k as usize];
        let first = at(k0);
        let body = match self.body(first.record, scratch) {
            Ok(body) => body,
            Err(e) => {
                for &k in ks {
                    sink(Err(segment_error(copy_error(&e), at(k))));
                }
                return;
            }
        };
        let rec = self.record_of(first);
        let mut ev = Events::new(&[], first, rec, self.binding.version);
        for &k in ks {
            let b = at(k);
            let raw = &body[b.start as usize..b.start as usize + b.raw_len as usize];
            ev.restart(raw, b);
            let t = f(&mut ev);
            sink(ev.check().map(|()| t));
        }
    }

    /// As [`visit_record`](Self::visit_record), the results in a vector.
    fn map_record<T, F>(
        &self,
        ks: &[u32],
        scratch: &mut Scratch,
        f: &F,
    ) -> Vec<Result<T, FormatError>>
    where
        F: Fn(&mut Events<'_>) -> T,
    {
        let mut out = Vec::with_capacity(ks.len());
        self.visit_record(ks, scratch, f, |r| out.push(r));
        out
    }

    /// Decodes every readable block in parallel and folds their events into
    /// accumulators, one per task (`init` makes one, `fold` takes each
    /// block's events into it): for readers of the whole log that keep no
    /// result per block (statistics, checks, summaries), which
    /// [`par_map_blocks`](Self::par_map_blocks) would make them collect and
    /// put back in process order. Blocks are taken in file order, a record
    /// at a time, but the order in which `fold` sees them is unspecified.
    /// A block that fails to decode fails the call (with the error of the
    /// first failing block of its task).
    pub fn par_fold_blocks<A, I, F>(&self, init: I, fold: F) -> Result<Vec<A>, FormatError>
    where
        A: Send,
        I: Fn() -> A + Sync,
        F: Fn(&mut A, &mut Events<'_>) + Sync,
    {
        // Tasks of about this many records: a crowd's log has few records
        // of many segments, a long run's many of a few.
        let per_task = |records: usize| records.div_ceil(4 * rayon::current_num_threads()).max(1);
        if let Some(rows) = self.kept_rows() {
            // Every segment is served as found and none is listed yet:
            // each record's rows are read as its body is decoded.
            let tasks: Vec<usize> = (0..self.records.len())
                .step_by(per_task(self.records.len()))
                .collect();
            return tasks
                .par_iter()
                .map_init(Scratch::new, |scratch, &from| {
                    let to = (from + per_task(self.records.len())).min(self.records.len());
                    let mut acc = init();
                    for k in from..to {
                        let t = &rows[k];
                        self.fold_whole_record(k, t, scratch, |ev| fold(&mut acc, ev))?;
                    }
                    Ok(acc)
                })
                .collect();
        }
        let listing = self.listing();
        let spans = &listing.record_spans;
        spans
            .par_chunks(per_task(spans.len()))
            .map_init(Scratch::new, |scratch, chunk| {
                let mut acc = init();
                let mut failed = None;
                for span in chunk {
                    let ks = &listing.served[span.start as usize..span.end as usize];
                    self.visit_record(
                        ks,
                        scratch,
                        |ev| fold(&mut acc, ev),
                        |r| {
                            if let (Err(e), None) = (r, &failed) {
                                failed = Some(e);
                            }
                        },
                    );
                    if let Some(e) = failed {
                        return Err(e);
                    }
                }
                Ok(acc)
            })
            .collect()
    }

    /// `f` over every segment of record `k` of a log served whole, its
    /// rows `t` read from the record's table as its body is decoded; the
    /// first segment that fails stops the record.
    fn fold_whole_record(
        &self,
        k: usize,
        t: &SegTable,
        scratch: &mut Scratch,
        mut f: impl FnMut(&mut Events<'_>),
    ) -> Result<(), FormatError> {
        let rec = &self.records[k];
        let mut rows = t.rows.iter().zip(&t.pids);
        let Some((first, &pid)) = rows.next() else {
            return Ok(());
        };
        let mut b = BlockRef {
            record: k as u32,
            start: 0,
            raw_len: first.raw_len,
            process: first.process,
            events: first.events,
            first_event: first.first_event,
            first_signal: first.first_signal,
            pid,
        };
        let body = self
            .body(k as u32, scratch)
            .map_err(|e| segment_error(e, &b))?;
        let mut ev = Events::new(&[], &b, rec, self.binding.version);
        loop {
            // The table was checked to fill the body exactly.
            let raw = body
                .get(b.start as usize..b.start as usize + b.raw_len as usize)
                .unwrap_or(&[]);
            ev.restart(raw, &b);
            f(&mut ev);
            ev.check()?;
            let Some((s, &pid)) = rows.next() else {
                return Ok(());
            };
            b = BlockRef {
                start: b.start + b.raw_len,
                raw_len: s.raw_len,
                process: s.process,
                events: s.events,
                first_event: s.first_event,
                first_signal: s.first_signal,
                pid,
                ..b
            };
        }
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
        let Some(b) = self.seg(block) else {
            return Ok(());
        };
        with_scratch(|scratch| {
            let raw = self.raw_alone(b, scratch)?;
            let mut ev = self.events(raw, b);
            let mut i = b.first_event;
            while let Some(e) = ev.next() {
                f(i, ev.time(), e);
                i += 1;
            }
            ev.finish()
        })
    }
}

/// The same error again, for each segment of a record that failed.
fn copy_error(e: &FormatError) -> FormatError {
    match e {
        FormatError::Corrupt { offset, expected } => {
            FormatError::corrupt(*offset, expected.clone())
        }
        e => FormatError::corrupt(0, e.to_string()),
    }
}

/// A block's error, saying which segment was being read.
fn segment_error(e: FormatError, b: &BlockRef) -> FormatError {
    match e {
        FormatError::Corrupt { offset, expected } => FormatError::corrupt(
            offset,
            format!(
                "{expected} (it holds process {}'s events {}..{})",
                b.process,
                b.first_event,
                b.first_event + b.events as u64
            ),
        ),
        e => e,
    }
}
