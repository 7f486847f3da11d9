//! `trace export`: a trace log in another tool's format.

use crate::exit;
use clap::Args as ClapArgs;
use std::path::PathBuf;
use trace_format::{cauder, LogReader};

#[derive(ClapArgs)]
#[command(after_help = "\
CauDEr (v3) logs hold spawns, sends and receives; every other event (deliveries,
timeouts, signals, results of built-ins, output, exits) is left out and counted,
and so are receives of 'EXIT'/'DOWN' messages (CauDEr has no send for a signal).
CauDEr names a message by one uid: message S:K becomes base(S) + K, base(S) being
the number of events of the processes before S.

Examples:
  trace export --cauder barber-cauder run.trace")]
pub struct Args {
    /// Write a CauDEr log directory here (created if needed; one already holding a CauDEr log is refused)
    #[arg(long, value_name = "DIR", required = true)]
    pub cauder: PathBuf,
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
    crate::report::print_warnings("export", &args.log, reader.warnings());
    match cauder::export(&reader, &args.cauder) {
        Ok(r) => {
            crate::out::outln!(
                "exported {} processes, {} events -> {}",
                r.processes,
                r.written,
                args.cauder.display()
            );
            for (kind, n) in &r.dropped {
                crate::out::outln!("  left out: {n} {kind} events");
            }
            for n in &r.notes {
                crate::out::outln!("  note: {n}");
            }
            crate::report::unless_damaged("export", &args.log, reader.warnings(), exit::OK)
        }
        Err(e) => {
            eprintln!("trace export: {e}");
            exit::TROUBLE
        }
    }
}
