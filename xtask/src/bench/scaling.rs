//! Group `scaling`: the same programs over `--schedulers 1, 2, ..., nproc`,
//! each time beside the one-scheduler time of the same run.
//!
//! Three programs: independent ping-pong pairs (no process talks across
//! pairs, so they should speed up with every thread), a ring with a single
//! token (only one process can run at a time, so more threads must not make
//! it slower), and compute-bound processes that never talk until the end. The runs alternate over the scheduler counts, so a change in
//! the machine's load hits every count alike; each keeps its best.

use super::programs::{measure, Bench, Spec};
use super::table::{ratio, secs, Table};

const PROGRAMS: &[Bench] = &[
    Bench {
        name: "pairs",
        args: "16, 200000",
        quick: "16, 10000",
        what: "16 independent ping-pong pairs, 200k round trips each (12.8M events)",
    },
    Bench {
        name: "ring",
        args: "1000, 2000",
        quick: "100, 200",
        what: "ring of 1,000 processes, one token, 2,000 laps (2M messages)",
    },
    Bench {
        name: "parallel",
        args: "32, 27",
        quick: "16, 20",
        what: "32 compute-bound processes, fib(27) each",
    },
];

pub fn run(ctx: &super::Ctx) -> Result<(), String> {
    let runs = if ctx.quick { 1 } else { 3 };
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let counts: Vec<String> = (1..=cores).map(|s| s.to_string()).collect();
    if ctx.quick {
        println!("(--quick: smaller sizes than the descriptions say, one run each)");
    }
    let mut problems = Vec::new();
    let mut t = Table::new(&[
        "benchmark",
        "schedulers",
        "trace",
        "1 scheduler/this",
        "CPU/wall",
        "what",
    ]);
    for b in PROGRAMS {
        let args = if ctx.quick { b.quick } else { b.args };
        let mut best: Vec<(Option<f64>, Option<f64>)> = vec![(None, None); cores];
        for _ in 0..runs {
            for (i, s) in counts.iter().enumerate() {
                let flags = ["--schedulers", s.as_str()];
                let spec = Spec {
                    name: b.name,
                    args,
                    trace_flags: &flags,
                    erl_flags: &[],
                };
                let r = measure(ctx, spec, 1, false, true);
                if let Some(p) = r.problem {
                    problems.push(format!("{} on {s} schedulers: {p}", b.name));
                }
                if let Some(w) = r.trace {
                    if best[i].0.is_none_or(|x| w < x) {
                        best[i] = (Some(w), r.trace_cpu);
                    }
                }
            }
        }
        for (i, (wall, cpu)) in best.iter().enumerate() {
            t.row(vec![
                b.name.to_string(),
                counts[i].clone(),
                secs(*wall),
                ratio(best[0].0, *wall),
                ratio(*cpu, *wall),
                if i == 0 {
                    b.what.to_string()
                } else {
                    String::new()
                },
            ]);
        }
    }
    t.print();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}
