//! How a run ended, in one word: the verdicts a caller turns into its own
//! report (the CLI into exit statuses, the recorder into the log's footer).

use crate::sched::{EntryOutcome, RunOutcome};

/// The verdict of a run, most important first: when several hold, a run
/// has the first.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    /// The engine failed (a bug in trace).
    InternalError,
    /// A replay departed from its log.
    Diverged,
    /// The run was interrupted (Ctrl-C).
    Interrupted,
    /// The run was cut at `--time-limit` or `--max-events`.
    Limited,
    /// The run stopped at something the engine does not support.
    Unsupported,
    /// The entry process crashed.
    EntryCrashed,
    /// Processes were left blocked forever (a deadlock).
    Deadlock,
    /// The entry returned and nothing was left blocked.
    Ok,
}

impl RunOutcome {
    /// The status `erlang:halt/0,1,2` ended the run with, where it decides
    /// how the run ended (not after the engine failed, a replay departed,
    /// Ctrl-C, a limit or something unsupported stopped it).
    pub fn halted_with(&self) -> Option<i32> {
        match self.verdict() {
            Verdict::Ok | Verdict::EntryCrashed | Verdict::Deadlock => self.halt_status,
            _ => None,
        }
    }

    /// This run's verdict: a divergence or an interruption first, then
    /// something unsupported, then an entry crash, then a deadlock.
    pub fn verdict(&self) -> Verdict {
        if self.internal_error.is_some() {
            Verdict::InternalError
        } else if self.divergence.is_some() {
            Verdict::Diverged
        } else if self.interrupted {
            Verdict::Interrupted
        } else if self.limit.is_some() {
            Verdict::Limited
        } else if self.unsupported.is_some() {
            Verdict::Unsupported
        } else if matches!(self.entry, EntryOutcome::Crashed(_)) {
            Verdict::EntryCrashed
        } else if self.deadlocked().next().is_some() {
            Verdict::Deadlock
        } else {
            Verdict::Ok
        }
    }
}
