//! `trace replay LOG` (from the log alone) run as a user runs it (replay
//! with the program is tested in replay_program.rs): on logs
//! recorded by `trace record`, on hand-built logs with inconsistencies, on
//! damaged files, and with the EVENT syntax.

mod common;
/// Hand-built logs, shared with trace-causal's tests.
#[path = "../../causal/tests/common/mod.rs"]
mod logs;

use common::{text, trace};
use logs::*;
use std::path::Path;
use trace_format::SignalEffect;

fn replay(log: &Path, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec!["replay", log.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = trace(&args);
    (o.status.code().unwrap(), text(&o.stdout), text(&o.stderr))
}

fn fixture(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
        .to_string_lossy()
        .into_owned()
}

/// Records a fixture program with the engine.
fn record(dir: &Scratch, program: &str, extra: &[&str]) -> std::path::PathBuf {
    let log = dir.path("run.trace");
    let mut args = vec!["record", program, "-o", log.to_str().unwrap(), "-q"];
    args.extend_from_slice(extra);
    let o = trace(&args);
    assert!(log.exists(), "record failed: {}", text(&o.stderr));
    log
}

#[test]
fn a_recorded_run_is_consistent() {
    let dir = Scratch::new("cli-recorded");
    let log = record(&dir, &fixture("fixtures/conc/links_monitors.erl"), &[]);
    let (code, out, err) = replay(&log, &[]);
    assert_eq!(code, 0, "{out}{err}");
    let lines: Vec<&str> = out.lines().collect();
    let verdict = lines.last().unwrap();
    assert!(
        verdict.starts_with("consistent: 4 processes, "),
        "{verdict}"
    );
    assert!(verdict.contains("1 process never exited"), "{verdict}");
    // Steps are numbered from 1 without gaps, processes named symbolically.
    let steps: Vec<&str> = lines
        .iter()
        .take_while(|l| !l.is_empty())
        .copied()
        .collect();
    for (i, l) in steps.iter().enumerate() {
        assert!(l.starts_with(&format!("{} P", i + 1)), "{l}");
    }
    assert!(steps[0].contains("P <0.") && steps[0].contains(" #0 spawn P.1 <0."));
    // The exit signal of the linked worker comes after its exit, and is
    // taken by P after it was sent.
    let at = |needle: &str| steps.iter().position(|l| l.contains(needle)).unwrap();
    assert!(at("#3 exit: done") < at("signal P.1:1 exit to P"));
    assert!(at("signal P.1:1 exit to P") < at("signal_taken P.1:1 converted"));
    assert!(out.contains("never exited (1):\n  P.3 <0."), "{out}");
}

#[test]
fn a_recorded_run_with_deliveries_is_consistent() {
    let dir = Scratch::new("cli-deliveries");
    let log = record(
        &dir,
        &fixture("fixtures/conc/links_monitors.erl"),
        &["--deliveries"],
    );
    let (code, out, err) = replay(&log, &["--summary"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!out.contains(" #0 "), "--summary prints no steps: {out}");
    assert!(out.lines().last().unwrap().starts_with("consistent: "));
}

#[test]
fn a_timer_message_overtaken_is_listed_not_counted() {
    let dir = Scratch::new("cli-timer");
    let program = common::program("timer_overtaken.erl");
    let log = record(&dir, program.to_str().unwrap(), &["--deliveries"]);
    let (code, out, err) = replay(&log, &["--summary"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("overtaken by a later message of the same sender (not counted: timers do this) (1):\n  P <0.")
            && out.contains("got P:1 (at P#")
            && out.contains("before P:0 (at P#"),
        "{out}"
    );
    assert!(
        out.lines().last().unwrap().starts_with("consistent: "),
        "{out}"
    );
}

#[test]
fn json_lines_hold_steps_findings_and_the_verdict() {
    let dir = Scratch::new("cli-json");
    let log = record(&dir, &fixture("fixtures/conc/links_monitors.erl"), &[]);
    let (code, out, _) = replay(&log, &["--json"]);
    assert_eq!(code, 0);
    let values: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect();
    let steps: Vec<&serde_json::Value> = values.iter().filter(|v| v["type"] == "step").collect();
    let verdict = values.last().unwrap();
    assert_eq!(verdict["type"], "verdict");
    assert_eq!(verdict["consistent"], true);
    assert_eq!(verdict["ordered"], steps.len());
    assert_eq!(verdict["events"], steps.len());
    assert_eq!(steps[0]["step"], 1);
    assert_eq!(steps[0]["name"], "P");
    assert_eq!(steps[0]["kind"], "spawn");
    assert!(values
        .iter()
        .any(|v| v["type"] == "never_exited" && v["name"] == "P.3"));
}

#[test]
fn until_rebuilds_only_the_causal_past() {
    let dir = Scratch::new("cli-until");
    let log = record(&dir, &fixture("fixtures/conc/links_monitors.erl"), &[]);
    let (code, out, err) = replay(&log, &["--until", "receive(P.1:1)"]);
    assert_eq!(code, 0, "{err}");
    // P's receipt of P.1's exit signal needs P's first 7 events and all of P.1's.
    assert!(
        out.contains("causal past of receive(P.1:1): 12 events of 2 processes"),
        "{out}"
    );
    let steps = out.lines().take_while(|l| !l.is_empty()).count();
    assert_eq!(steps, 12);
    assert!(out.lines().nth(11).unwrap().contains(" receive P.1:1"));

    let (code, _, err) = replay(&log, &["--until", "receive(P.7:0)"]);
    assert_eq!(code, 2);
    assert!(err.contains("no process P.7 in this log"), "{err}");
    let (code, _, err) = replay(&log, &["--until", "P.1 #2"]);
    assert_eq!(code, 2);
    assert!(err.contains("column 4") && err.contains("'#'"), "{err}");
}

#[test]
fn an_inconsistent_log_names_the_events_and_exits_1() {
    let dir = Scratch::new("cli-inconsistent");
    let log = dir.path("bad.trace");
    write(
        &log,
        &[
            proc(
                0,
                None,
                vec![spawn(1), spawn(2), send(1), recv(2, 3), exit()],
            ),
            proc(1, Some(0), vec![recv(0, 0), recv(0, 0), exit(), send(0)]),
            proc(2, Some(0), vec![recv(1, 0), send(1), exit()]),
        ],
        false,
        Ending::Complete,
    );
    let (code, out, _) = replay(&log, &["--summary"]);
    assert_eq!(code, 1, "{out}");
    let expect = [
        "P#3 <0.80.0> receive P.2:3, but P.2 <0.82.0> sent only one signal, P.2:0",
        "P:0 is received 2 times: at P.1#0, P.1#1",
        "P.1#3 <0.81.0> send after P.1 exited at P.1#2",
        "P.2#0 <0.82.0> receive P.1:0, but P.1#3 sent it to P <0.80.0>",
    ];
    for e in expect {
        assert!(out.contains(e), "missing {e:?} in:\n{out}");
    }
    assert!(
        out.lines().last().unwrap().starts_with("inconsistent: "),
        "{out}"
    );
}

/// Every kind of inconsistency, through the binary: exit status 1 and the
/// problem's code in `--json`.
#[test]
fn each_kind_of_inconsistency_is_reported() {
    use trace_format::{Event, ProcId, SignalKind};
    let link = || signal(1, SignalKind::Link);
    let cases: Vec<(&str, Vec<Proc>, bool)> = vec![
        (
            "no_such_signal",
            vec![
                proc(0, None, vec![spawn(1), exit()]),
                proc(1, Some(0), vec![recv(0, 0), exit()]),
            ],
            false,
        ),
        (
            "wrong_receiver",
            vec![
                proc(0, None, vec![spawn(1), spawn(2), send(2), exit()]),
                proc(1, Some(0), vec![recv(0, 0), exit()]),
                proc(2, Some(0), vec![exit()]),
            ],
            false,
        ),
        (
            "wrong_kind",
            vec![
                proc(0, None, vec![spawn(1), link(), exit()]),
                proc(1, Some(0), vec![deliver(0, 0), exit()]),
            ],
            true,
        ),
        (
            "twice",
            vec![
                proc(0, None, vec![spawn(1), send(1), exit()]),
                proc(1, Some(0), vec![recv(0, 0), recv(0, 0), exit()]),
            ],
            false,
        ),
        (
            "not_arrived",
            vec![
                proc(0, None, vec![spawn(1), send(1), exit()]),
                proc(1, Some(0), vec![recv(0, 0), exit()]),
            ],
            true,
        ),
        (
            "fifo",
            vec![
                proc(0, None, vec![spawn(1), link(), link(), exit()]),
                proc(
                    1,
                    Some(0),
                    vec![
                        taken(0, 1, SignalEffect::Applied),
                        taken(0, 0, SignalEffect::Applied),
                        exit(),
                    ],
                ),
            ],
            false,
        ),
        (
            "after_exit",
            vec![proc(0, None, vec![exit(), Event::Timeout])],
            false,
        ),
        (
            "spawn_unknown",
            vec![proc(0, None, vec![spawn(5), exit()])],
            false,
        ),
        (
            "spawn_pid",
            vec![
                proc(
                    0,
                    None,
                    vec![
                        Event::Spawn {
                            child: ProcId(1),
                            pid: 7,
                            link: false,
                            monitor: false,
                        },
                        exit(),
                    ],
                ),
                proc(1, Some(0), vec![exit()]),
            ],
            false,
        ),
        (
            "spawned_twice",
            vec![
                proc(0, None, vec![spawn(1), spawn(1), exit()]),
                proc(1, Some(0), vec![exit()]),
            ],
            false,
        ),
        (
            "spawn_parent",
            vec![
                proc(0, None, vec![spawn(1), exit()]),
                proc(1, Some(0), vec![spawn(2), exit()]),
                proc(2, Some(0), vec![exit()]),
            ],
            false,
        ),
        (
            "never_spawned",
            vec![proc(0, None, vec![exit()]), proc(1, Some(0), vec![exit()])],
            false,
        ),
        (
            "cycle",
            vec![proc(0, None, vec![recv(0, 0), send(0), exit()])],
            false,
        ),
    ];
    let dir = Scratch::new("cli-kinds");
    for (code, procs, deliveries) in cases {
        let log = dir.path(&format!("{code}.trace"));
        write(&log, &procs, deliveries, Ending::Complete);
        let (status, out, err) = replay(&log, &["--summary", "--json"]);
        assert_eq!(status, 1, "{code}: {out}{err}");
        let problems: Vec<String> = out
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter(|v| v["type"] == "inconsistency")
            .map(|v| v["problem"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(problems, vec![code.to_string()], "{code}: {out}");
    }
}

#[test]
fn a_cycle_reads_as_a_chain_of_waits() {
    let dir = Scratch::new("cli-cycle");
    let log = dir.path("cycle.trace");
    write(
        &log,
        &[
            proc(0, None, vec![recv(1, 0), spawn(1), exit()]),
            proc(1, Some(0), vec![send(0), exit()]),
        ],
        false,
        Ending::Complete,
    );
    let (code, out, _) = replay(&log, &["--summary"]);
    assert_eq!(code, 1);
    assert!(
        out.contains(
            "happened-before cycle: P#0 <0.80.0> receive P.1:0 needs its send P.1#0; \
             P.1#0 <0.81.0> is the first event of P.1: it needs its spawn P#1, which comes after P#0"
        ),
        "{out}"
    );
    assert!(out.contains("inconsistent: 1 problem; 2 processes, 5 events, 0 in the derivation"));
}

#[test]
fn signals_and_leftovers_are_listed() {
    let dir = Scratch::new("cli-leftovers");
    let log = dir.path("left.trace");
    write(
        &log,
        &[
            proc(
                0,
                None,
                vec![
                    spawn(1),
                    send(1),
                    taken(1, 0, SignalEffect::Converted),
                    exit(),
                ],
            ),
            proc(1, Some(0), vec![exit(), exit_signal(0)]),
        ],
        false,
        Ending::Complete,
    );
    let (code, out, _) = replay(&log, &["--summary"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("never received (2):"), "{out}");
    assert!(out.contains("P:0 message to P.1 <0.81.0>, sent at P#1: never received (P.1 exited)"));
    assert!(out.contains("P.1:0 exit signal to P <0.80.0>, sent at P.1#1: left in P's mailbox"));
}

#[test]
fn a_damaged_log_is_read_as_far_as_it_goes() {
    let dir = Scratch::new("cli-damaged");
    let log = record(&dir, &fixture("fixtures/conc/links_monitors.erl"), &[]);
    let bytes = std::fs::read(&log).unwrap();
    let cut = dir.path("cut.trace");
    // Drop the footer and the last block: as if the run had been killed.
    std::fs::write(&cut, &bytes[..bytes.len() * 2 / 3]).unwrap();
    let (code, out, err) = replay(&cut, &["--summary"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("warning: no footer"), "{err}");
    assert!(
        out.contains("(as far as the log goes: it is incomplete)"),
        "{out}"
    );
}

#[test]
fn trouble_gets_status_2() {
    let dir = Scratch::new("cli-trouble");
    let missing = dir.path("missing.trace");
    let (code, _, err) = replay(&missing, &[]);
    assert_eq!(code, 2);
    assert!(err.contains("missing.trace"), "{err}");
    let junk = dir.path("junk.trace");
    std::fs::write(&junk, b"hello, this is not a log").unwrap();
    let (code, _, err) = replay(&junk, &[]);
    assert_eq!(code, 2);
    assert!(err.contains("not a trace log"), "{err}");
    // Program files before the log select replay with the program; the log
    // is read first.
    let o = trace(&["replay", "prog.erl", junk.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("not a trace log"),
        "{}",
        text(&o.stderr)
    );
    let o = trace(&["replay", "prog.erl"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("the last argument must be the log"));
}

#[test]
fn a_cauder_log_replays_like_a_native_one() {
    let dir = Scratch::new("cli-cauder");
    let cd = dir.path("cauder");
    std::fs::create_dir_all(&cd).unwrap();
    let files = [
        (
            "trace_result.log",
            "{call,{ping,main,[]}}.\n{pid,209}.\n{return,none}.\n{tracing,success}.\n",
        ),
        (
            "trace_209.log",
            "{trace_spawn,nonode@nohost,212,true}.\n{trace_send,0}.\n{trace_receive,1}.\n",
        ),
        ("trace_212.log", "{trace_receive,0}.\n{trace_send,1}.\n"),
    ];
    for (name, body) in files {
        std::fs::write(cd.join(name), body).unwrap();
    }
    let log = dir.path("cauder.trace");
    let o = trace(&[
        "import",
        "--cauder",
        cd.to_str().unwrap(),
        "-o",
        log.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let (code, out, err) = replay(&log, &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("2 P <0.209.0> #1 send P:0 to ? (not recorded)"),
        "{out}"
    );
    assert!(out.contains("3 P.1 <0.212.0> #0 receive P:0"), "{out}");
    assert!(out.contains("exits are not in this log"), "{out}");
}

#[test]
fn a_receive_step_shows_the_message_it_took() {
    let dir = Scratch::new("cli-receive-payload");
    let log = record(&dir, &fixture("fixtures/conc/links_monitors.erl"), &[]);
    let (code, out, err) = replay(&log, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(" receive P:0: {ping,1}\n"), "{out}");
    assert!(out.contains(" receive P.1:0: {pong,1}\n"), "{out}");
    let (code, out, _) = replay(&log, &["--json"]);
    assert_eq!(code, 0);
    let took = out
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|v| v["kind"] == "receive" && v["msg"] == "P:0")
        .expect("the receipt of P:0");
    assert_eq!(took["payload"], "{ping,1}");
}

/// What `replay` prints of a log, in each mode, on `threads` threads.
fn every_output(log: &Path, threads: &str) -> Vec<(i32, String)> {
    [
        &[][..],
        &["--summary"],
        &["--json"],
        &["--summary", "--json"],
    ]
    .iter()
    .map(|mode| {
        let mut extra = mode.to_vec();
        extra.extend(["--threads", threads]);
        let (code, out, _) = replay(log, &extra);
        (code, out)
    })
    .collect()
}

#[test]
fn findings_and_derivations_are_the_same_on_any_thread_count() {
    let dir = Scratch::new("cli-threads");
    let mut logs = Vec::new();
    // Recorded runs: links, monitors, shared tables, a deadlock.
    for program in ["links_monitors", "ets_shared", "deadlock", "job_scheduler"] {
        let log = record(&dir, &fixture(&format!("fixtures/conc/{program}.erl")), &[]);
        let kept = dir.path(&format!("{program}.trace"));
        std::fs::rename(&log, &kept).unwrap();
        logs.push(kept);
    }
    // Random runs, some with receives moved before what they need (cycles,
    // and processes stuck behind them).
    for seed in 1..8 {
        let mut procs = random_run(seed, 300);
        if seed % 2 == 0 {
            for (n, p) in procs.iter_mut().enumerate() {
                let receives: Vec<usize> = (0..p.events.len())
                    .filter(|&i| matches!(p.events[i], trace_format::Event::Receive { .. }))
                    .collect();
                if let Some(&i) = receives.get((seed as usize + n) % 3) {
                    let e = p.events.remove(i);
                    p.events.insert(i / 2, e);
                }
            }
        }
        let log = dir.path(&format!("random{seed}.trace"));
        write(&log, &procs, seed % 3 == 0, Ending::Complete);
        logs.push(log);
    }
    let mut cyclic = 0;
    for log in &logs {
        let one = every_output(log, "1");
        cyclic += usize::from(one[1].1.contains("happened-before cycle"));
        for threads in ["2", "4"] {
            assert!(
                one == every_output(log, threads),
                "{} on {threads} threads",
                log.display()
            );
        }
    }
    assert!(cyclic > 0, "no log had a cycle");
}
