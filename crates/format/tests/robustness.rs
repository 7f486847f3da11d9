//! Damaged, truncated and hostile logs: clear errors with offsets, warnings
//! for what was lost, and the intact part still readable.

mod common;

use common::*;
use trace_format::container::{BlockHeader, MAX_RATIO};
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
    let zstd = full.blocks().filter(|b| b.stored_len < b.raw_len).count();
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
                .filter(|b| b.process == l.id && b.offset + 60 + b.stored_len as u64 <= len as u64)
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
    newer[8] = 3;
    let e = LogReader::from_bytes(newer).err().unwrap();
    assert!(matches!(
        e,
        FormatError::Version {
            found: 3,
            supported: 2
        }
    ));
    assert_eq!(
        e.to_string(),
        "written by a newer trace: log format version 3, this build reads version 2"
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

#[test]
fn a_damaged_block_is_an_error_with_its_offset_and_salvage_keeps_the_rest() {
    let (bytes, logs) = small_log(true);
    let r = LogReader::from_bytes(bytes.clone()).unwrap();
    // Damage the body of process 2's second block.
    let victim = r
        .blocks()
        .filter(|b| b.process == ProcId(2))
        .nth(1)
        .unwrap();
    let mut damaged = bytes.clone();
    damaged[victim.offset as usize + 60 + 1] ^= 0x55;
    let r = LogReader::from_bytes(damaged).unwrap();
    // The footer is intact, so open trusts it; decoding finds the damage.
    let e = r.read_all().unwrap_err();
    assert_eq!(e.offset(), Some(victim.offset));
    assert!(e.to_string().contains("checksum"), "{e}");
    let e = r.events_of(ProcId(2)).unwrap_err();
    assert_eq!(e.offset(), Some(victim.offset));
    assert_eq!(r.events_of(ProcId(3)).unwrap(), logs[3].events);
    let (salvaged, warnings) = r.salvage();
    assert_eq!(warnings.len(), 1);
    assert!(
        warnings[0].to_string().contains("process 2"),
        "{}",
        warnings[0]
    );
    assert_eq!(
        salvaged[2].events,
        logs[2].events[..victim.first_event as usize]
    );
    assert_eq!(salvaged[4].events, logs[4].events);
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
    assert_eq!(got[1].events, logs[1].events[..victim.first_event as usize]);
    for p in [0, 2, 3, 4] {
        assert_eq!(got[p].events, logs[p].events);
    }
}

#[test]
fn a_footer_that_lies_is_not_trusted() {
    let (bytes, logs) = small_log(false);
    let r = LogReader::from_bytes(bytes.clone()).unwrap();
    let blocks: Vec<_> = r.blocks().collect();
    // Rewrite a block header's event count (with a valid header checksum), so
    // it disagrees with the footer.
    let b = blocks[3];
    let at = b.offset as usize;
    let mut h = BlockHeader::parse(&bytes[at..at + 60]).unwrap();
    h.events += 1;
    let mut lying = bytes.clone();
    lying[at..at + 60].copy_from_slice(&h.encode());
    let r = LogReader::from_bytes(lying).unwrap();
    assert!(r
        .warnings()
        .iter()
        .any(|w| w.offset == Some(b.offset) && w.message.contains("disagrees")));
    let got = r.read_all().unwrap();
    let p = b.process.0 as usize;
    assert_eq!(got[p].events, logs[p].events[..b.first_event as usize]);
}

#[test]
fn a_block_that_decompresses_to_more_than_declared_is_rejected() {
    let (bytes, _) = small_log(false);
    let r = LogReader::from_bytes(bytes.clone()).unwrap();
    let b = r.blocks().next().unwrap();
    let at = b.offset as usize;
    let mut h = BlockHeader::parse(&bytes[at..at + 60]).unwrap();
    // A zstd frame of 5000 zero bytes where the header promises 10.
    let frame = zstd::bulk::compress(&[0u8; 5000], 3).unwrap();
    h.storage = trace_format::container::Storage::Zstd;
    h.raw_len = 10;
    h.events = 10;
    h.stored_len = frame.len() as u32;
    h.body_crc = trace_format::container::RunBinding {
        version: r.version(),
        run_id: r.header().run_id,
    }
    .body_crc(&frame);
    let mut forged = bytes[..at].to_vec();
    forged.extend_from_slice(&h.encode());
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
        assert!(blk.raw_len <= blk.stored_len * MAX_RATIO, "{blk:?}");
    }
    // Process 1's block (one receive byte per event) compresses far beyond the
    // bound, so it was padded exactly up to it.
    let b1 = r.blocks().find(|b| b.process == ProcId(1)).unwrap();
    assert_eq!(b1.stored_len, b1.raw_len.div_ceil(MAX_RATIO), "{b1:?}");
    let logs = r.read_all().unwrap();
    assert_eq!(logs[1].events.len(), 200_000);
    assert!(matches!(logs[1].events[199_999], Event::Receive { msg } if msg.index == 199_999));
}

#[test]
fn a_scanned_block_with_an_outlandish_process_index_is_skipped() {
    let (bytes, logs) = small_log(true);
    let r = LogReader::from_bytes(bytes.clone()).unwrap();
    let victim = r.blocks().find(|b| b.process == ProcId(3)).unwrap();
    // Relabel the block as process 2^32 - 1, with a valid header checksum,
    // and cut the footer off: only the block headers say which processes exist.
    let mut damaged = bytes.clone();
    let at = victim.offset as usize;
    damaged[at + 8..at + 12].copy_from_slice(&u32::MAX.to_le_bytes());
    let crc = crc32fast::hash(&damaged[at..at + 56]);
    damaged[at + 56..at + 60].copy_from_slice(&crc.to_le_bytes());
    damaged.truncate(damaged.len() - 16);
    let r = LogReader::from_bytes(damaged).unwrap();
    assert!(r.recovered());
    // Tables indexed by process stay the size of the log, not 2^32 entries.
    assert!(r.id_slots() <= logs.len(), "{} slots", r.id_slots());
    assert!(
        r.warnings().iter().any(|w| {
            let w = w.to_string();
            w.contains(&format!("at byte {at}")) && w.contains("process 4294967295")
        }),
        "{:?}",
        r.warnings()
    );
    let got = r.read_all().unwrap();
    for p in [0, 1, 2, 4] {
        assert_eq!(got[p].events, logs[p].events);
    }
}
