//! Recording one run: header, writer, the run under the recording
//! Observer, and the footer with the outcome.

use crate::observer::Recorder;
use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use trace_capture::{RecordFlags, OTHER_NONDET};
use trace_format::{Header, LogWriter, ModuleInfo, Outcome, RunEnd, Summary, WriterOptions};
use trace_runtime::hooks::{
    Event, Native, Observer, ProcessObserver, ProcessStart, SharedOp, Touched,
};
use trace_runtime::{Entry, EntryOutcome, Loaded, RunOptions, RunOutcome, Runtime, Verdict};

/// How to record.
#[derive(Clone, Debug)]
pub struct RecordConfig {
    pub out: PathBuf,
    pub flags: RecordFlags,
    pub writer: WriterOptions,
    pub run: RunOptions,
    /// The entry call as the user wrote it (for the header).
    pub entry_text: String,
    /// The exit status the footer records for a run's verdict: the caller's
    /// (the CLI's documented statuses), so the log says what the command said.
    pub footer_status: fn(Verdict) -> i32,
}

/// Progress figures, reported periodically while recording.
#[derive(Clone, Copy, Debug, Default)]
pub struct Progress {
    pub elapsed: Duration,
    pub processes: u64,
    pub events: u64,
    /// Bytes in the log file so far.
    pub bytes: u64,
}

/// A finished recording.
#[derive(Debug)]
pub struct Recording {
    pub outcome: RunOutcome,
    pub summary: Summary,
    pub path: PathBuf,
    pub elapsed: Duration,
}

impl Recording {
    /// The recorded run's verdict.
    pub fn verdict(&self) -> Verdict {
        self.outcome.verdict()
    }
}

/// Scheduler threads one compressor keeps up with. On 16 cores the 16
/// ping-pong pairs of `cargo xtask bench scaling` produce about 28M events
/// a second, some 800 MB of encoded blocks, about what one thread's zstd at
/// level 1 gets through; with four compressors they recorded in 0.419 s
/// instead of 0.440 s (medians of 3; the unrecorded run 0.297 s), so the
/// compressor was one limit there, not the main one.
const SCHEDULERS_PER_COMPRESSOR: usize = 4;

/// More compressors than this would each linger over a trickle of blocks.
const MAX_COMPRESSORS: usize = 16;

/// The writer's options for this run: at least one compressor per
/// [`SCHEDULERS_PER_COMPRESSOR`] schedulers, up to [`MAX_COMPRESSORS`].
fn writer_options(cfg: &RecordConfig) -> WriterOptions {
    let mut w = cfg.writer.clone();
    w.compress_threads = w
        .compress_threads
        .max((cfg.run.schedulers / SCHEDULERS_PER_COMPRESSOR).min(MAX_COMPRESSORS));
    w
}

fn header(loaded: &Loaded, cfg: &RecordConfig) -> Header {
    Header {
        recorder: format!("trace-recorder {}", env!("CARGO_PKG_VERSION")),
        engine: format!("trace-runtime {}", env!("CARGO_PKG_VERSION")),
        modules: loaded
            .modules
            .iter()
            .map(|m| ModuleInfo {
                name: m.name.clone(),
                path: m.path.display().to_string(),
                hash: m.hash,
            })
            .collect(),
        entry: cfg.entry_text.clone(),
        options: trace_format::RecordingOptions {
            payloads: cfg.flags.payloads,
            deliveries: cfg.flags.deliveries,
            output: cfg.flags.output,
            timestamps: cfg.writer.timestamps,
            schedulers: cfg.run.schedulers as u32,
            chaos_seed: cfg.run.chaos.as_ref().map(|c| c.seed),
            other: trace_capture::flags::other_options(&cfg.run),
        },
        start_time_ns: 0,
        node: "nonode@nohost".into(),
        entry_pid: trace_runtime::sched::FIRST_PID,
        nondet_names: OTHER_NONDET.iter().map(|s| s.to_string()).collect(),
        // Drawn by the writer.
        run_id: 0,
        shared_functions: trace_capture::mapping::SharedFunctions::default().names(),
    }
}

/// Runs the program once, recording into `cfg.out` (written under the
/// partial name of [`crate::output`] until the run ends). Program output
/// goes to `stdout`; `progress` (if any) is called about ten times a second.
pub fn record(
    loaded: &Loaded,
    entry: Entry,
    cfg: &RecordConfig,
    stdout: Box<dyn Write + Send>,
    progress: Option<&(dyn Fn(Progress) + Sync)>,
) -> io::Result<Recording> {
    record_directed(loaded, entry, cfg, stdout, progress, Arc::new(Native))
}

/// [`record`] with the run's choices made by `director` (`trace explore`
/// records the interleaving it found by forcing its schedule).
pub fn record_directed(
    loaded: &Loaded,
    entry: Entry,
    cfg: &RecordConfig,
    stdout: Box<dyn Write + Send>,
    progress: Option<&(dyn Fn(Progress) + Sync)>,
    director: Arc<dyn trace_runtime::Director>,
) -> io::Result<Recording> {
    record_observed(loaded, entry, cfg, stdout, progress, director, None)
}

/// [`record_directed`] with a second Observer beside the recorder, seeing
/// every event after it (`trace debug` counts each process's log events
/// per step of a run it schedules).
pub fn record_observed(
    loaded: &Loaded,
    entry: Entry,
    cfg: &RecordConfig,
    stdout: Box<dyn Write + Send>,
    progress: Option<&(dyn Fn(Progress) + Sync)>,
    director: Arc<dyn trace_runtime::Director>,
    also: Option<Arc<dyn Observer>>,
) -> io::Result<Recording> {
    let output = crate::output::prepare(&cfg.out)?;
    let writer = LogWriter::create(&output.partial, header(loaded, cfg), writer_options(cfg))
        .map_err(|e| in_file(e, &output.partial))?;
    let recorder = Arc::new(Recorder::new(writer.clone(), cfg.flags));
    let observer: Arc<dyn Observer> = match also {
        Some(second) => Arc::new(Both(recorder.clone(), second)),
        None => recorder.clone(),
    };
    let rt = Runtime::new(
        loaded.program.clone(),
        cfg.run.clone(),
        observer,
        director,
        stdout,
    );
    let start = Instant::now();
    let done = AtomicBool::new(false);
    let outcome = std::thread::scope(|s| {
        let reporter = progress.map(|report| {
            let (rec, done, path) = (&recorder, &done, &output.partial);
            s.spawn(move || {
                while !done.load(Ordering::Acquire) {
                    // Woken early when the run ends, so it never delays the end.
                    std::thread::park_timeout(Duration::from_millis(100));
                    report(Progress {
                        elapsed: start.elapsed(),
                        processes: rec.processes(),
                        events: rec.events(),
                        bytes: std::fs::metadata(path).map(|m| m.len()).unwrap_or(0),
                    });
                }
            })
        });
        let o = trace_runtime::run(rt, entry);
        done.store(true, Ordering::Release);
        if let Some(h) = reporter {
            h.thread().unpark();
        }
        o
    });
    let elapsed = start.elapsed();

    let summary = writer
        .finish(footer_outcome(&outcome, cfg.footer_status))
        .map_err(|e| in_file(e, &output.partial))?;
    output.commit().map_err(|e| in_file(e, &output.partial))?;
    Ok(Recording {
        outcome,
        summary,
        path: output.path,
        elapsed,
    })
}

/// The recorder, then a second Observer.
struct Both(Arc<Recorder>, Arc<dyn Observer>);

/// A process's recorder, then its second observer.
struct BothOf(
    Option<Box<dyn ProcessObserver>>,
    Option<Box<dyn ProcessObserver>>,
);

impl Observer for Both {
    fn process_started(&self, p: &ProcessStart) -> Option<Box<dyn ProcessObserver>> {
        Some(Box::new(BothOf(
            self.0.process_started(p),
            self.1.process_started(p),
        )))
    }
}

impl BothOf {
    fn each(&mut self, f: impl Fn(&mut Box<dyn ProcessObserver>)) {
        self.0.iter_mut().chain(self.1.iter_mut()).for_each(f);
    }
}

impl ProcessObserver for BothOf {
    fn event(&mut self, ev: &Event<'_>) {
        self.each(|o| o.event(ev));
    }
    fn wants_deliveries(&self) -> bool {
        self.0
            .iter()
            .chain(self.1.iter())
            .any(|o| o.wants_deliveries())
    }
    fn shared(&mut self, op: &SharedOp<'_>) {
        self.each(|o| o.shared(op));
    }
    fn slice_begin(&mut self) {
        self.each(|o| o.slice_begin());
    }
    fn slice_end(&mut self) {
        self.each(|o| o.slice_end());
    }
    fn touched(&mut self, t: &Touched<'_>) {
        self.each(|o| o.touched(t));
    }
}

/// An I/O error on the partial log, naming it: what was recorded is there.
fn in_file(e: io::Error, partial: &std::path::Path) -> io::Error {
    io::Error::new(e.kind(), format!("{} ({e})", partial.display()))
}

fn footer_outcome(o: &RunOutcome, status: fn(Verdict) -> i32) -> Outcome {
    Outcome {
        end: if o.interrupted {
            RunEnd::Interrupted
        } else if o.limit.is_some() {
            RunEnd::Limited
        } else if o.halted {
            RunEnd::Halted
        } else {
            RunEnd::Completed
        },
        exit_status: Some(o.halted_with().unwrap_or_else(|| status(o.verdict()))),
        entry_result: match &o.entry {
            EntryOutcome::Returned(v) => Some(trace_term::pretty(v, &Default::default())),
            _ => None,
        },
    }
}

/// A writer into a shared buffer (to capture a run's standard output).
#[derive(Clone, Default)]
pub struct Captured(pub Arc<Mutex<Vec<u8>>>);

impl io::Write for Captured {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(schedulers: usize, compress_threads: usize) -> RecordConfig {
        RecordConfig {
            out: PathBuf::from("unused.trace"),
            flags: RecordFlags::default(),
            writer: WriterOptions {
                compress_threads,
                ..WriterOptions::default()
            },
            run: RunOptions {
                schedulers,
                ..RunOptions::default()
            },
            entry_text: String::new(),
            footer_status: |_| 0,
        }
    }

    #[test]
    fn compressors_follow_the_schedulers() {
        let threads = |s, c| writer_options(&config(s, c)).compress_threads;
        assert_eq!(threads(1, 1), 1);
        assert_eq!(threads(2, 1), 1);
        assert_eq!(threads(7, 1), 1);
        assert_eq!(threads(8, 1), 2);
        assert_eq!(threads(16, 1), 4);
        assert_eq!(threads(1024, 1), MAX_COMPRESSORS);
        // A caller asking for more keeps them.
        assert_eq!(threads(2, 3), 3);
    }
}
