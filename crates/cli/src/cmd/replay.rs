//! `trace replay`: from the log alone, rebuild a derivation and check the
//! log's causal consistency (trace-causal). Replay with the program
//! (`trace replay prog.erl run.trace`) selects another mode, not built yet.

use crate::exit;
use clap::{Args as ClapArgs, ValueEnum};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use trace_causal::render::{self, Namer};
use trace_causal::{EventSpec, Model, Past};
use trace_format::LogReader;

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

#[derive(ClapArgs)]
#[command(after_help = "\
From the log alone (no .erl files given), trace replay rebuilds a derivation: a
numbered interleaving of all events that respects happened-before (any other
such interleaving is causally equivalent). It checks, in parallel, that the log
could have happened: every receipt matches a signal sent to that process, of a
kind it can take, taken once; the spawn tree is well formed; no process acts
after its exit; signals from one sender are taken in the order sent;
happened-before has no cycle (so every process acts after its spawn).
Messages delivered after a later message of their sender are listed apart,
not counted: a timer's message (erlang:send_after) does that.
Each problem names its events. Messages never received and processes that
never exited are listed. The verdict is the last line.

Events are named as in docs/events.md: P.2#5 (event 5 of P.2, from 0), send(P.1:0),
receive(P.1:0), deliver(P.1:0), taken(P.1:0), spawn(P.2), exit(P.2). Processes are
symbolic names (P.2.1 is the 1st child of the 2nd child of the entry process P)
or raw pids (<0.83.0>).

Examples:
  trace replay run.trace
  trace replay run.trace --summary
  trace replay run.trace --until 'receive(P.1:3)'
  trace replay run.trace --format json | jq 'select(.type == \"verdict\")'

Replaying with the program (trace replay prog.erl run.trace) is not available yet.

Exit status: 0 the log is consistent; 1 it is inconsistent; 2 trouble (unreadable
log, bad arguments, an EVENT that names nothing).")]
pub struct Args {
    /// The log; program source files before it select replay with the program
    #[arg(required = true, value_name = "[FILE.erl ...] LOG")]
    pub paths: Vec<PathBuf>,
    /// How to print the derivation and the findings (json: one object per line)
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Print only the findings and the verdict, not the derivation
    #[arg(long)]
    pub summary: bool,
    /// Only the causal past of EVENT (all and only its causes)
    #[arg(long, value_name = "EVENT")]
    pub until: Option<EventSpec>,
    /// List every finding in text (by default at most 100 of each kind)
    #[arg(long)]
    pub all: bool,
    /// Threads that decode and check the log (default: the number of cores)
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
}

/// Findings of each kind listed in text without --all.
const TEXT_LIMIT: usize = 100;

fn is_erl(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "erl")
}

pub fn run(args: Args) -> u8 {
    let (log, sources) = args.paths.split_last().expect("clap requires a path");
    if is_erl(log) {
        eprintln!(
            "trace replay: the last argument must be the log, not {}",
            log.display()
        );
        return exit::TROUBLE;
    }
    if !sources.is_empty() {
        eprintln!(
            "trace replay: replaying with the program ({} ...) is not available yet; \
             `trace replay {}` rebuilds and checks the run from the log alone",
            sources[0].display(),
            log.display()
        );
        return exit::TROUBLE;
    }
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(n) = args.threads {
        pool = pool.num_threads(n.max(1));
    }
    match pool.build() {
        Ok(pool) => pool.install(|| log_only(&args, log)),
        Err(e) => {
            eprintln!("trace replay: cannot start threads: {e}");
            exit::TROUBLE
        }
    }
}

fn log_only(args: &Args, log: &Path) -> u8 {
    let reader = match LogReader::open(log) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("trace replay: {}: {e}", log.display());
            return exit::TROUBLE;
        }
    };
    let model = Model::build(&reader);
    for w in model.warnings() {
        eprintln!("trace replay: {}: warning: {w}", log.display());
    }
    let past = match &args.until {
        None => None,
        Some(spec) => match model.resolve(spec) {
            Ok(e) => Some((spec, model.causal_past(e))),
            Err(e) => {
                eprintln!("trace replay: {}: --until {e}", log.display());
                return exit::TROUBLE;
            }
        },
    };
    let report = model.check();
    let mut out = BufWriter::new(io::stdout().lock());
    match print(args, &reader, &model, past.as_ref(), &report, &mut out).and_then(|_| out.flush()) {
        Ok(()) => {}
        // `trace replay | head` closes the pipe early: that is not trouble.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return exit::OK,
        Err(e) => {
            eprintln!("trace replay: {}: {e}", log.display());
            return exit::TROUBLE;
        }
    }
    if report.is_consistent() {
        exit::OK
    } else {
        exit::DIFFERENT
    }
}

fn print(
    args: &Args,
    reader: &LogReader,
    model: &Model,
    past: Option<&(&EventSpec, Past)>,
    report: &trace_causal::Report,
    out: &mut impl Write,
) -> io::Result<()> {
    let n = Namer::new(model);
    let json = args.format == Format::Json;
    if !args.summary {
        let mut failed: Option<io::Error> = None;
        let header = reader.header();
        let steps = model.for_each_step(reader, past.map(|(_, p)| p.as_limits()), |step| {
            let line = if json {
                render::step_json(&n, header, step)
            } else {
                render::step_line(&n, header, step)
            };
            match writeln!(out, "{line}") {
                Ok(()) => true,
                Err(e) => {
                    failed = Some(e);
                    false
                }
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
        if let Err(e) = steps {
            return Err(io::Error::other(e.to_string()));
        }
        if !json {
            writeln!(out)?;
        }
    }
    if let Some((spec, past)) = past {
        if json {
            writeln!(out, "{}", render::causal_past_json(&n, spec, past))?;
        } else {
            for line in render::causal_past_text(&n, spec, past) {
                writeln!(out, "{line}")?;
            }
        }
    }
    if json {
        for v in render::report_json(&n, report) {
            writeln!(out, "{v}")?;
        }
        return Ok(());
    }
    let limit = if args.all { usize::MAX } else { TEXT_LIMIT };
    let mut section = |title: &str, lines: Vec<String>| -> io::Result<()> {
        if lines.is_empty() {
            return Ok(());
        }
        writeln!(out, "{title} ({}):", lines.len())?;
        for l in lines.iter().take(limit) {
            writeln!(out, "  {l}")?;
        }
        if lines.len() > limit {
            writeln!(
                out,
                "  ... and {} more (--all lists them, --format json too)",
                lines.len() - limit
            )?;
        }
        Ok(())
    };
    section(
        "inconsistent",
        report
            .inconsistencies
            .iter()
            .map(|i| render::inconsistency(&n, i))
            .collect(),
    )?;
    if !report.behind_cycles.is_empty() {
        section(
            "stuck behind a cycle",
            report
                .behind_cycles
                .iter()
                .map(|&p| n.label(p).to_string())
                .collect(),
        )?;
    }
    section(
        "overtaken by a later message of the same sender (not counted: timers do this)",
        report
            .overtaken
            .iter()
            .map(|o| render::overtaken_message(&n, o))
            .collect(),
    )?;
    section(
        "not checkable",
        report
            .unverifiable
            .iter()
            .map(|u| render::unverifiable(&n, u))
            .collect(),
    )?;
    section(
        "never received",
        report
            .unreceived
            .iter()
            .map(|u| render::unreceived(&n, u))
            .collect(),
    )?;
    section(
        "never exited",
        report
            .never_exited
            .iter()
            .map(|&p| render::never_exited(&n, p))
            .collect(),
    )?;
    if report.to_foreign > 0 {
        writeln!(out, "sent to pids outside this log: {}", report.to_foreign)?;
    }
    writeln!(out, "{}", render::verdict(report))
}
