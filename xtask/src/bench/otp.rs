//! Group `otp`: OTP's behaviours on erl and on the engine (the engine runs
//! its own gen_server and supervisor, written in Erlang in the prelude):
//! a loop of gen_server calls, and a supervisor restarting many children.
//! The harness of `conc`'s first table (`programs::beside_erl`): erl's time measured inside the VM,
//! the engine's as the wall time of `trace run`, compile included.

use super::programs::{beside_erl, Bench};

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
    let (t, problems) = beside_erl(ctx, PROGRAMS, runs, true);
    t.print();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}
