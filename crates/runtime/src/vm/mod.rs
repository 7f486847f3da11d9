//! The virtual machine: runs one process for one scheduling slice.
//!
//! [`interp::run_slice`] executes instructions until the process yields (its
//! reductions are used up), waits in a `receive`, or ends. The process's
//! whole state — value stack, frames, exception handlers, mailbox cursor —
//! lives in [`crate::process::Process`], never on the Rust stack, so a slice
//! can stop at any call or receive and resume on another thread.

pub mod arith;
pub mod bits;
pub mod calls;
pub mod ctx;
pub mod interp;
pub mod raise;
pub mod receive;

use crate::exception::Class;
use std::time::Instant;
use trace_term::Term;

/// How a slice ended.
#[derive(Debug)]
pub enum SliceEnd {
    /// Still runnable (reductions used up, or it asked to yield).
    Yield,
    /// Suspended in a receive until a signal arrives or `deadline` passes.
    Wait { deadline: Option<Instant> },
    /// The process ended.
    Exit(ExitInfo),
}

/// How a process ended.
#[derive(Debug, Clone)]
pub struct ExitInfo {
    /// The exit reason its links and monitors see.
    pub reason: Term,
    /// For an uncaught exception: class, reason and stack trace (for crash reports).
    pub crash: Option<(Class, Term, Term)>,
    /// The value the initial function returned, if it returned.
    pub result: Option<Term>,
}

impl ExitInfo {
    /// An end with no crash report and no result: a kill, a replay that
    /// diverged.
    pub fn plain(reason: Term) -> ExitInfo {
        ExitInfo {
            reason,
            crash: None,
            result: None,
        }
    }
}
