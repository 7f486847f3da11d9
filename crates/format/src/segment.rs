//! The segment table of a version-3 block record (docs/format.md §5.1): one
//! row per segment, a segment being consecutive events of one process. A
//! block carries the segments of many short-lived processes at once, so a
//! row costs a few bytes where a block of its own cost a header and a
//! compressor frame; the process's first segment also says who the process
//! is (pid and parent), so a log without its footer still knows.

use crate::container::NO_PARENT;
use crate::varint::{get, put, unzigzag, zigzag};

/// One row: where a run of one process's events belongs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    pub process: u32,
    /// Index of the segment's first event in the process log.
    pub first_event: u64,
    /// Signal index its first `send`/`signal` takes.
    pub first_signal: u64,
    pub events: u32,
    /// Length of its encoded events in the decoded body.
    pub raw_len: u32,
    /// The process's pid number and parent ([`NO_PARENT`] for none): in the
    /// row of a segment that starts the process log (`first_event == 0`), and
    /// only there.
    pub origin: Option<(u64, u32)>,
}

/// Appends the table of `segments` to `out`: column after column (each
/// column holds numbers of one kind, which zstd's entropy stage shrinks
/// best side by side). A row whose `first_event` is 0 must have an origin.
pub fn encode(segments: &[Segment], out: &mut Vec<u8>) {
    let mut prev = 0u32;
    for s in segments {
        put(out, zigzag(s.process as i64 - prev as i64));
        prev = s.process;
    }
    for s in segments {
        put(out, s.first_event);
    }
    for s in segments {
        put(out, s.first_signal);
    }
    for s in segments {
        put(out, s.events as u64);
    }
    for s in segments {
        put(out, (s.raw_len - s.events) as u64);
    }
    let starts = || segments.iter().filter(|s| s.first_event == 0);
    for s in starts() {
        let (pid, _) = s.origin.expect("a process's first segment says who it is");
        put(out, zigzag(pid.wrapping_sub(s.process as u64) as i64));
    }
    for s in starts() {
        let (_, parent) = s.origin.expect("a process's first segment says who it is");
        put(out, parent_code(s.process, parent));
    }
}

/// The parent as a row holds it: 0 for none, else one more than the
/// zigzag distance back to it (a parent is usually registered shortly
/// before its child).
fn parent_code(process: u32, parent: u32) -> u64 {
    if parent == NO_PARENT {
        0
    } else {
        zigzag(process as i64 - parent as i64) + 1
    }
}

/// A column being read: the varints from `at` on, one after another.
/// A varint that does not read (cut short by the table's end, or over
/// 64 bits) gives 0, and its place is kept in `bad` for [`parse`] to
/// report once the columns are read.
struct Column<'t> {
    table: &'t [u8],
    at: usize,
    bad: Option<(usize, &'static str)>,
}

impl Column<'_> {
    #[inline(always)]
    fn next(&mut self, what: &'static str) -> u64 {
        let at = self.at;
        if let Some(&b) = self.table.get(at) {
            if b < 0x80 {
                self.at = at + 1;
                return b as u64;
            }
        }
        get(self.table, &mut self.at).unwrap_or_else(|_| {
            self.bad.get_or_insert((at, what));
            // Past the end: every later value reads 0 at once.
            self.at = self.table.len();
            0
        })
    }
}

/// Parses the `count` rows of `table`, which they must fill exactly, and
/// which must describe `raw_len` bytes of body between them. The error is a
/// position in the table and what was expected there.
///
/// The columns are read one after the other, each in a loop of its own
/// over the rows (a table holds a handful of bytes per row, and a crowd's
/// log millions of rows), and the rows checked in one pass after them.
pub fn parse(table: &[u8], count: u32, raw_len: u32) -> Result<Vec<Segment>, (usize, String)> {
    // Every row takes a byte in each of its five columns.
    let n = count as usize;
    if n.saturating_mul(5) > table.len() {
        return Err((0, format!("{count} rows, found {} bytes", table.len())));
    }
    let mut col = Column {
        table,
        at: 0,
        bad: None,
    };
    let mut rows = Vec::with_capacity(n);
    // Process indices, each a step from the previous row's; the first
    // step that leaves the range is kept to be reported.
    let mut prev = 0i64;
    let mut bad_process = None;
    for i in 0..n {
        let delta = unzigzag(col.next("process"));
        let p = prev.wrapping_add(delta);
        if !(0..NO_PARENT as i64).contains(&p) && bad_process.is_none() {
            bad_process = Some((i, prev, delta));
        }
        prev = p;
        rows.push(Segment {
            process: p as u32,
            first_event: 0,
            first_signal: 0,
            events: 0,
            raw_len: 0,
            origin: None,
        });
    }
    for r in rows.iter_mut() {
        r.first_event = col.next("first event");
    }
    for r in rows.iter_mut() {
        r.first_signal = col.next("first signal");
    }
    // A segment's events and length: the first row that lies about them
    // is kept to be reported.
    let mut bad_segment = None;
    for (i, r) in rows.iter_mut().enumerate() {
        let ev = col.next("events");
        if ev == 0 || ev > raw_len as u64 || r.first_event.checked_add(ev).is_none() {
            bad_segment.get_or_insert((i, ev));
        }
        r.events = ev as u32;
    }
    let mut body = 0u64;
    for (i, r) in rows.iter_mut().enumerate() {
        let len = (r.events as u64).saturating_add(col.next("length"));
        if len > raw_len as u64 {
            bad_segment.get_or_insert((i, r.events as u64));
        }
        r.raw_len = len as u32;
        body = body.saturating_add(len);
    }
    // Who each process is, in the rows that start a process log.
    for r in rows.iter_mut().filter(|r| r.first_event == 0) {
        let pid = (r.process as u64).wrapping_add(unzigzag(col.next("pid")) as u64);
        r.origin = Some((pid, NO_PARENT));
    }
    let mut bad_parent = None;
    for (i, r) in rows.iter_mut().enumerate() {
        let Some((_, parent)) = &mut r.origin else {
            continue;
        };
        let c = col.next("parent");
        if c != 0 {
            let q = (r.process as i64)
                .checked_sub(unzigzag(c - 1))
                .and_then(|q| u32::try_from(q).ok())
                .filter(|q| *q != NO_PARENT);
            match q {
                Some(q) => *parent = q,
                None => _ = bad_parent.get_or_insert((i, c)),
            }
        }
    }
    if let Some((at, what)) = col.bad {
        return Err((at, format!("a varint ({what})")));
    }
    if col.at != table.len() {
        return Err((col.at, format!("the end of the table after {count} rows")));
    }
    let bad = |i: usize, what: String| (0, format!("row {i}: {what}"));
    if let Some((i, prev, delta)) = bad_process {
        return Err(bad(i, format!("a process index, found {prev} + {delta}")));
    }
    if let Some((i, ev)) = bad_segment {
        let what = format!("a segment of 1 event or more within the block, found {ev} events");
        return Err(bad(i, what));
    }
    if let Some((i, c)) = bad_parent {
        return Err(bad(i, format!("a parent process index, code {c}")));
    }
    if body != raw_len as u64 {
        let how = if body > raw_len as u64 {
            "within"
        } else {
            "that fill"
        };
        return Err((
            col.at,
            format!("segments {how} the block's {raw_len} decoded bytes, found {body}"),
        ));
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows() -> Vec<Segment> {
        vec![
            Segment {
                process: 7,
                first_event: 0,
                first_signal: 0,
                events: 3,
                raw_len: 5,
                origin: Some((87, 2)),
            },
            Segment {
                process: 3,
                first_event: 12,
                first_signal: 4,
                events: 1,
                raw_len: 1,
                origin: None,
            },
            Segment {
                process: 0,
                first_event: 0,
                first_signal: 0,
                events: 2,
                raw_len: 9,
                origin: Some((80, NO_PARENT)),
            },
        ]
    }

    #[test]
    fn rows_round_trip() {
        let mut t = Vec::new();
        encode(&rows(), &mut t);
        assert_eq!(parse(&t, 3, 15).unwrap(), rows());
    }

    #[test]
    fn long_columns_of_long_varints_round_trip() {
        // Enough rows that columns are skipped a word at a time, with
        // values of one to four bytes.
        let rows: Vec<Segment> = (0..300u64)
            .map(|i| Segment {
                process: (i * 7) as u32,
                first_event: if i % 3 == 0 { 0 } else { i * i * 37 },
                first_signal: i * 1001,
                events: 1 + (i % 200) as u32,
                raw_len: 1 + (i % 200) as u32 + (i * 13 % 300) as u32,
                origin: (i % 3 == 0).then_some((80 + i * 9, i as u32 / 2)),
            })
            .collect();
        let raw: u32 = rows.iter().map(|r| r.raw_len).sum();
        let mut t = Vec::new();
        encode(&rows, &mut t);
        assert_eq!(parse(&t, 300, raw).unwrap(), rows);
        assert!(parse(&t, 299, raw).is_err());
        assert!(parse(&t[..t.len() - 1], 300, raw).is_err());
    }

    #[test]
    fn a_longer_form_reads_as_its_value() {
        // One row: process 0, first event 0 written in two bytes (so it
        // starts the process log), first signal 4 in two bytes, 1 event,
        // no extra bytes, then its pid and parent.
        let t = [0x00, 0x80, 0x00, 0x84, 0x00, 0x01, 0x00, 0x02, 0x00];
        let rows = parse(&t, 1, 1).unwrap();
        assert_eq!(
            rows,
            vec![Segment {
                process: 0,
                first_event: 0,
                first_signal: 4,
                events: 1,
                raw_len: 1,
                origin: Some((1, NO_PARENT)),
            }]
        );
    }

    #[test]
    fn a_table_that_lies_is_refused() {
        let mut t = Vec::new();
        encode(&rows(), &mut t);
        assert!(parse(&t, 2, 15).is_err());
        assert!(parse(&t, 4, 15).unwrap_err().1.contains("varint"));
        assert!(parse(&t, 3, 14).unwrap_err().1.contains("within"));
        assert!(parse(&t, 3, 16).unwrap_err().1.contains("fill"));
        let mut zero = Vec::new();
        encode(
            &[Segment {
                events: 0,
                ..rows()[1].clone()
            }],
            &mut zero,
        );
        assert!(parse(&zero, 1, 1).unwrap_err().1.contains("found 0 events"));
        for cut in 0..t.len() {
            assert!(parse(&t[..cut], 3, 15).is_err());
        }
    }
}
