//! `trace check`: check a recorded run against runtime-verification
//! properties (trace-check) and print the verdicts.

use crate::exit;
use clap::Args as ClapArgs;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use trace_check::report::{self, Report};
use trace_check::{Builtin, Compiled, Status};
use trace_format::LogReader;

#[derive(ClapArgs)]
#[command(after_help = "\
Checks a recorded run against properties written in the specification
language of docs/spec-language.md: event predicates in Erlang syntax
(send(From, To, Msg), receive(P, From, Msg), spawn(P, Child), exit(P, Reason),
...) combined into patterns — never, eventually, always, at most N, at least N,
exactly N, every ... is followed by / is preceded by ... — under a scope
(before R, after Q, between Q and R, after Q until R), concurrent-event
histories, and built-in checks. Order is happened-before: a response must lie
in the causal future of its trigger, a precedence in its causal past, so a
verdict holds for every interleaving causally equivalent to the recorded one.

A specification file (props.tspec):
  %% The server receives {C, N} before the number it adds.
  order: every receive(<P.1>, N) when is_integer(N)
             is preceded by receive(<P.1>, {_, _}).
  answered: every receive(S, C, {req, Ref}) is followed by send(S, C, {reply, Ref}).
  no_deadlock.

For each property: its name, where it is, the order it was judged on, then
STATUS: Satisfied or STATUS: Violated; for each violation the event, its process
(symbolic name and raw pid), the payload, the bindings, the causal slice (the
events in its causal past that the property involves) and the trace replay
command that stops exactly there.

Built-in checks: all_received (no message left unconsumed), no_deadlock (no
process blocked at the end), no_abnormal_exit (every process ended normally).
Without --spec or --builtin, all three are checked.

Examples:
  trace check run.trace --spec props.tspec
  trace check run.trace                          # the built-in checks
  trace check run.trace --spec props.tspec --builtin no_deadlock --json
  trace check run.trace --spec props.tspec --html check.html
  trace record prog.erl --until-failure --chaos --check props.tspec

Exit status: 0 every property is satisfied; 1 a property is violated; 2 trouble
(an unreadable log, a specification error at file:line:col, a property the log
cannot decide, or, with no violation found, a check that gave up), and always 2
for a damaged log (a property without violations in its intact part is GaveUp).")]
pub struct Args {
    /// The recorded run
    #[arg(value_name = "LOG")]
    pub log: PathBuf,
    /// The properties to check (a .tspec file)
    #[arg(long, value_name = "FILE")]
    pub spec: Option<PathBuf>,
    /// Also check this built-in property (all_received, no_deadlock, no_abnormal_exit)
    #[arg(long, value_name = "NAME")]
    pub builtin: Vec<String>,
    /// One JSON object per property and a summary, one per line
    #[arg(long)]
    pub json: bool,
    /// Print every violation in full (by default the first 10 of each property)
    #[arg(long)]
    pub all: bool,
    /// Threads that read and check the log (default: the number of cores)
    #[arg(long, value_name = "N", value_parser = super::thread_count)]
    pub threads: Option<usize>,
    /// Also write the run's diagram with the violations marked to this HTML page (see trace view)
    #[arg(long, value_name = "FILE")]
    pub html: Option<std::path::PathBuf>,
}

/// Violations printed in full per property without --all.
const DETAIL: usize = 10;

fn properties(args: &Args) -> Result<Compiled, u8> {
    let mut builtins = Vec::new();
    for name in &args.builtin {
        match Builtin::from_name(name) {
            Some(b) => builtins.push(b),
            None => {
                eprintln!(
                    "trace check: no built-in check named {name}; the built-ins are {}",
                    Builtin::ALL.map(|b| b.name()).join(", ")
                );
                return Err(exit::TROUBLE);
            }
        }
    }
    let mut compiled = match &args.spec {
        Some(path) => match trace_check::load(path) {
            Ok(c) => c,
            Err(errors) => {
                for e in errors {
                    eprintln!("{e}");
                }
                return Err(exit::TROUBLE);
            }
        },
        None if builtins.is_empty() => return Ok(trace_check::builtins(&Builtin::ALL)),
        None => return Ok(trace_check::builtins(&builtins)),
    };
    if !builtins.is_empty() {
        let extra = trace_check::builtins(&builtins);
        compiled.properties.extend(extra.properties);
    }
    Ok(compiled)
}

pub fn run(args: Args) -> u8 {
    let compiled = match properties(&args) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(n) = args.threads {
        pool = pool.num_threads(n);
    }
    match pool.build() {
        Ok(pool) => pool.install(|| check(&args, &compiled)),
        Err(e) => {
            eprintln!("trace check: cannot start threads: {e}");
            exit::TROUBLE
        }
    }
}

fn check(args: &Args, compiled: &Compiled) -> u8 {
    let log = &args.log;
    let reader = match LogReader::open(log) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("trace check: {}: {e}", log.display());
            return exit::TROUBLE;
        }
    };
    // Run alone, the built-in checks run on any log: those this one cannot
    // answer (it was recorded without the payloads they read) are left out,
    // and said so. One asked for by name is an error instead, as a property
    // the user wrote would be.
    let answerable;
    let compiled = if args.spec.is_none() && args.builtin.is_empty() {
        let mut c = compiled.clone();
        for why in trace_check::retain_answerable(&mut c, &reader) {
            eprintln!("trace check: {}: left out: {why}", log.display());
        }
        answerable = c;
        &answerable
    } else {
        compiled
    };
    let detail = if args.all { usize::MAX } else { DETAIL };
    let (model, verdicts) = match trace_check::eval::check_with(
        compiled,
        &reader,
        trace_check::eval::Options {
            detail,
            ..Default::default()
        },
    ) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("trace check: {}: {e}", log.display());
            return exit::TROUBLE;
        }
    };
    crate::report::print_warnings("check", log, model.warnings());
    let report = Report {
        spec: compiled,
        verdicts: &verdicts,
        reader: &reader,
        model: &model,
        log,
        opts: report::Options { detail },
    };
    let mut out = BufWriter::new(io::stdout().lock());
    let written = if args.json {
        report.write_json(&mut out)
    } else {
        report.write_text(&mut out)
    };
    match written.and_then(|_| out.flush()) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {}
        Err(e) => {
            eprintln!("trace check: {e}");
            return exit::TROUBLE;
        }
    }
    if let Some(html) = &args.html {
        if let Err(code) = write_html(args, &report, html) {
            return code;
        }
    }
    // A violation is a finding even when another property gave up.
    let status = if verdicts.iter().any(|v| v.status == Status::Violated) {
        exit::DIFFERENT
    } else if verdicts
        .iter()
        .any(|v| matches!(v.status, Status::GaveUp(_)))
    {
        exit::TROUBLE
    } else {
        exit::OK
    };
    crate::report::unless_damaged("check", log, model.warnings(), status)
}

/// `--html`: the run's diagram with the violations marked, and the report.
fn write_html(args: &Args, report: &Report<'_>, html: &std::path::Path) -> Result<(), u8> {
    let mut text = Vec::new();
    let _ = report.write_text(&mut text);
    let page = trace_view::check_page(
        report.model,
        report.reader,
        &trace_view::Focus::default(),
        super::view::title(&args.log, report.reader),
        report.spec,
        report.verdicts,
        String::from_utf8_lossy(&text).into_owned(),
    )
    .map_err(|e| {
        eprintln!("trace check: {}: {e}", args.log.display());
        exit::TROUBLE
    })?;
    let inputs: Vec<&std::path::Path> = [Some(args.log.as_path()), args.spec.as_deref()]
        .into_iter()
        .flatten()
        .collect();
    super::view::write_page("check", html, &inputs, &page.html())?;
    eprintln!("trace check: wrote {}", html.display());
    Ok(())
}
