//! docs/format.md stays true: the worked example there is the byte-for-byte
//! output of the writer for the run built here.

use std::time::Duration;
use trace_format::text;
use trace_format::{
    Dest, Event, Header, LogReader, LogWriter, ModuleInfo, MsgId, Outcome, Payload, ProcId,
    RecordingOptions, RunEnd, WriterOptions,
};
use trace_term::Term;

const START_NS: u64 = 1_700_000_000_000_000_000;

fn atom(a: &str) -> Payload {
    Payload(trace_term::etf::to_vec(&Term::atom(a)))
}

/// `ping:main()`: process 0 spawns and links process 1, sends it `ping`, 1
/// answers `pong`, both exit.
fn example_log(path: &std::path::Path) {
    let header = Header {
        recorder: "doc".into(),
        engine: "doc".into(),
        modules: vec![ModuleInfo {
            name: "ping".into(),
            path: "ping.erl".into(),
            hash: 0x0123_4567_89ab_cdef,
        }],
        entry: "ping:main()".into(),
        options: RecordingOptions {
            payloads: true,
            schedulers: 1,
            ..Default::default()
        },
        start_time_ns: START_NS,
        node: "nonode@nohost".into(),
        entry_pid: 80,
        nondet_names: Vec::new(),
        run_id: 0x0000_0000_5eed_1e55,
        shared_functions: Vec::new(),
    };
    let opts = WriterOptions {
        flush_interval: Duration::from_secs(3600),
        ..Default::default()
    };
    let w = LogWriter::create(path, header, opts).unwrap();
    let mut p0 = w.register(80, None);
    let mut p1 = w.register(81, Some(ProcId(0)));
    let from = |sender, index| MsgId {
        sender: ProcId(sender),
        index,
    };
    for e in [
        Event::Spawn {
            child: ProcId(1),
            pid: 81,
            link: true,
            monitor: false,
        },
        Event::Send {
            to: Dest::Proc(ProcId(1)),
            payload: Some(atom("ping")),
        },
        Event::Receive { msg: from(1, 0) },
        Event::Exit {
            reason: Some(atom("normal")),
        },
    ] {
        p0.push(&e);
    }
    for e in [
        Event::Receive { msg: from(0, 0) },
        Event::Send {
            to: Dest::Proc(ProcId(0)),
            payload: Some(atom("pong")),
        },
        Event::Exit { reason: None },
    ] {
        p1.push(&e);
    }
    let outcome = Outcome {
        end: RunEnd::Completed,
        exit_status: Some(0),
        entry_result: None,
    };
    // Both processes' blocks are cut by `finish`, so they share one block.
    w.finish_at(outcome, START_NS + 1_000_000).unwrap();
    drop((p0, p1));
}

/// The fenced block after `marker` in docs/format.md.
fn documented_block(marker: &str) -> String {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/format.md"))
        .expect("docs/format.md");
    let start = doc.find(marker).expect("example marker");
    let block = &doc[start..];
    let block = &block[block.find("```").expect("fence") + 3..];
    let block = &block[block.find('\n').unwrap() + 1..];
    block[..block.find("```").expect("closing fence")].to_string()
}

/// The hex bytes of the example in docs/format.md: on each line of the block
/// after `<!-- example bytes -->`, the pairs of hex digits after the offset
/// and before the `|` that starts the annotation.
fn documented_bytes() -> Vec<u8> {
    let block = documented_block("<!-- example bytes -->");
    let mut bytes = Vec::new();
    for line in block.lines() {
        let data = line.split('|').next().unwrap_or("");
        let mut words = data.split_whitespace();
        if words.next().is_none() {
            continue; // blank line
        }
        for w in words {
            bytes.push(
                u8::from_str_radix(w, 16).unwrap_or_else(|_| panic!("bad hex {w:?} in {line:?}")),
            );
        }
    }
    bytes
}

#[test]
fn the_worked_example_is_what_the_writer_writes() {
    let dir = std::env::temp_dir().join(format!("trace-format-doc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("ping.trace");
    example_log(&path);
    let written = std::fs::read(&path).unwrap();
    if std::env::var_os("PRINT_EXAMPLE").is_some() {
        for (i, c) in written.chunks(16).enumerate() {
            let hex: Vec<String> = c.iter().map(|b| format!("{b:02x}")).collect();
            println!("{:04x}  {}", i * 16, hex.join(" "));
        }
    }
    let r = LogReader::open(&path).unwrap();
    assert!(r.warnings().is_empty());
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(documented_bytes(), written);

    // And `trace dump` prints what the page says.
    let names = trace_capture::Names::of_table(r.processes());
    let printer = text::Printer {
        header: r.header(),
        names: &names,
    };
    // As dump does: the sends first, so that a receive shows its message.
    let mut in_flight = text::InFlight::default();
    for p in r.processes() {
        r.for_each_event_of(p.id, |_, _, e| in_flight.sent(&e))
            .unwrap();
    }
    let mut dump = String::new();
    for p in r.processes() {
        r.for_each_event_of(p.id, |i, t, e| {
            let taken = in_flight.note(&e);
            dump.push_str(&printer.line_taking(p.id, i, t, &e, taken.as_deref()));
            dump.push('\n');
        })
        .unwrap();
    }
    assert_eq!(documented_block("<!-- example dump -->"), dump);
}
