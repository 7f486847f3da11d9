//! `trace export`: a trace log in another tool's format: CauDEr's log
//! directories (trace-format), Perfetto's JSON, ShiViz's log and CSV
//! (trace-view).

use crate::exit;
use clap::Args as ClapArgs;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use trace_causal::Model;
use trace_format::{cauder, LogReader};
use trace_view::export::{self, ExportError, Written};

#[derive(ClapArgs)]
#[command(group(clap::ArgGroup::new("format").required(true).args(["cauder", "perfetto", "shiviz", "csv"])))]
#[command(after_help = "\
--perfetto writes Chrome's trace-event JSON, which ui.perfetto.dev and
chrome://tracing open: a track per process (and per shared object), a slice per
event (the text trace dump prints; its EVENT name and recorded time among the
arguments), a flow arrow per message or signal received and per spawn. Time is
the diagram's row (a Lamport clock: every arrow points forward), 10 us a row.

--shiviz writes ShiViz's log: per event, its process, its text and its vector
clock; the parser regular expression to give ShiViz is printed. --csv writes
one row per event: step, process, pid, index, kind, event, row, time_ns, cause,
vector_clock. Vector clocks count, per process, the events of the causal past
(the event included), as trace replay --until counts them. Events come in a
derivation: an order that respects happened-before. A FILE of - is standard
output.

CauDEr (v3) logs hold spawns, sends and receives; every other event (deliveries,
timeouts, signals, results of built-ins, output, exits) is left out and counted,
and so are receives of 'EXIT'/'DOWN' messages (CauDEr has no send for a signal).
CauDEr names a message by one uid: message S:K becomes base(S) + K, base(S) being
the number of events of the processes before S.

Examples:
  trace export --perfetto run.json run.trace
  trace export --shiviz run.log run.trace
  trace export --csv - run.trace | head
  trace export --cauder barber-cauder run.trace")]
pub struct Args {
    /// Write a CauDEr log directory here (created if needed; one already holding a CauDEr log is refused)
    #[arg(long, value_name = "DIR")]
    pub cauder: Option<PathBuf>,
    /// Write Chrome/Perfetto trace-event JSON here
    #[arg(long, value_name = "FILE")]
    pub perfetto: Option<PathBuf>,
    /// Write a ShiViz log here (and print its parser regex)
    #[arg(long, value_name = "FILE")]
    pub shiviz: Option<PathBuf>,
    /// Write one CSV row per event, with its vector clock, here
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// The trace log to read
    pub log: PathBuf,
}

pub fn run(args: Args) -> u8 {
    let reader = match LogReader::open(&args.log) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("trace export: {}: {e}", args.log.display());
            return exit::TROUBLE;
        }
    };
    let (status, warnings) = match &args.cauder {
        Some(dir) => {
            crate::report::print_warnings("export", &args.log, reader.warnings());
            (to_cauder(&reader, dir), reader.warnings().to_vec())
        }
        None => {
            // Building the model decodes every block: it meets damage the
            // opening did not.
            let model = Model::build(&reader);
            crate::report::print_warnings("export", &args.log, model.warnings());
            (to_format(&args, &model, &reader), model.warnings().to_vec())
        }
    };
    crate::report::unless_damaged("export", &args.log, &warnings, status)
}

/// `--perfetto`, `--shiviz` or `--csv`: writes the file and says what it holds.
fn to_format(args: &Args, model: &Model, reader: &LogReader) -> u8 {
    type Writer = fn(&Model, &LogReader, &mut dyn Write) -> Result<Written, ExportError>;
    let (out, what, write): (&Path, &str, Writer) = match (&args.perfetto, &args.shiviz, &args.csv)
    {
        (Some(p), _, _) => (p, "Perfetto trace", |m, r, o| {
            export::perfetto::write(m, r, o)
        }),
        (_, Some(p), _) => (p, "ShiViz log", |m, r, o| export::shiviz::write(m, r, o)),
        (_, _, Some(p)) => (p, "CSV", |m, r, o| export::csv::write(m, r, o)),
        _ => unreachable!("clap requires one format"),
    };
    let to_stdout = out == Path::new("-");
    if !to_stdout && super::same_file(out, &args.log) {
        eprintln!(
            "trace export: {}: is the log; choose another output",
            out.display()
        );
        return exit::TROUBLE;
    }
    let written = if to_stdout {
        let mut w = BufWriter::new(io::stdout().lock());
        write(model, reader, &mut w).and_then(|n| w.flush().map(|_| n).map_err(ExportError::Io))
    } else {
        match File::create(out) {
            Ok(f) => {
                let mut w = BufWriter::new(f);
                write(model, reader, &mut w)
                    .and_then(|n| w.flush().map(|_| n).map_err(ExportError::Io))
            }
            Err(e) => {
                eprintln!("trace export: {}: {e}", out.display());
                return exit::TROUBLE;
            }
        }
    };
    match written {
        Ok(n) => {
            // On stdout the data is the output: the summary goes to stderr.
            let say = |s: String| {
                if to_stdout {
                    eprintln!("{s}")
                } else {
                    crate::out::outln!("{s}")
                }
            };
            say(format!(
                "exported {} processes, {} events, {} arrows -> {} ({what})",
                n.processes,
                n.events,
                n.arrows,
                out.display()
            ));
            if n.left_out > 0 {
                say(format!(
                    "  left out: {} events a happened-before cycle keeps out of any derivation",
                    n.left_out
                ));
            }
            if args.shiviz.is_some() {
                say(format!("  ShiViz parser regex: {}", export::shiviz::REGEX));
            }
            exit::OK
        }
        Err(ExportError::Io(e)) if e.kind() == io::ErrorKind::BrokenPipe => exit::OK,
        Err(e) => {
            eprintln!("trace export: {}: {e}", out.display());
            exit::TROUBLE
        }
    }
}

fn to_cauder(reader: &LogReader, dir: &Path) -> u8 {
    match cauder::export(reader, dir) {
        Ok(r) => {
            crate::out::outln!(
                "exported {} processes, {} events -> {}",
                r.processes,
                r.written,
                dir.display()
            );
            for (kind, n) in &r.dropped {
                crate::out::outln!("  left out: {n} {kind} events");
            }
            for n in &r.notes {
                crate::out::outln!("  note: {n}");
            }
            exit::OK
        }
        Err(e) => {
            eprintln!("trace export: {e}");
            exit::TROUBLE
        }
    }
}
