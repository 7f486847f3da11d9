//! `trace stats`: figures about a log.

use crate::exit;
use clap::Args as ClapArgs;
use std::path::PathBuf;
use trace_format::stats;
use trace_format::EventKind;
use trace_format::{LogReader, RunEnd};

#[derive(ClapArgs)]
#[command(after_help = "\
Prints the processes, the events by kind, payload bytes, bytes per event with and
without payloads, the compression ratio (encoded block bytes per stored byte) and
the run's duration. \"without payloads\" is measured by re-encoding every block
without message payloads, exit reasons and output bytes (results of
nondeterministic built-ins stay).

Examples:
  trace stats run.trace")]
pub struct Args {
    /// The log to read
    pub log: PathBuf,
}

pub fn run(args: Args) -> u8 {
    let name = args.log.display();
    let reader = match LogReader::open(&args.log) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("trace stats: {name}: {e}");
            return exit::TROUBLE;
        }
    };
    crate::report::print_warnings("stats", &args.log, reader.warnings());
    // At the writer's level, so that the two sizes compare.
    let level = trace_format::WriterOptions::default().zstd_level;
    let s = match stats::compute(&reader, level) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("trace stats: {name}: damaged: {e}");
            return exit::TROUBLE;
        }
    };
    let h = reader.header();
    let ended = match reader.outcome() {
        Some((o, _)) => match o.end {
            RunEnd::Completed => "completed",
            RunEnd::Interrupted => "interrupted",
            RunEnd::RecorderCrashed => "recorder crashed",
            RunEnd::Limited => "cut at a limit (--time-limit, --max-events)",
            RunEnd::Halted => "halted (erlang:halt, or its entry ended under --halt)",
        },
        None => "not finished (recovered by scanning)",
    };
    crate::out::outln!(
        "log              {name}: {} bytes, {} blocks holding {} process segments; run {ended}",
        s.file_bytes,
        s.records,
        s.blocks
    );
    crate::out::outln!("entry            {} on {}", h.entry, h.node);
    crate::out::outln!("processes        {}", s.processes);
    crate::out::outln!("events           {}", s.events);
    for (k, n) in EventKind::ALL.iter().zip(s.by_kind) {
        if n > 0 {
            crate::out::outln!("  {k:<14} {n}");
        }
    }
    crate::out::outln!(
        "payload bytes    {} ({:.2} per event); nondet results {} bytes",
        s.payload_bytes,
        per(s.payload_bytes, s.events),
        s.nondet_bytes
    );
    crate::out::outln!(
        "bytes per event  {:.3} with payloads, {:.3} without payloads",
        s.bytes_per_event(),
        s.bytes_per_event_without_payloads()
    );
    crate::out::outln!(
        "compression      {:.2}x (blocks: {} bytes encoded, {} stored)",
        s.compression_ratio(),
        s.raw_bytes,
        s.stored_bytes
    );
    match s.duration_ns {
        Some(d) => crate::out::outln!("duration         {:.6} s", d as f64 / 1e9),
        None => crate::out::outln!("duration         unknown"),
    }
    crate::report::unless_damaged("stats", &args.log, reader.warnings(), exit::OK)
}

fn per(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}
