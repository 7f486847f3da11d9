//! Turning engine results and what reading a log skipped into exit statuses.

use std::path::Path;
use trace_format::Warning;
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

/// Prints what reading `log` worked around, one line each: damage as
/// `damaged:` (part of the run was skipped), the rest as `warning:`.
pub fn print_warnings(cmd: &str, log: &Path, warnings: &[Warning]) {
    for w in warnings {
        let what = if w.is_damage() { "damaged" } else { "warning" };
        eprintln!("trace {cmd}: {}: {what}: {w}", log.display());
    }
}

/// The status of a command over `log`: `status` as found, unless reading
/// skipped damaged parts (a checksum or structure failure, not a log merely
/// cut short), when what was found covers only part of the run and the
/// status is trouble, with one closing line saying so.
pub fn unless_damaged(cmd: &str, log: &Path, warnings: &[Warning], status: u8) -> u8 {
    use crate::exit::{INTERNAL_ERROR, INTERRUPTED, TROUBLE};
    let damaged = warnings.iter().filter(|w| w.is_damage()).count();
    // A bug, or Ctrl-C: those say more than the damage.
    if damaged == 0 || [INTERNAL_ERROR, INTERRUPTED].contains(&status) {
        return status;
    }
    eprintln!(
        "trace {cmd}: {}: the log is damaged ({damaged} part{} skipped, named above): \
         what this reports covers only its intact part; exit status {}",
        log.display(),
        if damaged == 1 { "" } else { "s" },
        TROUBLE
    );
    TROUBLE
}
