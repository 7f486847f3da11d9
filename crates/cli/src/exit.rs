//! Exit statuses, documented in the README and relied on by scripts.
#![allow(dead_code)] // each status is used once its subcommand lands

/// Success: the entry returned and nothing was left blocked; logs are equivalent;
/// all properties are satisfied.
pub const OK: u8 = 0;
/// `run`/`record`/`replay`: the entry process crashed.
pub const ENTRY_CRASHED: u8 = 1;
/// `diff`: the runs differ. `check`: a property is violated.
pub const DIFFERENT: u8 = 1;
/// Trouble: bad arguments, a missing or unreadable file, a corrupt log.
pub const TROUBLE: u8 = 2;
/// The program does not compile (syntax error, unbound variable, ...).
pub const COMPILE_ERROR: u8 = 3;
/// The program uses something the engine does not support.
pub const UNSUPPORTED: u8 = 4;
/// Processes were left blocked forever at the end of the run (a deadlock).
pub const DEADLOCK: u8 = 5;
/// `replay`: execution departed from the log.
pub const DIVERGED: u8 = 6;
/// The run was interrupted (Ctrl-C); the log was finalised.
pub const INTERRUPTED: u8 = 130;
