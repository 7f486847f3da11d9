//! Recording a loaded program and replaying its log causal-consistently,
//! as this crate's tests do.
#![allow(dead_code)] // each test file uses a part

use std::path::Path;
use std::sync::Arc;
use trace_causal_replay::{replay, Config, Error, Outcome};
use trace_format::{LogReader, WriterOptions};
use trace_recorder::{Captured, RecordConfig, RecordFlags, Recording};
use trace_runtime::{Loaded, RunOptions};

/// Records `loaded` into `log`; returns the recording and what it printed.
pub fn record(loaded: &Loaded, log: &Path, run: RunOptions) -> (Recording, Vec<u8>) {
    let (entry, call) = trace_runtime::entry(loaded, None).unwrap();
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

/// Replays `log`; returns how it went and what it printed.
pub fn replay_of(loaded: &Loaded, log: &Path, cfg: &Config) -> Result<(Outcome, Vec<u8>), Error> {
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
