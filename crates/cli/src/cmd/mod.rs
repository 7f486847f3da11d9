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
pub mod why;

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

/// Whether a path names an Erlang source rather than a log.
pub fn is_erl(p: &std::path::Path) -> bool {
    p.extension().is_some_and(|e| e == "erl")
}

/// A flag Ctrl-C sets: the command stops its run and ends as it does for
/// any end (a log finalised and marked interrupted, a summary so far).
pub fn interrupt_flag() -> std::sync::Arc<std::sync::atomic::AtomicBool> {
    let interrupt = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = interrupt.clone();
    let _ = ctrlc::set_handler(move || flag.store(true, std::sync::atomic::Ordering::Relaxed));
    interrupt
}

/// A spinner on stderr, unless `quiet` or stderr is not a terminal.
pub fn spinner(quiet: bool) -> Option<indicatif::ProgressBar> {
    use std::io::IsTerminal;
    (!quiet && std::io::stderr().is_terminal()).then(|| {
        let b = indicatif::ProgressBar::new_spinner();
        b.set_style(
            indicatif::ProgressStyle::with_template("{spinner} {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
        );
        b
    })
}

/// The `trace replay` command line for `log` recorded from `sources`.
pub fn replay_command(sources: &[std::path::PathBuf], log: &std::path::Path) -> String {
    let mut s = String::from("trace replay");
    for p in sources.iter().map(|p| p.as_path()).chain([log]) {
        s.push(' ');
        s.push_str(&p.display().to_string());
    }
    s
}

/// `--abstract PATTERN`, as clap parses it.
pub fn parse_abstraction(s: &str) -> Result<trace_diff::Abstraction, String> {
    trace_diff::Abstraction::parse(s).map_err(|e| e.to_string())
}

/// A specification loaded, or every error in it, one per line.
pub fn load_spec(path: &std::path::Path) -> Result<trace_check::Compiled, String> {
    trace_check::load(path).map_err(|errs| {
        errs.iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    })
}
