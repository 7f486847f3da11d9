//! `trace explore` end to end: exit statuses, the JSON lines, and the
//! failing log replaying to the same failure.

mod common;
use common::{s, text, trace, Scratch};
use std::path::{Path, PathBuf};

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../explore/tests/programs")
        .join(name)
}

fn json_lines(out: &[u8]) -> Vec<serde_json::Value> {
    text(out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object a line"))
        .collect()
}

#[test]
fn a_racy_program_fails_and_its_log_replays_to_the_failure() {
    let dir = Scratch::new("explore-racy");
    let log = dir.path("failing.trace");
    let prog = corpus("proxy_server.erl");
    let out = trace(&["explore", s(&prog), "-o", s(&log), "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let lines = json_lines(&out.stdout);
    let summary = lines.last().unwrap();
    assert_eq!(summary["type"], "summary");
    assert_eq!(summary["interleavings"], 2);
    assert_eq!(summary["failing"], 1);
    assert_eq!(summary["complete"], true);
    let failure = &lines[0];
    assert_eq!(failure["type"], "failure");
    assert!(failure["failure"].as_str().unwrap().contains("deadlock"));
    let race = &lines[1];
    assert_eq!(race["type"], "race");
    assert_eq!(race["found"], true);
    // The failing log replays to the same deadlock (exit status 5).
    let replay = trace(&["replay", s(&prog), s(&log)]);
    assert_eq!(replay.status.code(), Some(5), "{}", text(&replay.stderr));
    // The passing one differs from it.
    let passing = race["passing_log"].as_str().unwrap();
    let diff = trace(&["diff", passing, s(&log)]);
    assert_eq!(diff.status.code(), Some(1), "{}", text(&diff.stdout));
}

#[test]
fn a_clean_program_explores_completely_and_exits_0() {
    let out = trace(&["explore", s(&corpus("first_wins.erl")), "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let lines = json_lines(&out.stdout);
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["complete"], true);
    assert_eq!(lines[0]["interleavings"], 2);
}

#[test]
fn a_budget_makes_the_exploration_incomplete() {
    let out = trace(&[
        "explore",
        s(&corpus("senders_any.erl")),
        "--entry",
        "senders_any:main(4)",
        "--max-interleavings",
        "5",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let lines = json_lines(&out.stdout);
    assert_eq!(lines[0]["complete"], false);
    assert_eq!(lines[0]["stopped"], "max-interleavings");
    assert_eq!(lines[0]["interleavings"], 5);
}

#[test]
fn real_timeouts_change_the_verdict_of_a_slow_worker() {
    let dir = Scratch::new("explore-timeouts");
    let log = dir.path("failing.trace");
    let prog = corpus("slow_ready.erl");
    let out = trace(&["explore", s(&prog), "-o", s(&log), "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let real = trace(&["explore", s(&prog), "--timeouts", "real", "--json"]);
    assert_eq!(real.status.code(), Some(0), "{}", text(&real.stderr));
    let lines = json_lines(&real.stdout);
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["complete"], true);
    assert_eq!(lines[0]["interleavings"], 1);
    let bad = trace(&["explore", s(&prog), "--timeouts", "sometimes"]);
    assert_eq!(bad.status.code(), Some(2), "{}", text(&bad.stderr));
}

#[test]
fn a_property_is_checked_on_every_interleaving() {
    let dir = Scratch::new("explore-check");
    let spec = dir.path("order.tspec");
    std::fs::write(
        &spec,
        "one_first: every receive(<P>, 2) is preceded by receive(<P>, 1).\n",
    )
    .unwrap();
    let log = dir.path("failing.trace");
    let prog = corpus("senders_any.erl");
    // The runs are recorded to a scratch log in the temporary directory.
    let tmp = dir.path("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let out = common::trace_cmd()
        .args(["explore", s(&prog), "--check", s(&spec)])
        .args(["-o", s(&log), "--json"])
        .env("TMPDIR", &tmp)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let lines = json_lines(&out.stdout);
    let summary = lines.last().unwrap();
    // Of the 3! arrival orders, the three that take 2 before 1 fail.
    assert_eq!(summary["interleavings"], 6);
    assert_eq!(summary["failing"], 3);
    assert_eq!(summary["complete"], true);
    assert_eq!(lines[0]["note"], serde_json::Value::Null, "{}", lines[0]);
    // The failing log breaks the property, as `trace check` reads it too.
    let check = trace(&["check", s(&log), "--spec", s(&spec)]);
    assert_eq!(check.status.code(), Some(1), "{}", text(&check.stdout));
    assert_eq!(lines[1]["found"], true, "{}", lines[1]);
    // The scratch log is gone, explained runs' included.
    let left: Vec<_> = std::fs::read_dir(&tmp).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_timer_cancelled_by_the_end_of_its_destination_still_races() {
    let dir = Scratch::new("explore-timer-end");
    let log = dir.path("failing.trace");
    let prog = corpus("timer_deadline.erl");
    let out = trace(&["explore", s(&prog), "-o", s(&log), "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let lines = json_lines(&out.stdout);
    assert!(lines[0]["failure"].as_str().unwrap().contains("no_reply"));
    // The timer's message beat the reply: the order that never showed
    // while the reply's run ended and cancelled the timer.
    let race = &lines[1];
    assert_eq!(race["found"], true, "{race}");
    assert_eq!(race["first"]["process"], "timer(P:0)", "{race}");
    assert_eq!(race["second"]["event"], "send(P.1:0)", "{race}");
    let summary = lines.last().unwrap();
    assert_eq!(summary["interleavings"], 3);
    assert_eq!(summary["complete"], true);
}
