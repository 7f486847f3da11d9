//! Turning engine results into exit statuses.

use crate::exit;
use trace_runtime::{EntryOutcome, RunOutcome};
use trace_syntax::{DiagKind, Diagnostic};

/// The exit status for a program that did not load.
pub fn diagnostics_status(diags: &[Diagnostic]) -> u8 {
    if diags.iter().any(|d| d.kind == DiagKind::Io) {
        exit::TROUBLE
    } else if diags.iter().all(|d| d.kind == DiagKind::Unsupported) {
        exit::UNSUPPORTED
    } else {
        exit::COMPILE_ERROR
    }
}

/// The exit status of a run: an entry crash wins over a deadlock.
pub fn outcome_status(o: &RunOutcome) -> u8 {
    if o.divergence.is_some() {
        return exit::DIVERGED;
    }
    if o.interrupted {
        return exit::INTERRUPTED;
    }
    match o.entry {
        EntryOutcome::Crashed(_) => exit::ENTRY_CRASHED,
        _ if !o.blocked.is_empty() => exit::DEADLOCK,
        _ => exit::OK,
    }
}
