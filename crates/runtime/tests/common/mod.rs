//! Running a program on the engine from a test: standard output captured,
//! hooks chosen by the test.

#![allow(dead_code)]

use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use trace_runtime::hooks::{Director, Native, Observer};
use trace_runtime::{LoadOptions, RunOptions, RunOutcome, Runtime};

/// Standard output of a run, shared with the engine's writer.
#[derive(Clone, Default)]
pub struct Captured(pub Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A file of the repository's `fixtures/`.
pub fn fixture(rel: &str) -> PathBuf {
    trace_fixtures::root().join(rel)
}

/// Runs `main()` of `file` with `schedulers` threads and the given hooks.
pub fn run_with(
    file: &PathBuf,
    schedulers: usize,
    observer: Arc<dyn Observer>,
    director: Arc<dyn Director>,
) -> (RunOutcome, Vec<u8>) {
    let loaded = trace_runtime::load(std::slice::from_ref(file), &LoadOptions::default())
        .unwrap_or_else(|d| panic!("{}: {d:?}", file.display()));
    let (entry, _) = trace_runtime::entry(&loaded, None).expect("main/0");
    let out = Captured::default();
    let opts = RunOptions {
        schedulers,
        reports: false,
        ..RunOptions::default()
    };
    let rt = Runtime::new(
        loaded.program,
        opts,
        observer,
        director,
        Box::new(out.clone()),
    );
    let outcome = trace_runtime::run(rt, entry);
    let bytes = out.0.lock().unwrap().clone();
    (outcome, bytes)
}

/// Runs `main()` of `file` as `trace run` does.
pub fn run(file: &PathBuf, schedulers: usize) -> (RunOutcome, Vec<u8>) {
    run_with(file, schedulers, Arc::new(Native), Arc::new(Native))
}

/// A program written by the test, in a file under cargo's scratch directory
/// for integration tests (in `target/`, so runs leave nothing in /tmp). Each
/// call gets its own directory: tests running in parallel threads of one
/// process may write programs of the same name.
pub fn program(name: &str, source: &str) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("runtime-test-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.erl"));
    std::fs::write(&path, source).unwrap();
    path
}
