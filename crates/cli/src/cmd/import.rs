//! `trace import`: another tool's log as a trace log.

use crate::exit;
use clap::Args as ClapArgs;
use std::path::PathBuf;
use trace_format::cauder;

#[derive(ClapArgs)]
#[command(after_help = "\
CauDEr logs (all three generations: v1 `{74,spawn,78}` lines, v2 `{send,3}.`, v3
`{trace_send,3}.`) name messages by uids and record no destinations; the trace log
names each message by its sender and the sender's send index, destination unknown.

Examples:
  trace import --cauder case-studies/barber/trace -o barber.trace
  trace dump barber.trace")]
pub struct Args {
    /// A CauDEr log directory (trace_result.log and trace_N.log files)
    #[arg(long, value_name = "DIR", required = true)]
    pub cauder: PathBuf,
    /// The trace log to write
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
}

pub fn run(args: Args) -> u8 {
    match cauder::import(&args.cauder, &args.output) {
        Ok(r) => {
            for w in &r.warnings {
                eprintln!("trace import: warning: {w}");
            }
            crate::out::outln!(
                "imported a CauDEr {} log: {} processes, {} events -> {}",
                r.generation,
                r.processes,
                r.events,
                args.output.display()
            );
            for (what, n) in &r.dropped {
                crate::out::outln!("  left out: {n} {what}");
            }
            exit::OK
        }
        Err(e) => {
            eprintln!("trace import: {e}");
            exit::TROUBLE
        }
    }
}
