//! Exit statuses of a run, shared by the CLI and the log's footer so that
//! both say the same thing. Documented in the README.

use crate::sched::{EntryOutcome, RunOutcome};

/// The entry returned and no process was left blocked.
pub const OK: u8 = 0;
/// The entry process crashed.
pub const ENTRY_CRASHED: u8 = 1;
/// Trouble: bad arguments, a missing or unreadable file, a corrupt log.
pub const TROUBLE: u8 = 2;
/// The program does not compile.
pub const COMPILE_ERROR: u8 = 3;
/// The program uses something the engine does not support.
pub const UNSUPPORTED: u8 = 4;
/// Processes were left blocked forever (a deadlock).
pub const DEADLOCK: u8 = 5;
/// Replay departed from the log.
pub const DIVERGED: u8 = 6;
/// The engine failed (a bug in trace; the report on stderr says where).
pub const INTERNAL_ERROR: u8 = 70;
/// The run was interrupted (Ctrl-C).
pub const INTERRUPTED: u8 = 130;

impl RunOutcome {
    /// The exit status `trace run`, `record` and `replay` return for this run:
    /// a divergence or an interruption first, then something unsupported,
    /// then an entry crash, then a deadlock.
    pub fn status(&self) -> u8 {
        if self.internal_error.is_some() {
            INTERNAL_ERROR
        } else if self.divergence.is_some() {
            DIVERGED
        } else if self.interrupted {
            INTERRUPTED
        } else if self.unsupported.is_some() {
            UNSUPPORTED
        } else if matches!(self.entry, EntryOutcome::Crashed(_)) {
            ENTRY_CRASHED
        } else if !self.blocked.is_empty() {
            DEADLOCK
        } else {
            OK
        }
    }
}
