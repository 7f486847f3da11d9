//! Recording a loaded program and replaying its log, as the replayer's
//! tests do.
#![allow(dead_code)] // each test file uses a part

use std::path::Path;
use std::sync::Arc;
use trace_format::{LogReader, WriterOptions};
use trace_recorder::Captured;
use trace_recorder::{RecordConfig, RecordFlags, Recording};
use trace_replayer::{replay, ReplayConfig, ReplayError, ReplayResult};
use trace_runtime::{Loaded, RunOptions};

/// Run options on `schedulers` threads, without crash reports on stderr.
pub fn quiet(schedulers: usize) -> RunOptions {
    RunOptions {
        schedulers,
        reports: false,
        ..RunOptions::default()
    }
}

/// Records `loaded` into `log`; returns the recording and what it printed.
pub fn record(loaded: &Loaded, log: &Path, run: RunOptions) -> (Recording, Vec<u8>) {
    record_from(loaded, None, log, run)
}

/// [`record`] from the call `entry` (the default: the first module's main/0).
pub fn record_from(
    loaded: &Loaded,
    entry: Option<&str>,
    log: &Path,
    run: RunOptions,
) -> (Recording, Vec<u8>) {
    let (entry, call) = trace_runtime::entry(loaded, entry).unwrap();
    let cfg = RecordConfig {
        out: log.to_path_buf(),
        flags: RecordFlags::default(),
        writer: WriterOptions::default(),
        run,
        entry_text: call,
        footer_status: |v| v as i32,
    };
    let out = Captured::default();
    let rec = trace_recorder::record(loaded, entry, &cfg, Box::new(out.clone()), None).unwrap();
    let printed = out.0.lock().unwrap().clone();
    (rec, printed)
}

/// Replays `log`; returns the replay's result and what it printed.
pub fn replay_of(
    loaded: &Loaded,
    log: &Path,
    cfg: &ReplayConfig,
) -> Result<(ReplayResult, Vec<u8>), ReplayError> {
    let out = Captured::default();
    let r = replay(
        loaded,
        Arc::new(LogReader::open(log).unwrap()),
        cfg,
        Box::new(out.clone()),
    )?;
    let printed = out.0.lock().unwrap().clone();
    Ok((r, printed))
}

/// What a program printed, as text.
pub fn text(printed: Vec<u8>) -> String {
    String::from_utf8(printed).unwrap()
}
