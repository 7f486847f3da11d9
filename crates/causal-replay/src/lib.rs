//! Causal-consistent replay: replay with the program only what a
//! consistent cut of the log holds, and say where the processes stand.
//!
//! The replayer (trace-replayer) replays each process log up to a hold;
//! this crate decides the holds from the causal model (trace-causal):
//!
//! - `--until EVENT` ([`until`]): the causal past of one event, all and
//!   only its causes (the causal-consistent replay of CauDEr's papers), and
//!   a report of what took part and where the event's process stopped;
//! - a log whose recording was cut short (interrupted, or killed and
//!   recovered): the part of every process log that could have happened on
//!   its own, leaving out receipts whose send was lost with the run's end.
//!
//! ```text
//! LogReader ──► causal::Model ──► holds (per process) ──► replayer::replay ──► report
//! ```

pub mod until;

use std::io::Write;
use std::sync::Arc;
use trace_capture::EventSpec;
use trace_causal::Model;
use trace_format::{LogReader, RunEnd};
use trace_replayer::{ReplayConfig, ReplayError, ReplayResult};
use trace_runtime::{Loaded, RunOptions, Verdict};

pub use until::{Participant, ProcessState, UntilReport};

/// How to replay.
#[derive(Clone, Debug, Default)]
pub struct Config {
    pub run: RunOptions,
    /// Replay even if the program is not the one recorded.
    pub force: bool,
    /// Replay only the causal past of this event, and stop.
    pub until: Option<EventSpec>,
}

/// Why a replay could not start.
#[derive(Debug)]
pub enum Error {
    Replay(ReplayError),
    /// The `--until` event names nothing in the log.
    Until(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Replay(e) => e.fmt(f),
            Error::Until(e) => write!(f, "--until {e}"),
        }
    }
}

/// How a replay went.
pub struct Outcome {
    pub replay: ReplayResult,
    /// With `--until`: what was replayed and where the event's process stands.
    pub until: Option<UntilReport>,
    /// The recording was cut short: every process was held where the
    /// consistent part of its log ends.
    pub cut_short: bool,
    /// Events of a cut-short log left out because a cause of theirs was lost.
    pub beyond_cut: u64,
}

impl Outcome {
    pub fn verdict(&self) -> Verdict {
        self.replay.verdict()
    }
}

/// Replays `log` with the program `loaded`: the whole run, the causal past
/// of `cfg.until`, or the consistent part of a log cut short. Program output
/// goes to `stdout`.
pub fn replay(
    loaded: &Loaded,
    log: Arc<LogReader>,
    cfg: &Config,
    stdout: Box<dyn Write + Send>,
) -> Result<Outcome, Error> {
    let cut_short = !matches!(log.outcome(), Some((o, _)) if o.end == RunEnd::Completed);
    let plan = match &cfg.until {
        Some(spec) => Some(until::plan(&log, spec).map_err(Error::Until)?),
        None => None,
    };
    let mut beyond_cut = 0;
    let holds = match &plan {
        Some(p) => Some(p.holds.clone()),
        None if cut_short => {
            let (holds, beyond) = consistent_part(&log);
            beyond_cut = beyond;
            Some(holds)
        }
        None => None,
    };
    let replay_cfg = ReplayConfig {
        run: cfg.run.clone(),
        force: cfg.force,
        holds,
    };
    let replay = trace_replayer::replay(loaded, log, &replay_cfg, stdout).map_err(Error::Replay)?;
    let until = plan.map(|p| p.report(&replay.outcome));
    Ok(Outcome {
        replay,
        until,
        cut_short,
        beyond_cut,
    })
}

/// The holds of the part of the log that could have happened on its own: a
/// receipt whose send was lost with the end of the run is left out, and so
/// is what follows it. Also: how many events that leaves out.
fn consistent_part(log: &LogReader) -> (Vec<u64>, u64) {
    let model = Model::build(log);
    let cut = trace_causal::consistent_cut(&model);
    let mut holds = vec![0u64; log.processes().len()];
    let mut beyond = 0;
    for (p, n) in model.processes().iter().zip(cut) {
        if let Some(h) = holds.get_mut(p.id.0 as usize) {
            *h = n;
        }
        beyond += p.events - n;
    }
    (holds, beyond)
}
