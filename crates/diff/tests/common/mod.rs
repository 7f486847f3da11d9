//! Recording the test programs of `tests/programs/` on the engine, and
//! scratch directories.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use trace_format::LogReader;
use trace_recorder::Captured;
use trace_recorder::{RecordConfig, RecordFlags};
use trace_runtime::{Chaos, LoadOptions, RunOptions};

#[allow(unused_imports)] // not every test file makes one
pub use trace_fixtures::Scratch;

pub fn program(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/programs")
        .join(name)
}

/// How to record.
#[derive(Clone, Copy, Default)]
pub struct How {
    /// Chaos scheduling with this seed, on one scheduler thread (so a seed
    /// always gives the same run).
    pub chaos: Option<u64>,
    pub no_payloads: bool,
    pub deliveries: bool,
}

/// Records `tests/programs/NAME` into `out`; returns what it printed.
pub fn record(name: &str, out: &Path, how: How) -> String {
    let loaded = trace_runtime::load(&[program(name)], &LoadOptions::default()).unwrap();
    let (entry, call) = trace_runtime::entry(&loaded, None).unwrap();
    let cfg = RecordConfig {
        out: out.to_path_buf(),
        flags: RecordFlags {
            payloads: !how.no_payloads,
            deliveries: how.deliveries,
            ..RecordFlags::default()
        },
        writer: Default::default(),
        run: RunOptions {
            schedulers: 1,
            reports: false,
            chaos: how.chaos.map(|seed| Chaos { seed }),
            ..RunOptions::default()
        },
        entry_text: call,
        footer_status: |v| v as i32,
    };
    let printed = Captured::default();
    trace_recorder::record(&loaded, entry, &cfg, Box::new(printed.clone()), None).unwrap();
    let b = printed.0.lock().unwrap().clone();
    String::from_utf8(b).unwrap()
}

pub fn open(p: &Path) -> LogReader {
    LogReader::open(p).unwrap()
}

/// Raw pids of a log, in process table order.
pub fn pids(p: &Path) -> Vec<u64> {
    open(p).processes().iter().map(|q| q.pid).collect()
}
