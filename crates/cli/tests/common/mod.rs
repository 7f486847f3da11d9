//! Helpers shared by the CLI's integration tests: scratch directories and
//! running the `trace` binary.
#![allow(dead_code)] // each test file uses a part

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

#[allow(unused_imports)] // not every test file makes one
pub use trace_fixtures::Scratch;

pub fn trace_cmd() -> Command {
    Command::new(env!("CARGO_BIN_EXE_trace"))
}

/// Runs `trace ARGS` to completion.
pub fn trace(args: &[&str]) -> Output {
    trace_cmd().args(args).output().unwrap()
}

pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A test program in `crates/cli/tests/programs/`.
pub fn program(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/programs")
        .join(name)
}

pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `trace COMMAND ARGS` with `input` on standard input: its exit status,
/// standard output and standard error.
pub fn trace_with_input(command: &str, args: &[&str], input: &str) -> (i32, String, String) {
    let mut child = trace_cmd()
        .arg(command)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    (o.status.code().unwrap(), text(&o.stdout), text(&o.stderr))
}

/// Records `program` on one scheduler into `run.trace` in `dir`.
pub fn record_one_scheduler(dir: &Scratch, program: &str) -> PathBuf {
    let log = dir.path("run.trace");
    let o = trace(&["record", program, "-o", s(&log), "-q", "--schedulers", "1"]);
    assert!(log.exists(), "record failed: {}", text(&o.stderr));
    log
}
