//! `trace explore`: every interleaving class of a program, explored with
//! dynamic partial-order reduction; the failures, each with the log of its
//! simplest failing interleaving.

use crate::exit;
use crate::out::outln;
use clap::Args as ClapArgs;
use serde_json::json;
use std::path::PathBuf;
use std::time::Duration;
use trace_explore::{
    Bound, BoundKind, Config, Explanation, Group, Progress, StepInfo, Stop, Summary, Timeouts,
};
use trace_recorder::{RecordConfig, RecordFlags};
use trace_runtime::RunOptions;

#[derive(ClapArgs)]
#[command(after_help = "Examples:
  trace explore race.erl
  trace explore prog.erl --entry 'prog:start(2)' -o failing.trace
  trace explore prog.erl --expect ok --max-interleavings 10000 --time-limit 1m

Every interleaving of the program's processes that can change what it does
is run once (interleavings that differ only in the order of independent steps
count once): which message a receive takes, whether an `after` fires (time is
virtual: a receive times out whenever it is scheduled with no matching message;
with --timeouts real, only once its time has come on a virtual clock),
when a signal lands, the results of registry, liveness and table operations.
A run fails as with `record --until-failure`. Each distinct failure's simplest
interleaving (fewest preemptions, then fewest steps) is written as a log
(-o for the first, failing-N.trace otherwise) that `trace replay` replays.
See docs/explore.md.

Exit status: 0 nothing failed, 1 something failed, 2 trouble, 130 interrupted.")]
pub struct Args {
    /// Erlang source files (the first one's main/0 is the default entry)
    #[arg(required = true, value_name = "FILE.erl|DIR")]
    pub files: Vec<PathBuf>,
    /// The call to start with, `Module:Function(Args)`
    #[arg(long, value_name = "CALL")]
    pub entry: Option<String>,
    /// The log of the first failure (others: failing-N.trace beside it)
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Stop after this many interleavings
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_interleavings: Option<u64>,
    /// Stop after this long (30s, 2m, ...)
    #[arg(long, value_name = "DURATION", value_parser = super::limits::duration)]
    pub time_limit: Option<Duration>,
    /// Explore with at most 0, then 1, ... N preemptions, until a bound leaves nothing out
    #[arg(long, value_name = "N", conflicts_with = "delay_bound")]
    pub preemption_bound: Option<u32>,
    /// Explore with at most 0, then 1, ... N departures from the default schedule
    #[arg(long, value_name = "N")]
    pub delay_bound: Option<u32>,
    /// Most steps one interleaving may take; longer ones are cut (each run's
    /// races are found in time quadratic in its steps)
    #[arg(long, value_name = "N", default_value_t = 2_000)]
    pub max_steps: usize,
    /// A run fails unless the entry's result matches this Erlang pattern
    #[arg(long, value_name = "PATTERN")]
    pub expect: Option<String>,
    /// A run fails unless its standard output equals this file
    #[arg(long, value_name = "FILE")]
    pub expect_stdout: Option<PathBuf>,
    /// A run fails when its log violates a property of this specification
    #[arg(long, value_name = "SPEC")]
    pub check: Option<PathBuf>,
    /// Every process left waiting at the end is a deadlock, servers idle in their loop too
    #[arg(long)]
    pub strict: bool,
    /// When an `after` or a timer fires: `virtual` (whenever nothing matching
    /// has arrived) or `real` (steps take no time; the earliest deadline fires
    /// when nothing else can go)
    #[arg(long, value_name = "MODE", default_value = "virtual", value_parser = timeouts)]
    pub timeouts: Timeouts,
    /// One JSON object per failure, then a summary
    #[arg(long)]
    pub json: bool,
    /// No progress bar
    #[arg(short, long)]
    pub quiet: bool,
    /// Extra directories searched by -include and -include_lib
    #[arg(short = 'I', long = "include", value_name = "DIR")]
    pub include: Vec<PathBuf>,
}

fn timeouts(s: &str) -> Result<Timeouts, String> {
    match s {
        "virtual" => Ok(Timeouts::Virtual),
        "real" => Ok(Timeouts::Real),
        _ => Err("expected virtual or real".into()),
    }
}

pub fn run(args: Args) -> u8 {
    let (loaded, entry, call) = match crate::cmd::run::load_with_entry(
        "explore",
        &args.files,
        &args.include,
        args.entry.as_deref(),
        false,
    ) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let expectations = match super::record::expectations_from(
        args.expect.as_deref(),
        args.expect_stdout.as_deref(),
        args.check.as_deref(),
    ) {
        Ok(e) => e,
        Err(msg) => {
            eprintln!("trace explore: {msg}");
            return exit::TROUBLE;
        }
    };
    // Ctrl-C ends the exploration with the summary so far.
    let interrupt = super::interrupt_flag();
    let record = |out: PathBuf| RecordConfig {
        out,
        flags: RecordFlags {
            payloads: true,
            deliveries: false,
            output: false,
        },
        writer: Default::default(),
        run: RunOptions {
            reports: false,
            end_rule: crate::cmd::run::end_rule(args.strict),
            ..RunOptions::default()
        },
        entry_text: call.clone(),
        footer_status: exit::footer_status,
    };
    let cfg = Config {
        check_record: expectations.check.is_some().then(|| {
            record(std::env::temp_dir().join(format!("trace-explore-{}.trace", std::process::id())))
        }),
        expectations,
        max_interleavings: args.max_interleavings,
        time_limit: args.time_limit,
        max_steps: args.max_steps,
        interrupt: interrupt.clone(),
        bound: bound(&args),
        end_rule: crate::cmd::run::end_rule(args.strict),
        timeouts: args.timeouts,
    };
    let bar = super::spinner(args.quiet);
    let progress = |p: &Progress| {
        if let Some(b) = &bar {
            let bound = p.bound.map(|b| format!(", bound {b}")).unwrap_or_default();
            b.set_message(format!(
                "{} interleavings, {} failing, {:.0}/s{bound}",
                p.interleavings,
                p.failing,
                p.interleavings as f64 / p.elapsed.as_secs_f64().max(1e-9)
            ));
            b.tick();
        }
    };
    let summary = trace_explore::explore(
        &loaded,
        &entry,
        &cfg,
        bar.is_some().then_some(&progress as &dyn Fn(&Progress)),
    );
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    // With --check, runs are recorded to a scratch log (explaining a
    // failure makes more of them): gone once the last one is checked.
    let scratch = cfg.check_record.as_ref().map(|r| r.out.clone());
    let forget_scratch = || {
        if let Some(p) = &scratch {
            let _ = std::fs::remove_file(p);
        }
    };
    let summary = match summary {
        Ok(s) => s,
        Err(e) => {
            forget_scratch();
            eprintln!("trace explore: {e}");
            return exit::TROUBLE;
        }
    };
    for (n, g) in summary.groups.iter().enumerate() {
        let path = log_path(args.out.as_ref(), n);
        let written = trace_explore::record_schedule(
            &summary.hooks,
            &loaded,
            &entry,
            &record(path.clone()),
            &g.schedule,
            &cfg.expectations,
        );
        let note = match &written {
            Ok((_, Some(f))) if f.to_string() == g.failure.to_string() => None,
            Ok((_, Some(f))) => Some(format!("recorded, it failed otherwise: {f}")),
            Ok((_, None)) => Some("recorded, it did not fail".to_string()),
            Err(e) => Some(format!("could not be written: {e}")),
        };
        let race = trace_explore::explain(&summary.hooks, &loaded, &entry, &cfg, g).map(|x| {
            let passing = path.with_extension("passing.trace");
            let ok = trace_explore::record_schedule(
                &summary.hooks,
                &loaded,
                &entry,
                &record(passing.clone()),
                &x.passing,
                &cfg.expectations,
            );
            let passing = matches!(ok, Ok((_, None))).then_some(passing);
            (x, passing)
        });
        report_group(&args, n, g, &path, note.as_deref());
        report_race(&args, &path, race.as_ref());
    }
    forget_scratch();
    report_summary(&args, &summary);
    match summary.stopped {
        Some(Stop::Interrupted) => exit::INTERRUPTED,
        _ if summary.groups.is_empty() => exit::OK,
        _ => exit::DIFFERENT,
    }
}

/// `--preemption-bound` or `--delay-bound`.
fn bound(args: &Args) -> Option<Bound> {
    match (args.preemption_bound, args.delay_bound) {
        (Some(max), _) => Some(Bound {
            kind: BoundKind::Preemption,
            max,
        }),
        (None, Some(max)) => Some(Bound {
            kind: BoundKind::Delay,
            max,
        }),
        (None, None) => None,
    }
}

/// Where the log of failure `n` (from 0) goes.
fn log_path(out: Option<&PathBuf>, n: usize) -> PathBuf {
    match out {
        Some(o) if n == 0 => o.clone(),
        Some(o) => o.with_file_name(format!("failing-{}.trace", n + 1)),
        None => PathBuf::from(format!("failing-{}.trace", n + 1)),
    }
}

fn report_group(args: &Args, n: usize, g: &Group, path: &std::path::Path, note: Option<&str>) {
    if args.json {
        outln!(
            "{}",
            json!({
                "type": "failure",
                "n": n + 1,
                "failure": g.failure.to_string(),
                "interleavings": g.count,
                "preemptions": g.preemptions,
                "steps": g.schedule.len(),
                "log": path.display().to_string(),
                "note": note,
            })
        );
        return;
    }
    outln!("failure {}: {}", n + 1, g.failure);
    outln!(
        "  in {} interleaving(s); simplest: {} steps, {} preemption(s) -> {}",
        g.count,
        g.schedule.len(),
        g.preemptions,
        path.display()
    );
    if let Some(note) = note {
        outln!("  note: the log was {note}");
    }
    outln!("  replay it: {}", replay_command(args, path));
}

/// `trace replay FILES LOG`, as a command line.
fn replay_command(args: &Args, log: &std::path::Path) -> String {
    super::replay_command(&args.files, log)
}

fn step_json(s: &StepInfo) -> serde_json::Value {
    json!({"step": s.index, "process": s.process, "what": s.what, "event": s.event})
}

fn report_race(
    args: &Args,
    failing: &std::path::Path,
    race: Option<&(Explanation, Option<PathBuf>)>,
) {
    let Some((x, passing)) = race else {
        if args.json {
            outln!(
                "{}",
                json!({"type": "race", "log": failing.display().to_string(), "found": false})
            );
        } else {
            outln!("  race: no single reversed race makes this interleaving pass");
        }
        return;
    };
    let until = x
        .second
        .event
        .as_ref()
        .or(x.first.event.as_ref())
        .map(|e| format!("{} --until '{e}'", replay_command(args, failing)));
    let diff = passing
        .as_ref()
        .map(|p| format!("trace diff {} {}", p.display(), failing.display()));
    if args.json {
        outln!(
            "{}",
            json!({
                "type": "race",
                "log": failing.display().to_string(),
                "found": true,
                "first": step_json(&x.first),
                "second": step_json(&x.second),
                "passing_log": passing.as_ref().map(|p| p.display().to_string()),
                "diff": diff,
                "until": until,
            })
        );
        return;
    }
    let line = |s: &StepInfo| {
        let ev = s
            .event
            .as_ref()
            .map(|e| format!(" [{e}]"))
            .unwrap_or_default();
        format!("step {}: {} {}{ev}", s.index, s.process, s.what)
    };
    outln!("  race: {}", line(&x.first));
    outln!("   vs   {}", line(&x.second));
    outln!("  in the other order the run passes");
    if let Some(d) = diff {
        outln!("  compare: {d}");
    }
    if let Some(u) = until {
        outln!("  stop at the race: {u}");
    }
}

fn report_summary(args: &Args, s: &Summary) {
    let stopped = match s.stopped {
        None => None,
        Some(Stop::MaxInterleavings) => Some("max-interleavings"),
        Some(Stop::TimeLimit) => Some("time-limit"),
        Some(Stop::Interrupted) => Some("interrupted"),
    };
    if args.json {
        outln!(
            "{}",
            json!({
                "type": "summary",
                "interleavings": s.interleavings,
                "failing": s.failing,
                "distinct": s.groups.len(),
                "complete": s.complete(),
                "bound": s.bound,
                "stopped": stopped,
                "cut": s.cut,
                "redundant": s.redundant,
                "steps": s.steps,
                "seconds": s.elapsed.as_secs_f64(),
            })
        );
        return;
    }
    let rate = s.interleavings as f64 / s.elapsed.as_secs_f64().max(1e-9);
    let verdict = if s.complete() {
        "complete: every interleaving class was explored".to_string()
    } else if let Some(why) = stopped {
        format!("NOT complete: stopped at {why}")
    } else if s.bounded {
        format!(
            "NOT complete: bounded, schedules past bound {} left out",
            s.bound.unwrap_or(0)
        )
    } else {
        format!(
            "NOT complete: {} interleaving(s) cut at --max-steps, {} that departed from their schedule",
            s.cut, s.departed
        )
    };
    outln!(
        "explored {} interleavings ({} failing, {} distinct failure(s)) in {:.2}s, {rate:.0}/s, {:.1} steps each; {verdict}",
        s.interleavings,
        s.failing,
        s.groups.len(),
        s.elapsed.as_secs_f64(),
        s.steps as f64 / (s.interleavings + s.redundant).max(1) as f64,
    );
}
