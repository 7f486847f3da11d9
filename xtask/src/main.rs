//! Project tasks: `cargo xtask bench`, `cargo xtask conformance`,
//! `cargo xtask fixtures`, `cargo xtask fuzz`, `cargo xtask layers`,
//! `cargo xtask shapes`, `cargo xtask view`.
//!
//! Benchmarks compare the engine with the real Erlang VM (`erl`) or with a
//! baseline in the same run and print both figures and the ratio.
//! Conformance runs every fixture on both and reports mismatches; `fixtures`
//! writes erl's outputs beside the fixtures as their expectations; `shapes`
//! compares the prelude's data structures with OTP's on random operations.
//! Fuzz runs the release binary on hostile input for a bounded time.

mod bench;
mod conformance;
mod erl;
mod fixtures;
mod fuzz;
mod layers;
mod shapes;
mod view;

use std::process::ExitCode;

fn usage() -> ExitCode {
    eprintln!(
        "usage: cargo xtask <task> [args]\n\n\
         tasks:\n  \
         bench [GROUP...]          run benchmarks (groups: {})\n  \
         conformance [FILTER...]   run fixtures on erl and on the engine, report mismatches\n  \
         fixtures [FILTER...]      write erl's outputs beside the fixtures as expectations\n  \
         {}\n                           \
         run the release binary on hostile logs, sources, specifications, CauDEr\n  \
         layers                    check that every dependency between crates goes down a layer\n  \
         shapes [MODULE...] [--steps N]  the prelude's data structures against OTP's on random operations\n  \
         view [--screenshot FILE]  the pages of trace view, check --html and diff --html in headless Chromium; the exports",
        bench::GROUPS.join(", "),
        fuzz::USAGE
    );
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("bench") => bench::main(&args[1..]),
        Some("conformance") => conformance::main(&args[1..]),
        Some("fixtures") => fixtures::main(&args[1..]),
        Some("fuzz") => fuzz::main(&args[1..]),
        Some("layers") => layers::main(&args[1..]),
        Some("shapes") => shapes::main(&args[1..]),
        Some("view") => view::main(&args[1..]),
        _ => usage(),
    }
}
