//! `trace diff` through the binary: verdicts and exit statuses, text and
//! JSON, the levels, and bad input. The runs are recorded here from the
//! programs of trace-diff's tests (`crates/diff/tests/programs`).

mod common;

use common::{s, text, trace, trace_cmd, Scratch};
use std::path::{Path, PathBuf};

fn program(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../diff/tests/programs")
        .join(name)
}

/// `trace record PROGRAM -o LOG` on one scheduler, with chaos seed `seed`.
fn record(dir: &Scratch, name: &str, seed: Option<u64>, tag: &str) -> PathBuf {
    let log = dir.path(&format!("{tag}.trace"));
    let p = program(name);
    let mut args = vec!["record", s(&p), "-o", s(&log), "-q", "--schedulers", "1"];
    let seed_text = seed.map(|x| x.to_string());
    if let Some(sd) = &seed_text {
        args.extend(["--chaos", "--seed", sd]);
    }
    let out = trace(&args);
    assert!(log.exists(), "{}", text(&out.stderr));
    log
}

/// The two outcomes of the echo race: (target took hello first, target crashed).
fn race_pair(dir: &Scratch) -> (PathBuf, PathBuf) {
    let (mut good, mut bad) = (None, None);
    for seed in 0..200 {
        let log = record(dir, "echo_race.erl", Some(seed), &format!("race{seed}"));
        let dump = text(&trace(&["dump", s(&log)]).stdout);
        let slot = if dump.contains("badmatch") {
            &mut bad
        } else {
            &mut good
        };
        if slot.is_none() {
            *slot = Some(log);
        }
        if good.is_some() && bad.is_some() {
            break;
        }
    }
    (good.expect("a good run"), bad.expect("a crashing run"))
}

fn diff(args: &[&str]) -> (i32, String, String) {
    let mut all = vec!["diff"];
    all.extend(args);
    let out = trace(&all);
    (
        out.status.code().unwrap_or(-1),
        text(&out.stdout),
        text(&out.stderr),
    )
}

#[test]
fn the_race_outcomes_differ_and_name_the_root_divergence() {
    let dir = Scratch::new("diff-race");
    let (good, bad) = race_pair(&dir);
    let (code, out, err) = diff(&[s(&good), s(&bad)]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("P.2 (a <0."), "{out}");
    assert!(out.contains("different event at #0"), "{out}");
    assert!(out.contains("root divergence P.2#0:"), "{out}");
    assert!(out.contains("! #0 receive P:0"), "{out}");
    let last = out.lines().last().unwrap();
    assert_eq!(
        last,
        "different: 1 of 3 processes differs; 1 root divergence: P.2#0"
    );
    // Piped: no colour.
    assert!(!out.contains('\x1b'));

    let (code, out, _) = diff(&[s(&good), s(&bad), "--json"]);
    assert_eq!(code, 1);
    // One object per line, each with its type.
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let of =
        |t: &str| -> Vec<&serde_json::Value> { lines.iter().filter(|v| v["type"] == t).collect() };
    let v = lines.last().unwrap();
    assert_eq!(v["type"], "verdict");
    assert_eq!(v["verdict"], "different");
    assert_eq!(v["text"], last);
    let root = of("root")[0];
    assert_eq!(root["event"], "P.2#0");
    assert_eq!(root["root_in"], serde_json::json!(["a", "b"]));
    let d = of("difference")[0];
    assert_eq!(d["name"], "P.2");
    assert_eq!(d["kind"], "event");
    assert_eq!(d["a"]["event"], "receive P:0");
    assert_eq!(d["b"]["event"], "receive P.1:0");
    assert!(d["exit"]["b"]["event"]
        .as_str()
        .unwrap()
        .contains("badmatch"));
    assert_eq!(of("run")[1]["file"], s(&bad));
}

#[test]
fn two_schedules_with_other_raw_pids_are_equivalent() {
    let dir = Scratch::new("diff-schedules");
    // Which raw pid each spawn gave, as `trace dump` shows it.
    let spawns = |log: &Path| -> Vec<String> {
        text(&trace(&["dump", s(log)]).stdout)
            .lines()
            .filter(|l| l.contains(" spawn "))
            .map(str::to_string)
            .collect()
    };
    let first = record(&dir, "spawn_tree.erl", Some(0), "s0");
    let other = (1..100)
        .map(|seed| record(&dir, "spawn_tree.erl", Some(seed), &format!("s{seed}")))
        .find(|log| spawns(log) != spawns(&first))
        .expect("a schedule that gave other raw pids");
    let (code, out, err) = diff(&[s(&first), s(&other)]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out
        .lines()
        .last()
        .unwrap()
        .starts_with("equivalent: 7 processes and "));
}

#[test]
fn logs_through_cauder_compare_like_native_ones() {
    let dir = Scratch::new("diff-cauder");
    let (good, bad) = race_pair(&dir);
    let imported = |log: &Path, tag: &str| -> PathBuf {
        let cdir = dir.path(&format!("cauder-{tag}"));
        let out = dir.path(&format!("{tag}-imported.trace"));
        assert!(trace(&["export", "--cauder", s(&cdir), s(log)])
            .status
            .success());
        assert!(trace(&["import", "--cauder", s(&cdir), "-o", s(&out)])
            .status
            .success());
        out
    };
    let (ig, ib) = (imported(&good, "good"), imported(&bad, "bad"));
    let (code, out, err) = diff(&[s(&ig), s(&ib)]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("root divergence P.2#0:"), "{out}");
    assert!(
        out.contains("  a #0 receive P:0\n  b #0 receive P.1:0"),
        "{out}"
    );
    assert_eq!(diff(&[s(&ig), s(&ig)]).0, 0);
}

#[test]
fn a_log_with_itself_is_equivalent_and_exits_0() {
    let dir = Scratch::new("diff-self");
    let log = record(&dir, "spawn_tree.erl", Some(2), "t");
    let (code, out, err) = diff(&[s(&log), s(&log)]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out
        .lines()
        .last()
        .unwrap()
        .starts_with("equivalent: 7 processes and "));
    assert!(err.is_empty(), "{err}");
}

#[test]
fn map_and_pmap_under_observe() {
    let dir = Scratch::new("diff-map");
    let map = record(&dir, "seqmap.erl", None, "map");
    let pmap = record(&dir, "parmap.erl", None, "pmap");
    let (code, out, _) = diff(&[s(&map), s(&pmap), "--observe", "P"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("compared: what P consumed and sent, in order (--observe), with payloads"));
    assert_eq!(
        out.lines().last().unwrap(),
        "equivalent for the observers: 1 process and 2 events compared"
    );
    let (code, out, _) = diff(&[s(&map), s(&pmap)]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("only in b: P.1.1 <0."), "{out}");
}

#[test]
fn levels_from_the_command_line() {
    let dir = Scratch::new("diff-levels");
    let v1 = record(&dir, "reply_v1.erl", None, "v1");
    let v2 = record(&dir, "reply_v2.erl", None, "v2");
    assert_eq!(diff(&[s(&v1), s(&v2)]).0, 1);
    assert_eq!(diff(&[s(&v1), s(&v2), "--ignore-payloads"]).0, 0);
    let (code, out, _) = diff(&[s(&v1), s(&v2), "--abstract", "{reply, _, _, V}"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("payloads abstracted by '{reply, _, _, V}'"),
        "{out}"
    );
    let (code, out, _) = diff(&[
        s(&v1),
        s(&v2),
        "--abstract",
        "{reply, _, N, _}",
        "--abstract",
        "X when X =:= v1; X =:= v2",
    ]);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn colour_when_asked_and_never_with_no_color() {
    let dir = Scratch::new("diff-colour");
    let (good, bad) = race_pair(&dir);
    let out = trace(&["diff", s(&good), s(&bad), "--color", "always"]);
    assert!(text(&out.stdout).contains("\x1b[31m"));
    let out = trace_cmd()
        .args(["diff", s(&good), s(&bad), "--color", "auto"])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(!text(&out.stdout).contains('\x1b'));
}

#[test]
fn trouble_exits_2_with_a_clear_message() {
    let dir = Scratch::new("diff-trouble");
    let log = record(&dir, "seqmap.erl", None, "m");
    let (code, _, err) = diff(&[s(&log), s(&dir.path("nosuch.trace"))]);
    assert_eq!(code, 2);
    assert!(
        err.contains("nosuch.trace") && err.contains("No such file"),
        "{err}"
    );

    let junk = dir.path("junk.trace");
    std::fs::write(&junk, b"this is not a trace log at all").unwrap();
    let (code, _, err) = diff(&[s(&log), s(&junk)]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with("trace diff: ") && err.contains("junk.trace"),
        "{err}"
    );

    let (code, _, err) = diff(&[s(&log), s(&log), "--observe", "P.9"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--observe P.9: neither log has a process P.9"),
        "{err}"
    );

    let (code, _, err) = diff(&[s(&log), s(&log), "--observe", "<0.80.0>"]);
    assert_eq!(code, 2);
    assert!(err.contains("symbolic name"), "{err}");

    let (code, _, err) = diff(&[s(&log), s(&log), "--abstract", "{tick, _}"]);
    assert_eq!(code, 2);
    assert!(err.contains("no variable"), "{err}");

    let (code, _, err) = diff(&[s(&log), s(&log), "--abstract", "{tick, T"]);
    assert_eq!(code, 2);
    assert!(err.contains("column"), "{err}");

    let (code, _, _) = diff(&[s(&log), s(&log), "--ignore-payloads", "--abstract", "X"]);
    assert_eq!(code, 2);
}

#[test]
fn a_cut_log_is_compared_as_far_as_it_goes() {
    let dir = Scratch::new("diff-cut");
    let log = record(&dir, "spawn_tree.erl", Some(1), "t");
    // Drop the footer (the run was killed): the blocks are found by scanning.
    let bytes = std::fs::read(&log).unwrap();
    let cut = dir.path("cut.trace");
    std::fs::write(&cut, &bytes[..bytes.len() - 40]).unwrap();
    let (code, out, err) = diff(&[s(&log), s(&cut)]);
    assert!(code == 0 || code == 1, "{out}{err}");
    assert!(out.contains("b: the log is incomplete"), "{out}");
    assert!(err.contains("warning"), "{err}");

    // A damaged block: its process is compared up to it, the offset is
    // named, and the status is trouble (the comparison covers part of a run).
    // (The middle of a block's stored body: in a small log the middle of
    // the file may be the header, which no command reads past.)
    let r = trace_format::LogReader::open(&log).unwrap();
    let b = r.blocks().last().unwrap();
    let mut bad = bytes.clone();
    let mid = (b.body_offset + b.stored_len as u64 / 2) as usize;
    bad[mid] ^= 0xff;
    let damaged = dir.path("damaged.trace");
    std::fs::write(&damaged, &bad).unwrap();
    let (code, out, err) = diff(&[s(&log), s(&damaged)]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("at byte"), "{err}");
    assert!(err.contains("the log is damaged"), "{err}");
}

#[test]
fn help_has_examples_and_exit_statuses() {
    let out = trace(&["diff", "--help"]);
    let h = text(&out.stdout);
    for want in [
        "Examples:",
        "--observe",
        "--abstract",
        "Exit status: 0 equivalent; 1 different; 2 trouble",
    ] {
        assert!(h.contains(want), "{want} missing from:\n{h}");
    }
}
