//! `stats::compute` on logs whose contents we know.

mod common;

use common::*;
use trace_format::stats::compute;
use trace_format::EventKind;
use trace_format::{LogReader, WriterOptions};

#[test]
fn counts_kinds_payloads_and_sizes() {
    let t = TempPath::new("stats.trace");
    let logs = ring(6, 100, true);
    let summary = write(&t.0, &logs, WriterOptions::default());
    let r = LogReader::open(&t.0).unwrap();
    let s = compute(&r, WriterOptions::default().zstd_level).unwrap();
    let k = |name: &str| {
        s.by_kind[EventKind::ALL
            .iter()
            .position(|x| x.name() == name)
            .unwrap()]
    };
    assert_eq!(s.processes, 6);
    assert_eq!(k("spawn"), 5);
    assert_eq!(k("send"), 600);
    assert_eq!(k("receive"), 600);
    assert_eq!(k("exit"), 6);
    assert_eq!(s.events, summary.events);
    let payloads: u64 = logs
        .iter()
        .flat_map(|l| &l.events)
        .map(|e| match e {
            trace_format::Event::Send {
                payload: Some(p), ..
            } => p.0.len() as u64,
            trace_format::Event::Exit { reason: Some(p) } => p.0.len() as u64,
            _ => 0,
        })
        .sum();
    assert_eq!(s.payload_bytes, payloads);
    assert_eq!(s.file_bytes, summary.bytes);
    assert_eq!(s.raw_bytes, summary.raw_bytes);
    assert!(s.file_bytes_without_payloads < s.file_bytes);
    assert!(s.compression_ratio() > 1.0);
    assert!(s.duration_ns.is_some());

    // The same run without payloads: re-encoding strips nothing, so the
    // measured size without payloads is the file's own.
    let t2 = TempPath::new("stats2.trace");
    write(&t2.0, &ring(6, 100, false), WriterOptions::default());
    let r2 = LogReader::open(&t2.0).unwrap();
    let s2 = compute(&r2, WriterOptions::default().zstd_level).unwrap();
    assert_eq!(s2.payload_bytes, 0);
    assert_eq!(s2.file_bytes_without_payloads, s2.file_bytes);
    // And stripping the payload run's blocks gives the payload-free run's blocks;
    // only the footer differs, its offsets and lengths being larger varints.
    let footer_slack = 4 * s.blocks;
    assert!(s.file_bytes_without_payloads.abs_diff(s2.file_bytes) <= footer_slack);
}

#[test]
fn a_crowd_without_payloads_measures_its_own_size_without_payloads() {
    // Hundreds of short processes: blocks of many segments, which the
    // writer compresses otherwise than a busy process's block.
    let t = TempPath::new("stats-crowd.trace");
    let summary = write(&t.0, &ring(400, 2, false), WriterOptions::default());
    let r = LogReader::open(&t.0).unwrap();
    let s = compute(&r, WriterOptions::default().zstd_level).unwrap();
    assert!(
        s.blocks > 16 * s.records,
        "{} segments in {} blocks",
        s.blocks,
        s.records
    );
    assert_eq!(s.events, summary.events);
    assert_eq!(s.file_bytes_without_payloads, s.file_bytes);
}
