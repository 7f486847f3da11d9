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

/// Skips a column of `count` varints from `*at`; returns how many were 0
/// when `counts_zeros` (0 otherwise). A varint ends at a byte below 0x80,
/// so this counts such bytes rather than decoding values (a table holds a
/// handful of bytes per row, and rows are many); the values are read,
/// strictly, afterwards.
fn skip_column(
    table: &[u8],
    at: &mut usize,
    count: usize,
    counts_zeros: bool,
    what: &str,
) -> Result<usize, (usize, String)> {
    let (mut ended, mut zeros, mut starts_varint) = (0, 0, true);
    let mut i = *at;
    if !counts_zeros {
        // Eight bytes at a time while the column's end is not among them:
        // a varint ends at each byte whose high bit is clear.
        while let Some(w) = table.get(i..i + 8) {
            let w = u64::from_le_bytes(w.try_into().expect("8 bytes"));
            let ends = (!w & 0x8080_8080_8080_8080).count_ones() as usize;
            if ended + ends >= count {
                break;
            }
            ended += ends;
            i += 8;
        }
        // The word before `i` ended with a varint's last byte, or a varint
        // runs on into the next (a start only matters for zeros).
    }
    while ended < count {
        let Some(&b) = table.get(i) else {
            return Err((i, format!("a varint ({what})")));
        };
        zeros += (starts_varint && b == 0) as usize;
        starts_varint = b < 0x80;
        ended += starts_varint as usize;
        i += 1;
    }
    *at = i;
    Ok(zeros)
}

/// The varint at `*at` of a column already skipped; one that does not read
/// (over 64 bits) gives 0 and its place in `bad`.
#[inline(always)]
fn value(table: &[u8], at: &mut usize, bad: &mut Option<usize>) -> u64 {
    if let Some(&b) = table.get(*at) {
        if b < 0x80 {
            *at += 1;
            return b as u64;
        }
    }
    let from = *at;
    get(table, at).unwrap_or_else(|_| {
        bad.get_or_insert(from);
        0
    })
}

/// Parses the `count` rows of `table`, which they must fill exactly, and
/// which must describe `raw_len` bytes of body between them. The error is a
/// position in the table and what was expected there.
pub fn parse(table: &[u8], count: u32, raw_len: u32) -> Result<Vec<Segment>, (usize, String)> {
    // Every row takes a byte in each of its five columns.
    let n = count as usize;
    if n.saturating_mul(5) > table.len() {
        return Err((0, format!("{count} rows, found {} bytes", table.len())));
    }
    // Where each column starts: the columns are read side by side.
    let names = [
        "process",
        "first event",
        "first signal",
        "events",
        "length",
        "pid",
        "parent",
    ];
    let mut col = [0usize; 7];
    let mut at = 0usize;
    let mut starts = 0;
    for c in 0..7 {
        col[c] = at;
        let len = if c < 5 { n } else { starts };
        let zeros = skip_column(table, &mut at, len, c == 1, names[c])?;
        if c == 1 {
            starts = zeros;
        }
    }
    if at != table.len() {
        return Err((at, format!("the end of the table after {count} rows")));
    }
    let ends = col;
    let mut overlong = None;
    let mut next = |c: usize| value(table, &mut col[c], &mut overlong);
    let mut rows = Vec::with_capacity(n);
    let (mut prev, mut body, mut origins) = (0u32, 0u64, 0usize);
    for i in 0..n {
        let bad = |what: String| (0, format!("row {i}: {what}"));
        let delta = unzigzag(next(0));
        let p = (prev as i64)
            .checked_add(delta)
            .and_then(|p| u32::try_from(p).ok())
            .filter(|p| *p != NO_PARENT)
            .ok_or_else(|| bad(format!("a process index, found {prev} + {delta}")))?;
        prev = p;
        let (first_event, first_signal, ev, extra) = (next(1), next(2), next(3), next(4));
        let len = ev
            .checked_add(extra)
            .filter(|l| *l <= raw_len as u64 && ev >= 1 && first_event.checked_add(ev).is_some())
            .ok_or_else(|| {
                bad(format!(
                    "a segment of 1 event or more within the block, found {ev} events"
                ))
            })?;
        body += len;
        if body > raw_len as u64 {
            return Err(bad(format!(
                "segments within the block's {raw_len} decoded bytes"
            )));
        }
        let origin = if first_event == 0 {
            origins += 1;
            let pid = (p as u64).wrapping_add(unzigzag(next(5)) as u64);
            let parent = match next(6) {
                0 => NO_PARENT,
                c => (p as i64)
                    .checked_sub(unzigzag(c - 1))
                    .and_then(|q| u32::try_from(q).ok())
                    .filter(|q| *q != NO_PARENT)
                    .ok_or_else(|| bad(format!("a parent process index, code {c}")))?,
            };
            Some((pid, parent))
        } else {
            None
        };
        rows.push(Segment {
            process: p,
            first_event,
            first_signal,
            events: ev as u32,
            raw_len: len as u32,
            origin,
        });
    }
    // Columns skipped by their bytes must read as they were skipped: no
    // varint over 64 bits, and as many first segments as zeros counted.
    if let Some(at) = overlong {
        return Err((at, "a varint of at most 64 bits".into()));
    }
    if origins != starts || col[..6] != ends[1..] || col[6] != at {
        return Err((at, "columns of canonical varints".into()));
    }
    if body != raw_len as u64 {
        return Err((
            at,
            format!("segments that fill the block's {raw_len} decoded bytes, found {body}"),
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
