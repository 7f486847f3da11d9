//! Group `otp`: OTP's behaviours on erl and on the engine (the engine runs
//! its own gen_server and supervisor, written in Erlang in the prelude):
//! a loop of gen_server calls, and a supervisor restarting many children.
//! Same harness as `conc`'s first table: erl's time measured inside the VM,
//! the engine's as the wall time of `trace run`, compile included.

use super::programs::{self, measure, Spec};
use super::table::{kilobytes, ratio, secs, Table};

struct Bench {
    name: &'static str,
    args: &'static str,
    quick: &'static str,
    what: &'static str,
}

const PROGRAMS: &[Bench] = &[
    Bench {
        name: "gen_server_calls",
        args: "1000000",
        quick: "20000",
        what: "1M gen_server:call/2 round trips (monitor with an alias, reply through it)",
    },
    Bench {
        name: "supervisor_restarts",
        args: "10000",
        quick: "1000",
        what: "simple_one_for_one supervisor: 10k children killed and restarted",
    },
];

pub fn run(ctx: &super::Ctx) -> Result<(), String> {
    let runs = if ctx.quick { 1 } else { 3 };
    if ctx.quick {
        println!("(--quick: smaller sizes than the descriptions say, one run each)");
    }
    let mut problems = Vec::new();
    let mut t = Table::new(&[
        "benchmark",
        "erl",
        "trace",
        "trace/erl",
        "trace CPU",
        "erl peak RSS",
        "trace peak RSS",
        "what",
    ]);
    for b in PROGRAMS {
        let spec = Spec {
            name: b.name,
            args: if ctx.quick { b.quick } else { b.args },
            trace_flags: &[],
            erl_flags: programs::erl_flags(b.name),
        };
        let r = measure(ctx, spec, runs, true, true);
        if let Some(p) = r.problem {
            problems.push(format!("{}: {p}", b.name));
        }
        t.row(vec![
            b.name.to_string(),
            secs(r.erl),
            secs(r.trace),
            ratio(r.trace, r.erl),
            secs(r.trace_cpu),
            kilobytes(r.erl_peak),
            kilobytes(r.trace_peak),
            b.what.to_string(),
        ]);
    }
    t.print();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}
