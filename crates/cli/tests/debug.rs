//! `trace debug` run as a user runs it: a recorded run walked with a
//! command file, with piped standard input, as JSON, and without a log
//! (the user scheduling the run);
//! `save` writes a log that `trace replay` replays.

mod common;

use common::{record_one_scheduler, s, text, trace, trace_with_input, Scratch};
use std::path::Path;

fn fixture(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/papers")
        .join(rel)
        .to_string_lossy()
        .into_owned()
}

/// `trace debug ARGS` with `input` on standard input.
fn debug(args: &[&str], input: &str) -> (i32, String, String) {
    trace_with_input("debug", args, input)
}

#[test]
fn a_command_file_walks_the_run_forwards_and_back() {
    let dir = Scratch::new("debug-file");
    let prog = fixture("proxy_server.erl");
    let log = record_one_scheduler(&dir, &prog);
    let script = dir.path("session.txt");
    std::fs::write(
        &script,
        "# the proxy server\nrun\nrollback send(P:1)\nprocs\nshow P.1\nrun\nquit\nprocs\n",
    )
    .unwrap();
    let (code, out, err) = debug(&[&prog, s(&log), "--commands", s(&script)], "");
    assert_eq!(code, 0, "{out}{err}");
    // Each command echoed after the prompt, as at a terminal.
    assert!(out.contains("(debug) rollback send(P:1)\nundid "), "{out}");
    // Undoing the client's message to the server undid its receipt.
    let undone = out.split("(debug) procs").next().unwrap();
    assert!(undone.contains("receive P:1"), "{out}");
    assert!(out.contains("waiting in receive"), "{out}");
    // quit ends the script: the last procs is not run.
    assert_eq!(out.matches("(debug) procs").count(), 1, "{out}");
}

#[test]
fn piped_commands_answer_as_a_file_does_and_a_mistake_sets_the_status() {
    let dir = Scratch::new("debug-pipe");
    let prog = fixture("purchase.erl");
    let log = record_one_scheduler(&dir, &prog);
    let (code, out, _) = debug(&[&prog, s(&log)], "step P 2\nprocs\nstep Q\nlog\n");
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("P <0.80.0> #1 spawn P.2 <0.82.0>"), "{out}");
    assert!(out.contains("error: 'Q'"), "{out}");
    // The session went on after the mistake.
    assert!(
        out.contains("(debug) log\nP <0.80.0> #0 spawn P.1"),
        "{out}"
    );
}

#[test]
fn json_gives_one_object_per_command() {
    let dir = Scratch::new("debug-json");
    let prog = fixture("purchase.erl");
    let log = record_one_scheduler(&dir, &prog);
    let (code, out, _) = debug(&[&prog, s(&log), "--json"], "run\nrollback nonsense\n");
    assert_eq!(code, 1, "{out}");
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["command"], "run");
    assert_eq!(lines[0]["ok"], true);
    assert!(lines[0]["output"]
        .as_str()
        .unwrap()
        .contains("purchase approved"));
    assert_eq!(lines[1]["ok"], false);
}

#[test]
fn without_a_log_the_user_schedules_and_the_saved_run_replays() {
    let dir = Scratch::new("debug-nolog");
    let prog = fixture("proxy_server.erl");
    // The engine on its own: 2 reaches the server before the forward.
    let o = trace(&["run", &prog, "--schedulers", "1"]);
    assert!(text(&o.stdout).contains("unexpected message 2"));
    // The proxy forwards before the client's direct send this time.
    let good = dir.path("good.trace");
    let script = format!(
        "procs\nstep P 3\nstep P.2 2\nstep P.1\nstep P\nrun\nsave {}\n",
        s(&good)
    );
    let (code, out, err) = debug(&[&prog], &script);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("can step"), "{out}");
    assert!(out.contains("client got 42"), "{out}");
    let o = trace(&["replay", &prog, s(&good)]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "client got 42\n");
    // A state short of the end saves as a log cut short, which replays.
    let prefix = dir.path("prefix.trace");
    let (code, out, _) = debug(&[&prog], &format!("step P 3\nsave {}\n", s(&prefix)));
    assert_eq!(code, 0, "{out}");
    let o = trace(&["replay", &prog, s(&prefix)]);
    assert!(o.status.success(), "{}", text(&o.stderr));
}

#[test]
fn a_log_of_another_program_is_refused() {
    let dir = Scratch::new("debug-other");
    let log = record_one_scheduler(&dir, &fixture("purchase.erl"));
    let (code, _, err) = debug(&[&fixture("proxy_server.erl"), s(&log)], "procs\n");
    assert_eq!(code, 2);
    assert!(err.contains("not the program"), "{err}");
}
