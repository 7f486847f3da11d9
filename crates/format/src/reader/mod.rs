//! Reading a log: map the file, check magic and version, read the header, then
//! find the blocks — through the footer's index, or by scanning when the
//! footer is missing or damaged (the run was killed) — and decode blocks on
//! demand, in parallel.
//!
//! ```text
//! open ─► preamble + header ─► footer ──ok──► block index ─┐
//!                                 └─missing─► scan blocks ─┴► segment tables
//!         ─► all served in file order? ──yes──► kept by record (listed on demand,
//!                                                then let go)
//!                                      └─no──► table: process → segments
//! par_fold_blocks: a record at a time, its rows beside its body
//! events_of / read_all / par_map_blocks ─► decompress (zstd) ─► codec ─► events
//! block_cursor (resume): one segment decompressed, its events a few at a time
//! ```
//!
//! A block record holds segments, each a run of one process's events (in
//! versions 1 and 2 a record is one segment); the API calls the segments
//! it serves "blocks". What the reader serves is, per process, the longest
//! run of intact segments from its first event: a process log with a hole
//! would lie about program order. Everything it left out is listed in
//! [`LogReader::warnings`].

mod decode;
mod locate;
mod resume;
mod table;

pub use decode::{BlockInfo, Events, RecordScratch};
pub use resume::BlockCursor;
pub use table::ProcessInfo;

use crate::container::{
    self, RunBinding, FIRST_VERSION, MAGIC, MAX_HEADER_LEN, PREAMBLE_LEN, VERSION,
};
use crate::error::{FormatError, Warning};
use crate::event::ProcId;
use crate::meta::{Header, Outcome};
use crate::sync::lock;
use memmap2::Mmap;
use std::ops::Deref;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use table::{BlockRef, ByProcess, Listing, Opened, Record, SegTable};

/// The bytes of a log: a read-only map of the file, or bytes in memory.
enum Source {
    Map(Mmap),
    Bytes(Vec<u8>),
}

impl Deref for Source {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Source::Map(m) => m,
            Source::Bytes(b) => b,
        }
    }
}

/// An open log.
pub struct LogReader {
    data: Source,
    header: Header,
    /// The format version and run id that bind the blocks to the header.
    binding: RunBinding,
    /// From the footer; `None` when the log was recovered by scanning.
    end: Option<(Outcome, u64)>,
    /// The block records found, in file order.
    records: Vec<Record>,
    /// Each record's rows as its checked table gave them, when every
    /// segment found is served in file order (a finished log as written):
    /// a whole-log fold goes through them, a record at a time, until a
    /// read by process has the segments listed. The listing then serves
    /// the fold too, and the rows are let go (a crowd's log has millions;
    /// a fold still running keeps its own handle on them).
    rows: Mutex<Option<Arc<Vec<SegTable>>>>,
    /// The segments found, listed: built when opening decided what is
    /// served, or else (from `rows`) when first asked for.
    listing: OnceLock<Listing>,
    /// The processes and their readable segments, grouped by process:
    /// built when opening decided what is served, or else (a finished log
    /// that serves all it holds) when first asked for, from `entries`. A
    /// whole-log fold needs none of it.
    by_process: OnceLock<ByProcess>,
    entries: Vec<crate::meta::ProcessEntry>,
    /// Tells this reader's decoded bodies apart in a thread's scratch.
    id: u64,
    /// Decoded bodies of shared blocks, for reads of one process at a time.
    bodies: std::sync::Mutex<decode::BodyCache>,
    warnings: Vec<Warning>,
}

/// Numbers the readers of this process.
static READERS: AtomicU64 = AtomicU64::new(1);

impl LogReader {
    /// Maps and opens the log at `path`.
    /// A directory is refused. A pipe, a device or a file the system cannot
    /// map (`<(cmd)`, /proc) is read into memory instead, only when it starts
    /// as a log does and up to [`MAX_STREAMED_LOG`] bytes; a named pipe that
    /// nothing writes to is refused rather than waited for.
    pub fn open(path: impl AsRef<Path>) -> Result<LogReader, FormatError> {
        let input = trace_input::open(path.as_ref()).map_err(|e| match e.kind() {
            std::io::ErrorKind::IsADirectory => std::io::Error::new(
                std::io::ErrorKind::IsADirectory,
                "is a directory, not a trace log",
            ),
            _ => e,
        })?;
        if input.len.is_some() {
            // SAFETY: the map is read-only; like every mmap reader we rely on
            // the file not being truncated underneath us while it is open.
            if let Ok(map) = unsafe { Mmap::map(&input.file) } {
                return Self::from_source(Source::Map(map));
            }
        }
        Self::from_bytes(read_streamed(input)?)
    }

    /// Opens a log held in memory (tests, fuzzing, logs received over a pipe).
    pub fn from_bytes(bytes: Vec<u8>) -> Result<LogReader, FormatError> {
        Self::from_source(Source::Bytes(bytes))
    }

    fn from_source(data: Source) -> Result<LogReader, FormatError> {
        let (header, version, blocks_start) = read_header(&data)?;
        let binding = RunBinding {
            version,
            run_id: header.run_id,
        };
        let mut warnings = Vec::new();
        let located = locate::locate(&data, blocks_start, binding, &mut warnings);
        let (listing, by_process) = (OnceLock::new(), OnceLock::new());
        let opened = table::open(
            &header,
            &located.records,
            located.tables,
            located.processes,
            &mut warnings,
        );
        let (rows, entries) = match opened {
            Opened::Whole { tables, entries } => (Some(Arc::new(tables)), entries),
            Opened::Listed(t) => {
                let _ = listing.set(t.listing);
                if let Some(b) = t.by_process {
                    let _ = by_process.set(b);
                }
                (None, t.entries)
            }
        };
        Ok(LogReader {
            data,
            header,
            binding,
            end: located.end,
            records: located.records,
            rows: Mutex::new(rows),
            listing,
            by_process,
            entries,
            id: READERS.fetch_add(1, Ordering::Relaxed),
            bodies: Default::default(),
            warnings,
        })
    }

    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The format version the log was written in.
    pub fn version(&self) -> u16 {
        self.binding.version
    }

    /// How the run ended and its wall-clock end (ns since the epoch), from the
    /// footer; `None` when the log had to be recovered by scanning.
    pub fn outcome(&self) -> Option<(&Outcome, u64)> {
        self.end.as_ref().map(|(o, t)| (o, *t))
    }

    /// True when the footer was missing or unusable and blocks were found by scanning.
    pub fn recovered(&self) -> bool {
        self.end.is_none()
    }

    /// The segments, listed on first use; the rows kept by record go then.
    fn listing(&self) -> &Listing {
        self.listing.get_or_init(|| {
            let rows = lock(&self.rows).take().unwrap_or_default();
            Listing::whole(&self.records, &rows)
        })
    }

    /// Each record's rows, while the log is served whole and not listed.
    fn kept_rows(&self) -> Option<Arc<Vec<SegTable>>> {
        lock(&self.rows).clone()
    }

    /// The processes and their segments, built on first use.
    fn by_process(&self) -> &ByProcess {
        self.by_process.get_or_init(|| {
            let l = self.listing();
            table::group_served(&l.blocks, &l.served, &self.entries)
        })
    }

    /// The readable segments, as indices into `blocks`, grouped by process
    /// (in id order), each group in event order: the API's block positions.
    fn index(&self) -> &[u32] {
        &self.by_process().index
    }

    /// The processes, by dense index.
    pub fn processes(&self) -> &[ProcessInfo] {
        &self.by_process().processes
    }

    /// One past the largest process id: the length of a table indexed by id.
    pub fn id_slots(&self) -> usize {
        self.processes()
            .iter()
            .map(|p| p.id.0 as usize + 1)
            .max()
            .unwrap_or(0)
    }

    pub fn process(&self, id: ProcId) -> Option<&ProcessInfo> {
        let processes = self.processes();
        match processes.get(id.0 as usize) {
            Some(p) if p.id == id => Some(p),
            _ => processes
                .binary_search_by_key(&id, |p| p.id)
                .ok()
                .map(|i| &processes[i]),
        }
    }

    /// The process that had raw pid number `pid`.
    pub fn process_by_pid(&self, pid: u64) -> Option<&ProcessInfo> {
        self.processes().iter().find(|p| p.pid == pid)
    }

    /// What was lost or worked around when opening, with byte offsets.
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// Number of readable events over all processes.
    pub fn event_count(&self) -> u64 {
        self.processes().iter().map(|p| p.events).sum()
    }

    /// Size of the log in bytes.
    pub fn file_len(&self) -> u64 {
        self.data.len() as u64
    }

    /// The segment at a block position.
    fn seg(&self, pos: usize) -> Option<&BlockRef> {
        Some(&self.listing().blocks[*self.index().get(pos)? as usize])
    }
}

/// The most a log read from a pipe or device may hold: it is kept in
/// memory, and `/dev/zero` or a runaway writer never ends.
pub const MAX_STREAMED_LOG: u64 = 1 << 30;

/// Reads a log that cannot be mapped: its first bytes decide whether to go
/// on (a log has a magic number), then at most [`MAX_STREAMED_LOG`] bytes.
fn read_streamed(mut input: trace_input::Input) -> Result<Vec<u8>, FormatError> {
    // Enough to say what a foreign file is (and more than a preamble).
    let mut head = vec![0u8; 64];
    let n = input.read_up_to(&mut head)?;
    head.truncate(n);
    if n < MAGIC.len() || head[..MAGIC.len()] != MAGIC {
        return Err(FormatError::Foreign(crate::sniff::describe(&head)));
    }
    head.append(&mut input.head);
    input.head = head;
    let what = "a log read from a pipe or device (copy it to a file to read a larger one)";
    Ok(input.read_all(MAX_STREAMED_LOG, what)?)
}

/// Checks the preamble and reads the header; returns it and where blocks start.
fn read_header(data: &[u8]) -> Result<(Header, u16, usize), FormatError> {
    if data.len() < MAGIC.len() || data[..MAGIC.len()] != MAGIC {
        return Err(FormatError::Foreign(crate::sniff::describe(data)));
    }
    if data.len() < PREAMBLE_LEN {
        return Err(FormatError::corrupt(
            data.len() as u64,
            format!("a {PREAMBLE_LEN}-byte preamble, but the file ends"),
        ));
    }
    let version = container::read_u16(data, 8);
    if !(FIRST_VERSION..=VERSION).contains(&version) {
        return Err(FormatError::Version {
            found: version,
            supported: VERSION,
        });
    }
    let flags = container::read_u16(data, 10);
    if flags != 0 {
        return Err(FormatError::corrupt(
            10,
            format!("preamble flags 0 (version {version} defines none), found {flags:#06x}"),
        ));
    }
    let len = container::read_u32(data, 12);
    if len > MAX_HEADER_LEN {
        return Err(FormatError::corrupt(
            12,
            format!("a header length of at most {MAX_HEADER_LEN}, found {len}"),
        ));
    }
    let end = PREAMBLE_LEN + len as usize;
    if data.len() < end + 4 {
        return Err(FormatError::corrupt(
            PREAMBLE_LEN as u64,
            format!(
                "a {len}-byte header and its checksum, but the file ends at byte {}",
                data.len()
            ),
        ));
    }
    let crc = container::read_u32(data, end);
    if crc32fast::hash(&data[..end]) != crc {
        return Err(FormatError::corrupt(
            end as u64,
            "the header's checksum to match",
        ));
    }
    let body = &data[PREAMBLE_LEN..end];
    let header: Result<Header, _> = if version == 1 {
        postcard::from_bytes::<crate::meta::HeaderV1>(body).map(Header::from)
    } else {
        postcard::from_bytes(body)
    };
    let header = header.map_err(|e| {
        FormatError::corrupt(PREAMBLE_LEN as u64, format!("a header (postcard): {e}"))
    })?;
    Ok((header, version, end + 4))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Dest, Event, MsgId, ProcessLog};
    use crate::meta::Outcome;
    use crate::writer::{LogWriter, WriterOptions};

    /// A crowd: process 0 spawns `n` processes, each of which sends it one
    /// message and exits; 0 takes the messages and exits.
    fn crowd(n: u32) -> Vec<ProcessLog> {
        let child = |i: u32| ProcessLog {
            id: ProcId(i),
            pid: 100 + i as u64,
            parent: Some(ProcId(0)),
            events: vec![
                Event::Send {
                    to: Dest::Proc(ProcId(0)),
                    payload: None,
                },
                Event::Exit { reason: None },
            ],
        };
        let mut root = Vec::new();
        for i in 1..=n {
            root.push(Event::Spawn {
                child: ProcId(i),
                pid: 100 + i as u64,
                link: false,
                monitor: false,
            });
        }
        for i in 1..=n {
            let msg = MsgId {
                sender: ProcId(i),
                index: 0,
            };
            root.push(Event::Receive { msg });
        }
        root.push(Event::Exit { reason: None });
        let mut logs = vec![ProcessLog {
            id: ProcId(0),
            pid: 100,
            parent: None,
            events: root,
        }];
        logs.extend((1..=n).map(child));
        logs
    }

    /// Events folded by process: (process, index in its log, event).
    fn fold(r: &LogReader) -> Vec<(ProcId, u64, Event)> {
        let folded = r
            .par_fold_blocks(Vec::new, |seen, ev| {
                while let Some(e) = ev.next() {
                    seen.push((ev.info().process, ev.index(), e.to_owned()));
                }
            })
            .unwrap();
        let mut seen: Vec<_> = folded.into_iter().flatten().collect();
        seen.sort_by_key(|(p, i, _)| (*p, *i));
        seen
    }

    #[test]
    fn a_log_served_whole_lets_its_rows_go_once_listed_and_folds_alike() {
        let path =
            std::env::temp_dir().join(format!("trace-format-rows-{}.trace", std::process::id()));
        let logs = crowd(300);
        let w = LogWriter::create(&path, Header::default(), WriterOptions::default()).unwrap();
        w.write_logs(&logs);
        w.finish(Outcome::default()).unwrap();
        let r = LogReader::open(&path);
        let _ = std::fs::remove_file(&path);
        let r = r.unwrap();
        assert!(r.warnings().is_empty(), "{:?}", r.warnings());
        assert!(r.kept_rows().is_some(), "a finished log is served whole");
        let before = fold(&r);
        let want: Vec<_> = logs
            .iter()
            .flat_map(|l| {
                let ev = l.events.iter().cloned().enumerate();
                ev.map(|(i, e)| (l.id, i as u64, e))
            })
            .collect();
        assert_eq!(before, want);
        // A read by process lists the segments: the rows go, and the fold
        // reads the listing instead.
        assert_eq!(r.processes().len(), logs.len());
        assert!(r.kept_rows().is_none(), "the rows are let go once listed");
        assert_eq!(fold(&r), want);
    }
}
