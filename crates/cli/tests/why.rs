//! `trace why` run as a user runs it: a session scripted with
//! `--answers FILE` and with piped standard input, as JSON, with a
//! specification as the oracle, and the errors a user can make (a
//! malformed answer, an unknown --start, a log of another program).

mod common;

use common::{record_one_scheduler, s, text, trace, trace_with_input, Scratch};
use std::path::Path;

fn repo(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
        .to_string_lossy()
        .into_owned()
}

/// `trace why ARGS` with `input` on standard input.
fn why(args: &[&str], input: &str) -> (i32, String, String) {
    trace_with_input("why", args, input)
}

#[test]
fn an_answers_file_leads_to_the_buggy_receive_and_its_replay_command() {
    let dir = Scratch::new("why-answers");
    let prog = repo("fixtures/papers/tcp.erl");
    let log = record_one_scheduler(&dir, &prog);
    let answers = dir.path("answers.txt");
    std::fs::write(&answers, "# the server should not end\nn\n\nn\n").unwrap();
    let (code, out, err) = why(
        &[&prog, s(&log), "--start", "P.1", "--answers", s(&answers)],
        "",
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("Question 2:"), "{out}");
    assert!(out.contains("answer> n"), "{out}");
    assert!(
        out.contains("Buggy node: erroneous transition — the receive at"),
        "{out}"
    );
    assert!(out.contains("tcp.erl:29 (tcp:server/3)"), "{out}");
    assert!(out.contains("--until 'receive(P.2:0)'"), "{out}");
    assert!(
        out.contains("Questions: 2 (2 by the user, 0 by oracles)"),
        "{out}"
    );
    // The command it prints replays to that receive.
    let o = trace(&["replay", &prog, s(&log), "--until", "receive(P.2:0)"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
}

#[test]
fn piped_answers_and_json_give_one_object_per_question_and_the_result() {
    let dir = Scratch::new("why-json");
    let prog = repo("crates/why/tests/programs/fghi.erl");
    let log = record_one_scheduler(&dir, &prog);
    let (code, out, err) = why(&[&prog, s(&log), "--json"], "n\ny\nn\n");
    assert_eq!(code, 0, "{out}{err}");
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert_eq!(lines[0]["kind"], "process");
    assert_eq!(lines[2]["kind"], "transition");
    let last = &lines[3];
    assert_eq!(last["result"], "buggy");
    assert_eq!(last["buggy"]["kind"], "erroneous transition");
    assert_eq!(last["buggy"]["until"], "receive(P.1:0)");
    assert_eq!(last["questions"]["user"], 3);
}

#[test]
fn a_specification_answers_every_question() {
    let dir = Scratch::new("why-spec");
    let prog = repo("fixtures/papers/tcp.erl");
    let log = record_one_scheduler(&dir, &prog);
    let spec = repo("crates/why/tests/programs/tcp_loop.tspec");
    let (code, out, err) = why(&[&prog, s(&log), "--oracle", &spec], "");
    assert_eq!(code, 0, "{out}{err}");
    assert!(!out.contains("Question 1:"), "{out}");
    assert!(
        out.contains(": wrong (result): transition receive(P.2:0)"),
        "{out}"
    );
    assert!(out.contains("tcp.erl:29 (tcp:server/3)"), "{out}");
    assert!(out.contains("(0 by the user, 3 by oracles)"), "{out}");
}

#[test]
fn bad_input_is_refused_with_a_reason_and_status_2() {
    let dir = Scratch::new("why-bad");
    let prog = repo("fixtures/papers/tcp.erl");
    let log = record_one_scheduler(&dir, &prog);
    let (code, _, err) = why(&[&prog, s(&log), "--start", "P.9"], "");
    assert_eq!(code, 2);
    assert!(err.contains("no process P.9 in this run"), "{err}");
    let (code, _, err) = why(&[&prog, s(&log), "--start", "send(P.1"], "");
    assert_eq!(code, 2);
    assert!(err.contains("not a process or an event"), "{err}");
    let (code, out, err) = why(&[&prog, s(&log), "--start", "P.1"], "perhaps\n");
    assert_eq!(code, 2, "{out}");
    assert!(err.contains("is not an answer"), "{err}");
    let other = repo("fixtures/papers/cfib.erl");
    let (code, _, err) = why(&[&other, s(&log)], "");
    assert_eq!(code, 2);
    assert!(
        err.contains("not the program the log was recorded from"),
        "{err}"
    );
    // No answers at all: the session says it ran out, status 1.
    let (code, out, _) = why(&[&prog, s(&log), "--start", "P.1"], "");
    assert_eq!(code, 1);
    assert!(out.contains("The answers ran out"), "{out}");
}

#[test]
fn help_has_examples() {
    let o = trace(&["why", "--help"]);
    let out = text(&o.stdout);
    assert!(out.contains("Examples:"), "{out}");
    assert!(out.contains("--strategy divide-and-query"), "{out}");
}
