//! Group `seq`: the sequential language on erl and on the engine.

use super::programs;
use super::table::{ratio, secs, Table};

/// Programs of the group, with what each exercises.
const PROGRAMS: &[(&str, &str)] = &[
    ("fib", "naive fib(30): calls and small integers"),
    (
        "lists_sort",
        "sorts and comprehensions over 200k integers: lists BIFs, cons cells, funs",
    ),
    (
        "bignum",
        "factorial, Fibonacci and powers with thousands of digits; printing them",
    ),
    (
        "maps_bench",
        "a 100k-key map built, read and updated; update_with, fold, merge",
    ),
    (
        "format_bench",
        "io_lib:format ~p/~w/~s/~b/~f of 20k terms; string tokens/split/trim",
    ),
    (
        "binaries_bench",
        "a binary built by 200k appends and matched back; comprehensions; ETF",
    ),
    (
        "floats_bench",
        "n-body steps and a Mandelbrot count: float arithmetic and tuples",
    ),
    (
        "body_recursion",
        "map, length and sum written body-recursively over 1M elements: deep stacks",
    ),
];

pub fn run(ctx: &super::Ctx) -> Result<(), String> {
    let runs = if ctx.quick { 1 } else { 3 };
    let mut t = Table::new(&["benchmark", "erl", "trace", "trace/erl", "what"]);
    let mut problems = Vec::new();
    for (name, what) in PROGRAMS {
        let r = programs::time(ctx, name, runs, &[]);
        if let Some(p) = r.problem {
            problems.push(format!("{name}: {p}"));
        }
        t.row(vec![
            name.to_string(),
            secs(r.erl),
            secs(r.trace),
            ratio(r.trace, r.erl),
            what.to_string(),
        ]);
    }
    t.print();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}
