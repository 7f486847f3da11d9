//! A log with a damaged part (a checksum or structure failure between
//! intact blocks) gets one status from every command: 2, with each skipped
//! part named on stderr and a closing line saying that what was reported
//! covers only the intact part; `check` does not call a property satisfied.
//! A log merely cut short (no footer, its last block incomplete) keeps its
//! verdicts, with a warning.

mod common;
use common::{s, text, trace, Scratch};
use std::path::{Path, PathBuf};
use std::process::Output;
use trace_format::{
    Dest, Event, Header, LogReader, LogWriter, MsgId, Outcome, Payload, ProcId, RecordingOptions,
    WriterOptions,
};

const MESSAGES: u64 = 400;

/// Process 0 spawns 1 and sends it `ping` 400 times; 1 receives them all;
/// both exit. Small blocks, so each process has many.
fn ping_log(path: &Path) {
    let header = Header {
        entry: "ping:main()".into(),
        node: "nonode@nohost".into(),
        entry_pid: 80,
        options: RecordingOptions {
            payloads: true,
            ..Default::default()
        },
        ..Default::default()
    };
    let opts = WriterOptions {
        block_size: 256,
        linger: std::time::Duration::ZERO,
        ..WriterOptions::default()
    };
    let w = LogWriter::create(path, header, opts).unwrap();
    let mut p0 = w.register(80, None);
    let mut p1 = w.register(81, Some(ProcId(0)));
    let ping = trace_term::etf::to_vec(&trace_term::Term::atom("ping"));
    p0.push(&Event::Spawn {
        child: ProcId(1),
        pid: 81,
        link: false,
        monitor: false,
    });
    for index in 0..MESSAGES {
        p0.push(&Event::Send {
            to: Dest::Proc(ProcId(1)),
            payload: Some(Payload(ping.clone())),
        });
        p1.push(&Event::Receive {
            msg: MsgId {
                sender: ProcId(0),
                index,
            },
        });
    }
    p0.push(&Event::Exit { reason: None });
    p1.push(&Event::Exit { reason: None });
    drop((p0, p1));
    w.finish(Outcome::default()).unwrap();
}

/// The byte offsets of the log's blocks, in file order.
fn block_offsets(path: &Path) -> Vec<u64> {
    let r = LogReader::open(path).unwrap();
    assert!(r.warnings().is_empty(), "{:?}", r.warnings());
    let mut v: Vec<u64> = r.blocks().map(|b| b.offset).collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Every command that reads a log; `diff` compares it with `other`.
fn commands(log: &Path, other: &Path, spec: &Path) -> Vec<Vec<String>> {
    let l = s(log).to_string();
    [
        vec!["dump", &l],
        vec!["stats", &l],
        vec!["replay", &l],
        vec!["replay", &l, "--summary"],
        vec!["check", &l, "--spec", s(spec)],
        vec!["diff", &l, s(other)],
        vec!["diff", s(other), &l],
        vec!["view", &l, "-o", &format!("{l}.html")],
        vec!["export", &l, "--csv", &format!("{l}.csv")],
        vec!["export", &l, "--perfetto", &format!("{l}.json")],
        vec!["export", &l, "--shiviz", &format!("{l}.log")],
    ]
    .iter()
    .map(|c| c.iter().map(|a| a.to_string()).collect())
    .collect()
}

fn run(args: &[String]) -> Output {
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    trace(&refs)
}

/// A log whose middle block has one byte flipped in `at` bytes from its start.
fn damaged_copy(dir: &Scratch, good: &Path, name: &str, at: u64) -> PathBuf {
    let offsets = block_offsets(good);
    assert!(offsets.len() > 2, "{} blocks", offsets.len());
    let mut bytes = std::fs::read(good).unwrap();
    let middle = offsets[offsets.len() / 2] + at;
    bytes[middle as usize] ^= 0x5a;
    let path = dir.path(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn a_damaged_block_in_the_middle_gives_status_2_from_every_command() {
    let dir = Scratch::new("middle-block");
    let good = dir.path("good.trace");
    ping_log(&good);
    let spec = dir.write("p.tspec", "p: never send(_, _, pong).\n");
    for args in commands(&good, &good, &spec) {
        let out = run(&args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
    // The body (past the 60-byte header: a checksum failure found on
    // decoding) and the header (the footer's entry is unusable).
    for (name, at) in [("body.trace", 70), ("header.trace", 20)] {
        let bad = damaged_copy(&dir, &good, name, at);
        for args in commands(&bad, &good, &spec) {
            let out = run(&args);
            let err = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
            assert!(
                err.lines().any(|l| l.contains(": damaged: ")),
                "{args:?}: the skipped part is not named: {err}"
            );
            // dump and stats meet body damage when decoding: their error
            // line names it; the others close with what the report covers.
            let decoding = name == "body.trace" && ["dump", "stats"].contains(&args[0].as_str());
            if !decoding {
                assert!(err.contains("the log is damaged"), "{args:?}: {err}");
            }
        }
        let out = trace(&["check", s(&bad), "--spec", s(&spec)]);
        let report = text(&out.stdout);
        assert!(report.contains("STATUS: GaveUp"), "{report}");
        assert!(!report.contains("STATUS: Satisfied"), "{report}");
    }
}

#[test]
fn a_log_merely_cut_short_keeps_its_verdicts() {
    let dir = Scratch::new("cut-short");
    let good = dir.path("good.trace");
    ping_log(&good);
    let spec = dir.write("p.tspec", "p: never send(_, _, pong).\n");
    let offsets = block_offsets(&good);
    // Into the last block: no footer, the last block incomplete.
    let cut_at = offsets[offsets.len() - 1] + 30;
    let bytes = std::fs::read(&good).unwrap();
    let cut = dir.path("cut.trace");
    std::fs::write(&cut, &bytes[..cut_at as usize]).unwrap();
    for args in commands(&cut, &cut, &spec) {
        let out = run(&args);
        let err = text(&out.stderr);
        assert!(err.contains("warning: no footer"), "{args:?}: {err}");
        assert!(!err.contains(": damaged: "), "{args:?}: {err}");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
    }
}
