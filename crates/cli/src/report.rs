//! Turning engine results into exit statuses.

use trace_syntax::{DiagKind, Diagnostic};

/// The exit status for a program that did not load.
pub fn diagnostics_status(diags: &[Diagnostic]) -> u8 {
    use crate::exit::*;
    if diags.iter().any(|d| d.kind == DiagKind::Io) {
        TROUBLE
    } else if diags.iter().all(|d| d.kind == DiagKind::Unsupported) {
        UNSUPPORTED
    } else {
        COMPILE_ERROR
    }
}
