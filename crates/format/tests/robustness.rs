//! Damaged, truncated and hostile logs: clear errors with offsets, warnings
//! for what was lost, and the intact part still readable.

mod common;

use common::*;
use trace_format::container::{BlockHeader, BLOCK_HEADER_LEN, MAX_RATIO};
use trace_format::container::{RunBinding, Storage, FLAG_TABLE_ZSTD};
use trace_format::segment::{self, Segment};
use trace_format::{
    Dest, Event, FormatError, LogReader, LogWriter, Outcome, ProcId, WriterOptions,
};

fn small_log(payloads: bool) -> (Vec<u8>, Vec<trace_format::ProcessLog>) {
    let t = TempPath::new("small.trace");
    let logs = ring(5, 40, payloads);
    write(
        &t.0,
        &logs,
        WriterOptions {
            block_size: 48,
            ..Default::default()
        },
    );
    (std::fs::read(&t.0).unwrap(), logs)
}

/// A log whose blocks are large enough to be stored zstd-compressed.
fn compressed_log() -> (Vec<u8>, Vec<trace_format::ProcessLog>) {
    let t = TempPath::new("zstd.trace");
    let logs = ring(3, 120, true);
    write(
        &t.0,
        &logs,
        WriterOptions {
            block_size: 400,
            ..Default::default()
        },
    );
    (std::fs::read(&t.0).unwrap(), logs)
}

#[test]
fn truncation_at_every_offset_keeps_every_intact_block() {
    let (bytes, logs) = small_log(true);
    let full = LogReader::from_bytes(bytes.clone()).unwrap();
    assert!(full.blocks().len() > 20, "{} blocks", full.blocks().len());
    truncate_everywhere(&bytes, &logs);
    let (bytes, logs) = compressed_log();
    let full = LogReader::from_bytes(bytes.clone()).unwrap();
    let zstd = full
        .blocks()
        .filter(|b| b.stored_len < b.body_raw_len)
        .count();
    assert!(zstd > 5, "{zstd} compressed blocks");
    truncate_everywhere(&bytes, &logs);
}

fn truncate_everywhere(bytes: &[u8], logs: &[trace_format::ProcessLog]) {
    let full = LogReader::from_bytes(bytes.to_vec()).unwrap();
    let blocks: Vec<_> = full.blocks().collect();
    let blocks_start = blocks.iter().map(|b| b.offset).min().unwrap() as usize;
    for len in 0..bytes.len() {
        let cut = bytes[..len].to_vec();
        let r = match LogReader::from_bytes(cut) {
            Ok(r) => r,
            Err(e) => {
                assert!(len < blocks_start, "length {len}: {e}");
                continue;
            }
        };
        assert!(len >= blocks_start);
        assert!(r.recovered(), "length {len}");
        assert!(!r.warnings().is_empty());
        let got = r.read_all().unwrap_or_else(|e| panic!("length {len}: {e}"));
        for l in logs {
            // Expected: the process's blocks that lie wholly inside the cut, in order.
            let intact: u64 = blocks
                .iter()
                .filter(|b| b.process == l.id && b.body_offset + b.stored_len as u64 <= len as u64)
                .map(|b| b.events as u64)
                .sum();
            let have = got
                .iter()
                .find(|g| g.id == l.id)
                .map_or(&[][..], |g| &g.events[..]);
            assert_eq!(
                have,
                &l.events[..intact as usize],
                "length {len}, process {}",
                l.id.0
            );
        }
    }
}

#[test]
fn errors_name_what_the_file_is() {
    let (bytes, _) = small_log(false);
    let mut newer = bytes.clone();
    newer[8] = 4;
    let e = LogReader::from_bytes(newer).err().unwrap();
    assert!(matches!(
        e,
        FormatError::Version {
            found: 4,
            supported: 3
        }
    ));
    assert_eq!(
        e.to_string(),
        "written by a newer trace: log format version 4, this build reads version 3"
    );
    let e = LogReader::from_bytes(b"{trace_send,3}.\n".to_vec())
        .err()
        .unwrap();
    assert!(
        e.to_string()
            .starts_with("not a trace log: a CauDEr text log"),
        "{e}"
    );
    let mut flagged = bytes.clone();
    flagged[10] = 1;
    let e = LogReader::from_bytes(flagged).err().unwrap();
    assert_eq!(e.offset(), Some(10));
    assert!(e.to_string().contains("preamble flags 0"), "{e}");
    let mut bad_header = bytes.clone();
    bad_header[20] ^= 0xff;
    let e = LogReader::from_bytes(bad_header).err().unwrap();
    assert!(e.to_string().contains("header's checksum"), "{e}");
    assert!(e.offset().is_some());
}

/// What each process keeps when the block at `offset` is lost: its events
/// up to its first segment in that block.
fn kept_without(r: &LogReader, offset: u64, logs: &[trace_format::ProcessLog]) -> Vec<usize> {
    logs.iter()
        .map(|l| {
            r.blocks()
                .filter(|b| b.process == l.id && b.offset == offset)
                .map(|b| b.first_event as usize)
                .min()
                .unwrap_or(l.events.len())
        })
        .collect()
}

#[test]
fn a_damaged_block_is_an_error_with_its_offset_and_salvage_keeps_the_rest() {
    let (bytes, logs) = small_log(true);
    let r = LogReader::from_bytes(bytes.clone()).unwrap();
    // Damage the body of the block holding process 2's second segment.
    let victim = r
        .blocks()
        .filter(|b| b.process == ProcId(2))
        .nth(1)
        .unwrap();
    let kept = kept_without(&r, victim.offset, &logs);
    let mut damaged = bytes.clone();
    damaged[victim.body_offset as usize + 1] ^= 0x55;
    let r = LogReader::from_bytes(damaged).unwrap();
    // The footer is intact, so open trusts it; decoding finds the damage.
    let e = r.read_all().unwrap_err();
    assert_eq!(e.offset(), Some(victim.offset));
    assert!(e.to_string().contains("checksum"), "{e}");
    let e = r
        .par_fold_blocks(|| (), |_, ev| ev.for_each(drop))
        .unwrap_err();
    assert_eq!(e.offset(), Some(victim.offset));
    let e = r.events_of(ProcId(2)).unwrap_err();
    assert_eq!(e.offset(), Some(victim.offset));
    let (salvaged, warnings) = r.salvage();
    let cut: Vec<usize> = (0..logs.len())
        .filter(|&p| kept[p] < logs[p].events.len())
        .collect();
    assert!(cut.contains(&2), "{cut:?}");
    assert_eq!(warnings.len(), cut.len(), "{warnings:?}");
    assert!(
        warnings.iter().any(|w| w.to_string().contains("process 2")),
        "{warnings:?}"
    );
    for (p, l) in logs.iter().enumerate() {
        assert_eq!(salvaged[p].events, l.events[..kept[p]], "process {p}");
        if kept[p] == l.events.len() {
            assert_eq!(r.events_of(l.id).unwrap(), l.events);
        }
    }
}

#[test]
fn a_hole_in_the_middle_shortens_only_that_process() {
    let (bytes, logs) = small_log(true);
    let r = LogReader::from_bytes(bytes.clone()).unwrap();
    let victim = r
        .blocks()
        .filter(|b| b.process == ProcId(1))
        .nth(1)
        .unwrap();
    let kept = kept_without(&r, victim.offset, &logs);
    // Destroy the block's magic and cut the footer off: recovery by scanning.
    let mut damaged = bytes.clone();
    damaged[victim.offset as usize] = b'X';
    damaged.truncate(damaged.len() - 16);
    let r = LogReader::from_bytes(damaged).unwrap();
    assert!(r.recovered());
    let text: Vec<String> = r.warnings().iter().map(|w| w.to_string()).collect();
    assert!(
        text.iter()
            .any(|w| w.contains(&format!("at byte {}", victim.offset))),
        "{text:?}"
    );
    assert!(
        text.iter()
            .any(|w| w.contains("process 1 <0.81.0>: its events")),
        "{text:?}"
    );
    let got = r.read_all().unwrap();
    assert_eq!(kept[1], victim.first_event as usize);
    for (p, l) in logs.iter().enumerate() {
        assert_eq!(got[p].events, l.events[..kept[p]], "process {p}");
    }
}

#[test]
fn a_footer_that_lies_is_not_trusted() {
    let (bytes, logs) = small_log(false);
    let r = LogReader::from_bytes(bytes.clone()).unwrap();
    let blocks: Vec<_> = r.blocks().collect();
    // Rewrite a block header's segment count (with a valid header checksum),
    // so it disagrees with the footer.
    let b = blocks[3];
    let kept = kept_without(&r, b.offset, &logs);
    let at = b.offset as usize;
    let mut h = BlockHeader::parse(&bytes[at..at + BLOCK_HEADER_LEN]).unwrap();
    h.segments += 1;
    let mut lying = bytes.clone();
    lying[at..at + BLOCK_HEADER_LEN].copy_from_slice(&h.encode());
    let r = LogReader::from_bytes(lying).unwrap();
    assert!(r
        .warnings()
        .iter()
        .any(|w| w.offset == Some(b.offset) && w.message.contains("unusable")));
    let got = r.read_all().unwrap();
    for (p, l) in logs.iter().enumerate() {
        assert_eq!(got[p].events, l.events[..kept[p]], "process {p}");
    }
}

/// The record at `at` with its segment table rewritten by `f` (stored
/// raw), its header made to match.
fn with_table(bytes: &[u8], at: usize, f: impl FnOnce(&mut Vec<Segment>)) -> Vec<u8> {
    let h = BlockHeader::parse(&bytes[at..at + BLOCK_HEADER_LEN]).unwrap();
    let table_at = at + BLOCK_HEADER_LEN;
    let stored = &bytes[table_at..table_at + h.table_stored_len as usize];
    let table = if h.table_zstd() {
        zstd::bulk::decompress(stored, h.table_raw_len as usize).unwrap()
    } else {
        stored.to_vec()
    };
    let mut rows = segment::parse(&table, h.segments, h.raw_len).unwrap();
    f(&mut rows);
    let mut table = Vec::new();
    segment::encode(&rows, &mut table);
    let body_at = table_at + h.table_stored_len as usize;
    let body = &bytes[body_at..body_at + h.stored_len as usize];
    let binding = RunBinding {
        version: 3,
        run_id: LogReader::from_bytes(bytes.to_vec())
            .unwrap()
            .header()
            .run_id,
    };
    let h = BlockHeader {
        flags: h.flags & !FLAG_TABLE_ZSTD,
        segments: rows.len() as u32,
        table_raw_len: table.len() as u32,
        table_stored_len: table.len() as u32,
        table_crc: binding.body_crc(&table),
        ..h
    };
    let mut out = bytes[..at].to_vec();
    out.extend_from_slice(&h.encode());
    out.extend_from_slice(&table);
    out.extend_from_slice(body);
    out.extend_from_slice(&bytes[body_at + body.len()..]);
    out
}

#[test]
fn a_block_that_decompresses_to_more_than_declared_is_rejected() {
    let (bytes, _) = small_log(false);
    let r = LogReader::from_bytes(bytes.clone()).unwrap();
    let b = r.blocks().next().unwrap();
    let at = b.offset as usize;
    let binding = RunBinding {
        version: r.version(),
        run_id: r.header().run_id,
    };
    // A zstd frame of 5000 zero bytes where the header promises 10, for
    // one segment of 10 events.
    let frame = zstd::bulk::compress(&[0u8; 5000], 3).unwrap();
    let mut table = Vec::new();
    segment::encode(
        &[Segment {
            process: 0,
            first_event: 0,
            first_signal: 0,
            events: 10,
            raw_len: 10,
            origin: Some((80, u32::MAX)),
        }],
        &mut table,
    );
    let h = BlockHeader {
        storage: Storage::Zstd,
        flags: 0,
        run_tag: binding.tag(),
        segments: 1,
        table_raw_len: table.len() as u32,
        table_stored_len: table.len() as u32,
        raw_len: 10,
        stored_len: frame.len() as u32,
        table_crc: binding.body_crc(&table),
        body_crc: binding.body_crc(&frame),
    };
    let mut forged = bytes[..at].to_vec();
    forged.extend_from_slice(&h.encode());
    forged.extend_from_slice(&table);
    forged.extend_from_slice(&frame);
    let r = LogReader::from_bytes(forged).unwrap();
    let e = r.read_all().unwrap_err();
    assert_eq!(e.offset(), Some(b.offset));
    assert!(e.to_string().contains("decompresses to 10 bytes"), "{e}");
}

#[test]
fn very_compressible_blocks_are_padded_to_the_ratio_bound() {
    let t = TempPath::new("pingpong.trace");
    let w = LogWriter::create(
        &t.0,
        header(),
        WriterOptions {
            block_size: 1 << 20,
            ..Default::default()
        },
    )
    .unwrap();
    let mut a = w.register(80, None);
    let mut b = w.register(81, Some(ProcId(0)));
    {
        let (mut sa, mut sb) = (a.slice(), b.slice());
        for _ in 0..200_000 {
            let m = sa.push_send(Dest::Proc(ProcId(1)), None);
            sb.push_receive(m);
        }
    }
    drop((a, b));
    w.finish(Outcome::default()).unwrap();
    let r = LogReader::open(&t.0).unwrap();
    for blk in r.blocks() {
        assert!(blk.body_raw_len <= blk.stored_len * MAX_RATIO, "{blk:?}");
    }
    // Process 1's segments (one receive byte per event) compress far beyond
    // the bound, so a block was padded exactly up to it.
    assert!(
        r.blocks()
            .any(|b| b.stored_len == b.body_raw_len.div_ceil(MAX_RATIO)),
        "{:?}",
        r.blocks().collect::<Vec<_>>()
    );
    let logs = r.read_all().unwrap();
    assert_eq!(logs[1].events.len(), 200_000);
    assert!(matches!(logs[1].events[199_999], Event::Receive { msg } if msg.index == 199_999));
}

#[test]
fn a_scanned_block_with_an_outlandish_process_index_is_skipped() {
    let (bytes, logs) = small_log(true);
    let r = LogReader::from_bytes(bytes.clone()).unwrap();
    let victim = r.blocks().find(|b| b.process == ProcId(3)).unwrap();
    // Relabel process 3's segment as process 2^32 - 2, with valid checksums,
    // and cut the footer off: only the segment tables say which processes
    // exist.
    let at = victim.offset as usize;
    let mut damaged = with_table(&bytes, at, |rows| {
        for row in rows.iter_mut().filter(|s| s.process == 3) {
            row.process = u32::MAX - 1;
        }
        rows.sort_by_key(|s| s.process);
    });
    damaged.truncate(damaged.len() - 16);
    let r = LogReader::from_bytes(damaged).unwrap();
    assert!(r.recovered());
    // Tables indexed by process stay the size of the log, not 2^32 entries.
    assert!(r.id_slots() <= logs.len(), "{} slots", r.id_slots());
    assert!(
        r.warnings().iter().any(|w| {
            let w = w.to_string();
            w.contains(&format!("at byte {at}")) && w.contains("process 4294967294")
        }),
        "{:?}",
        r.warnings()
    );
    let got = r.read_all().unwrap();
    for p in [0, 1, 2, 4] {
        assert_eq!(got[p].events, logs[p].events);
    }
}
