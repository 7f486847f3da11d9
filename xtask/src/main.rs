//! Project tasks: `cargo xtask bench`, `cargo xtask conformance`,
//! `cargo xtask fixtures`.
//!
//! Benchmarks compare the engine with the real Erlang VM (`erl`) or with a
//! baseline in the same run and print both figures and the ratio.

mod bench;

use std::process::ExitCode;

fn usage() -> ExitCode {
    eprintln!(
        "usage: cargo xtask <task> [args]\n\n\
         tasks:\n  \
         bench [GROUP...]   run benchmarks (groups: {})\n  \
         conformance        run every fixture on erl and on the engine, report mismatches\n  \
         fixtures           regenerate fixtures' expected outputs with erl",
        bench::GROUPS.join(", ")
    );
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("bench") => bench::main(&args[1..]),
        _ => usage(),
    }
}
