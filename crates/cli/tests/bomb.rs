//! A decompression bomb: a log of a few kilobytes whose one block decodes to
//! millions of one-byte events (its zstd frame padded with skippable frames
//! up to the container's ratio). `trace replay LOG` prints its derivation as
//! it is produced, and it and `trace diff` read the block through a window,
//! so their memory is bounded by the log's structure, not by what the block
//! decodes to. (Alone in its test binary: the peak of the children is this
//! run's.)

mod common;
use common::{s, text, trace, Scratch};
use std::time::Duration;
use trace_format::{Header, LogWriter, Outcome, WriterOptions};

/// Events of the bomb: held decoded with their text (about 110 bytes each),
/// they would take about 450 MB.
const EVENTS: u64 = 4 << 20;

#[test]
fn a_decompression_bomb_replays_and_diffs_in_bounded_memory() {
    let dir = Scratch::new("bomb");
    let log = dir.path("bomb.trace");
    write_exits(&log, EVENTS);
    let size = std::fs::metadata(&log).unwrap().len();
    assert!(size < EVENTS / 512, "a bomb: {size} bytes");
    let one = dir.path("one.trace");
    write_exits(&one, 1);

    let out = trace(&["replay", "--summary", s(&log)]);
    assert_ne!(out.status.code(), Some(101), "{}", text(&out.stderr));
    let status = trace_cmd_to_null(&["replay", s(&log)]);
    assert!(
        matches!(status, Some(0..=2)),
        "replay ended with {status:?}"
    );
    let status = trace_cmd_to_null(&["diff", s(&one), s(&log)]);
    assert!(matches!(status, Some(1 | 2)), "diff ended with {status:?}");
    // SAFETY: zeroed rusage is a valid value for the kernel to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: the pointer is to a live local.
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    let peak_mb = usage.ru_maxrss / 1024;
    assert!(
        peak_mb < 200,
        "trace replay or diff of the bomb peaked at {peak_mb} MB"
    );
}

/// A log of one process whose events are `events` one-byte exits, in one
/// block (padded with skippable frames up to the container's ratio).
fn write_exits(log: &std::path::Path, events: u64) {
    let header = Header {
        entry: "bomb:main()".into(),
        node: "nonode@nohost".into(),
        entry_pid: 80,
        ..Default::default()
    };
    let opts = WriterOptions {
        block_size: 16 << 20,
        flush_interval: Duration::from_secs(3600),
        ..Default::default()
    };
    let w = LogWriter::create(log, header, opts).unwrap();
    {
        let mut p = w.register(80, None);
        let mut slice = p.slice();
        for _ in 0..events {
            slice.push_exit(None);
        }
    }
    w.finish(Outcome::default()).unwrap();
}

/// Runs `trace ARGS` with its output discarded (the derivation is millions
/// of lines); its exit status.
fn trace_cmd_to_null(args: &[&str]) -> Option<i32> {
    common::trace_cmd()
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap()
        .code()
}
