//! Exit statuses, documented in the README and relied on by scripts. The
//! engine and the analyses give verdicts; this is the one place that turns
//! them into numbers.

use trace_runtime::Verdict;

/// The entry returned and no process was left blocked; the runs are the
/// same (`diff`); every property holds (`check`).
pub const OK: u8 = 0;
/// The entry process crashed.
pub const ENTRY_CRASHED: u8 = 1;
/// `diff`: the runs differ. `check`: a property is violated. `record
/// --until-failure`: a failing run was found. `replay LOG`: the log is
/// inconsistent.
pub const DIFFERENT: u8 = 1;
/// `why`: no buggy node was found (every node judged correct, the
/// session aborted, or the answers ran out).
pub const NOT_FOUND: u8 = 1;
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
/// The run was cut at `--time-limit` or `--max-events` (as `timeout(1)`
/// says a command ran out of time).
pub const LIMITED: u8 = 124;

/// The exit status of `trace run`, `record` and `replay` for a run's verdict.
pub fn of_verdict(v: Verdict) -> u8 {
    match v {
        Verdict::InternalError => INTERNAL_ERROR,
        Verdict::Diverged => DIVERGED,
        Verdict::Interrupted => INTERRUPTED,
        Verdict::Limited => LIMITED,
        Verdict::Unsupported => UNSUPPORTED,
        Verdict::EntryCrashed => ENTRY_CRASHED,
        Verdict::Deadlock => DEADLOCK,
        Verdict::Ok => OK,
    }
}

/// The exit status of a run: the one `erlang:halt/1` asked for (its low 8
/// bits, what the system keeps of it), else [`of_verdict`]'s.
pub fn of_outcome(o: &trace_runtime::RunOutcome) -> u8 {
    o.halted_with()
        .map_or_else(|| of_verdict(o.verdict()), |s| (s & 0xff) as u8)
}

/// [`of_verdict`] as the log's footer stores it.
pub fn footer_status(v: Verdict) -> i32 {
    of_verdict(v) as i32
}
