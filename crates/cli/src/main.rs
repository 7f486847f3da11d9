//! `trace`: record, replay, diff and check concurrent Erlang programs.
//!
//! This binary parses arguments, wires the library crates together and prints
//! their results. It computes nothing itself: each subcommand lives in
//! [`cmd`] and calls into the crate that owns the work.

mod cmd;
mod exit;
mod out;
mod report;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

// Erlang programs allocate and free small terms (list cells, tuples) all
// the time; mimalloc's per-thread free lists serve that far faster than the
// system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "trace",
    version,
    about = "Record, replay, diff and check concurrent Erlang programs",
    long_about = "Runs Erlang source on trace's own engine, records every nondeterministic \
choice of a run into a compact binary log, replays it deterministically or replays only \
the causes of one event, compares two runs up to causal equivalence, and checks a run \
against runtime-verification patterns.",
    after_help = "Exit status: see `trace help <command>`; 2 always means trouble \
(bad arguments, unreadable input)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run an Erlang program on the engine, without recording
    Run(cmd::run::Args),
    /// Run a program and record every nondeterministic choice into a log
    Record(cmd::record::Args),
    /// Replay a recorded run, or rebuild and check it from the log alone
    Replay(cmd::replay::Args),
    /// Explore every interleaving class of a program (DPOR) and report the failures
    Explore(cmd::explore::Args),
    /// Compare two runs up to causal equivalence
    Diff(cmd::diff::Args),
    /// Check a run against runtime-verification properties
    Check(cmd::check::Args),
    /// Walk a run forwards and backwards: step, roll back, look at processes
    Debug(cmd::debug::Args),
    /// Find the buggy function or receive of a recorded run by answering questions about its steps
    Why(cmd::why::Args),
    /// Print a log's events, one per line
    Dump(cmd::dump::Args),
    /// Print figures about a log
    Stats(cmd::stats::Args),
    /// Convert another tool's log into a trace log
    Import(cmd::import::Args),
    /// Convert a trace log into another tool's format (CauDEr, Perfetto, ShiViz, CSV)
    Export(cmd::export::Args),
    /// Draw a run's space-time diagram as one HTML page
    View(cmd::view::Args),
}

/// Stack of the thread a command runs on. Printing a result or a crash
/// report walks the term by recursion, and a program may build terms nested
/// a million deep; the stack is address space, used only as deep as needed.
const COMMAND_STACK: usize = 1 << 30;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let command = move || run(cli.command);
    let code = match std::thread::Builder::new()
        .name("trace".into())
        .stack_size(COMMAND_STACK)
        .spawn(command)
    {
        Ok(h) => h
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
        // No thread to be had (address space limited by ulimit -v, say):
        // the main thread's stack does for all but very deep terms.
        Err(_) => return ExitCode::from(run(Cli::parse().command)),
    };
    ExitCode::from(code)
}

fn run(command: Command) -> u8 {
    match command {
        Command::Run(a) => cmd::run::run(a),
        Command::Record(a) => cmd::record::run(a),
        Command::Replay(a) => cmd::replay::run(a),
        Command::Explore(a) => cmd::explore::run(a),
        Command::Diff(a) => cmd::diff::run(a),
        Command::Check(a) => cmd::check::run(a),
        Command::Debug(a) => cmd::debug::run(a),
        Command::Why(a) => cmd::why::run(a),
        Command::Dump(a) => cmd::dump::run(a),
        Command::Stats(a) => cmd::stats::run(a),
        Command::Import(a) => cmd::import::run(a),
        Command::Export(a) => cmd::export::run(a),
        Command::View(a) => cmd::view::run(a),
    }
}
