//! Helpers shared by the CLI's integration tests: scratch directories and
//! running the `trace` binary.
#![allow(dead_code)] // each test file uses a part

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

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
