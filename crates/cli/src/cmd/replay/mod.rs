//! `trace replay`: with the program, re-execute a recorded run forcing every
//! logged choice (trace-replayer); from the log alone, rebuild a derivation
//! and check the log's causal consistency (trace-causal). The `.erl` files
//! given before the log select the first mode.

mod log_only;
mod program;

use crate::exit;
use clap::Args as ClapArgs;
use std::path::PathBuf;
use trace_capture::EventSpec;

#[derive(ClapArgs)]
#[command(after_help = "\
With the program (.erl files before the log), trace replay re-executes the
recorded run on the engine and forces every choice the log holds: which message
each receive takes, each timeout, where each signal lands, spawned pids, the
results of time, random and registry built-ins, and the order of writes to
standard output. The program prints the same output, byte for byte, and ends
the same way (exit reasons, crash reports, deadlock), on any number of scheduler
threads. A log recorded from other sources is refused unless --force. When the
run departs from the log, the replay stops there and says where (process, event,
what the log has, what the run did, source line); a replay where no process can
go on while the log has events left says which events cannot happen.
With --until EVENT it replays all and only the causes of EVENT, then holds every
process and shows which took part and where EVENT's process stands (function,
line, mailbox).

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
never exited are listed. The verdict is the last line. --until EVENT rebuilds
only the causal past of EVENT.

Events are named as in docs/events.md: P.2#5 (event 5 of P.2, from 0), send(P.1:0),
receive(P.1:0), deliver(P.1:0), taken(P.1:0), spawn(P.2), exit(P.2). Processes are
symbolic names (P.2.1 is the 1st child of the 2nd child of the entry process P)
or raw pids (<0.83.0>).

Examples:
  trace replay prog.erl run.trace
  trace replay server.erl client.erl run.trace --schedulers 1
  trace replay prog.erl run.trace --until 'receive(P.1:3)'
  trace replay run.trace
  trace replay run.trace --summary
  trace replay run.trace --json | jq 'select(.type == \"verdict\")'

Exit status, with the program: the replayed run's own (0 ok, 1 the entry crashed,
5 deadlock), 0 for a replay stopped by --until, 6 the run departed from the log or
could not follow it to its end. From the log alone: 0 the log is consistent; 1 it
is inconsistent. Always 2 for trouble (an unreadable or damaged log, bad arguments,
an EVENT that names nothing), 3/4 for a program that does not compile or is not
supported.")]
pub struct Args {
    /// The log; program source files before it select replay with the program
    #[arg(required = true, value_name = "[FILE.erl ...] LOG")]
    pub paths: Vec<PathBuf>,
    /// With the program: replay even if the sources are not the ones recorded
    #[arg(long)]
    pub force: bool,
    /// With the program: scheduler threads (default: the number of cores)
    #[arg(long, value_name = "N", value_parser = crate::cmd::thread_count)]
    pub schedulers: Option<usize>,
    /// With the program: extra directories searched by -include and -include_lib
    #[arg(short = 'I', long = "include", value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// From the log alone: the derivation and the findings as JSON, one object per line
    #[arg(long)]
    pub json: bool,
    /// From the log alone: print only the findings and the verdict, not the derivation
    #[arg(long)]
    pub summary: bool,
    /// Only the causal past of EVENT (all and only its causes)
    #[arg(long, value_name = "EVENT")]
    pub until: Option<EventSpec>,
    /// From the log alone: list every finding in text (by default at most 100 of each kind)
    #[arg(long)]
    pub all: bool,
    /// From the log alone: threads that decode and check the log (default: the number of cores)
    #[arg(long, value_name = "N", value_parser = crate::cmd::thread_count)]
    pub threads: Option<usize>,
}

/// Findings of each kind listed in text without --all.
pub(crate) const TEXT_LIMIT: usize = 100;

pub fn run(args: Args) -> u8 {
    let (log, sources) = args.paths.split_last().expect("clap requires a path");
    if crate::cmd::is_erl(log) {
        eprintln!(
            "trace replay: the last argument must be the log, not {}",
            log.display()
        );
        return exit::TROUBLE;
    }
    // An option of the other mode would be ignored without a word (a script
    // asking for JSON would read an empty stream): refuse it.
    let with_program = !sources.is_empty();
    let other_mode = if with_program {
        [
            (args.json, "--json"),
            (args.summary, "--summary"),
            (args.all, "--all"),
            (args.threads.is_some(), "--threads"),
        ]
    } else {
        [
            (args.force, "--force"),
            (args.schedulers.is_some(), "--schedulers"),
            (!args.include.is_empty(), "--include"),
            (false, ""),
        ]
    };
    if let Some((_, option)) = other_mode.iter().find(|(given, _)| *given) {
        eprintln!(
            "trace replay: {option} applies only {}",
            if with_program {
                "from the log alone (no .erl files before the log)"
            } else {
                "with the program (.erl files before the log)"
            }
        );
        return exit::TROUBLE;
    }
    if with_program {
        return program::run(&args, sources, log);
    }
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(n) = args.threads {
        pool = pool.num_threads(n);
    }
    match pool.build() {
        Ok(pool) => pool.install(|| log_only::run(&args, log)),
        Err(e) => {
            eprintln!("trace replay: cannot start threads: {e}");
            exit::TROUBLE
        }
    }
}
