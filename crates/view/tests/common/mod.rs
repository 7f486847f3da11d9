//! Recording the bundled fixtures on the engine, for the tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use trace_causal::{EventId, Model};
use trace_format::LogReader;
use trace_recorder::{Captured, RecordConfig, RecordFlags};
use trace_runtime::{Chaos, LoadOptions, RunOptions};

pub use trace_fixtures::Scratch;

/// How to record.
#[derive(Clone, Copy, Default)]
pub struct How {
    pub deliveries: bool,
    pub no_payloads: bool,
    pub chaos: Option<u64>,
}

/// Records fixture `id` (`conc/links_monitors`) into `out`.
pub fn record(id: &str, out: &Path, how: How) -> PathBuf {
    let fixture = trace_fixtures::discover(&trace_fixtures::root())
        .into_iter()
        .find(|f| f.id == id)
        .unwrap_or_else(|| panic!("no fixture {id}"));
    let loaded = trace_runtime::load(&fixture.files, &LoadOptions::default()).unwrap();
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
    trace_recorder::record(&loaded, entry, &cfg, Box::new(Captured::default()), None).unwrap();
    out.to_path_buf()
}

pub fn open(p: &Path) -> (LogReader, Model) {
    let r = LogReader::open(p).unwrap();
    let m = Model::build(&r);
    (r, m)
}

/// Every event of the log.
pub fn all_events(model: &Model) -> Vec<EventId> {
    model
        .processes()
        .iter()
        .flat_map(|p| (0..p.events).map(move |i| EventId::new(p.id, i)))
        .collect()
}

/// Fixture `id` recorded as `how` into a scratch directory named `tag`,
/// opened: the directory (kept while the test runs), the log and its model.
pub fn recorded(tag: &str, id: &str, how: How) -> (Scratch, LogReader, Model) {
    let dir = Scratch::new(tag);
    let log = record(id, &dir.path("run.trace"), how);
    let (r, m) = open(&log);
    (dir, r, m)
}
