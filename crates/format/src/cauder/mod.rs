//! CauDEr's log directories (the logs of the CauDEr debugger of
//! González-Abril and Vidal 2021, see docs/papers.md), both ways.
//!
//! A CauDEr log is a directory: `trace_result.log` (the entry call, the entry
//! process, the result) and one `trace_N.log` per process, `N` being the
//! middle number of its pid. Three generations exist, none versioned:
//!
//! | generation | per-process lines | result file |
//! |---|---|---|
//! | v1 (2020) | `{74,spawn,78}` `{78,send,3}` `{74,'receive',13}`, no `.` | `call "m:f()"`, `main_pid 74`, ... |
//! | v2 (2021) | `{spawn,{Node,90},success}.` `{send,3}.` `{deliver,0}.` `{'receive',0}.` | `{call,...}.` terms |
//! | v3 (2022-) | `{trace_spawn,Node,216,true}.` `{trace_send,3}.` `{trace_receive,0}.` | `{call,{M,F,Args}}.` `{pid,209}.` ... |
//!
//! [`import`] reads all three. Messages are named by uids, not by (sender,
//! index), and sends record no destination (`Dest::Unknown`). [`export`]
//! writes v3: spawns, sends and receives; everything else is counted as
//! dropped in the report.

mod export;
mod import;
mod terms;

pub use export::{export, export_with, ExportReport};
pub use import::{import, read_dir, ImportReport, Imported};

use std::fmt;
use std::path::{Path, PathBuf};

/// Whether a file named `name` belongs to a CauDEr log directory:
/// `trace_result.log` or `trace_N.log`.
fn is_log_file(name: &str) -> bool {
    name == "trace_result.log"
        || name
            .strip_prefix("trace_")
            .and_then(|r| r.strip_suffix(".log"))
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// The directory a path names, absolute, for comparing two (a relative path
/// whose directory part is empty is in the current directory).
fn resolved_dir(dir: &Path) -> Option<PathBuf> {
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    dir.canonicalize().ok()
}

/// A CauDEr log that could not be read or written: `file:line: message`.
#[derive(Debug)]
pub struct CauderError {
    pub file: PathBuf,
    pub line: Option<usize>,
    pub message: String,
}

impl fmt::Display for CauderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{l}: {}", self.file.display(), self.message),
            None => write!(f, "{}: {}", self.file.display(), self.message),
        }
    }
}

impl std::error::Error for CauderError {}
