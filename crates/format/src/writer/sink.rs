//! The back end of the writer: a bounded queue of cut blocks, and the threads
//! that compress them and append them to the file. Blocks land in the file in
//! the order they are compressed; the footer's index and each block's
//! `first_event` say where they belong.

use crate::container::{
    BlockHeader, RunBinding, Storage, BLOCK_HEADER_LEN, FLAG_TIMESTAMPS, MAX_RATIO, NO_PARENT,
};
use crate::meta::BlockEntry;
use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, Write};
use std::sync::{Condvar, Mutex, MutexGuard};

/// One process's block, encoded but not yet compressed.
pub(crate) struct RawBlock {
    pub process: u32,
    pub parent: Option<u32>,
    pub pid: u64,
    pub first_event: u64,
    pub first_signal: u64,
    pub events: u32,
    pub timestamps: bool,
    pub bytes: Vec<u8>,
}

struct QueueState {
    blocks: VecDeque<RawBlock>,
    bytes: usize,
    closed: bool,
    /// Threads waiting on `not_empty` and on `not_full`: a condvar's notify
    /// is a system call even with no one waiting, and a run of many short
    /// processes submits (and pops) hundreds of thousands of blocks.
    consumers_waiting: usize,
    producers_waiting: usize,
}

/// Whether queuing a block wakes a waiting compressor at once, or leaves it
/// to a [`Queue::wake`] after a series of blocks (each wake-up is a system
/// call, and a sweep over idle processes queues thousands of small blocks).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Wake {
    Now,
    Later,
}

/// Cut blocks waiting for a compressor. Bounded in bytes: a producer that
/// finds it full waits (backpressure keeps the writer's memory bounded).
pub(crate) struct Queue {
    state: Mutex<QueueState>,
    not_empty: Condvar,
    not_full: Condvar,
    max_bytes: usize,
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic elsewhere must not stop the log from being finished.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Queue {
    pub fn new(max_bytes: usize) -> Self {
        Queue {
            state: Mutex::new(QueueState {
                blocks: VecDeque::new(),
                bytes: 0,
                closed: false,
                consumers_waiting: 0,
                producers_waiting: 0,
            }),
            not_empty: Condvar::new(),
            not_full: Condvar::new(),
            max_bytes,
        }
    }

    /// Queues a block; returns it back if the queue is closed (the log was finished).
    pub fn submit(&self, b: RawBlock, wake: Wake) -> Result<(), RawBlock> {
        let mut s = lock(&self.state);
        // A block larger than the whole bound is still accepted once the queue is empty.
        while !s.closed && s.bytes > 0 && s.bytes + b.bytes.len() > self.max_bytes {
            // Blocks queued without a wake-up must be compressed to make room.
            if s.consumers_waiting > 0 {
                self.not_empty.notify_one();
            }
            s.producers_waiting += 1;
            s = self.not_full.wait(s).unwrap_or_else(|e| e.into_inner());
            s.producers_waiting -= 1;
        }
        if s.closed {
            return Err(b);
        }
        s.bytes += b.bytes.len();
        s.blocks.push_back(b);
        let waiting = s.consumers_waiting > 0;
        drop(s);
        if waiting && wake == Wake::Now {
            self.not_empty.notify_one();
        }
        Ok(())
    }

    /// Wakes a waiting compressor if blocks wait (after [`Wake::Later`] submits).
    pub fn wake(&self) {
        let s = lock(&self.state);
        let wake = s.consumers_waiting > 0 && !s.blocks.is_empty();
        drop(s);
        if wake {
            self.not_empty.notify_one();
        }
    }

    /// The next block if one is waiting, without waiting for one.
    fn try_pop(&self) -> Option<RawBlock> {
        let s = lock(&self.state);
        self.take_front(s)
    }

    /// The next block, or `None` once the queue is closed and drained.
    fn pop(&self) -> Option<RawBlock> {
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
    fn take_front(&self, mut s: MutexGuard<'_, QueueState>) -> Option<RawBlock> {
        let b = s.blocks.pop_front()?;
        s.bytes -= b.bytes.len();
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

/// Compresses blocks from `queue` and appends them to `file` until the queue
/// closes. Records are written in batches, but never held back while the
/// queue is empty: what has been cut reaches the file as soon as it is
/// compressed, so a killed run loses no more than before.
pub(crate) fn compress_loop(
    queue: &Queue,
    file: &Mutex<FileState>,
    level: i32,
    binding: RunBinding,
) {
    let mut compressor = block_compressor(level);
    let mut scratch = Vec::new();
    let mut batch = Vec::new();
    let mut entries = Vec::new();
    while let Some(b) = queue.pop() {
        let mut next = Some(b);
        while let Some(b) = next.take() {
            let at = batch.len();
            encode_record(&b, binding, compressor.as_mut(), &mut scratch, &mut batch);
            entries.push(Batched {
                process: b.process,
                first_event: b.first_event,
                events: b.events,
                raw_len: b.bytes.len(),
                len: (batch.len() - at) as u32,
            });
            if batch.len() < BATCH_BYTES {
                next = queue.try_pop();
            }
        }
        append(file, &batch, &mut entries);
        batch.clear();
    }
}

/// A record of a batch, for the footer's index.
struct Batched {
    process: u32,
    first_event: u64,
    events: u32,
    raw_len: usize,
    /// The record's length in the file.
    len: u32,
}

/// Writes a batch of records and enters each in the footer's index.
fn append(file: &Mutex<FileState>, batch: &[u8], entries: &mut Vec<Batched>) {
    let mut f = lock(file);
    let lost: u64 = entries.iter().map(|b| b.events as u64).sum();
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
            process: b.process,
            first_event: b.first_event,
            events: b.events,
            offset: f.offset,
            len: b.len,
        };
        f.index = postcard::to_extend(&entry, std::mem::take(&mut f.index))
            .expect("a block entry always encodes");
        f.blocks += 1;
        let p = b.process as usize;
        if f.events.len() <= p {
            f.events.resize(p + 1, 0);
        }
        f.events[p] += b.events as u64;
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

/// Bodies shorter than this are stored raw without trying zstd: its frame
/// alone takes a dozen bytes, so it seldom wins on them, and a run of many
/// short-lived processes cuts hundreds of thousands of such blocks.
const MIN_COMPRESSED: usize = 64;

/// Appends the block record to `out`: header, then the body, zstd-compressed
/// when that makes it smaller. `scratch` is reused compression space.
pub(crate) fn encode_record(
    b: &RawBlock,
    binding: RunBinding,
    compressor: Option<&mut zstd::bulk::Compressor<'_>>,
    scratch: &mut Vec<u8>,
    out: &mut Vec<u8>,
) {
    let start = out.len();
    out.resize(start + BLOCK_HEADER_LEN, 0);
    let body_at = out.len();
    let mut storage = Storage::Raw;
    if let Some(c) = compressor.filter(|_| b.bytes.len() >= MIN_COMPRESSED) {
        scratch.clear();
        scratch.reserve(zstd::zstd_safe::compress_bound(b.bytes.len()));
        if matches!(c.compress_to_buffer(&b.bytes[..], &mut *scratch), Ok(n) if n < b.bytes.len()) {
            storage = Storage::Zstd;
            out.extend_from_slice(scratch);
            pad_to_ratio(out, body_at, b.bytes.len());
        }
    }
    if storage == Storage::Raw {
        out.extend_from_slice(&b.bytes);
    }
    let stored = &out[body_at..];
    let header = BlockHeader {
        storage,
        flags: if b.timestamps { FLAG_TIMESTAMPS } else { 0 },
        run_tag: binding.tag(),
        process: b.process,
        parent: b.parent.unwrap_or(NO_PARENT),
        pid: b.pid,
        first_event: b.first_event,
        first_signal: b.first_signal,
        events: b.events,
        raw_len: b.bytes.len() as u32,
        stored_len: stored.len() as u32,
        body_crc: binding.body_crc(stored),
    };
    out[start..body_at].copy_from_slice(&header.encode());
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
