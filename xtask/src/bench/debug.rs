//! Group `debug`: `trace debug` on a recorded run of about a million
//! events (a ping-pong of two processes; 100k events with `--quick`):
//! the session opens, `run`s to the end, then rolls back the first send,
//! which undoes nearly the whole run. The baseline, measured in the same
//! run, is `trace replay` of the same log with the program. Memory is the
//! peak anonymous resident set of each process (see [`super::diff`]).

use super::diff::run_once;
use super::table::{kilobytes, ratio, secs, Table};
use crate::erl::Scratch;
use std::process::Command;

/// Two processes trading a counter: four events per round.
const PROGRAM: &str = "-module(pingpong).
-export([main/1]).

main(N) ->
    Pong = spawn(fun pong/0),
    ping(Pong, N).

ping(Pong, 0) -> Pong ! stop, done;
ping(Pong, N) ->
    Pong ! {self(), N},
    receive N -> ping(Pong, N - 1) end.

pong() ->
    receive
        {From, N} -> From ! N, pong();
        stop -> ok
    end.
";

pub fn run(ctx: &super::Ctx) -> Result<(), String> {
    let rounds: u64 = if ctx.quick { 25_000 } else { 250_000 };
    let scratch = Scratch::new("bench-debug");
    let prog = scratch.0.join("pingpong.erl");
    let log = scratch.0.join("run.trace");
    let script = scratch.0.join("session.txt");
    std::fs::write(&prog, PROGRAM).map_err(|e| e.to_string())?;
    std::fs::write(&script, "run\nrollback send(P:0)\n").map_err(|e| e.to_string())?;
    let (p, l, c) = (
        prog.to_string_lossy(),
        log.to_string_lossy(),
        script.to_string_lossy(),
    );
    let entry = format!("pingpong:main({rounds})");
    let rec = Command::new(&ctx.trace)
        .args(["record", &p, "--entry", &entry, "-o", &l, "-q"])
        .output()
        .map_err(|e| e.to_string())?;
    if !rec.status.success() {
        return Err(format!("record: {}", String::from_utf8_lossy(&rec.stderr)));
    }
    let replay = run_once(&ctx.trace, &["replay", &p, &l, "--schedulers", "1"], 1)?;
    let debug = run_once(&ctx.trace, &["debug", &p, &l, "--commands", &c], 1)?;
    if debug.status != Some(0) || !debug.stdout.contains("undid ") {
        return Err(format!("the session failed:\n{}", debug.stdout));
    }
    let mut t = Table::new(&[
        "run",
        "events",
        "time",
        "memory",
        "time ratio",
        "memory ratio",
    ]);
    let events = rounds * 4;
    t.row(vec![
        "replay (baseline)".into(),
        events.to_string(),
        secs(Some(replay.secs)),
        kilobytes(Some(replay.anon / 1024)),
        "1.00x".into(),
        "1.00x".into(),
    ]);
    t.row(vec![
        "debug: run, rollback send(P:0)".into(),
        events.to_string(),
        secs(Some(debug.secs)),
        kilobytes(Some(debug.anon / 1024)),
        ratio(Some(debug.secs), Some(replay.secs)),
        ratio(Some(debug.anon as f64), Some(replay.anon as f64)),
    ]);
    t.print();
    Ok(())
}
