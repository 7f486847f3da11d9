//! Group `conc`: processes, messages, shared ETS tables and schedulers on
//! erl and on the engine, plus what the hooks cost and how the scheduler
//! threads scale.
//!
//! Three tables:
//! 1. each program on erl and on the engine (best of the runs), with peak
//!    memory;
//! 2. the engine plain (`trace run`, native hooks) and with an Observer that
//!    receives every event and drops it (`--discarding-observer`);
//! 3. a CPU-bound program on one scheduler thread and on all of them, with
//!    the CPU time over the wall time (how many threads were busy at once:
//!    on a machine shared with other work it shows parallelism even when the
//!    speedup cannot).

use super::programs::{self, measure, Bench, Spec};
use super::table::{ratio, secs, Table};

const PROGRAMS: &[Bench] = &[
    Bench {
        name: "ring",
        args: "1000, 2000",
        quick: "100, 200",
        what: "ring of 1,000 processes, token passed 2,000 laps (2M messages)",
    },
    Bench {
        name: "pingpong",
        args: "500000, 100",
        quick: "20000, 100",
        what: "500k request/replies, a fresh ref each, selective receive on it past 100 other messages",
    },
    Bench {
        name: "spawn_many",
        args: "200000",
        quick: "10000",
        what: "200k short processes: spawn, send one message, end",
    },
    Bench {
        name: "selective",
        args: "5000",
        quick: "1000",
        what: "5,000 messages taken newest first (12.5M match attempts)",
    },
    Bench {
        name: "ets_shared",
        args: "1000000",
        quick: "50000",
        what: "4 processes, 1M operations on one public ETS table (update_counter, lookup, insert)",
    },
    Bench {
        name: "idle",
        args: "1000000",
        quick: "20000",
        what: "1M processes alive at once, each waiting in receive",
    },
];

/// Programs whose hook cost is measured (message- and table-heavy ones).
const HOOKED: &[&str] = &["ring", "pingpong", "spawn_many", "ets_shared"];

pub fn run(ctx: &super::Ctx) -> Result<(), String> {
    let runs = if ctx.quick { 1 } else { 3 };
    let mut problems = Vec::new();
    if ctx.quick {
        println!("(--quick: smaller sizes than the descriptions say, one run each)");
    }

    let (t, found) = programs::beside_erl(ctx, PROGRAMS, runs, false);
    problems.extend(found);
    t.print();
    println!();

    let mut h = Table::new(&[
        "benchmark",
        "trace run",
        "discarding observer",
        "observed/plain",
    ]);
    for b in PROGRAMS.iter().filter(|b| HOOKED.contains(&b.name)) {
        let args = if ctx.quick { b.quick } else { b.args };
        // Alternate the two, so that a change in the machine's load hits both.
        let (mut plain, mut observed): (Option<f64>, Option<f64>) = (None, None);
        for _ in 0..runs + 2 {
            for (flags, best) in [
                (&[][..], &mut plain),
                (&["--discarding-observer"][..], &mut observed),
            ] {
                let r = measure(ctx, spec(b.name, args, flags), 1, false, true);
                if let Some(p) = r.problem {
                    problems.push(format!("{} (hooks): {p}", b.name));
                }
                if let Some(s) = r.trace {
                    *best = Some(best.map_or(s, |x| x.min(s)));
                }
            }
        }
        h.row(vec![
            b.name.to_string(),
            secs(plain),
            secs(observed),
            ratio(observed, plain),
        ]);
    }
    h.print();
    println!();

    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let all = cores.to_string();
    let args = if ctx.quick { "4, 24" } else { "8, 30" };
    let mut s = Table::new(&[
        "parallel: 8 processes x fib(30)",
        "1 thread",
        "all",
        "speedup",
        "CPU/wall (all)",
    ]);
    let one_t = measure(
        ctx,
        spec("parallel", args, &["--schedulers", "1"]),
        runs,
        false,
        true,
    );
    let all_t = measure(
        ctx,
        spec("parallel", args, &["--schedulers", &all]),
        runs,
        false,
        true,
    );
    s.row(vec![
        format!("trace (--schedulers 1 / {cores})"),
        secs(one_t.trace),
        secs(all_t.trace),
        ratio(one_t.trace, all_t.trace),
        ratio(all_t.trace_cpu, all_t.trace),
    ]);
    if ctx.erl {
        let s_all = format!("{cores}:{cores}");
        let one_e = measure(
            ctx,
            erl_spec("parallel", args, &["+S", "1:1"]),
            runs,
            true,
            false,
        );
        let all_e = measure(
            ctx,
            erl_spec("parallel", args, &["+S", &s_all]),
            runs,
            true,
            false,
        );
        s.row(vec![
            format!("erl (+S 1 / {cores})"),
            secs(one_e.erl),
            secs(all_e.erl),
            ratio(one_e.erl, all_e.erl),
            "-".into(),
        ]);
        for p in [one_e.problem, all_e.problem].into_iter().flatten() {
            problems.push(format!("parallel (erl): {p}"));
        }
    }
    for p in [one_t.problem, all_t.problem].into_iter().flatten() {
        problems.push(format!("parallel: {p}"));
    }
    s.print();

    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

fn spec<'a>(name: &'a str, args: &'a str, trace_flags: &'a [&'a str]) -> Spec<'a> {
    Spec {
        name,
        args,
        trace_flags,
        erl_flags: &[],
    }
}

fn erl_spec<'a>(name: &'a str, args: &'a str, erl_flags: &'a [&'a str]) -> Spec<'a> {
    Spec {
        name,
        args,
        trace_flags: &[],
        erl_flags,
    }
}
