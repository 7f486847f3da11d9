//! `trace dump`: a log's events as text, one per line.

use crate::exit;
use clap::Args as ClapArgs;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use trace_capture::{Names, ProcRef};
use trace_format::text::{InFlight, Printer};
use trace_format::{LogReader, ProcId};

#[derive(ClapArgs)]
#[command(after_help = "\
Each line is one event: the process (symbolic name and raw pid), the event's index
in that process's log, the time when the log has timestamps, the kind, and its
details. A message or signal is named S:K, the K-th signal sent by process S, as
every trace command names it (docs/events.md): P.1#3 and send(P.1:4) can be pasted
into `trace replay --until`. Processes are printed one after another, each in
program order (a log has no global order). Payloads and reasons print as ~p prints
them, on one line; a receive shows the message it took (from its send's payload).

A log cut short (the run was killed) is read up to its last intact block; what
was lost is reported on stderr, with byte offsets. A damaged log (a checksum or
structure failure between intact blocks) is printed as far as each process goes,
each skipped part named on stderr, and the exit status is 2. The format: docs/format.md.

Examples:
  trace dump run.trace
  trace dump run.trace --process P.1
  trace dump run.trace --process '<0.81.0>' --json | jq .kind")]
pub struct Args {
    /// The log to read
    pub log: PathBuf,
    /// Only this process: a symbolic name (P.1) or a raw pid (<0.83.0>)
    #[arg(long, short = 'p', value_name = "P")]
    pub process: Option<ProcRef>,
    /// One JSON object per line instead of text
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> u8 {
    let reader = match LogReader::open(&args.log) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("trace dump: {}: {e}", args.log.display());
            return exit::TROUBLE;
        }
    };
    crate::report::print_warnings("dump", &args.log, reader.warnings());
    let names = Names::of_table(reader.processes());
    let ids: Vec<ProcId> = match &args.process {
        Some(p) => match names.resolve(p) {
            Ok(id) => vec![id],
            Err(e) => {
                eprintln!("trace dump: {}: {e}", args.log.display());
                return exit::TROUBLE;
            }
        },
        None => reader.processes().iter().map(|p| p.id).collect(),
    };
    let printer = Printer {
        header: reader.header(),
        names: &names,
    };
    let mut in_flight = sent_payloads(&reader);
    let mut out = BufWriter::new(io::stdout().lock());
    let mut status = exit::OK;
    for id in ids {
        let mut write_err: Option<io::Error> = None;
        let r = reader.for_each_event_of(id, |index, time, e| {
            if write_err.is_some() {
                return;
            }
            let taken = in_flight.taken(&e);
            let line = if args.json {
                printer.json_taking(id, index, time, &e, taken.as_deref())
            } else {
                printer.line_taking(id, index, time, &e, taken.as_deref())
            };
            if let Err(e) = writeln!(out, "{line}") {
                write_err = Some(e);
            }
        });
        if let Some(e) = write_err {
            // `trace dump | head` closes the pipe early: that is not trouble.
            return if e.kind() == io::ErrorKind::BrokenPipe {
                exit::OK
            } else {
                eprintln!("trace dump: {e}");
                exit::TROUBLE
            };
        }
        if let Err(e) = r {
            let _ = out.flush();
            eprintln!(
                "trace dump: {}: damaged: process {}: {e}; the rest of its log is skipped",
                args.log.display(),
                names.label(id)
            );
            status = exit::TROUBLE;
        }
    }
    if let Err(e) = out.flush() {
        if e.kind() != io::ErrorKind::BrokenPipe {
            eprintln!("trace dump: {e}");
            return exit::TROUBLE;
        }
    }
    crate::report::unless_damaged("dump", &args.log, reader.warnings(), status)
}

/// The payloads of the log's sends, so that a receive can show the message
/// it took although processes are printed one after another. (A part that
/// cannot be read is reported by the printing pass.)
fn sent_payloads(reader: &LogReader) -> InFlight {
    let mut in_flight = InFlight::default();
    for p in reader.processes() {
        let _ = reader.for_each_event_of(p.id, |_, _, e| in_flight.sent(&e));
    }
    in_flight
}
