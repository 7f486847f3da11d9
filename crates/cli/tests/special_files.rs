//! Special files given where a log, a source or a specification belongs:
//! an endless device (`/dev/zero`, `/dev/urandom`) is refused after its
//! first bytes or at a stated limit, never read without end; a named pipe
//! with no writer is refused at once instead of blocking in `open`; a pipe
//! that does carry a log is read.

mod common;
use common::{s, text, trace, trace_cmd, Scratch};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

const PROGRAM: &str = "-module(hello).\n-export([main/0]).\nmain() -> io:format(\"hi~n\").\n";

/// A program and its recorded log.
fn recorded(dir: &Scratch) -> (PathBuf, PathBuf) {
    let src = dir.write("hello.erl", PROGRAM);
    let log = dir.path("hello.trace");
    let out = trace(&["record", s(&src), "-o", s(&log)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    (src, log)
}

fn fifo(dir: &Scratch, name: &str) -> PathBuf {
    let p = dir.path(name);
    let made = std::process::Command::new("mkfifo").arg(&p).status();
    assert!(made.is_ok_and(|st| st.success()), "mkfifo {}", p.display());
    p
}

/// Every command that reads a log, with `input` in the log's place.
fn log_commands(input: &Path, src: &Path, log: &Path, spec: &Path) -> Vec<Vec<String>> {
    let i = s(input).to_string();
    let cmds: Vec<Vec<&str>> = vec![
        vec!["dump", &i],
        vec!["stats", &i],
        vec!["replay", &i],
        vec!["replay", &i, "--summary"],
        vec!["check", &i, "--spec", s(spec)],
        vec!["diff", &i, s(log)],
        vec!["diff", s(log), &i],
        vec!["replay", s(src), &i],
        vec!["export", "--cauder", "out-dir", &i],
    ];
    cmds.into_iter()
        .map(|c| c.into_iter().map(String::from).collect())
        .collect()
}

fn run(dir: &Scratch, args: &[String]) -> Output {
    trace_cmd()
        .args(args)
        .current_dir(dir.path(""))
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// Asserts trouble (status 2) with one line on stderr containing `want`.
fn assert_refused(out: &Output, args: &[String], want: &str) {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(want), "{args:?}: {err}");
    assert!(text(&out.stdout).is_empty(), "{args:?} printed something");
}

#[test]
fn endless_devices_in_place_of_a_log_are_refused_after_their_first_bytes() {
    let dir = Scratch::new("special-devices");
    let (src, log) = recorded(&dir);
    let spec = dir.write("p.tspec", "p: never send(_, _, boom).\n");
    for dev in ["/dev/zero", "/dev/urandom"] {
        for args in log_commands(Path::new(dev), &src, &log, &spec) {
            let out = run(&dir, &args);
            assert_refused(
                &out,
                &args,
                "not a trace log: unknown data starting with bytes",
            );
        }
    }
}

#[test]
fn a_named_pipe_without_a_writer_is_refused_not_waited_for() {
    let dir = Scratch::new("special-fifo");
    let (src, log) = recorded(&dir);
    let spec = dir.write("p.tspec", "p: never send(_, _, boom).\n");
    let pipe = fifo(&dir, "pipe");
    let no_writer = "a named pipe with no process writing to it";
    for args in log_commands(&pipe, &src, &log, &spec) {
        assert_refused(&run(&dir, &args), &args, no_writer);
    }
    let others: Vec<Vec<String>> = [
        vec!["run", s(&pipe)],
        vec!["record", s(&pipe), "-o", "x.trace"],
        vec!["check", s(&log), "--spec", s(&pipe)],
        vec!["import", "--cauder", s(&pipe), "-o", "x.trace"],
    ]
    .iter()
    .map(|c| c.iter().map(|a| a.to_string()).collect())
    .collect();
    for args in others {
        let out = run(&dir, &args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
}

#[test]
fn sources_and_specifications_from_endless_devices_stop_at_a_stated_limit() {
    let dir = Scratch::new("special-sources");
    let (_, log) = recorded(&dir);
    let out = trace(&["run", "/dev/zero"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("a source file is at most 67108864 bytes"),
        "{}",
        text(&out.stderr)
    );
    let out = trace(&["check", s(&log), "--spec", "/dev/zero"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("a specification is at most 16777216 bytes"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_log_arriving_through_a_pipe_is_read() {
    let dir = Scratch::new("special-pipe");
    let (_, log) = recorded(&dir);
    let bytes = std::fs::read(&log).unwrap();
    let mut child = trace_cmd()
        .args(["dump", "/dev/stdin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), text(&trace(&["dump", s(&log)]).stdout));
}
