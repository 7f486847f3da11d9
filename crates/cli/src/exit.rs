//! Exit statuses, documented in the README and relied on by scripts.
#![allow(dead_code)] // each status is used once its subcommand lands

pub use trace_runtime::status::*;

/// `diff`: the runs differ. `check`: a property is violated.
pub const DIFFERENT: u8 = 1;
