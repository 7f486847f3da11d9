//! A decompression bomb: a log of a few kilobytes whose one block decodes to
//! millions of one-byte events (its zstd frame padded with skippable frames
//! up to the container's ratio). `trace replay LOG` prints its derivation as
//! it is produced and reads the block through a window, so its memory is
//! bounded by the log's structure, not by what the block decodes to. (Alone
//! in its test binary: the peak of the children is this run's.)

mod common;
use common::{s, text, trace, Scratch};
use std::time::Duration;
use trace_format::{Header, LogWriter, Outcome, WriterOptions};

/// Events of the bomb: held decoded with their text (about 110 bytes each),
/// they would take about 450 MB.
const EVENTS: u64 = 4 << 20;

#[test]
fn a_decompression_bomb_replays_in_bounded_memory() {
    let dir = Scratch::new("bomb");
    let log = dir.path("bomb.trace");
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
    let w = LogWriter::create(&log, header, opts).unwrap();
    {
        let mut p = w.register(80, None);
        let mut slice = p.slice();
        for _ in 0..EVENTS {
            slice.push_exit(None);
        }
    }
    w.finish(Outcome::default()).unwrap();
    let size = std::fs::metadata(&log).unwrap().len();
    assert!(size < EVENTS / 512, "a bomb: {size} bytes");

    let out = trace(&["replay", "--summary", s(&log)]);
    assert_ne!(out.status.code(), Some(101), "{}", text(&out.stderr));
    let out = trace_cmd_to_null(&["replay", s(&log)]);
    assert!(matches!(out, Some(0 | 1 | 2)), "replay ended with {out:?}");
    // SAFETY: zeroed rusage is a valid value for the kernel to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: the pointer is to a live local.
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    let peak_mb = usage.ru_maxrss / 1024;
    assert!(
        peak_mb < 200,
        "trace replay of the bomb peaked at {peak_mb} MB"
    );
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
