//! The back end of the writer: a bounded queue of cut segments (runs of one
//! process's events), and the threads that pack them into blocks, compress
//! them and append them to the file. Blocks land in the file in the order
//! they are compressed; each segment's `first_event` says where it belongs.

use super::crowd::CrowdBlock;
use crate::container::{
    BlockHeader, RunBinding, Storage, BLOCK_HEADER_LEN, FLAG_TABLE_ZSTD, FLAG_TIMESTAMPS,
    MAX_BLOCK_RAW, MAX_RATIO, NO_PARENT,
};
use crate::meta::BlockEntry;
use crate::segment::{self, Segment};
use crate::sync::lock;
use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, Write};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// One process's segment, encoded, waiting to be packed into a block.
pub(crate) struct RawSegment {
    pub process: u32,
    pub parent: Option<u32>,
    pub pid: u64,
    pub first_event: u64,
    pub first_signal: u64,
    pub events: u32,
    pub timestamps: bool,
    pub bytes: Vec<u8>,
}

/// What waits in the queue: a segment to pack with others, or a crowd,
/// packed already (docs: [`super::crowd`]).
pub(crate) enum Queued {
    Segment(RawSegment),
    Crowd(Box<CrowdBlock>),
}

impl Queued {
    /// Its events (counted only when they are lost: a crowd's are summed
    /// over its rows).
    pub fn events(&self) -> u64 {
        match self {
            Queued::Segment(s) => u64::from(s.events),
            Queued::Crowd(c) => c.rows.iter().map(|r| u64::from(r.events)).sum(),
        }
    }

    /// Its encoded events' bytes.
    fn len(&self) -> usize {
        match self {
            Queued::Segment(s) => s.bytes.len(),
            Queued::Crowd(c) => c.bytes.len(),
        }
    }
}

struct QueueState {
    blocks: VecDeque<Queued>,
    bytes: usize,
    closed: bool,
    /// Threads waiting on `not_empty` and on `not_full`: a condvar's notify
    /// is a system call even with no one waiting, and a run of many short
    /// processes submits (and pops) hundreds of thousands of blocks.
    consumers_waiting: usize,
    producers_waiting: usize,
    /// Consumers lingering to fill a block they have started
    /// ([`Queue::pop_until`]), waiting on `filled`: they are woken when a
    /// block's worth is queued, not for each segment (a run of short
    /// processes ends one at a time, and a wake-up per segment cost a futex
    /// call on each side).
    lingering: usize,
}

/// Whether queuing a block wakes a waiting compressor at once, or leaves it
/// to a [`Queue::wake`] after a series of blocks (each wake-up is a system
/// call, and a sweep over idle processes queues thousands of small blocks).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Wake {
    Now,
    Later,
}

/// What [`Queue::drain_into`] found.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Drained {
    /// It took segments, and the block has room for more.
    Some,
    /// The next segment would take the block past the reader's limit.
    Full,
    /// Nothing waits (and it took nothing).
    Empty,
}

/// Cut blocks waiting for a compressor. Bounded in bytes: a producer that
/// finds it full waits (backpressure keeps the writer's memory bounded).
pub(crate) struct Queue {
    state: Mutex<QueueState>,
    not_empty: Condvar,
    filled: Condvar,
    not_full: Condvar,
    max_bytes: usize,
    /// Queued bytes that wake a lingering consumer: a block's worth.
    fill_bytes: usize,
    /// Crowds' blocks the compressors are done with, their vectors kept
    /// for the next crowds cut (a block's body and rows, about 200 KB at
    /// the default block size, were allocated afresh for each block).
    /// Boxed: they go back into the queue as `Queued::Crowd` as they are.
    #[allow(clippy::vec_box)]
    spare_crowds: Mutex<Vec<Box<CrowdBlock>>>,
}

/// Crowd blocks kept for reuse: one each for a few scheduler threads.
const SPARE_CROWDS_MAX: usize = 4;

impl Queue {
    /// A queue holding up to `max_bytes` of segments, whose lingering
    /// consumers wake once `fill_bytes` are queued.
    pub fn new(max_bytes: usize, fill_bytes: usize) -> Self {
        Queue {
            state: Mutex::new(QueueState {
                blocks: VecDeque::new(),
                bytes: 0,
                closed: false,
                consumers_waiting: 0,
                producers_waiting: 0,
                lingering: 0,
            }),
            not_empty: Condvar::new(),
            filled: Condvar::new(),
            not_full: Condvar::new(),
            max_bytes,
            fill_bytes,
            spare_crowds: Mutex::new(Vec::new()),
        }
    }

    /// A crowd block the compressors are done with (emptied, its vectors'
    /// room kept), if there is one.
    pub fn spare_crowd(&self) -> Option<Box<CrowdBlock>> {
        lock(&self.spare_crowds).pop()
    }

    /// Keeps a compressed crowd's vectors for a crowd to come.
    fn give_back(&self, mut c: Box<CrowdBlock>) {
        c.rows.clear();
        c.bytes.clear();
        let mut spares = lock(&self.spare_crowds);
        if spares.len() < SPARE_CROWDS_MAX {
            spares.push(c);
        }
    }

    /// Wakes the consumer that the queued segments concern, if any: one
    /// waiting for a first segment, else one lingering once a block's worth
    /// is queued. Called without the lock, with what was seen under it.
    fn notify(&self, idle: bool, filled: bool) {
        if idle {
            self.not_empty.notify_one();
        } else if filled {
            self.filled.notify_one();
        }
    }

    /// Whom the queue's state calls for: (an idle consumer, a lingering one).
    fn due(&self, s: &QueueState) -> (bool, bool) {
        let idle = s.consumers_waiting > 0 && !s.blocks.is_empty();
        (idle, s.lingering > 0 && s.bytes >= self.fill_bytes)
    }

    /// Queues a block; returns it back if the queue is closed (the log was finished).
    pub fn submit(&self, b: Queued, wake: Wake) -> Result<(), Queued> {
        let mut s = lock(&self.state);
        // A block larger than the whole bound is still accepted once the queue is empty.
        while !s.closed && s.bytes > 0 && s.bytes + b.len() > self.max_bytes {
            // Blocks queued without a wake-up must be compressed to make room.
            if s.consumers_waiting > 0 {
                self.not_empty.notify_one();
            }
            if s.lingering > 0 {
                self.filled.notify_one();
            }
            s.producers_waiting += 1;
            s = self.not_full.wait(s).unwrap_or_else(|e| e.into_inner());
            s.producers_waiting -= 1;
        }
        if s.closed {
            return Err(b);
        }
        s.bytes += b.len();
        s.blocks.push_back(b);
        let (idle, filled) = self.due(&s);
        drop(s);
        if wake == Wake::Now {
            self.notify(idle, filled);
        }
        Ok(())
    }

    /// Wakes a waiting compressor if blocks wait (after [`Wake::Later`] submits).
    pub fn wake(&self) {
        let s = lock(&self.state);
        let (idle, filled) = self.due(&s);
        drop(s);
        self.notify(idle, filled);
    }

    /// The next segment for a block already started: once a block's worth
    /// is queued, or at `deadline` whatever is queued (`None` if nothing),
    /// or once the queue is closed. Segments queued meanwhile do not wake
    /// it one by one.
    fn pop_until(&self, deadline: Instant) -> Option<Queued> {
        let mut s = lock(&self.state);
        loop {
            let now = Instant::now();
            if s.closed || now >= deadline || s.bytes >= self.fill_bytes {
                break;
            }
            s.lingering += 1;
            s = self
                .filled
                .wait_timeout(s, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
            s.lingering -= 1;
        }
        self.take_front(s)
    }

    /// Moves waiting segments to the block being gathered in `segs`, under
    /// one lock (a crowd's segments come by the thousand, and taking each
    /// under a lock of its own made the producers wait on it), while the
    /// block's `body` is under `block_size` and the next segment keeps it
    /// within the reader's limit; that one stays queued for the next block,
    /// as does a crowd (a block of its own).
    fn drain_into(
        &self,
        segs: &mut Vec<RawSegment>,
        body: &mut usize,
        block_size: usize,
    ) -> Drained {
        let mut s = lock(&self.state);
        let mut took = false;
        let mut drained = Drained::Empty;
        while *body < block_size {
            let b = match s.blocks.pop_front() {
                None => break,
                Some(Queued::Segment(b)) if *body + b.bytes.len() <= MAX_BLOCK_RAW as usize => b,
                Some(other) => {
                    s.blocks.push_front(other);
                    drained = Drained::Full;
                    break;
                }
            };
            let len = b.bytes.len();
            s.bytes -= len;
            *body += len;
            segs.push(b);
            took = true;
        }
        let wake = took && s.producers_waiting > 0;
        drop(s);
        if wake {
            self.not_full.notify_all();
        }
        match drained {
            Drained::Empty if took => Drained::Some,
            d => d,
        }
    }

    /// The next block if one is waiting, without waiting for one.
    fn try_pop(&self) -> Option<Queued> {
        let s = lock(&self.state);
        self.take_front(s)
    }

    /// The next block, or `None` once the queue is closed and drained.
    fn pop(&self) -> Option<Queued> {
        let mut s = lock(&self.state);
        while s.blocks.is_empty() {
            if s.closed {
                return None;
            }
            s.consumers_waiting += 1;
            s = self.not_empty.wait(s).unwrap_or_else(|e| e.into_inner());
            s.consumers_waiting -= 1;
        }
        self.take_front(s)
    }

    /// Removes the first block, waking producers waiting for room.
    fn take_front(&self, mut s: MutexGuard<'_, QueueState>) -> Option<Queued> {
        let b = s.blocks.pop_front()?;
        s.bytes -= b.len();
        let wake = s.producers_waiting > 0;
        drop(s);
        if wake {
            self.not_full.notify_all();
        }
        Some(b)
    }

    pub fn close(&self) {
        lock(&self.state).closed = true;
        self.not_empty.notify_all();
        self.filled.notify_all();
        self.not_full.notify_all();
    }
}

/// The file being written and the index of what is in it.
pub(crate) struct FileState {
    pub file: File,
    pub offset: u64,
    /// The footer's block entries, already postcard-encoded (about 10 bytes
    /// a block rather than 32), and how many there are.
    pub index: Vec<u8>,
    pub blocks: u64,
    /// Events written, by process index.
    pub events: Vec<u64>,
    pub raw_bytes: u64,
    /// The first write error; later blocks are dropped and `finish` reports it.
    pub error: Option<io::Error>,
    pub lost_events: u64,
}

/// Records gathered before one write: a run of many small processes would
/// otherwise cost a system call per block.
const BATCH_BYTES: usize = 256 * 1024;

/// Packs segments from `queue` into blocks of about `block_size` decoded
/// bytes, compresses them and appends them to `file` until the queue
/// closes. A block waits `linger` at most for more segments after its
/// first (segments of short processes come one at a time, as they end, and
/// a block of each would cost a header and a frame for a few events), so
/// a killed run loses at most that much more. Records are written in
/// batches while more segments wait.
pub(crate) fn compress_loop(
    queue: &Queue,
    file: &Mutex<FileState>,
    level: i32,
    binding: RunBinding,
    block_size: usize,
    linger: Duration,
) {
    let mut packer = Packer::new(level);
    let mut batch = Vec::new();
    let mut entries = Vec::new();
    let mut pending: Option<Queued> = None;
    // Reused: a crowd's block gathers thousands of segments.
    let mut segs = Vec::new();
    while let Some(first) = pending.take().or_else(|| queue.pop()) {
        let at = batch.len();
        let (raw_len, counts) = match first {
            Queued::Crowd(c) => {
                packer.encode_crowd(&c, binding, &mut batch);
                let counts = c.rows.iter().map(|r| (r.process, r.events)).collect();
                let raw_len = c.bytes.len();
                queue.give_back(c);
                (raw_len, counts)
            }
            Queued::Segment(first) => {
                segs.clear();
                segs.push(first);
                let deadline = Instant::now() + linger;
                let body = gather(queue, &mut segs, &mut pending, block_size, deadline);
                packer.encode_record(&segs, binding, &mut batch);
                (body, segs.iter().map(|s| (s.process, s.events)).collect())
            }
        };
        entries.push(Batched {
            len: (batch.len() - at) as u32,
            raw_len,
            counts,
        });
        if pending.is_none() && batch.len() < BATCH_BYTES {
            pending = queue.try_pop();
        }
        if pending.is_none() || batch.len() >= BATCH_BYTES {
            append(file, &batch, &mut entries);
            batch.clear();
        }
    }
}

/// Gathers queued segments after the first in `segs` into a block of about
/// `block_size` bytes, waiting until `deadline` at most for more; returns
/// the body's length. What is taken but does not fit (a crowd, a segment
/// past the reader's limit) is left in `pending`.
fn gather(
    queue: &Queue,
    segs: &mut Vec<RawSegment>,
    pending: &mut Option<Queued>,
    block_size: usize,
    deadline: Instant,
) -> usize {
    let mut body = segs[0].bytes.len();
    while body < block_size {
        match queue.drain_into(segs, &mut body, block_size) {
            Drained::Some => continue,
            Drained::Full => break,
            Drained::Empty => {}
        }
        match queue.pop_until(deadline) {
            Some(Queued::Segment(s)) if body + s.bytes.len() <= MAX_BLOCK_RAW as usize => {
                body += s.bytes.len();
                segs.push(s);
            }
            Some(q) => {
                *pending = Some(q);
                break;
            }
            None => break,
        }
    }
    body
}

/// A record of a batch, for the footer's index.
struct Batched {
    /// The record's length in the file.
    len: u32,
    raw_len: usize,
    /// Each segment's process and events.
    counts: Vec<(u32, u32)>,
}

/// Writes a batch of records and enters each in the footer's index.
fn append(file: &Mutex<FileState>, batch: &[u8], entries: &mut Vec<Batched>) {
    let mut f = lock(file);
    let lost: u64 = entries
        .iter()
        .flat_map(|b| &b.counts)
        .map(|c| c.1 as u64)
        .sum();
    if f.error.is_some() {
        f.lost_events += lost;
        entries.clear();
        return;
    }
    if let Err(e) = f.file.write_all(batch) {
        f.lost_events += lost;
        f.error = Some(e);
        entries.clear();
        return;
    }
    for b in entries.drain(..) {
        let entry = BlockEntry {
            len: b.len,
            segments: b.counts.len() as u32,
        };
        f.index = postcard::to_extend(&entry, std::mem::take(&mut f.index))
            .expect("a block entry always encodes");
        f.blocks += 1;
        for (p, n) in b.counts {
            let p = p as usize;
            if f.events.len() <= p {
                f.events.resize(p + 1, 0);
            }
            f.events[p] += n as u64;
        }
        f.offset += b.len as u64;
        f.raw_bytes += b.raw_len as u64;
    }
}

/// The compressor of block bodies. Literal compression is off: a body is
/// mostly one-byte tags and small varints, which zstd's Huffman stage shrinks
/// by a quarter but whose tables cost more to build and read, per block, than
/// the rest of decoding a small block (docs/format.md §5.2 has the figures).
/// Matches still compress repeated runs and payload terms.
pub(crate) fn block_compressor(level: i32) -> Option<zstd::bulk::Compressor<'static>> {
    use zstd::zstd_safe::{CParameter, ParamSwitch};
    let mut c = zstd::bulk::Compressor::new(level).ok()?;
    c.set_parameter(CParameter::LiteralCompressionMode(ParamSwitch::Disable))
        .ok()?;
    Some(c)
}

/// Bodies and tables shorter than this are stored raw without trying zstd:
/// its frame alone takes a dozen bytes, so it seldom wins on them.
const MIN_COMPRESSED: usize = 64;

/// A compressor thread's tools: one zstd context for bodies and one for
/// segment tables, and reused buffers.
pub(crate) struct Packer {
    body: Option<zstd::bulk::Compressor<'static>>,
    /// For bodies of many short segments: each starts its predictors
    /// afresh, so explicit values abound, and the Huffman stage pays.
    crowd_body: Option<zstd::bulk::Compressor<'static>>,
    table: Option<zstd::bulk::Compressor<'static>>,
    rows: Vec<Segment>,
    /// The segments' order in the block: (process, first event, position).
    order: Vec<(u32, u64, u32)>,
    raw_table: Vec<u8>,
    raw_body: Vec<u8>,
    scratch: Vec<u8>,
}

impl Packer {
    pub fn new(level: i32) -> Self {
        Packer {
            body: block_compressor(level),
            crowd_body: zstd::bulk::Compressor::new(level).ok(),
            // A table is varints of small, skewed values: zstd's Huffman
            // stage is what shrinks it, once per block.
            table: zstd::bulk::Compressor::new(level).ok(),
            rows: Vec::new(),
            order: Vec::new(),
            raw_table: Vec::new(),
            raw_body: Vec::new(),
            scratch: Vec::new(),
        }
    }

    /// Appends the block record of `segs` to `out`: header, segment table,
    /// body, each part zstd-compressed when that makes it smaller. The
    /// segments are put in process order (the table's process column then
    /// holds small steps).
    pub fn encode_record(&mut self, segs: &[RawSegment], binding: RunBinding, out: &mut Vec<u8>) {
        // Sorted by reference: a segment is 80 bytes to move, and a crowd's
        // block holds thousands, ended by two schedulers in turn.
        self.order.clear();
        self.order.extend(
            segs.iter()
                .enumerate()
                .map(|(i, s)| (s.process, s.first_event, i as u32)),
        );
        self.order.sort_unstable();
        self.rows.clear();
        self.raw_body.clear();
        for &(_, _, i) in &self.order {
            let s = &segs[i as usize];
            self.rows.push(Segment {
                process: s.process,
                first_event: s.first_event,
                first_signal: s.first_signal,
                events: s.events,
                raw_len: s.bytes.len() as u32,
                origin: Some((s.pid, s.parent.unwrap_or(NO_PARENT))),
            });
            self.raw_body.extend_from_slice(&s.bytes);
        }
        let (rows, body) = (
            std::mem::take(&mut self.rows),
            std::mem::take(&mut self.raw_body),
        );
        let timestamps = segs.first().is_some_and(|s| s.timestamps);
        self.write_record(&rows, &body, timestamps, binding, out);
        (self.rows, self.raw_body) = (rows, body);
    }

    /// Appends the block record of a crowd: its rows as they are when they
    /// are in process order already (a thread's crowd mostly is: processes
    /// are registered in order and run in about that order), else put in
    /// process order as [`encode_record`](Self::encode_record) puts them.
    pub fn encode_crowd(&mut self, c: &CrowdBlock, binding: RunBinding, out: &mut Vec<u8>) {
        let key = |r: &Segment| (r.process, r.first_event);
        if c.rows.is_sorted_by_key(key) {
            self.write_record(&c.rows, &c.bytes, c.timestamps, binding, out);
            return;
        }
        // Sorted once, by reference (as `encode_record` does), then
        // gathered: each row's events start where the rows before it end.
        let mut starts = Vec::with_capacity(c.rows.len());
        let mut start = 0usize;
        self.order.clear();
        for (i, r) in c.rows.iter().enumerate() {
            self.order.push((r.process, r.first_event, i as u32));
            starts.push(start);
            start += r.raw_len as usize;
        }
        self.order.sort_unstable();
        let mut rows = std::mem::take(&mut self.rows);
        let mut body = std::mem::take(&mut self.raw_body);
        rows.clear();
        body.clear();
        for &(_, _, i) in &self.order {
            let r = &c.rows[i as usize];
            body.extend_from_slice(&c.bytes[starts[i as usize]..][..r.raw_len as usize]);
            rows.push(r.clone());
        }
        self.write_record(&rows, &body, c.timestamps, binding, out);
        (self.rows, self.raw_body) = (rows, body);
    }

    /// Appends the record of `rows` over `body`: header, segment table,
    /// body, each part zstd-compressed when that makes it smaller.
    fn write_record(
        &mut self,
        rows: &[Segment],
        body: &[u8],
        timestamps: bool,
        binding: RunBinding,
        out: &mut Vec<u8>,
    ) {
        self.raw_table.clear();
        segment::encode(rows, &mut self.raw_table);
        let start = out.len();
        out.resize(start + BLOCK_HEADER_LEN, 0);
        let table_at = out.len();
        let table = store(self.table.as_mut(), &self.raw_table, &mut self.scratch, out);
        let body_at = out.len();
        let compressor = body_compressor(&mut self.body, &mut self.crowd_body, rows.len());
        let storage = store(compressor, body, &mut self.scratch, out);
        let mut flags = if timestamps { FLAG_TIMESTAMPS } else { 0 };
        if table == Storage::Zstd {
            flags |= FLAG_TABLE_ZSTD;
        }
        let header = BlockHeader {
            storage,
            flags,
            run_tag: binding.tag(),
            segments: rows.len() as u32,
            table_raw_len: self.raw_table.len() as u32,
            table_stored_len: (body_at - table_at) as u32,
            raw_len: body.len() as u32,
            stored_len: (out.len() - body_at) as u32,
            table_crc: binding.body_crc(&out[table_at..body_at]),
            body_crc: binding.body_crc(&out[body_at..]),
        };
        out[start..table_at].copy_from_slice(&header.encode());
    }
}

/// A zstd context, if one could be made.
type Zstd = Option<zstd::bulk::Compressor<'static>>;

/// The compressor for a body of `segments` segments: a crowd's, or the
/// other bodies'.
fn body_compressor<'c>(
    body: &'c mut Zstd,
    crowd_body: &'c mut Zstd,
    segments: usize,
) -> Option<&'c mut zstd::bulk::Compressor<'static>> {
    if segments >= CROWD_SEGMENTS {
        crowd_body.as_mut()
    } else {
        body.as_mut()
    }
}

impl Packer {
    /// The bytes [`encode_record`](Self::encode_record) stores for a body
    /// of `segments` segments whose events are `raw`: `trace stats`
    /// re-encodes a log's blocks and packs them as the writer would.
    pub fn stored_body_len(&mut self, segments: usize, raw: &[u8]) -> usize {
        let mut out = std::mem::take(&mut self.raw_body);
        out.clear();
        let c = body_compressor(&mut self.body, &mut self.crowd_body, segments);
        store(c, raw, &mut self.scratch, &mut out);
        let n = out.len();
        self.raw_body = out;
        n
    }
}

/// A block of at least this many segments is a crowd's (see [`Packer`]).
const CROWD_SEGMENTS: usize = 16;

/// Appends `raw` to `out`, zstd-compressed when that makes it smaller
/// (and padded to the reader's ratio bound), else as it is.
fn store(
    compressor: Option<&mut zstd::bulk::Compressor<'_>>,
    raw: &[u8],
    scratch: &mut Vec<u8>,
    out: &mut Vec<u8>,
) -> Storage {
    let at = out.len();
    if let Some(c) = compressor.filter(|_| raw.len() >= MIN_COMPRESSED) {
        scratch.clear();
        scratch.reserve(zstd::zstd_safe::compress_bound(raw.len()));
        if matches!(c.compress_to_buffer(raw, &mut *scratch), Ok(n) if n < raw.len()) {
            out.extend_from_slice(scratch);
            pad_to_ratio(out, at, raw.len());
            return Storage::Zstd;
        }
    }
    out.extend_from_slice(raw);
    Storage::Raw
}

/// Appends a zstd skippable frame when the body compressed better than
/// `MAX_RATIO`, so a reader can bound decoded size by stored size.
fn pad_to_ratio(out: &mut Vec<u8>, body_at: usize, raw_len: usize) {
    let stored = out.len() - body_at;
    let need = raw_len.div_ceil(MAX_RATIO as usize);
    if stored >= need {
        return;
    }
    // A skippable frame is 8 bytes of header plus its content.
    let content = need.saturating_sub(stored + 8);
    out.extend_from_slice(&SKIPPABLE_MAGIC.to_le_bytes());
    out.extend_from_slice(&(content as u32).to_le_bytes());
    out.resize(out.len() + content, 0);
}

/// zstd's first skippable-frame magic number.
const SKIPPABLE_MAGIC: u32 = 0x184D_2A50;

#[cfg(test)]
mod tests {
    use super::*;

    fn segment(process: u32, len: usize) -> RawSegment {
        RawSegment {
            process,
            parent: None,
            pid: 80 + process as u64,
            first_event: 0,
            first_signal: 0,
            events: 1,
            timestamps: false,
            bytes: vec![0xc1; len],
        }
    }

    fn queued(process: u32, len: usize) -> Queued {
        Queued::Segment(segment(process, len))
    }

    /// The process of a queued segment (`u32::MAX` for a crowd).
    fn process_of(q: Queued) -> u32 {
        match q {
            Queued::Segment(s) => s.process,
            Queued::Crowd(_) => u32::MAX,
        }
    }

    /// A lingering consumer takes what is queued at its deadline, and
    /// nothing when nothing is.
    #[test]
    fn a_lingering_pop_takes_what_waits_at_its_deadline() {
        let q = Queue::new(1 << 20, 100);
        let past = Instant::now();
        assert!(q.pop_until(past).is_none());
        assert!(q.submit(queued(1, 10), Wake::Now).is_ok());
        assert!(q.submit(queued(2, 10), Wake::Now).is_ok());
        assert_eq!(q.pop_until(past).map(process_of), Some(1));
        assert_eq!(q.try_pop().map(process_of), Some(2));
    }

    /// A drain takes waiting segments, in order, until the block reaches
    /// its size, and leaves one that would take it past the reader's limit.
    #[test]
    fn a_drain_takes_segments_up_to_the_block_size() {
        let q = Queue::new(1 << 20, 100);
        for p in 1..=4 {
            assert!(q.submit(queued(p, 40), Wake::Now).is_ok());
        }
        let (mut segs, mut body) = (Vec::new(), 0);
        assert_eq!(q.drain_into(&mut segs, &mut body, 100), Drained::Some);
        let taken: Vec<u32> = segs.iter().map(|s| s.process).collect();
        assert_eq!((taken, body), (vec![1, 2, 3], 120));
        segs.clear();
        body = MAX_BLOCK_RAW as usize - 10;
        assert_eq!(
            q.drain_into(&mut segs, &mut body, usize::MAX),
            Drained::Full
        );
        assert!(segs.is_empty());
        body = 0;
        assert_eq!(q.drain_into(&mut segs, &mut body, 100), Drained::Some);
        assert_eq!(segs[0].process, 4);
        assert_eq!(q.drain_into(&mut segs, &mut body, 100), Drained::Empty);
    }

    /// Once a block's worth is queued, a lingering consumer does not wait
    /// for its deadline (an hour away here), nor once the queue is closed.
    #[test]
    fn a_lingering_pop_returns_once_a_block_is_filled_or_the_queue_closes() {
        let q = Queue::new(1 << 20, 100);
        let later = Instant::now() + Duration::from_secs(3600);
        assert!(q.submit(queued(1, 60), Wake::Now).is_ok());
        assert!(q.submit(queued(2, 60), Wake::Now).is_ok());
        assert_eq!(q.pop_until(later).map(process_of), Some(1));
        q.close();
        assert_eq!(q.pop_until(later).map(process_of), Some(2));
        assert!(q.pop_until(later).is_none());
    }
}
