//! `cargo xtask bench`: one harness, one group per area; each group prints a
//! table with our figure, the baseline's figure (erl or a reference
//! computation) measured in the same run, and the ratio.
//!
//! A group is a file in this directory with a `pub fn run(ctx: &Ctx) ->
//! Result<(), String>`, listed in [`GROUPS`] and dispatched in [`run_group`].

mod causal;
mod check;
mod conc;
mod debug;
mod diff;
mod explore;
mod heap;
mod log;
mod log_baselines;
mod otp;
mod programs;
mod record;
mod scaling;
mod seq;
pub mod synth;
mod table;
mod vm_tracing;

use std::path::PathBuf;
use std::process::ExitCode;

/// Benchmark groups, in the order `cargo xtask bench` runs them.
pub const GROUPS: &[&str] = &[
    "seq", "conc", "otp", "record", "log", "causal", "diff", "check", "scaling", "debug", "explore",
];

/// What every group gets: the release `trace` binary and whether erl is here.
pub struct Ctx {
    pub trace: PathBuf,
    pub erl: bool,
    /// `--quick`: smaller sizes, for a smoke run of the harness.
    pub quick: bool,
}

/// Thread counts for the groups that read a log on several threads: 1 and 2,
/// then doubling up to the machine's cores (so a many-core machine shows the
/// scaling, and this 2-core one stays at 1 and 2).
pub fn thread_counts() -> Vec<usize> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut counts = vec![1, 2];
    let mut n = 4;
    while n <= cores {
        counts.push(n);
        n *= 2;
    }
    if cores > 2 && !counts.contains(&cores) {
        counts.push(cores);
    }
    counts
}

fn run_group(name: &str, ctx: &Ctx) -> Result<(), String> {
    match name {
        "seq" => seq::run(ctx),
        "conc" => conc::run(ctx),
        "otp" => otp::run(ctx),
        "record" => record::run(ctx),
        "log" => log::run(ctx),
        "causal" => causal::run(ctx),
        "diff" => diff::run(ctx),
        "check" => check::run(ctx),
        "scaling" => scaling::run(ctx),
        "debug" => debug::run(ctx),
        "explore" => explore::run(ctx),
        _ => Err(format!("no runner for group {name}")),
    }
}

pub fn main(args: &[String]) -> ExitCode {
    let quick = args.iter().any(|a| a == "--quick");
    let selected: Vec<&str> = {
        let named: Vec<&str> = args
            .iter()
            .map(String::as_str)
            .filter(|a| !a.starts_with("--"))
            .collect();
        if named.is_empty() {
            GROUPS.to_vec()
        } else {
            named
        }
    };
    for g in &selected {
        if !GROUPS.contains(g) {
            eprintln!(
                "unknown benchmark group {g:?}; groups: {}",
                GROUPS.join(", ")
            );
            return ExitCode::from(2);
        }
    }
    // `TRACE_BIN=PATH` benches a `trace` built elsewhere (see `trace_binary`).
    let built = crate::erl::trace_binary();
    let trace = match built {
        Ok(t) => t,
        Err(e) => {
            eprintln!("bench: {e}");
            return ExitCode::from(2);
        }
    };
    let ctx = Ctx {
        trace,
        erl: crate::erl::available(),
        quick,
    };
    if !ctx.erl {
        eprintln!(
            "bench: erl not found; the erl columns stay empty (Debian: apt-get install erlang-nox)"
        );
    }
    let mut failed = false;
    for g in selected {
        println!("== {g}");
        if let Err(e) = run_group(g, &ctx) {
            eprintln!("bench {g}: {e}");
            failed = true;
        }
        println!();
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
