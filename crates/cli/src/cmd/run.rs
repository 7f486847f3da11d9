//! `trace run`: run a program on the engine, without recording.

use crate::exit;
use clap::Args as ClapArgs;
use std::path::PathBuf;
use std::sync::Arc;
use trace_runtime::hooks::{Discard, Native};
use trace_runtime::{EndRule, LoadOptions, RunOptions, Runtime};

#[derive(ClapArgs)]
#[command(after_help = "Examples:
  trace run fixtures/seq/numbers.erl
  trace run fixtures/seq/preprocessor/preprocessor.erl fixtures/seq/preprocessor/shapes.erl
  trace run server.erl client.erl --entry 'client:start(10)'
  trace run fixtures/papers/proxy_server.erl --schedulers 1
  trace run myproject --entry 'myapp:main()'

Program output goes to stdout. On stderr: a report for each process that
crashed (as BEAM prints it), and, when processes are left waiting in receive
at the end, each with its pid, function and the line of that receive. A
server idle in its loop at the end is normal, as on BEAM; the entry left
waiting, or a process stuck waiting for something particular (a reply, one
process's message), is a deadlock (docs/concurrency.md, \"How a run ends\").

Errors in the source are reported as erlc reports them, at file:line:col. The library the engine provides, and where it differs from
OTP 25, is listed in docs/library.md.

Exit status: 0 the entry returned and no process is left deadlocked; 1 the
entry process crashed; 3 compile error; 4 the program uses something the
engine does not support (named on stderr, at compile time or when the call is
made); 5 a deadlock (with --strict: any process left waiting); 124 the run was
cut at --time-limit or --max-events; 2 trouble (missing file, bad arguments);
70 an internal error of the engine (a bug).")]
pub struct Args {
    /// Erlang source files (the first one's main/0 is the default entry), or
    /// a project directory laid out as rebar3 lays it out (give --entry)
    #[arg(required = true, value_name = "FILE.erl|DIR")]
    pub files: Vec<PathBuf>,
    /// The call to start with, `Module:Function(Args)` with constant arguments
    #[arg(long, value_name = "CALL")]
    pub entry: Option<String>,
    /// Scheduler threads (default: the number of cores)
    #[arg(long, value_name = "N", value_parser = super::thread_count)]
    pub schedulers: Option<usize>,
    /// Extra directories searched by -include and -include_lib
    #[arg(short = 'I', long = "include", value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// Every process left waiting at the end is a deadlock, servers idle in their loop too
    #[arg(long)]
    pub strict: bool,
    #[command(flatten)]
    pub limits: super::limits::Limits,
    /// Pass every event to an observer that drops it (measures the hooks)
    #[arg(long, hide = true)]
    pub discarding_observer: bool,
}

/// Loads the program (source files, or a project directory), reporting
/// diagnostics; returns the exit status on failure. `entry`: the call the
/// run starts with, when known.
pub fn load_program(
    files: &[PathBuf],
    include: &[PathBuf],
    entry: Option<&str>,
) -> Result<trace_runtime::Loaded, u8> {
    load_program_for(files, include, entry, false)
}

/// [`load_program_for`], then the entry call (`--entry`, or `main()` of the
/// first module) and its text; `cmd` names the command in an error.
pub fn load_with_entry(
    cmd: &str,
    files: &[PathBuf],
    include: &[PathBuf],
    entry: Option<&str>,
    debug: bool,
) -> Result<(trace_runtime::Loaded, trace_runtime::Entry, String), u8> {
    let loaded = load_program_for(files, include, entry, debug)?;
    let (e, call) = trace_runtime::entry(&loaded, entry).map_err(|msg| {
        eprintln!("trace {cmd}: {msg}");
        exit::TROUBLE
    })?;
    Ok((loaded, e, call))
}

/// [`load_program`], keeping variable names for a debugger when `debug`.
pub fn load_program_for(
    files: &[PathBuf],
    include: &[PathBuf],
    entry: Option<&str>,
    debug: bool,
) -> Result<trace_runtime::Loaded, u8> {
    // A log among the sources (its place swapped with a program's, or given
    // twice) would otherwise be read as Erlang text and fail in the lexer.
    if let Some(log) = files.iter().find(|f| trace_format::is_trace_log(f)) {
        eprintln!(
            "{}: a trace log, not Erlang source (the log goes last, after the .erl files: \
             trace replay prog.erl run.trace)",
            log.display()
        );
        return Err(exit::TROUBLE);
    }
    let opts = LoadOptions {
        include_paths: include.to_vec(),
        entry: entry.map(str::to_string),
        debug,
        ..LoadOptions::default()
    };
    trace_runtime::load(files, &opts).map_err(|diags| {
        for d in &diags {
            eprintln!("{d}");
        }
        crate::report::diagnostics_status(&diags)
    })
}

pub fn run(args: Args) -> u8 {
    let (loaded, entry, _call) = match load_with_entry(
        "run",
        &args.files,
        &args.include,
        args.entry.as_deref(),
        false,
    ) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let mut opts = RunOptions {
        end_rule: end_rule(args.strict),
        ..RunOptions::default()
    };
    if let Some(n) = args.schedulers {
        opts.schedulers = n;
    }
    args.limits.apply(&mut opts);
    let observer: Arc<dyn trace_runtime::Observer> = if args.discarding_observer {
        Arc::new(Discard)
    } else {
        Arc::new(Native)
    };
    let rt = Runtime::new(
        loaded.program,
        opts,
        observer,
        Arc::new(Native),
        Box::new(std::io::stdout()),
    );
    let outcome = trace_runtime::run(rt, entry);
    exit::of_outcome(&outcome)
}

/// The end rule `--strict` asks for.
pub fn end_rule(strict: bool) -> EndRule {
    if strict {
        EndRule::Strict
    } else {
        EndRule::Settled
    }
}
