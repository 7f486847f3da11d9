//! Watching an attempt's log while it is written, for `--until-failure
//! --check`: a safety property violated by a prefix of the run stays
//! violated however the run goes on (see `trace_check`'s `safety` module),
//! so the attempt is stopped there instead of at its end — a server with a
//! ticker would never end.
//!
//! The recorder cuts every block that has waited its flush interval, so the
//! partial log on disk is a readable prefix of the run. It is checked again
//! whenever it has grown, at intervals that double (100 ms up to 2 s): all
//! the checks together read about twice what one final check reads.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;
use trace_check::{Compiled, Status};

const FIRST_LOOK: Duration = Duration::from_millis(100);
const LONGEST_WAIT: Duration = Duration::from_secs(2);

/// A thread checking one attempt's partial log for safety violations.
pub(crate) struct SafetyWatch {
    /// The attempt's interrupt flag: set by a violation or by Ctrl-C.
    stop: Arc<AtomicBool>,
    violated: Arc<AtomicBool>,
    done: Arc<AtomicBool>,
    thread: JoinHandle<()>,
}

impl SafetyWatch {
    /// Starts watching the partial log at `partial` against `safety` (safety
    /// properties only); `ctrl_c`, if any, is passed on to the attempt.
    pub fn start(partial: PathBuf, safety: Compiled, ctrl_c: Option<Arc<AtomicBool>>) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let violated = Arc::new(AtomicBool::new(false));
        let done = Arc::new(AtomicBool::new(false));
        let (s, v, d) = (stop.clone(), violated.clone(), done.clone());
        let thread = std::thread::spawn(move || {
            let mut wait = FIRST_LOOK;
            let mut checked_len = 0;
            while !d.load(Ordering::Acquire) {
                std::thread::park_timeout(wait);
                wait = (wait * 2).min(LONGEST_WAIT);
                if ctrl_c.as_ref().is_some_and(|c| c.load(Ordering::Relaxed)) {
                    s.store(true, Ordering::Relaxed);
                }
                let len = std::fs::metadata(&partial).map_or(0, |m| m.len());
                if d.load(Ordering::Acquire) || len <= checked_len {
                    continue;
                }
                checked_len = len;
                if violates(&partial, &safety) {
                    v.store(true, Ordering::Release);
                    s.store(true, Ordering::Relaxed);
                    return;
                }
            }
        });
        SafetyWatch {
            stop,
            violated,
            done,
            thread,
        }
    }

    /// The flag to give the attempt as its interrupt.
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// Ends the watch once the attempt has ended: whether a violation stopped it.
    pub fn finish(self) -> bool {
        self.done.store(true, Ordering::Release);
        self.thread.thread().unpark();
        let _ = self.thread.join();
        self.violated.load(Ordering::Acquire)
    }
}

/// Whether the log prefix at `path` violates a property of `safety`. A
/// prefix that cannot be read yet (its header not written) violates nothing.
fn violates(path: &std::path::Path, safety: &Compiled) -> bool {
    let Ok(reader) = trace_format::LogReader::open(path) else {
        return false;
    };
    let opts = trace_check::eval::Options {
        detail: 0,
        ..Default::default()
    };
    trace_check::eval::check_with(safety, &reader, opts)
        .is_ok_and(|(_, verdicts)| verdicts.iter().any(|v| v.status == Status::Violated))
}
