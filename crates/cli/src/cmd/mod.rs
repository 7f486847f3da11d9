//! One module per subcommand.

pub mod check;
pub mod debug;
pub mod diff;
pub mod dump;
pub mod explore;
pub mod export;
pub mod import;
pub mod limits;
pub mod record;
pub mod replay;
pub mod run;
pub mod stats;
pub mod view;

/// Most threads `--schedulers` and `--threads` take: the engine's own limit
/// on schedulers, also ample for the threads that read a log.
pub const MAX_THREADS: usize = trace_runtime::MAX_SCHEDULERS;

/// Parses `--schedulers N` and `--threads N`: a whole number from 1 to
/// [`MAX_THREADS`].
pub fn thread_count(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if (1..=MAX_THREADS).contains(&n) => Ok(n),
        _ => Err(format!(
            "expected a number of threads from 1 to {MAX_THREADS}"
        )),
    }
}

/// Whether two paths name one existing file (through links and `..`): an
/// output that is an input would destroy it.
pub fn same_file(a: &std::path::Path, b: &std::path::Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}
