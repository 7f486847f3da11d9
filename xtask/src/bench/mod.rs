//! `cargo xtask bench`: one harness, one group per area; each group prints a
//! table with our figure, the baseline's figure (erl or a reference
//! computation) measured in the same run, and the ratio.

use std::process::ExitCode;

/// Benchmark groups, in the order `cargo xtask bench` runs them.
pub const GROUPS: &[&str] = &[];

pub fn main(args: &[String]) -> ExitCode {
    let selected: Vec<&str> = if args.is_empty() {
        GROUPS.to_vec()
    } else {
        args.iter().map(String::as_str).collect()
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
    ExitCode::SUCCESS
}
