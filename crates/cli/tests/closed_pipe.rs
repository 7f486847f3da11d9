//! A reader that closes the pipe before `trace` writes (`trace stats x.trace
//! | head -1`) makes every command end quietly: no panic, no error message,
//! and the status it has with its output read (a closed pipe is not trouble).

mod common;
use common::{s, text, trace, trace_cmd, Scratch};
use std::process::Stdio;

/// Runs `trace ARGS` with its stdout a pipe whose reading end is closed
/// before the command can write; returns its status and stderr.
fn with_closed_stdout(args: &[&str]) -> (Option<i32>, String) {
    let mut child = trace_cmd()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    (out.status.code(), text(&out.stderr))
}

#[test]
fn every_command_ends_quietly_on_a_closed_pipe() {
    let dir = Scratch::new("closed-pipe");
    let prog = trace_fixtures::root().join("conc/links.erl");
    let log = dir.path("links.trace");
    let rec = trace(&["record", s(&prog), "-o", s(&log)]);
    assert!(rec.status.success(), "{}", text(&rec.stderr));
    let cauder = dir.path("cauder");
    let commands: Vec<Vec<&str>> = vec![
        vec!["stats", s(&log)],
        vec!["dump", s(&log)],
        vec!["dump", s(&log), "--json"],
        vec!["replay", s(&log)],
        vec!["replay", s(&log), "--json"],
        vec!["replay", s(&prog), s(&log)],
        vec!["run", s(&prog)],
        vec!["diff", s(&log), s(&log)],
        vec!["check", s(&log)],
        vec!["export", "--cauder", s(&cauder), s(&log)],
    ];
    for args in commands {
        let read = trace_cmd()
            .args(&args)
            .stdout(Stdio::null())
            .output()
            .unwrap();
        let _ = std::fs::remove_dir_all(&cauder);
        // Many tries: the race the reader loses depends on timing.
        for _ in 0..5 {
            let (status, stderr) = with_closed_stdout(&args);
            assert!(
                !stderr.contains("panicked") && !stderr.contains("Broken pipe"),
                "trace {}: {stderr}",
                args.join(" ")
            );
            assert_eq!(
                status,
                read.status.code(),
                "trace {}: {stderr}",
                args.join(" ")
            );
            let _ = std::fs::remove_dir_all(&cauder);
        }
    }
}
