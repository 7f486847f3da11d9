//! `trace record`: run a program and record every nondeterministic choice.

use crate::exit;
use clap::Args as ClapArgs;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;
use trace_format::WriterOptions;
use trace_recorder::Progress;
use trace_recorder::{RecordConfig, RecordFlags};
use trace_runtime::{RunOptions, Verdict};
use trace_search::{Expectations, SearchConfig, SearchProgress};

#[derive(ClapArgs)]
#[command(after_help = "Examples:
  trace record fixtures/papers/proxy_server.erl -o run.trace
  trace record ring.erl --entry 'ring:start(1000)' --printed -o ring.trace
  trace record race.erl --until-failure --chaos --attempts 500 --seed 7
  trace record prog.erl --until-failure --expect '{ok, _}'
  trace record prog.erl --until-failure --chaos --check props.tspec

A failure (for --until-failure) is: a process crashing with an abnormal reason
(not normal, shutdown or {shutdown, _}),
processes left blocked forever, the entry's result not matching --expect, or
standard output differing from --expect-stdout. With --check, a run fails when
its log violates a property of the specification (see trace check --help) —
instead of crashing or deadlocking, which many servers do by design; add the
built-ins no_abnormal_exit and no_deadlock to the specification to keep them.

A run that would go on for ever (a server with a ticker, a philosopher loop)
ends at --time-limit or --max-events, for each attempt of a search too; its log
is finalised and marked as cut, and `trace replay` replays what it holds.

Exit status: as `trace run` for the recorded run (0 ok, 1 entry crashed,
5 deadlock, 124 cut at a limit, 130 interrupted); with --until-failure: 1 when a failing run was
found and kept, 0 when every attempt succeeded; 2 trouble.")]
pub struct Args {
    /// Erlang source files (the first one's main/0 is the default entry), or
    /// a project directory laid out as rebar3 lays it out (give --entry)
    #[arg(required = true, value_name = "FILE.erl|DIR")]
    pub files: Vec<PathBuf>,
    /// The call to start with, `Module:Function(Args)`
    #[arg(long, value_name = "CALL")]
    pub entry: Option<String>,
    /// The log to write (default: MODULE.trace in the current directory)
    #[arg(
        short = 'o',
        long = "output",
        visible_alias = "output-file",
        value_name = "FILE"
    )]
    pub out: Option<PathBuf>,
    /// Scheduler threads (default: the number of cores)
    #[arg(long, value_name = "N", value_parser = super::thread_count)]
    pub schedulers: Option<usize>,
    /// Do not record message payloads and exit reasons (replay still works)
    #[arg(long)]
    pub no_payloads: bool,
    /// Also record mailbox arrivals (deliveries)
    #[arg(long)]
    pub deliveries: bool,
    /// Also record the bytes each process printed to standard output
    #[arg(long)]
    pub printed: bool,
    /// Every process left waiting at the end is a deadlock, servers idle in their loop too
    #[arg(long)]
    pub strict: bool,
    /// (With --until-failure: for each attempt.)
    #[command(flatten)]
    pub limits: super::limits::Limits,
    /// Stamp every event with its time
    #[arg(long)]
    pub timestamps: bool,
    /// Longest time an event waits before its block is written (milliseconds)
    #[arg(long, value_name = "MS", default_value_t = 200)]
    pub flush_interval: u64,
    /// Block size before compression (bytes)
    #[arg(long, value_name = "BYTES", default_value_t = 65536)]
    pub block_size: usize,
    /// Run again and again until a run fails; keep only the failing run's log
    #[arg(long)]
    pub until_failure: bool,
    /// Attempts for --until-failure (at least 1)
    #[arg(long, value_name = "N", default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..))]
    pub attempts: u32,
    /// Randomise scheduling (preemption, run order, delivery delays between senders)
    #[arg(long)]
    pub chaos: bool,
    /// Seed for --chaos (attempt k uses SEED+k)
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// With --until-failure: a run fails unless the entry's result matches this Erlang pattern
    #[arg(long, value_name = "PATTERN", requires = "until_failure")]
    pub expect: Option<String>,
    /// With --until-failure: a run fails unless its standard output equals this file
    #[arg(long, value_name = "FILE", requires = "until_failure")]
    pub expect_stdout: Option<PathBuf>,
    /// With --until-failure: a run fails when its log violates a property of this specification
    /// (an attempt is stopped at the first violation of a safety property: never, at most,
    /// always, a precedence)
    #[arg(long, value_name = "SPEC", requires = "until_failure")]
    pub check: Option<PathBuf>,
    /// No progress line and no summary
    #[arg(short, long)]
    pub quiet: bool,
    /// Extra directories searched by -include and -include_lib
    #[arg(short = 'I', long = "include", value_name = "DIR")]
    pub include: Vec<PathBuf>,
}

fn human_bytes(n: u64) -> String {
    if n < 10 * 1024 {
        format!("{n} B")
    } else if n < 10 * 1024 * 1024 {
        format!("{:.1} KiB", n as f64 / 1024.0)
    } else {
        format!("{:.1} MiB", n as f64 / (1024.0 * 1024.0))
    }
}

pub fn run(args: Args) -> u8 {
    let (loaded, entry, call) = match crate::cmd::run::load_with_entry(
        "record",
        &args.files,
        &args.include,
        args.entry.as_deref(),
        false,
    ) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let expectations = match expectations(&args) {
        Ok(e) => e,
        Err(msg) => {
            eprintln!("trace record: {msg}");
            return exit::TROUBLE;
        }
    };
    let out = args.out.clone().unwrap_or_else(|| {
        let m = loaded
            .modules
            .first()
            .map(|m| m.name.clone())
            .unwrap_or_else(|| "run".into());
        PathBuf::from(format!("{m}.trace"))
    });
    if let Some(input) = args
        .files
        .iter()
        .chain(args.expect_stdout.iter())
        .find(|f| super::same_file(f, &out))
    {
        eprintln!(
            "trace record: the log would overwrite {}, an input; give another -o",
            input.display()
        );
        return exit::TROUBLE;
    }
    // Ctrl-C stops the run; the log is finalised and says it was interrupted.
    let interrupt = super::interrupt_flag();
    let mut run = RunOptions {
        interrupt: Some(interrupt),
        end_rule: crate::cmd::run::end_rule(args.strict),
        ..RunOptions::default()
    };
    if let Some(n) = args.schedulers {
        run.schedulers = n;
    }
    args.limits.apply(&mut run);
    if args.chaos && !args.until_failure {
        run.chaos = Some(trace_runtime::Chaos { seed: args.seed });
        run.schedulers = 1;
    }
    let cfg = RecordConfig {
        out: out.clone(),
        flags: RecordFlags {
            payloads: !args.no_payloads,
            deliveries: args.deliveries,
            output: args.printed,
        },
        writer: WriterOptions {
            block_size: args
                .block_size
                .clamp(256, trace_format::writer::MAX_BLOCK_SIZE),
            flush_interval: Duration::from_millis(args.flush_interval.max(1)),
            timestamps: args.timestamps,
            ..WriterOptions::default()
        },
        run,
        entry_text: call,
        footer_status: exit::footer_status,
    };
    if args.until_failure {
        return until_failure(&args, &loaded, entry, &cfg, expectations);
    }
    let bar = super::spinner(args.quiet);
    let report = |p: Progress| {
        if let Some(b) = &bar {
            b.set_message(format!(
                "recording {:.1}s  {} processes  {} events  {}",
                p.elapsed.as_secs_f64(),
                p.processes,
                p.events,
                human_bytes(p.bytes)
            ));
            b.tick();
        }
    };
    let rec = match trace_recorder::record(
        &loaded,
        entry,
        &cfg,
        Box::new(std::io::stdout()),
        bar.is_some()
            .then_some(&report as &(dyn Fn(Progress) + Sync)),
    ) {
        Ok(r) => r,
        Err(e) => {
            if let Some(b) = &bar {
                b.finish_and_clear();
            }
            eprintln!("trace record: {}: {e}", out.display());
            return exit::TROUBLE;
        }
    };
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    if !args.quiet {
        let word = match rec.outcome.halted_with() {
            Some(s) => format!("halted with status {s}"),
            None => outcome_word(rec.verdict()).to_string(),
        };
        eprintln!("{}", summary_line(&rec, &word));
    }
    exit::of_outcome(&rec.outcome)
}

fn outcome_word(v: Verdict) -> &'static str {
    match v {
        Verdict::Ok => "completed",
        Verdict::EntryCrashed => "entry crashed",
        Verdict::Deadlock => "deadlock",
        Verdict::Interrupted => "interrupted",
        Verdict::Limited => "cut at a limit",
        _ => "ended",
    }
}

fn summary_line(rec: &trace_recorder::Recording, outcome: &str) -> String {
    let s = &rec.summary;
    let per = if s.events > 0 {
        s.bytes as f64 / s.events as f64
    } else {
        0.0
    };
    format!(
        "trace record: {outcome} in {:.2}s: {} processes, {} events, {} ({per:.2} bytes/event) -> {}",
        rec.elapsed.as_secs_f64(),
        s.processes,
        s.events,
        human_bytes(s.bytes),
        rec.path.display()
    )
}

/// What `--expect-stdout` reads at most (a pipe or device is cut there).
const MAX_EXPECTED_STDOUT: u64 = 1 << 30;

fn expectations(args: &Args) -> Result<Expectations, String> {
    expectations_from(
        args.expect.as_deref(),
        args.expect_stdout.as_deref(),
        args.check.as_deref(),
    )
}

/// `--expect`, `--expect-stdout` and `--check`, read and compiled (shared
/// with `trace explore`).
pub fn expectations_from(
    expect: Option<&str>,
    expect_stdout: Option<&std::path::Path>,
    check: Option<&std::path::Path>,
) -> Result<Expectations, String> {
    let result = match expect {
        Some(p) => Some(trace_pattern::compile_str(p).map_err(|e| format!("--expect: {e}"))?),
        None => None,
    };
    let stdout = match expect_stdout {
        Some(f) => Some(
            trace_input::read(f, MAX_EXPECTED_STDOUT, "an expected output")
                .map_err(|e| format!("--expect-stdout: {}: {e}", f.display()))?,
        ),
        None => None,
    };
    let check = match check {
        Some(f) => Some(super::load_spec(f)?),
        None => None,
    };
    Ok(Expectations {
        result,
        stdout,
        check,
    })
}

fn until_failure(
    args: &Args,
    loaded: &trace_runtime::Loaded,
    entry: trace_runtime::Entry,
    cfg: &RecordConfig,
    expectations: Expectations,
) -> u8 {
    let h = SearchConfig {
        attempts: args.attempts,
        chaos: args.chaos,
        seed: args.seed,
        expectations,
    };
    // On a terminal: attempt k of N and the rate, instead of each attempt's
    // reports (only the failing attempt's are shown).
    let bar = (!args.quiet && std::io::stderr().is_terminal()).then(|| {
        let b = ProgressBar::new(args.attempts as u64);
        b.set_style(
            ProgressStyle::with_template(
                "{spinner} attempt {pos}/{len} [{bar:30}] {per_sec} {elapsed} no failure yet",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        b
    });
    let progress = |p: SearchProgress| {
        if let Some(b) = &bar {
            b.set_position(p.done as u64);
        }
    };
    let result = trace_search::find_failing_run(loaded, &entry, cfg, &h, Some(&progress));
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let result = match result {
        Ok(r) => r,
        Err(e) => {
            eprintln!("trace record: {}: {e}", cfg.out.display());
            return exit::TROUBLE;
        }
    };
    let seed = result
        .seed
        .map(|s| format!(" (chaos seed {s})"))
        .unwrap_or_default();
    let took = format!(
        "{} attempt{} in {:.1}s ({:.1}/s)",
        result.attempts,
        if result.attempts == 1 { "" } else { "s" },
        result.elapsed.as_secs_f64(),
        result.attempts as f64 / result.elapsed.as_secs_f64().max(1e-9)
    );
    match result.failure {
        Some(found) => {
            use std::io::Write;
            let _ = std::io::stdout().write_all(&found.stdout);
            let _ = std::io::stderr().write_all(&found.reports);
            eprintln!(
                "trace record: attempt {}{seed} failed: {}",
                result.attempts, found.failure
            );
            if !args.quiet {
                eprintln!("trace record: found after {took}");
                let outcome = match found.stopped_at_violation {
                    true => "stopped at the violation",
                    false => outcome_word(found.recording.verdict()),
                };
                eprintln!("{}", summary_line(&found.recording, outcome));
            }
            exit::DIFFERENT
        }
        None if result.interrupted => {
            eprintln!(
                "trace record: interrupted during attempt {}{seed}, before any failure; \
                 its log, marked interrupted, is kept in {}",
                result.attempts,
                cfg.out.display()
            );
            exit::INTERRUPTED
        }
        None => {
            eprintln!("trace record: no failure in {took}; no log kept");
            exit::OK
        }
    }
}
