//! Writing a log while the program runs: per-process buffers encoded on the
//! scheduler threads, a background flusher that cuts blocks of idle processes,
//! compressor threads that append blocks to the file, and a footer on finish.
//!
//! ```text
//! ProcessWriter::slice().push_*() ──encode──► per-process buffer
//!        │ block_size reached, process closed,      │ flush_interval passed
//!        │ or memory budget exceeded                ▼ (flusher thread)
//!        └──────► queue of segments ──► compressor threads: pack segments
//!                 into blocks, compress ──► file (blocks)
//! LogWriter::finish(outcome) ──► cut everything, drain, footer + trailer
//! ```
//!
//! A process's first slice (`ProcessWriter::hold_crowded`) goes instead
//! into its thread's crowd ([`crowd`]), a block of many processes' first
//! segments that is queued whole.

mod cell;
mod crowd;
mod flusher;
mod open;
mod process;
mod registry;
pub(crate) mod sink;
mod spares;

pub use process::{ProcessWriter, Slice};

use crate::container::{self, PREAMBLE_LEN};
use crate::event::{ProcId, ProcessLog};
use crate::meta::{Footer, Header, Outcome};
use crate::sync::lock;
use process::{cut_and, ProcState};
use sink::{FileState, Queue, Queued, RawSegment, Wake};
use std::fs::File;
use std::io::{self, Write};
use std::marker::PhantomData;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How the writer cuts, compresses and bounds its buffers.
#[derive(Clone, Debug)]
pub struct WriterOptions {
    /// A process's block is cut when its encoded events reach this many bytes.
    pub block_size: usize,
    /// A block is cut once its oldest event is this old, so a killed run loses
    /// at most about this much.
    pub flush_interval: Duration,
    /// Budget for open blocks; above it the flusher cuts every idle process's
    /// block. Blocks waiting for compression take up to a quarter more.
    pub max_buffered_bytes: usize,
    /// Stamp every event with the time since the writer was created.
    pub timestamps: bool,
    /// zstd level of the blocks.
    pub zstd_level: i32,
    /// Threads compressing and writing blocks.
    pub compress_threads: usize,
    /// Longest a compressor waits for more segments to pack into a block
    /// with the first it took: short processes end one at a time, and a
    /// block each would cost a header and a compressor frame for a few
    /// events. A killed run loses at most this much more.
    pub linger: Duration,
}

impl Default for WriterOptions {
    fn default() -> Self {
        WriterOptions {
            block_size: 64 << 10,
            flush_interval: Duration::from_millis(500),
            max_buffered_bytes: 64 << 20,
            timestamps: false,
            zstd_level: 1,
            compress_threads: 1,
            linger: Duration::from_millis(30),
        }
    }
}

/// Largest accepted `block_size`: a block can exceed it by one event (whose
/// terms are at most [`container::MAX_TERM`]) and must stay under the
/// reader's limit, [`container::MAX_BLOCK_RAW`].
pub const MAX_BLOCK_SIZE: usize = 16 << 20;

/// What `finish` wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub processes: u64,
    pub events: u64,
    pub blocks: u64,
    /// Size of the file.
    pub bytes: u64,
    /// Encoded event bytes before compression.
    pub raw_bytes: u64,
    /// Events pushed after `finish`, or in blocks that failed to be written.
    pub lost_events: u64,
    /// Terms larger than [`container::MAX_TERM`]: left out (payloads,
    /// reasons, output) or recorded empty (built-ins' results).
    pub oversized_terms: u64,
}

/// State shared by the writer, the process handles and the background threads.
pub(crate) struct Inner {
    opts: WriterOptions,
    start: Instant,
    processes: registry::Registry,
    /// Processes with an open block (each listed once).
    open: open::OpenLists,
    /// The crowds of new processes' first slices, one a shard. Not counted
    /// in `buffered`: each holds at most a block's body and room for a row
    /// per `crowd::ROW_BYTES` of it (rows of 56 bytes: about 150 KB for a
    /// 64 KiB block), a bounded few hundred KB per shard, and the queue
    /// keeps as many again for a few spent crowds (`sink::Queue::spare_crowd`).
    crowds: Box<[crowd::CrowdCell]>,
    /// Bytes reported by open blocks.
    buffered: AtomicUsize,
    queue: Queue,
    file: Mutex<FileState>,
    flusher_wake: AtomicBool,
    stopping: AtomicBool,
    flusher: Mutex<Option<std::thread::Thread>>,
    lost_after_finish: AtomicU64,
    oversized: AtomicU64,
}

impl Inner {
    fn reserve(&self, bytes: usize) {
        let now = self.buffered.fetch_add(bytes, Ordering::Relaxed) + bytes;
        if now > self.opts.max_buffered_bytes && !self.flusher_wake.load(Ordering::Relaxed) {
            self.flusher_wake.store(true, Ordering::Relaxed);
            if let Some(t) = lock(&self.flusher).as_ref() {
                t.unpark();
            }
        }
    }

    fn release(&self, bytes: usize) {
        self.buffered.fetch_sub(bytes, Ordering::Relaxed);
    }

    fn over_budget(&self) -> bool {
        self.buffered.load(Ordering::Relaxed) > self.opts.max_buffered_bytes
    }

    /// `term`, unless it is too large for a block (then counted).
    fn fit<'t>(&self, term: Option<&'t [u8]>) -> Option<&'t [u8]> {
        match term {
            Some(t) if t.len() > container::MAX_TERM => {
                self.count_oversized();
                None
            }
            t => t,
        }
    }

    #[cold]
    fn count_oversized(&self) {
        self.oversized.fetch_add(1, Ordering::Relaxed);
    }

    fn list_open(&self, state: Arc<ProcState>) {
        self.open.push(state);
    }

    fn submit(&self, block: RawSegment, wake: Wake) {
        self.submit_queued(Queued::Segment(block), wake);
    }

    /// Queues a segment or a crowd; its events are counted as lost if the
    /// log was finished.
    fn submit_queued(&self, q: Queued, wake: Wake) {
        if let Err(q) = self.queue.submit(q, wake) {
            self.lost_after_finish
                .fetch_add(q.events(), Ordering::Relaxed);
        }
    }
}

/// The writer of one log file. Create it with [`LogWriter::create`], register
/// processes as they appear, and [`finish`](LogWriter::finish) it at the end.
pub struct LogWriter {
    inner: Arc<Inner>,
    /// The compressor threads.
    threads: Mutex<Vec<JoinHandle<()>>>,
    flusher: Mutex<Option<JoinHandle<()>>>,
    finished: AtomicBool,
    header_start_ns: u64,
}

fn now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

impl LogWriter {
    /// Creates (truncates) `path`, writes the header and starts the background
    /// threads. `header.options.timestamps` is set from `opts`; a zero
    /// `start_time_ns` is set to now.
    pub fn create(
        path: impl AsRef<Path>,
        mut header: Header,
        opts: WriterOptions,
    ) -> io::Result<Arc<LogWriter>> {
        if opts.block_size == 0 || opts.block_size > MAX_BLOCK_SIZE {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("block_size must be between 1 and {MAX_BLOCK_SIZE} bytes"),
            ));
        }
        header.options.timestamps = opts.timestamps;
        if header.start_time_ns == 0 {
            header.start_time_ns = now_ns();
        }
        if header.run_id == 0 {
            header.run_id = fresh_run_id();
        }
        let binding = container::RunBinding {
            version: container::VERSION,
            run_id: header.run_id,
        };
        let body = postcard::to_allocvec(&header).map_err(io::Error::other)?;
        let mut head = Vec::with_capacity(PREAMBLE_LEN + body.len() + 4);
        head.extend_from_slice(&container::preamble(body.len() as u32));
        head.extend_from_slice(&body);
        let crc = crc32fast::hash(&head);
        head.extend_from_slice(&crc.to_le_bytes());
        let mut file = File::create(path)?;
        file.write_all(&head)?;

        let threads = opts.compress_threads.max(1);
        let queue_bytes = (opts.max_buffered_bytes / 4).max(4 * opts.block_size);
        let inner = Arc::new(Inner {
            start: Instant::now(),
            processes: registry::Registry::default(),
            open: open::OpenLists::new(),
            crowds: (0..open::SHARDS).map(|_| crowd::CrowdCell::new()).collect(),
            buffered: AtomicUsize::new(0),
            queue: Queue::new(queue_bytes, opts.block_size),
            file: Mutex::new(FileState {
                file,
                offset: head.len() as u64,
                index: Vec::new(),
                blocks: 0,
                events: Vec::new(),
                raw_bytes: 0,
                error: None,
                lost_events: 0,
            }),
            flusher_wake: AtomicBool::new(false),
            stopping: AtomicBool::new(false),
            flusher: Mutex::new(None),
            lost_after_finish: AtomicU64::new(0),
            oversized: AtomicU64::new(0),
            opts,
        });
        let mut handles = Vec::new();
        for i in 0..threads {
            let inner = inner.clone();
            handles.push(
                std::thread::Builder::new()
                    .name(format!("trace-log-zstd-{i}"))
                    .spawn(move || {
                        sink::compress_loop(
                            &inner.queue,
                            &inner.file,
                            inner.opts.zstd_level,
                            binding,
                            inner.opts.block_size,
                            inner.opts.linger,
                        )
                    })?,
            );
        }
        let fl = inner.clone();
        let h = std::thread::Builder::new()
            .name("trace-log-flush".into())
            .spawn(move || flusher::run(&fl))?;
        *lock(&inner.flusher) = Some(h.thread().clone());
        Ok(Arc::new(LogWriter {
            inner,
            threads: Mutex::new(handles),
            flusher: Mutex::new(Some(h)),
            finished: AtomicBool::new(false),
            header_start_ns: header.start_time_ns,
        }))
    }

    /// Registers a new process and returns its handle. Dense indices are
    /// given in registration order: register the entry process first (index
    /// 0), and a child before its parent pushes the `Spawn` naming it.
    pub fn register(&self, pid: u64, parent: Option<ProcId>) -> ProcessWriter {
        let id = self.inner.processes.register(pid, parent);
        ProcessWriter {
            state: std::mem::ManuallyDrop::new(ProcState::shared(id, pid, parent)),
            inner: self.inner.clone(),
            closed: false,
            held: false,
            crowd: process::CrowdStage::Fresh,
            _not_sync: PhantomData,
        }
    }

    /// Writes whole process logs at once (an import, a hand-built log):
    /// registers every process, in the order given, before it pushes any
    /// event, so each `Spawn` finds its child registered. `logs[i]` gets the
    /// index `i`: its `id` must be `ProcId(i)`.
    pub fn write_logs(&self, logs: &[ProcessLog]) {
        let mut handles: Vec<_> = logs
            .iter()
            .map(|l| self.register(l.pid, l.parent))
            .collect();
        for (l, h) in logs.iter().zip(&mut handles) {
            debug_assert_eq!(h.id(), l.id, "process logs are written in id order");
            let mut s = h.slice();
            for e in &l.events {
                s.push(e);
            }
        }
    }

    /// Processes registered so far.
    pub fn processes(&self) -> u64 {
        self.inner.processes.count()
    }

    /// Nanoseconds since the writer was created: the clock of event timestamps.
    pub fn elapsed_ns(&self) -> u64 {
        self.inner.start.elapsed().as_nanos() as u64
    }

    /// Writes out every open block, then the footer and trailer, and syncs the
    /// file. Call it once, after the run stopped pushing events; events pushed
    /// later are counted as lost. An interrupted run is finished the same way
    /// with `RunEnd::Interrupted`.
    pub fn finish(&self, outcome: Outcome) -> io::Result<Summary> {
        self.finish_at(outcome, now_ns())
    }

    /// [`finish`](Self::finish) with the run's wall-clock end given (ns since
    /// the epoch) rather than read from the clock: with a fixed header start
    /// time, the same events make the same file, byte for byte.
    pub fn finish_at(&self, outcome: Outcome, end_time_ns: u64) -> io::Result<Summary> {
        if self.finished.swap(true, Ordering::SeqCst) {
            return Err(io::Error::other("the log was already finished"));
        }
        let inner = &self.inner;
        // The flusher must be gone before the open list is read: a sweep in
        // progress holds part of that list and would put it back too late.
        self.stop_flusher();
        // Cut every open block (waiting for processes inside a slice); the
        // compressors wake when the queue closes, and pack what they find.
        for state in inner.open.take_all() {
            let mut b = state.buf.lock();
            cut_and(&mut b, &state, inner, Wake::Later);
            b.listed = false;
        }
        for c in inner.crowds.iter() {
            c.crowd.lock().cut(inner, Wake::Later);
        }
        inner.queue.close();
        for h in std::mem::take(&mut *lock(&self.threads)) {
            let _ = h.join();
        }

        let mut processes = inner.processes.entries();
        let mut f = lock(&inner.file);
        if let Some(e) = f.error.take() {
            return Err(e);
        }
        for (p, n) in processes.iter_mut().zip(&f.events) {
            p.events = *n;
        }
        let events = f.events.iter().sum();
        let footer = Footer {
            outcome,
            end_time_ns: end_time_ns.max(self.header_start_ns),
            processes,
            blocks: Vec::new(),
        };
        // `blocks` is the footer's last field, and its entries are encoded
        // already: the footer is everything before it, the count, the entries.
        let mut head = postcard::to_allocvec(&footer).map_err(io::Error::other)?;
        let empty = head.pop();
        debug_assert_eq!(empty, Some(0), "an empty sequence is a zero count");
        crate::varint::put(&mut head, f.blocks);
        let body_len = u32::try_from(head.len() + f.index.len())
            .map_err(|_| io::Error::other("the footer would exceed 4 GiB"))?;
        let footer_offset = f.offset;
        let mut crc = crc32fast::Hasher::new();
        let record_head = container::footer_record_header(body_len);
        for part in [&record_head[..], &head, &f.index] {
            crc.update(part);
        }
        let mut tail = crc.finalize().to_le_bytes().to_vec();
        tail.extend_from_slice(&container::trailer(footer_offset));
        let index = std::mem::take(&mut f.index);
        for part in [&record_head[..], &head, &index, &tail] {
            f.file.write_all(part)?;
        }
        f.file.sync_data()?;
        f.offset += (record_head.len() + head.len() + index.len() + tail.len()) as u64;
        Ok(Summary {
            processes: footer.processes.len() as u64,
            events,
            blocks: f.blocks,
            bytes: f.offset,
            raw_bytes: f.raw_bytes,
            lost_events: f.lost_events + inner.lost_after_finish.load(Ordering::Relaxed),
            oversized_terms: inner.oversized.load(Ordering::Relaxed),
        })
    }
}

impl LogWriter {
    fn stop_flusher(&self) {
        self.inner.stopping.store(true, Ordering::SeqCst);
        if let Some(t) = lock(&self.inner.flusher).as_ref() {
            t.unpark();
        }
        if let Some(h) = lock(&self.flusher).take() {
            let _ = h.join();
        }
    }
}

impl Drop for LogWriter {
    fn drop(&mut self) {
        // Not finished: stop the threads and leave a footer-less log that a
        // reader recovers by scanning (the blocks already written are intact).
        if !self.finished.load(Ordering::SeqCst) {
            self.stop_flusher();
            self.inner.queue.close();
            for h in std::mem::take(&mut *lock(&self.threads)) {
                let _ = h.join();
            }
        }
    }
}

/// A number for a recording that another recording started at the same
/// moment will not draw: the standard library's per-process random hash
/// keys, mixed with the time and the process id.
fn fresh_run_id() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(now_ns());
    h.write_u32(std::process::id());
    h.finish().max(1)
}
