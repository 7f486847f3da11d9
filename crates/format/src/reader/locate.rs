//! Finding the blocks and their segments: through the footer when the log
//! was finished, by scanning for block records otherwise. Scanning checks
//! every block's checksums, so what it returns is intact; the footer path
//! checks block headers and segment tables only, keeping `open` cheap, and
//! bodies are checked when decoded.

use super::decode::Inflater;
use super::table::{Record, SegTable};
use crate::container::{
    self, BlockHeader, BlockHeaderV2, RunBinding, BLOCK_HEADER_LEN, BLOCK_HEADER_LEN_V2,
    BLOCK_MAGIC, FOOTER_MAGIC, FOOTER_RECORD_HEADER_LEN, TRAILER_LEN,
};
use crate::error::Warning;
use crate::meta::{BlockEntry, Footer, FooterV2, Outcome, ProcessEntry};
use crate::segment::{self, Segment};
use rayon::prelude::*;

pub(super) struct Located {
    /// The block records found, in file order.
    pub records: Vec<Record>,
    /// Their segment tables, checked.
    pub tables: Vec<SegTable>,
    /// The footer's process table, when the footer was usable.
    pub processes: Option<Vec<ProcessEntry>>,
    pub end: Option<(Outcome, u64)>,
}

/// A block record read: its offset, the record and its segments.
type ReadRecord = (u64, Record, SegTable);

/// A footer of either layout.
enum AnyFooter {
    V2(FooterV2),
    V3(Footer),
}

pub(super) fn locate(
    data: &[u8],
    blocks_start: usize,
    binding: RunBinding,
    warnings: &mut Vec<Warning>,
) -> Located {
    let scanned = |warnings: &mut Vec<Warning>, why: Warning| {
        recover(data, blocks_start, binding, warnings, why)
    };
    match read_footer(data, blocks_start, binding.version) {
        Ok(Some((AnyFooter::V3(footer), at))) => {
            from_footer(data, blocks_start, binding, footer, at, warnings)
        }
        Ok(Some((AnyFooter::V2(footer), at))) => {
            from_footer_v2(data, blocks_start, binding, footer, at, warnings)
        }
        Ok(None) => scanned(
            warnings,
            Warning::cut_short(
                None,
                "no footer: the log was not finished (the run was killed, or is still \
                 being written)",
            ),
        ),
        Err(w) => scanned(warnings, Warning::at(w.0, w.1)),
    }
}

/// The blocks found by scanning, `why` the footer could not be used put first.
fn recover(
    data: &[u8],
    blocks_start: usize,
    binding: RunBinding,
    warnings: &mut Vec<Warning>,
    mut why: Warning,
) -> Located {
    let found = collect(scan(data, blocks_start, binding, warnings));
    let n = found.records.len();
    why.message = format!("{}; recovered {n} intact blocks by scanning", why.message);
    warnings.insert(0, why);
    found
}

/// Records and their segment tables, as the scan or the footer found them.
fn collect(read: Vec<ReadRecord>) -> Located {
    let (records, tables) = read.into_iter().map(|(_, rec, t)| (rec, t)).unzip();
    Located {
        records,
        tables,
        processes: None,
        end: None,
    }
}

/// The footer and its offset; `Ok(None)` when there is no trailer at all,
/// `Err((offset, what))` when there is one but the footer is unusable.
fn read_footer(
    data: &[u8],
    blocks_start: usize,
    version: u16,
) -> Result<Option<(AnyFooter, u64)>, (u64, String)> {
    if data.len() < blocks_start + TRAILER_LEN {
        return Ok(None);
    }
    let trailer_at = data.len() - TRAILER_LEN;
    let Some(offset) = container::parse_trailer(&data[trailer_at..]) else {
        return Ok(None);
    };
    let bad = |what: String| Err((offset, format!("footer damaged ({what})")));
    if offset < blocks_start as u64 || offset > trailer_at as u64 {
        return Err((
            trailer_at as u64,
            format!("the trailer points outside the file (to byte {offset})"),
        ));
    }
    let at = offset as usize;
    let rec = &data[at..trailer_at];
    if rec.len() < FOOTER_RECORD_HEADER_LEN + 4 || rec[0..4] != FOOTER_MAGIC {
        return bad(format!(
            "expected magic \"TFTR\", found {}",
            container::show_bytes(&rec[..rec.len().min(4)])
        ));
    }
    let len = container::read_u32(rec, 4) as usize;
    if FOOTER_RECORD_HEADER_LEN + len + 4 != rec.len() {
        return bad(format!(
            "its length field says {len} bytes, but {} bytes lie before the trailer",
            rec.len().saturating_sub(FOOTER_RECORD_HEADER_LEN + 4)
        ));
    }
    let body_end = FOOTER_RECORD_HEADER_LEN + len;
    if crc32fast::hash(&rec[..body_end]) != container::read_u32(rec, body_end) {
        return bad("checksum mismatch".into());
    }
    let body = &rec[FOOTER_RECORD_HEADER_LEN..body_end];
    let footer = if version >= 3 {
        postcard::from_bytes::<Footer>(body).map(AnyFooter::V3)
    } else {
        postcard::from_bytes::<FooterV2>(body).map(AnyFooter::V2)
    };
    match footer {
        Ok(f) => Ok(Some((f, offset))),
        Err(e) => bad(format!("postcard: {e}")),
    }
}

/// A version-3 footer: each block where the one before it ends, read with
/// its segment table (in parallel: a log of many short processes has many).
fn from_footer(
    data: &[u8],
    blocks_start: usize,
    binding: RunBinding,
    footer: Footer,
    footer_offset: u64,
    warnings: &mut Vec<Warning>,
) -> Located {
    let mut at = blocks_start as u64;
    let mut places: Vec<(u64, BlockEntry)> = Vec::with_capacity(footer.blocks.len());
    for e in &footer.blocks {
        places.push((at, *e));
        at += e.len as u64;
    }
    if at != footer_offset {
        let why = Warning::at(
            footer_offset,
            format!(
                "footer damaged (its blocks end at byte {at}, the footer starts at \
                 {footer_offset})"
            ),
        );
        return recover(data, blocks_start, binding, warnings, why);
    }
    let read: Vec<Result<ReadRecord, Warning>> = places
        .par_iter()
        .map_init(Inflater::default, |inf, &(at, e)| {
            listed_record(data, at, e, binding, inf)
        })
        .collect();
    let mut ok = Vec::with_capacity(read.len());
    for r in read {
        match r {
            Ok(r) => ok.push(r),
            Err(w) => warnings.push(w),
        }
    }
    let mut found = collect(ok);
    found.processes = Some(footer.processes);
    found.end = Some((footer.outcome, footer.end_time_ns));
    found
}

/// The block the footer lists at `at`, or why it is unusable.
fn listed_record(
    data: &[u8],
    at: u64,
    e: BlockEntry,
    binding: RunBinding,
    inf: &mut Inflater,
) -> Result<ReadRecord, Warning> {
    let fail = |what: String| {
        Warning::at(
            at,
            format!("block listed in the footer is unusable: {what}"),
        )
    };
    match read_record(data, at as usize, binding, false, inf) {
        Read::Record(rec, segs) => {
            if rec.len != e.len as u64 || segs.count() != e.segments {
                return Err(fail(format!(
                    "its header ({} segments, {} bytes) disagrees with the footer ({} segments, \
                     {} bytes)",
                    segs.count(),
                    rec.len,
                    e.segments,
                    e.len
                )));
            }
            Ok((at, rec, segs))
        }
        Read::Damaged { what, .. } | Read::CutShort(what) => Err(fail(what)),
        Read::NotHeader(rel, what) => Err(Warning::at(
            at + rel as u64,
            format!("block listed in the footer is unusable: expected {what}"),
        )),
    }
}

/// A footer of versions 1 and 2: every block listed with its place.
fn from_footer_v2(
    data: &[u8],
    blocks_start: usize,
    binding: RunBinding,
    footer: FooterV2,
    footer_offset: u64,
    warnings: &mut Vec<Warning>,
) -> Located {
    let mut read = Vec::with_capacity(footer.blocks.len());
    let mut inf = Inflater::default();
    for e in &footer.blocks {
        let fail = |what: String| {
            Warning::at(
                e.offset,
                format!("block listed in the footer is unusable: {what}"),
            )
        };
        if e.offset < blocks_start as u64 || e.offset.saturating_add(e.len as u64) > footer_offset {
            warnings.push(fail(format!(
                "it lies outside the block area (length {})",
                e.len
            )));
            continue;
        }
        match read_record(data, e.offset as usize, binding, false, &mut inf) {
            Read::Record(rec, segs) => {
                let Some(s) = segs.rows.first() else {
                    continue;
                };
                if rec.len != e.len as u64
                    || s.process != e.process
                    || s.first_event != e.first_event
                    || s.events != e.events
                {
                    warnings.push(fail(format!(
                        "its header (process {}, events {}.., {} events, {} bytes) disagrees \
                         with the footer (process {}, events {}.., {} events, {} bytes)",
                        s.process,
                        s.first_event,
                        s.events,
                        rec.len,
                        e.process,
                        e.first_event,
                        e.events,
                        e.len
                    )));
                    continue;
                }
                read.push((e.offset, rec, segs));
            }
            Read::Damaged { what, .. } | Read::CutShort(what) => warnings.push(fail(what)),
            Read::NotHeader(rel, what) => warnings.push(Warning::at(
                e.offset + rel as u64,
                format!("block listed in the footer is unusable: expected {what}"),
            )),
        }
    }
    let mut found = collect(read);
    found.processes = Some(footer.processes);
    found.end = Some((footer.outcome, footer.end_time_ns));
    found
}

/// What lies at a position where a block record may start.
enum Read {
    /// An intact record (its body checked only when asked).
    Record(Record, SegTable),
    /// A record whose header parses but which is not part of this log or
    /// fails a checksum: skipped whole.
    Damaged { len: u64, what: String },
    /// The file ends inside the record.
    CutShort(String),
    /// No block header here: where it fails, relative to the position, and what was expected.
    NotHeader(usize, String),
}

/// Reads the block record at `pos`: its header, then (version 3) its
/// segment table, then, if `check_body`, its body's checksum.
fn read_record(
    data: &[u8],
    pos: usize,
    binding: RunBinding,
    check_body: bool,
    inf: &mut Inflater,
) -> Read {
    if binding.version < 3 {
        return read_record_v2(data, pos, binding, check_body);
    }
    let rest = &data[pos.min(data.len())..];
    let h = match BlockHeader::parse(&rest[..rest.len().min(BLOCK_HEADER_LEN)]) {
        Ok(h) => h,
        Err(_)
            if rest.len() < BLOCK_HEADER_LEN
                && rest.starts_with(&BLOCK_MAGIC[..rest.len().min(4)]) =>
        {
            return Read::CutShort(format!(
                "the file ends inside a block header ({} of {BLOCK_HEADER_LEN} bytes present)",
                rest.len()
            ))
        }
        Err((rel, what)) => return Read::NotHeader(rel, what),
    };
    let len = h.record_len();
    if len > rest.len() as u64 {
        return Read::CutShort(format!(
            "the file ends inside a block of {} segments: {} of its {len} bytes are present",
            h.segments,
            rest.len()
        ));
    }
    let damaged = |what: String| Read::Damaged {
        len,
        what: format!("the block of {} segments is damaged: {what}", h.segments),
    };
    if h.run_tag != binding.tag() {
        return Read::Damaged {
            len,
            what: another_run(h.run_tag, h.segments, binding),
        };
    }
    let table_at = BLOCK_HEADER_LEN;
    let body_at = table_at + h.table_stored_len as usize;
    let table = &rest[table_at..body_at];
    if binding.body_crc(table) != h.table_crc {
        return damaged("segment table checksum mismatch".into());
    }
    let body = &rest[body_at..len as usize];
    if check_body && binding.body_crc(body) != h.body_crc {
        return damaged("body checksum mismatch".into());
    }
    let table = if h.table_zstd() {
        match inf.inflate(table, h.table_raw_len) {
            Ok(t) => t,
            Err(e) => return damaged(format!("its segment table: {e}")),
        }
    } else {
        table
    };
    let segs = match segment::parse(table, h.segments, h.raw_len) {
        Ok(s) => SegTable::new(s),
        Err((at, what)) => {
            return damaged(format!("expected {what} at byte {at} of its segment table"))
        }
    };
    let rec = Record {
        offset: pos as u64,
        len,
        body_at: (pos + body_at) as u64,
        storage: h.storage,
        timestamps: h.timestamps(),
        stored_len: h.stored_len,
        raw_len: h.raw_len,
        body_crc: h.body_crc,
        segments: h.segments,
    };
    Read::Record(rec, segs)
}

/// A block record of versions 1 and 2: one segment, described by its header.
fn read_record_v2(data: &[u8], pos: usize, binding: RunBinding, check_body: bool) -> Read {
    let rest = &data[pos.min(data.len())..];
    let h = match BlockHeaderV2::parse(&rest[..rest.len().min(BLOCK_HEADER_LEN_V2)]) {
        Ok(h) => h,
        Err(_)
            if rest.len() < BLOCK_HEADER_LEN_V2
                && rest.starts_with(&BLOCK_MAGIC[..rest.len().min(4)]) =>
        {
            return Read::CutShort(format!(
                "the file ends inside a block header ({} of {BLOCK_HEADER_LEN_V2} bytes present)",
                rest.len()
            ))
        }
        Err((rel, what)) => return Read::NotHeader(rel, what),
    };
    let len = h.record_len();
    let range = format!(
        "the block of process {} (its events {}..{})",
        h.process,
        h.first_event,
        h.first_event + h.events as u64
    );
    if len > rest.len() as u64 {
        return Read::CutShort(format!(
            "the file ends inside {range}: {} of its {len} bytes are present",
            rest.len()
        ));
    }
    if h.run_tag != binding.tag() {
        return Read::Damaged {
            len,
            what: another_run(h.run_tag, 1, binding),
        };
    }
    let body = &rest[BLOCK_HEADER_LEN_V2..len as usize];
    if check_body && binding.body_crc(body) != h.body_crc {
        return Read::Damaged {
            len,
            what: format!("{range} is damaged: body checksum mismatch"),
        };
    }
    let rec = Record {
        offset: pos as u64,
        len,
        body_at: (pos + BLOCK_HEADER_LEN_V2) as u64,
        storage: h.storage,
        timestamps: h.timestamps(),
        stored_len: h.stored_len,
        raw_len: h.raw_len,
        body_crc: h.body_crc,
        segments: 1,
    };
    let seg = Segment {
        process: h.process,
        first_event: h.first_event,
        first_signal: h.first_signal,
        events: h.events,
        raw_len: h.raw_len,
        origin: Some((h.pid, h.parent)),
    };
    Read::Record(rec, SegTable::new(vec![seg]))
}

/// Every intact block record from `start` on, in file order, with its
/// segments; damaged and truncated stretches become warnings.
fn scan(
    data: &[u8],
    start: usize,
    binding: RunBinding,
    warnings: &mut Vec<Warning>,
) -> Vec<ReadRecord> {
    let mut found = Vec::new();
    let mut inf = Inflater::default();
    let mut pos = start;
    let mut damaged_from: Option<usize> = None;
    let end_damage = |from: &mut Option<usize>, to: usize, warnings: &mut Vec<Warning>| {
        if let Some(f) = from.take() {
            let what = format!(
                "bytes {f}..{to} are not a readable block; skipped {} bytes",
                to - f
            );
            // Fewer bytes than a block header at the very end: the start of
            // a record the run did not finish writing.
            warnings.push(if to == data.len() && to - f < BLOCK_HEADER_LEN {
                Warning::cut_short(Some(f as u64), what)
            } else {
                Warning::at(f as u64, what)
            });
        }
    };
    while pos < data.len() {
        let rest = &data[pos..];
        if rest.starts_with(&BLOCK_MAGIC) {
            match read_record(data, pos, binding, true, &mut inf) {
                Read::Record(rec, segs) => {
                    end_damage(&mut damaged_from, pos, warnings);
                    pos += rec.len as usize;
                    found.push((rec.offset, rec, segs));
                    continue;
                }
                Read::Damaged { len, what } => {
                    end_damage(&mut damaged_from, pos, warnings);
                    warnings.push(Warning::at(pos as u64, what));
                    pos += len as usize;
                    continue;
                }
                Read::CutShort(what) => {
                    end_damage(&mut damaged_from, pos, warnings);
                    warnings.push(Warning::cut_short(Some(pos as u64), what));
                    pos = data.len();
                    break;
                }
                Read::NotHeader(..) => {}
            }
        } else if rest.starts_with(&FOOTER_MAGIC) && damaged_from.is_none() {
            // A footer record (its trailer was damaged): nothing but the trailer follows.
            break;
        }
        damaged_from.get_or_insert(pos);
        pos = next_magic(data, pos + 1);
    }
    end_damage(&mut damaged_from, pos.min(data.len()), warnings);
    found
}

/// The next position at or after `from` where a block magic starts (or the end).
fn next_magic(data: &[u8], from: usize) -> usize {
    let mut i = from;
    while i < data.len() {
        match data[i..].iter().position(|&b| b == BLOCK_MAGIC[0]) {
            None => return data.len(),
            Some(k) => {
                i += k;
                if data[i..].starts_with(&BLOCK_MAGIC) {
                    return i;
                }
                i += 1;
            }
        }
    }
    data.len()
}

/// Why a block is left out: it carries another recording's run tag (two
/// recordings wrote to one file).
fn another_run(tag: u16, segments: u32, binding: RunBinding) -> String {
    format!(
        "a block of {segments} segment(s) belongs to another recording \
         (run tag {tag:#06x}, this log's is {:#06x}): left out",
        binding.tag()
    )
}
