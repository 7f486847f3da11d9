//! `trace replay LOG`: from the log alone, rebuild a derivation and check
//! the log's causal consistency (trace-causal).

use super::{Args, TEXT_LIMIT};
use crate::exit;
use std::io::{self, BufWriter, Write};
use std::path::Path;
use trace_capture::EventSpec;
use trace_causal::render::{self, Namer};
use trace_causal::{Model, Past};
use trace_format::text::InFlight;
use trace_format::LogReader;

pub fn run(args: &Args, log: &Path) -> u8 {
    let reader = match LogReader::open(log) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("trace replay: {}: {e}", log.display());
            return exit::TROUBLE;
        }
    };
    let (model, report) = trace_causal::build_and_validate(&reader);
    crate::report::print_warnings("replay", log, model.warnings());
    let past = match &args.until {
        None => None,
        Some(spec) => match trace_causal::resolve(&model, spec) {
            Ok(e) => Some((spec, model.causal_past(e))),
            Err(e) => {
                eprintln!("trace replay: {}: --until {e}", log.display());
                return exit::TROUBLE;
            }
        },
    };
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
    let status = if report.is_consistent() {
        exit::OK
    } else {
        exit::DIFFERENT
    };
    crate::report::unless_damaged("replay", log, model.warnings(), status)
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
    let json = args.json;
    if !args.summary {
        let mut failed: Option<io::Error> = None;
        let header = reader.header();
        let mut in_flight = InFlight::default();
        let steps =
            trace_causal::for_each_step(model, reader, past.map(|(_, p)| p.as_limits()), |step| {
                let taken = in_flight.note(&step.as_event_ref());
                let line = if json {
                    render::step_json(&n, header, step, taken.as_deref())
                } else {
                    render::step_line(&n, header, step, taken.as_deref())
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
    // Only the lines shown are rendered: a large log leaves tens of
    // thousands of signals never received, and naming each costs more
    // than the rest of the report.
    let mut section = |title: &str, n: usize, line: &dyn Fn(usize) -> String| -> io::Result<()> {
        if n == 0 {
            return Ok(());
        }
        writeln!(out, "{title} ({n}):")?;
        for i in 0..n.min(limit) {
            writeln!(out, "  {}", line(i))?;
        }
        if n > limit {
            writeln!(
                out,
                "  ... and {} more (--all lists them, --json too)",
                n - limit
            )?;
        }
        Ok(())
    };
    section("inconsistent", report.inconsistencies.len(), &|i| {
        render::inconsistency(&n, &report.inconsistencies[i])
    })?;
    section("stuck behind a cycle", report.behind_cycles.len(), &|i| {
        n.label(report.behind_cycles[i]).to_string()
    })?;
    section(
        "overtaken by a later message of the same sender (not counted: timers do this)",
        report.overtaken.len(),
        &|i| render::overtaken_message(&n, &report.overtaken[i]),
    )?;
    section("not checkable", report.unverifiable.len(), &|i| {
        render::unverifiable(&n, &report.unverifiable[i])
    })?;
    section("never received", report.unreceived.len(), &|i| {
        render::unreceived(&n, &report.unreceived[i])
    })?;
    section("never exited", report.never_exited.len(), &|i| {
        render::never_exited(&n, report.never_exited[i])
    })?;
    if report.to_foreign > 0 {
        writeln!(out, "sent to pids outside this log: {}", report.to_foreign)?;
    }
    writeln!(out, "{}", render::verdict(report))
}
