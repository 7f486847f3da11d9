//! Inputs the fuzzer makes from nothing, shaped after what broke the binary
//! before: sources with one huge construct (a tuple or record past 65,535
//! slots, a long list, deep nesting), invalid UTF-8 or a quoted attribute
//! name; specifications with empty statements and long chains of triggers;
//! and decompression bombs — a log whose one block is padded with zstd
//! skippable frames and decodes to millions of one-byte events.

use super::rng::Rng;
use std::path::Path;
use std::time::Duration;
use trace_format::{Header, LogWriter, Outcome, RecordingOptions, WriterOptions};

/// A source of module `m` with one construct chosen (and sized) at random.
pub fn source(rng: &mut Rng, m: &str) -> Vec<u8> {
    let n = *rng.pick(&[10, 1_000, 20_000, 65_533, 65_534, 70_000]);
    let head = format!("-module({m}).\n-export([main/0]).\n");
    let body = match rng.below(8) {
        0 => format!("main() -> X = 1, {{{}}}.\n", joined("X", n)),
        1 => {
            let fields: Vec<String> = (0..n).map(|i| format!("f{i}")).collect();
            format!("-record(r, {{{}}}).\nmain() -> #r{{}}.\n", fields.join(","))
        }
        2 => {
            let vars: Vec<String> = (0..n.min(65_534)).map(|i| format!("V{i}")).collect();
            format!("main() -> {{{}}} = {{}}.\n", vars.join(","))
        }
        3 => format!("main() -> [{}].\n", joined("1", n * 4)),
        4 => nested(rng, n.min(20_000)),
        5 => "main() -> \"caf\u{e9}\". % a comment\n".to_string(),
        6 => "-'a b' export([main/0]).\nmain() -> ok.\n".to_string(),
        _ => format!("main() -> X = 1, #{{{}}}.\n", {
            let kv: Vec<String> = (0..n / 2).map(|i| format!("{i} => X")).collect();
            kv.join(",")
        }),
    };
    let mut b = format!("{head}{body}").into_bytes();
    if rng.one_in(3) || body.ends_with("comment\n") {
        // Invalid UTF-8 inside a string, an atom or a comment.
        let at = b.len().saturating_sub(4);
        b.insert(at, *rng.pick(&[0xFF, 0xC3, 0xED, 0x80]));
    }
    b
}

fn joined(item: &str, n: usize) -> String {
    vec![item; n].join(",")
}

/// `main()` whose body nests `depth` cases, funs, maps or lists.
fn nested(rng: &mut Rng, depth: usize) -> String {
    let (open, close) = *rng.pick(&[
        ("case x of x -> ", " end"),
        ("(fun() -> ", " end)()"),
        ("#{k => ", "}"),
        ("[", "]"),
        ("begin ", " end"),
    ]);
    format!(
        "main() -> {}ok{}.\n",
        open.repeat(depth),
        close.repeat(depth)
    )
}

/// A specification with one of the shapes that broke the checker.
pub fn spec(rng: &mut Rng) -> Vec<u8> {
    let event = |rng: &mut Rng| {
        rng.pick(&[
            "send(_, _, _)",
            "receive(_, _)",
            "spawn(_, _)",
            "exit(_)",
            "send(P, _, M) when is_tuple(M)",
            "receive(P, _, _)",
        ])
        .to_string()
    };
    let s = match rng.below(5) {
        0 => ".".to_string(),
        1 => "a: never exit(_).\n.\n. .\nno_deadlock.\n".to_string(),
        2 => {
            // A chain of triggers, each link any event: the search must not
            // try every combination.
            let k = 2 + rng.below(6);
            let chain: Vec<String> = (0..k).map(|_| event(rng)).collect();
            let verb = rng.pick(&["is followed by", "is preceded by"]);
            format!(
                "chain: every {} {verb} {}.\n",
                chain.join(" then "),
                event(rng)
            )
        }
        3 => {
            let k = 2 + rng.below(6);
            let chain: Vec<String> = (0..k).map(|_| event(rng)).collect();
            format!(
                "resp: every {} is followed by {}.\n",
                event(rng),
                chain.join(" then ")
            )
        }
        _ => format!(
            "scoped: between {} and {} at most {} {}.\n",
            event(rng),
            event(rng),
            rng.below(4),
            event(rng)
        ),
    };
    s.into_bytes()
}

/// Writes a log of one process whose events are `events` one-byte exits in
/// one block: the writer pads its tiny zstd frame with skippable frames up
/// to the container's ratio, so the file is about `events / 1024` bytes.
pub fn bomb(path: &Path, events: u64) -> std::io::Result<()> {
    let header = Header {
        recorder: "xtask fuzz".into(),
        engine: "none (a decompression bomb)".into(),
        entry: "bomb:main()".into(),
        node: "nonode@nohost".into(),
        entry_pid: 80,
        options: RecordingOptions {
            payloads: false,
            ..Default::default()
        },
        ..Default::default()
    };
    let opts = WriterOptions {
        block_size: 16 << 20,
        flush_interval: Duration::from_secs(3600),
        ..Default::default()
    };
    let w = LogWriter::create(path, header, opts)?;
    {
        let mut p = w.register(80, None);
        let mut s = p.slice();
        for _ in 0..events {
            s.push_exit(None);
        }
    }
    w.finish(Outcome::default()).map(|_| ())
}
