//! Bringing a cut to life: the program replayed from its start with every
//! logged choice forced (trace-replayer's Director), each process held
//! where the cut says; once the run has settled, every process is read
//! through the engine's inspection API and the run ends.
//!
//! Every state a session shows is made so, from the start: a state is then
//! exactly what a fresh forward replay to the same cut gives, whatever
//! mix of forward and backward commands led there, and nothing but the
//! log and its causal model is kept between commands (docs/debug.md says
//! why, and what it costs).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use trace_format::LogReader;
use trace_replayer::director::LogDirector;
use trace_runtime::hooks::{
    Director, Event, Observer, ProcessDirector, ProcessObserver, ProcessStart, Settle, TimerTarget,
};
use trace_runtime::inspect::{ProcessState, View};
use trace_runtime::process::SignalId;
use trace_runtime::{Loaded, RunOptions, Runtime};

/// The run at a cut.
pub struct Snapshot {
    /// Every live process, by raw pid number.
    pub processes: HashMap<u64, ProcessState>,
    /// The writes to standard output the run made, in order.
    pub output: Vec<Vec<u8>>,
    /// Why the run could not reach the cut (a departure from the log, or
    /// events that could not happen), if it could not.
    pub failure: Option<String>,
}

/// Replays `log` with the program, each process held after `holds[id]`
/// events of its log (by dense id), and reads the settled run.
pub fn materialise(loaded: &Loaded, log: &Arc<LogReader>, holds: Vec<u64>) -> Snapshot {
    let director = Arc::new(Holding {
        inner: LogDirector::new(log.clone(), Some(holds)),
        seen: Mutex::new(HashMap::new()),
    });
    let outputs = Arc::new(Outputs::default());
    let (entry, run) = match trace_replayer::in_tool_replay(loaded, log, RunOptions::default()) {
        Ok(set) => set,
        Err(why) => {
            return Snapshot {
                processes: HashMap::new(),
                output: Vec::new(),
                failure: Some(why),
            }
        }
    };
    let rt = Runtime::new(
        loaded.program.clone(),
        run,
        Arc::new(OutputObserver(outputs.clone())),
        director.clone(),
        Box::new(std::io::sink()),
    );
    let outcome = trace_runtime::run(rt, entry);
    let failure = match (&outcome.divergence, &outcome.unsupported) {
        (Some(d), _) => Some(d.to_string()),
        (None, Some(u)) => Some(u.clone()),
        (None, None) => unfinished(&director.inner),
    };
    let processes = std::mem::take(&mut *director.seen.lock().unwrap_or_else(|e| e.into_inner()));
    let mut output = std::mem::take(&mut *outputs.writes.lock().unwrap_or_else(|e| e.into_inner()));
    output.sort_by_key(|(seq, _)| *seq);
    Snapshot {
        processes,
        output: output.into_iter().map(|(_, b)| b).collect(),
        failure,
    }
}

/// The events the replay could not reach, as one line.
fn unfinished(d: &LogDirector) -> Option<String> {
    let left = d.unfinished();
    let first = left.first()?;
    Some(format!(
        "{} process{} could not reach the cut: {} stopped after {} of {} events, before {}",
        left.len(),
        if left.len() == 1 { "" } else { "es" },
        trace_format::text::pid_text(d.pid_of(first.id)),
        first.replayed,
        first.total,
        first.next
    ))
}

/// The replay Director, and a look at every process once the run settles.
struct Holding {
    inner: LogDirector,
    seen: Mutex<HashMap<u64, ProcessState>>,
}

impl Director for Holding {
    fn process_started(&self, p: &ProcessStart) -> Option<Box<dyn ProcessDirector>> {
        self.inner.process_started(p)
    }

    fn forces_pids(&self) -> bool {
        self.inner.forces_pids()
    }

    fn timer_target(&self, id: SignalId) -> TimerTarget {
        self.inner.timer_target(id)
    }

    fn settled(&self, view: &View<'_>) -> Settle {
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        for pid in view.pids() {
            if let Some(s) = view.process(pid) {
                seen.insert(pid.number(), s);
            }
        }
        Settle::End
    }
}

/// Keeps the bytes of every write to standard output, by its turn.
#[derive(Default)]
struct Outputs {
    writes: Mutex<Vec<(u64, Vec<u8>)>>,
}

struct OutputObserver(Arc<Outputs>);

struct ProcessOutputs(Arc<Outputs>);

impl Observer for OutputObserver {
    fn process_started(&self, _p: &ProcessStart) -> Option<Box<dyn ProcessObserver>> {
        Some(Box::new(ProcessOutputs(self.0.clone())))
    }
}

impl ProcessObserver for ProcessOutputs {
    fn event(&mut self, ev: &Event<'_>) {
        if let Event::Output { seq, bytes } = ev {
            self.0
                .writes
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push((*seq, bytes.to_vec()));
        }
    }
}
