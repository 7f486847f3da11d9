//! The process table and, for each process, the segments a reader serves:
//! the longest run of segments that follow each other without a gap from
//! event 0. (The reader's API calls what it serves of a process "blocks":
//! each is one segment of a block record, a whole record in versions 1 and 2.)

use crate::container::{Storage, NO_PARENT};
use crate::error::Warning;
use crate::event::ProcId;
use crate::meta::{Header, ProcessEntry};
use crate::segment::Segment;
use crate::text::pid_text;
use std::ops::Range;

/// Largest process index a log recovered by scanning may hold: this many,
/// plus so many per block found (a killed run loses the blocks of the
/// processes it started last, never most of its processes).
const MAX_SCANNED_INDEX_SLACK: u64 = 1 << 20;
const MAX_SCANNED_INDEX_PER_BLOCK: u64 = 64;

/// A block record found in the file; its header (and segment table) checked.
#[derive(Clone, Debug)]
pub(crate) struct Record {
    pub offset: u64,
    /// Length of the whole record.
    pub len: u64,
    /// Where its stored body starts in the file.
    pub body_at: u64,
    pub storage: Storage,
    pub timestamps: bool,
    pub stored_len: u32,
    pub raw_len: u32,
    pub body_crc: u32,
    /// Rows of its segment table.
    pub segments: u32,
}

/// A segment of a block record: what the reader serves of a process, one
/// at a time.
#[derive(Clone, Debug)]
pub(crate) struct BlockRef {
    /// Its record, by position in the reader's records.
    pub record: u32,
    /// Where its events start in the record's decoded body, and their length.
    pub start: u32,
    pub raw_len: u32,
    pub process: u32,
    pub events: u32,
    pub first_event: u64,
    pub first_signal: u64,
    /// The process's pid number (from the process table).
    pub pid: u64,
}

/// A segment as a block's table lists it.
#[derive(Clone, Debug)]
pub(crate) struct Found {
    pub seg: BlockRef,
    /// Offset of its record, for warnings.
    pub offset: u64,
    /// The pid and parent its row gave (a process's first segment).
    pub origin: Option<(u64, u32)>,
}

impl Found {
    pub fn new(record: u32, offset: u64, start: u32, s: Segment) -> Found {
        Found {
            seg: BlockRef {
                record,
                start,
                raw_len: s.raw_len,
                process: s.process,
                events: s.events,
                first_event: s.first_event,
                first_signal: s.first_signal,
                pid: s.origin.map_or(0, |o| o.0),
            },
            offset,
            origin: s.origin,
        }
    }

    fn parent(&self) -> Option<Option<ProcId>> {
        self.origin
            .map(|(_, p)| (p != NO_PARENT).then_some(ProcId(p)))
    }
}

/// One process of the log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcessInfo {
    pub id: ProcId,
    /// Raw pid number (`<0.N.0>`).
    pub pid: u64,
    pub parent: Option<ProcId>,
    /// Events that can be read: all of them unless blocks were lost.
    pub events: u64,
    /// Events the footer says the process recorded (`None` when recovered by scanning).
    pub recorded: Option<u64>,
    pub(crate) blocks: Range<usize>,
}

impl ProcessInfo {
    /// A process without blocks: for tables built by hand (tests, tools
    /// that name processes of a log they make).
    pub fn new(id: ProcId, pid: u64, parent: Option<ProcId>) -> ProcessInfo {
        ProcessInfo {
            id,
            pid,
            parent,
            events: 0,
            recorded: None,
            blocks: 0..0,
        }
    }

    /// Positions in [`LogReader::blocks`](super::LogReader::blocks) of the
    /// process's blocks, in event order: a reader that resumes the process
    /// log block by block ([`LogReader::for_each_event_in_block`](super::LogReader::for_each_event_in_block)) walks these.
    pub fn block_positions(&self) -> Range<usize> {
        self.blocks.clone()
    }
}

/// What the table knows of a process before its blocks are checked.
struct Row {
    id: u32,
    pid: u64,
    parent: Option<ProcId>,
    /// Events the footer says it recorded.
    recorded: Option<u64>,
}

/// The segments a reader serves, listed one by one.
pub(crate) struct Listing {
    /// Every segment found, in file order (served or not).
    pub blocks: Vec<BlockRef>,
    /// The served segments, as indices into `blocks`, in file order:
    /// whole-log reads go this way.
    pub served: Vec<u32>,
    /// `served` cut where the record changes: one task of a whole-log read
    /// decompresses a record once for all its segments.
    pub record_spans: Vec<Range<u32>>,
}

/// What a reader serves.
pub(super) struct Table {
    pub listing: Listing,
    /// The served segments by process, when deciding what is served needed
    /// them; otherwise built from `entries` when first asked for.
    pub by_process: Option<ByProcess>,
    /// The footer's process table, for building `by_process` later.
    pub entries: Vec<ProcessEntry>,
}

/// A block record's segments, as its table (checked when the log was
/// opened) lists them: a whole-log read takes them a record at a time
/// from here, and a log served whole lists them one by one only when a
/// read by process asks for it.
pub(crate) struct SegTable {
    pub rows: Vec<Segment>,
    /// Each row's pid number, from the footer's process table, once
    /// [`all_served_in`] found the log served whole: the footer's table
    /// is read in process order there, not once more per segment.
    pub pids: Vec<u64>,
}

impl SegTable {
    pub fn new(rows: Vec<Segment>) -> SegTable {
        SegTable {
            rows,
            pids: Vec::new(),
        }
    }

    /// How many segments the record holds.
    pub fn count(&self) -> u32 {
        self.rows.len() as u32
    }
}

/// Every segment of the records, as found.
pub(super) fn found_in(records: &[Record], tables: &[SegTable]) -> Vec<Found> {
    // Sized once: a crowd's log has millions of segments.
    let mut found = Vec::with_capacity(tables.iter().map(|t| t.count() as usize).sum());
    for (k, (t, rec)) in tables.iter().zip(records).enumerate() {
        let mut start = 0u32;
        for s in &t.rows {
            let len = s.raw_len;
            found.push(Found::new(k as u32, rec.offset, start, s.clone()));
            start = start.wrapping_add(len);
        }
    }
    found
}

/// The served segments by process: what reads of one process, and reads
/// whose results come in process order, need.
pub(crate) struct ByProcess {
    pub processes: Vec<ProcessInfo>,
    /// The served segments' indices in `blocks`, grouped by process (in id
    /// order), each group in event order: a block's position in the API.
    pub index: Vec<u32>,
    /// For each of `served` (file order), its position in `index`.
    pub position: Vec<u32>,
}

/// What opening a log decided it serves.
pub(super) enum Opened {
    /// Every segment found, as found (see [`all_served_in`]): each
    /// record's rows are kept, with their pids, and nothing is listed.
    Whole {
        tables: Vec<SegTable>,
        entries: Vec<ProcessEntry>,
    },
    /// Checked process by process, and listed.
    Listed(Table),
}

/// What a reader serves of the records found (headers and tables
/// checked), given the footer's process table if the log has one.
pub(super) fn open(
    header: &Header,
    records: &[Record],
    mut tables: Vec<SegTable>,
    footer: Option<Vec<ProcessEntry>>,
    warnings: &mut Vec<Warning>,
) -> Opened {
    match footer {
        Some(entries) if all_served_in(&mut tables, &entries) => Opened::Whole { tables, entries },
        footer => {
            let found = found_in(records, &tables);
            // Listed: reads go through the listing alone.
            drop(tables);
            Opened::Listed(build_checked(header, found, footer, warnings))
        }
    }
}

/// Whether a footer's log serves every segment found, as they are: each
/// process's segments lie in the file in event order, without a gap or a
/// repeat, as many events as the footer counts, the pid it says. That is
/// how a finished log is written (but for segments that compressor threads
/// swapped), and one pass in file order over the records' tables checks
/// it, listing no segment: a whole-log read needs none.
/// Fills in the rows' pids when it is so.
pub(super) fn all_served_in(tables: &mut [SegTable], entries: &[ProcessEntry]) -> bool {
    let mut next = vec![0u64; entries.len()];
    for t in tables.iter_mut() {
        t.pids.clear();
        t.pids.reserve_exact(t.rows.len());
        for s in &t.rows {
            let p = s.process as usize;
            let (Some(e), Some(n)) = (entries.get(p), next.get_mut(p)) else {
                return false;
            };
            if s.first_event != *n || s.origin.is_some_and(|(pid, _)| pid != e.pid) {
                return false;
            }
            *n += s.events as u64;
            t.pids.push(e.pid);
        }
    }
    next.iter().zip(entries).all(|(n, e)| *n == e.events)
}

impl Listing {
    /// Every segment of a log that serves all it holds (see
    /// [`all_served_in`]), in file order, with the pids it found.
    pub fn whole(records: &[Record], tables: &[SegTable]) -> Listing {
        let mut found = found_in(records, tables);
        for (f, &pid) in found.iter_mut().zip(tables.iter().flat_map(|t| &t.pids)) {
            f.seg.pid = pid;
        }
        let blocks: Vec<BlockRef> = found.into_iter().map(|f| f.seg).collect();
        let mut record_spans: Vec<Range<u32>> = Vec::new();
        for (i, b) in blocks.iter().enumerate() {
            let i = i as u32;
            match record_spans.last_mut() {
                Some(s) if blocks[s.start as usize].record == b.record => s.end = i + 1,
                _ => record_spans.push(i..i + 1),
            }
        }
        Listing {
            served: (0..blocks.len() as u32).collect(),
            blocks,
            record_spans,
        }
    }
}

/// The served segments of a log that serves all it holds (see
/// [`all_served_in`]) grouped by process, with a counting sort: file order is
/// event order within a process.
pub(crate) fn group_served(
    blocks: &[BlockRef],
    served: &[u32],
    entries: &[ProcessEntry],
) -> ByProcess {
    let mut starts = vec![0u32; entries.len() + 1];
    for &i in served {
        starts[blocks[i as usize].process as usize + 1] += 1;
    }
    for p in 0..entries.len() {
        starts[p + 1] += starts[p];
    }
    let mut next = starts.clone();
    let mut index = vec![0u32; served.len()];
    let mut position = Vec::with_capacity(served.len());
    for &i in served {
        let slot = &mut next[blocks[i as usize].process as usize];
        index[*slot as usize] = i;
        position.push(*slot);
        *slot += 1;
    }
    let processes = entries
        .iter()
        .enumerate()
        .map(|(p, e)| ProcessInfo {
            id: ProcId(p as u32),
            pid: e.pid,
            parent: e.parent.map(ProcId),
            events: e.events,
            recorded: Some(e.events),
            blocks: starts[p] as usize..starts[p + 1] as usize,
        })
        .collect();
    ByProcess {
        processes,
        index,
        position,
    }
}

/// The table of a log that may not serve all it holds: without a footer,
/// or with one whose segments are not all in order (see [`all_served_in`]).
pub(super) fn build_checked(
    header: &Header,
    candidates: Vec<Found>,
    footer: Option<Vec<ProcessEntry>>,
    warnings: &mut Vec<Warning>,
) -> Table {
    let candidates = match &footer {
        Some(_) => candidates,
        None => drop_far_indices(candidates, warnings),
    };
    // The processes, by id: the footer's table, or the ids the blocks name
    // (the entry process always).
    let ids: Vec<u32> = match &footer {
        Some(entries) => (0..entries.len() as u32).collect(),
        None => {
            let mut ids: Vec<u32> = candidates.iter().map(|b| b.seg.process).collect();
            ids.push(0);
            ids.sort_unstable();
            ids.dedup();
            ids
        }
    };
    let row_of = |process: u32| -> Option<usize> {
        match &footer {
            Some(entries) => ((process as usize) < entries.len()).then_some(process as usize),
            None => ids.binary_search(&process).ok(),
        }
    };
    let groups = group(candidates, ids.len(), row_of, warnings);
    let rows: Vec<Row> = match footer {
        Some(entries) => entries
            .into_iter()
            .enumerate()
            .map(|(i, e)| Row {
                id: i as u32,
                pid: e.pid,
                parent: e.parent.map(ProcId),
                recorded: Some(e.events),
            })
            .collect(),
        None => ids
            .iter()
            .enumerate()
            .map(|(r, &id)| scanned_row(header, id, groups.of(r), warnings))
            .collect(),
    };
    serve(rows, groups, warnings)
}

/// Without a footer, process indices come from block headers alone. The
/// recorder numbers processes densely as they start, so an index far
/// beyond the blocks found is damage; it is dropped here, because readers
/// keep tables indexed by process and what they allocate must stay
/// bounded by the input's size (§8).
fn drop_far_indices(candidates: Vec<Found>, warnings: &mut Vec<Warning>) -> Vec<Found> {
    let found = candidates.len();
    let bound = MAX_SCANNED_INDEX_SLACK + MAX_SCANNED_INDEX_PER_BLOCK * found as u64;
    candidates
        .into_iter()
        .filter(|b| {
            let keep = (b.seg.process as u64) <= bound;
            if !keep {
                warnings.push(Warning::at(
                    b.offset,
                    format!(
                        "block of process {}, an index far beyond the {found} block(s) found; skipped as damaged",
                        b.seg.process
                    ),
                ));
            }
            keep
        })
        .collect()
}

/// The blocks grouped by process: the blocks of row `r` are those found at
/// `order[starts[r]..starts[r + 1]]`, in event order (the blocks found stay
/// where they are: a crowd's log has millions).
struct Groups {
    found: Vec<Found>,
    starts: Vec<usize>,
    /// Indices into `found`, grouped by row.
    order: Vec<u32>,
}

impl Groups {
    fn of(&self, r: usize) -> impl Iterator<Item = &Found> + Clone + '_ {
        self.order[self.starts[r]..self.starts[r + 1]]
            .iter()
            .map(|&i| &self.found[i as usize])
    }
}

/// Groups the blocks by process with a counting sort over their rows (file
/// order is kept within a process), then orders each group by first event:
/// a writer writes a process's blocks in order, so that is usually a check
/// only.
fn group(
    candidates: Vec<Found>,
    rows: usize,
    row_of: impl Fn(u32) -> Option<usize>,
    warnings: &mut Vec<Warning>,
) -> Groups {
    // Each block's row, u32::MAX for none (a crowd's log has millions).
    let mut row: Vec<u32> = Vec::with_capacity(candidates.len());
    let mut starts = vec![0usize; rows + 1];
    for b in &candidates {
        let r = row_of(b.seg.process);
        match r {
            Some(r) => starts[r + 1] += 1,
            None => warnings.push(Warning::at(
                b.offset,
                format!(
                    "block of process {} which the footer does not list; skipped",
                    b.seg.process
                ),
            )),
        }
        row.push(r.map_or(u32::MAX, |r| r as u32));
    }
    for r in 0..rows {
        starts[r + 1] += starts[r];
    }
    let mut next = starts.clone();
    let mut order = vec![0u32; starts[rows]];
    for (i, r) in row.into_iter().enumerate() {
        if r != u32::MAX {
            let r = r as usize;
            order[next[r]] = i as u32;
            next[r] += 1;
        }
    }
    let key = |i: &u32| {
        let b = &candidates[*i as usize];
        (b.seg.first_event, b.offset)
    };
    for r in 0..rows {
        let group = &mut order[starts[r]..starts[r + 1]];
        if !group.is_sorted_by_key(key) {
            group.sort_by_key(key);
        }
    }
    Groups {
        found: candidates,
        starts,
        order,
    }
}

/// A process of a log without a footer, as its segments describe it: the
/// first segment of a process says its pid and parent.
fn scanned_row<'a>(
    header: &Header,
    id: u32,
    group: impl Iterator<Item = &'a Found> + Clone,
    warnings: &mut Vec<Warning>,
) -> Row {
    let origin = group.clone().find(|b| b.origin.is_some());
    let (pid, parent) = match origin {
        Some(b) => (b.seg.pid, b.parent().flatten()),
        None if id == 0 => (header.entry_pid, None),
        None => (0, None), // its first segment is lost: nothing of it is served
    };
    for b in group {
        let Some(p) = b.parent() else { continue };
        if b.seg.pid != pid || p != parent {
            warnings.push(Warning::at(
                b.offset,
                format!(
                    "block of process {} says pid {}, {}; an earlier block said {}, {}",
                    b.seg.process,
                    pid_text(b.seg.pid),
                    parent_text(p.map(|p| p.0)),
                    pid_text(pid),
                    parent_text(parent.map(|p| p.0))
                ),
            ));
        }
    }
    Row {
        id,
        pid,
        parent,
        recorded: None,
    }
}

/// Decides which blocks are served (each process's run of blocks from event
/// 0 without a gap) and lays them out for the reader.
fn serve(rows: Vec<Row>, groups: Groups, warnings: &mut Vec<Warning>) -> Table {
    // Which blocks are served, by their place in `groups.order`.
    let mut keep = vec![false; groups.order.len()];
    let mut kept = 0usize;
    let mut processes = Vec::with_capacity(rows.len());
    for (r, row) in rows.into_iter().enumerate() {
        let start = kept;
        let first = groups.starts[r];
        let served = served_run(&row, groups.of(r), &mut keep[first..], warnings);
        kept += served.blocks;
        processes.push(ProcessInfo {
            id: ProcId(row.id),
            pid: row.pid,
            parent: row.parent,
            events: served.events,
            recorded: row.recorded,
            blocks: start..kept,
        });
    }
    // Positions (served segments grouped by process) and file order, both
    // as indices: the segments themselves stay where they were found.
    let mut index = Vec::with_capacity(kept);
    for (k, &i) in groups.order.iter().enumerate() {
        if keep[k] {
            index.push(i);
        }
    }
    let mut served_at = vec![u32::MAX; groups.found.len()];
    for (at, &i) in index.iter().enumerate() {
        served_at[i as usize] = at as u32;
    }
    let mut file_order = Vec::with_capacity(index.len());
    let mut record_spans: Vec<Range<u32>> = Vec::new();
    let mut last = None;
    for (f, k) in groups.found.iter().zip(served_at) {
        if k == u32::MAX {
            continue;
        }
        let i = file_order.len() as u32;
        match record_spans.last_mut() {
            Some(s) if last == Some(f.seg.record) => s.end = i + 1,
            _ => record_spans.push(i..i + 1),
        }
        last = Some(f.seg.record);
        file_order.push(k);
    }
    // The segments, each served one with its process's pid (the decoder
    // needs it); in place, a crowd's log has millions.
    let mut blocks: Vec<BlockRef> = groups.found.into_iter().map(|f| f.seg).collect();
    for p in &processes {
        for &i in &index[p.blocks.clone()] {
            blocks[i as usize].pid = p.pid;
        }
    }
    Table {
        listing: Listing {
            blocks,
            served: file_order.iter().map(|&k| index[k as usize]).collect(),
            record_spans,
        },
        by_process: Some(ByProcess {
            processes,
            index,
            position: file_order,
        }),
        entries: Vec::new(),
    }
}

/// What a process's log serves.
struct Served {
    /// How many blocks of its group are served.
    blocks: usize,
    /// The events they hold.
    events: u64,
}

/// Marks in `keep` the blocks of `group` that follow each other from event 0
/// without a gap, and warns of the rest.
fn served_run<'a>(
    row: &Row,
    group: impl Iterator<Item = &'a Found>,
    keep: &mut [bool],
    warnings: &mut Vec<Warning>,
) -> Served {
    let Row {
        id, pid, recorded, ..
    } = *row;
    let mut kept = 0usize;
    let mut expected = 0u64;
    let mut gap: Option<(u64, u64, u64)> = None; // (missing from, to, events dropped after)
    for (k, b) in group.enumerate() {
        let h = &b.seg;
        if let Some(g) = gap.as_mut() {
            g.2 += h.events as u64;
        } else if h.first_event == expected {
            if b.origin.is_some() && h.pid != pid {
                warnings.push(Warning::at(
                    b.offset,
                    format!(
                        "block of process {id} says pid {}, the table says {}",
                        pid_text(h.pid),
                        pid_text(pid)
                    ),
                ));
            }
            expected += h.events as u64;
            keep[k] = true;
            kept += 1;
        } else if h.first_event < expected {
            warnings.push(Warning::at(
                b.offset,
                format!(
                    "block of process {id} repeats its events {}..{}; skipped",
                    h.first_event,
                    h.first_event + h.events as u64
                ),
            ));
        } else {
            gap = Some((expected, h.first_event, h.events as u64));
        }
    }
    if let Some((from, to, dropped)) = gap {
        let what = format!(
            "process {id} {}: its events {from}..{to} are missing; its log is read up to \
             event {from} and {dropped} later events are left out",
            pid_text(pid)
        );
        // Without a footer, a later block may have been written before an
        // earlier one when the run was killed (several compressors); damage
        // that made a hole has a warning of its own.
        warnings.push(if recorded.is_none() {
            Warning::cut_short(None, what)
        } else {
            Warning::general(what)
        });
    }
    if let Some(r) = recorded {
        if r != expected && gap.is_none() {
            warnings.push(Warning::general(format!(
                "process {id} {}: the footer counts {r} events, {expected} are readable",
                pid_text(pid)
            )));
        }
    }
    Served {
        blocks: kept,
        events: expected,
    }
}

/// A block's parent as a warning names it.
fn parent_text(parent: Option<u32>) -> String {
    match parent {
        Some(p) => format!("parent process {p}"),
        None => "no parent".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::segment::Segment;

    /// Process `p`'s segment of `events` events from `first`, in record `record`.
    fn found(record: u32, p: u32, first: u64, events: u32) -> (u32, Segment) {
        let origin = (first == 0).then_some((80 + p as u64, NO_PARENT));
        let seg = Segment {
            process: p,
            first_event: first,
            first_signal: 0,
            events,
            raw_len: events,
            origin,
        };
        (record, seg)
    }

    /// The records and their tables that hold `segs`, in file order (each
    /// record's segments together, records numbered from 0).
    fn records(segs: Vec<(u32, Segment)>) -> (Vec<Record>, Vec<SegTable>) {
        let mut records: Vec<Record> = Vec::new();
        let mut tables: Vec<SegTable> = Vec::new();
        for (k, s) in segs {
            if records.len() <= k as usize {
                records.push(Record {
                    offset: 100 * k as u64,
                    len: 100,
                    body_at: 100 * k as u64 + 40,
                    storage: Storage::Raw,
                    timestamps: false,
                    stored_len: 0,
                    raw_len: 0,
                    body_crc: 0,
                    segments: 0,
                });
                tables.push(SegTable::new(Vec::new()));
            }
            let rec = records.last_mut().expect("pushed above");
            rec.raw_len += s.raw_len;
            rec.stored_len += s.raw_len;
            rec.segments += 1;
            tables.last_mut().expect("pushed above").rows.push(s);
        }
        (records, tables)
    }

    /// What the reader serves of `segs`, as opening decides it.
    fn build(
        h: &Header,
        segs: Vec<(u32, Segment)>,
        footer: Option<Vec<ProcessEntry>>,
        w: &mut Vec<Warning>,
    ) -> Table {
        let (records, tables) = records(segs);
        match open(h, &records, tables, footer, w) {
            Opened::Whole { tables, entries } => Table {
                listing: Listing::whole(&records, &tables),
                by_process: None,
                entries,
            },
            Opened::Listed(t) => t,
        }
    }

    /// What checking process by process serves of `segs`.
    fn checked(
        h: &Header,
        segs: Vec<(u32, Segment)>,
        footer: Option<Vec<ProcessEntry>>,
        w: &mut Vec<Warning>,
    ) -> Table {
        let (records, tables) = records(segs);
        build_checked(h, found_in(&records, &tables), footer, w)
    }

    fn entries(events: &[u64]) -> Vec<ProcessEntry> {
        let pid = |p: usize| 80 + p as u64;
        events
            .iter()
            .enumerate()
            .map(|(p, &events)| ProcessEntry {
                pid: pid(p),
                parent: None,
                events,
            })
            .collect()
    }

    /// A process as served: pid, events, its segments' (process, first event).
    type Served = (u64, u64, Vec<(u32, u64)>);

    /// What a table serves, by process.
    fn served(t: &Table) -> Vec<Served> {
        let by = match &t.by_process {
            Some(b) => b,
            None => &group_served(&t.listing.blocks, &t.listing.served, &t.entries),
        };
        for (i, &k) in t.listing.served.iter().enumerate() {
            assert_eq!(
                by.index[by.position[i] as usize], k,
                "positions place each segment"
            );
        }
        by.processes
            .iter()
            .map(|p| {
                let segs = by.index[p.blocks.clone()]
                    .iter()
                    .map(|&i| {
                        (
                            t.listing.blocks[i as usize].process,
                            t.listing.blocks[i as usize].first_event,
                        )
                    })
                    .collect();
                (p.pid, p.events, segs)
            })
            .collect()
    }

    #[test]
    fn a_log_in_order_is_served_whole_without_grouping_and_as_checked() {
        let segs = || {
            vec![
                found(0, 1, 0, 2),
                found(0, 0, 0, 3),
                found(0, 2, 0, 1),
                found(1, 1, 2, 4),
                found(1, 0, 3, 1),
            ]
        };
        let h = Header::default();
        let mut w = Vec::new();
        let fast = build(&h, segs(), Some(entries(&[4, 6, 1])), &mut w);
        assert!(fast.by_process.is_none(), "nothing grouped when opening");
        assert_eq!(fast.listing.record_spans, vec![0..3, 3..5]);
        let checked = checked(&h, segs(), Some(entries(&[4, 6, 1])), &mut w);
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(served(&fast), served(&checked));
        assert_eq!(fast.listing.served, checked.listing.served);
        assert!(fast
            .listing
            .blocks
            .iter()
            .all(|b| b.pid == 80 + b.process as u64));
    }

    #[test]
    fn a_log_out_of_order_or_with_a_gap_is_checked_by_process() {
        let h = Header::default();
        // Process 0's second segment lies before its first (two compressors).
        let swapped = vec![found(0, 0, 3, 1), found(1, 0, 0, 3)];
        let mut w = Vec::new();
        let t = build(&h, swapped, Some(entries(&[4])), &mut w);
        assert!(t.by_process.is_some() && w.is_empty(), "{w:?}");
        assert_eq!(served(&t), vec![(80, 4, vec![(0, 0), (0, 3)])]);
        // A gap: only what precedes it is served, with a warning.
        let gap = vec![found(0, 0, 0, 3), found(1, 0, 5, 1)];
        let t = build(&h, gap, Some(entries(&[6])), &mut w);
        assert_eq!(served(&t), vec![(80, 3, vec![(0, 0)])]);
        assert_eq!(w.len(), 1, "{w:?}");
    }
}
