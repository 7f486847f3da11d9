//! Group `check`: `trace check` on the synthetic log of [`super::synth`]
//! (50 million events with payloads; 2 million with `--quick`), one
//! property per run, on 1 and 2 threads (and doubling up to the
//! machine's cores):
//!
//! - response, about one process's order (parametric): every request a
//!   process receives is followed by a message from it back to the sender;
//! - precedence, about one process's order (parametric): every `{reply, ok, _}`
//!   a process receives is preceded by a message from it to the replier;
//! - response across processes: every crash is followed, in its causal
//!   future, by a spawn (a supervisor replacing a worker);
//! - precedence across processes: every crash is preceded, in its causal
//!   past, by a random draw.
//!
//! The baselines, measured in the same run: decoding alone (the format
//! crate's parallel reader decoding every block of the same log, in this
//! process, on as many threads: the floor for anything that reads the whole
//! log), and `trace check` with a property that reads no term and names no
//! event of the log (the causal model alone: what every check builds).
//! DejaVu, an offline checker, reports about 35 thousand events/s on its
//! benchmarks (FMCAD 2017); it is not run here.
//!
//! `CHECK_BENCH_LOG=/path/to/file.trace` keeps the generated log there and
//! reuses it when it exists (the generation takes longer than the checks).
//!
//! A second table checks a recorded run rather than a synthetic one: the
//! `pairs` program of the `scaling` group (16 ping-pong pairs, 12.8 million
//! events) with a response property whose trigger and response share a
//! variable, `every receive(P, From, {ping, From}) is followed by send(P,
//! From, pong)`, beside the built-in `all_received` on the same log (the
//! causal model with next to no matching).

use super::synth;
use super::table::{secs, Table};
use crate::erl::{self, Scratch};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use trace_format::WriterOptions;

const LIMIT: Duration = Duration::from_secs(900);

/// The properties timed: (what, order, specification).
const PROPERTIES: &[(&str, &str, &str)] = &[
    (
        "the causal model alone",
        "-",
        "model: never spawn(<P.99999999>, _).\n",
    ),
    (
        "response",
        "one process",
        "answered: every receive(S, C, {req, _, _}) is followed by send(S, C, _).\n",
    ),
    (
        "precedence",
        "one process",
        "asked: every receive(W, S, {reply, ok, _}) is preceded by send(W, S, _).\n",
    ),
    (
        "response",
        "happened-before",
        "replaced: every exit(_, {badmatch, _}) is followed by spawn(_, _).\n",
    ),
    (
        "precedence",
        "happened-before",
        "caused: every exit(_, {badmatch, _}) is preceded by nondet(_, random, _).\n",
    ),
];

struct Run {
    secs: f64,
    peak_rss: u64,
    status: String,
}

/// Best wall time of `runs` runs of `trace check`.
fn best(trace: &Path, args: &[&str], runs: usize) -> Result<Run, String> {
    let mut best: Option<Run> = None;
    for _ in 0..runs {
        let mut cmd = Command::new(trace);
        cmd.args(args);
        let (r, usage) = erl::run_measured(cmd, LIMIT).map_err(|e| e.to_string())?;
        match r.status {
            Some(0) | Some(1) => {}
            _ => {
                return Err(format!(
                    "trace {} failed: {}",
                    args.join(" "),
                    String::from_utf8_lossy(&r.stderr)
                ))
            }
        }
        let out = String::from_utf8_lossy(&r.stdout).into_owned();
        let status = out
            .lines()
            .find_map(|l| l.strip_prefix("STATUS: "))
            .unwrap_or("?")
            .to_string();
        let t = r.elapsed.as_secs_f64();
        if best.as_ref().is_none_or(|b| t < b.secs) {
            best = Some(Run {
                secs: t,
                peak_rss: usage.peak_kb.unwrap_or(0) * 1024,
                status,
            });
        }
    }
    best.ok_or_else(|| "no run".into())
}

fn synthetic_log(events: u64, dir: &Path) -> Result<(PathBuf, u64), String> {
    let kept = std::env::var_os("CHECK_BENCH_LOG").map(PathBuf::from);
    let log = kept.clone().unwrap_or_else(|| dir.join("synth.trace"));
    if let Some(k) = &kept {
        if let Ok(r) = trace_format::LogReader::open(k) {
            if r.event_count() == events {
                return Ok((log, events));
            }
        }
    }
    let spec = synth::Spec::new(events).with_payloads(true);
    let payloads = synth::Payloads::new(&spec);
    let steps = synth::steps(&spec);
    let summary = synth::write_log(&log, &spec, &payloads, &steps, WriterOptions::default())
        .map_err(|e| format!("writing the synthetic log: {e}"))?;
    Ok((log, summary.events))
}

pub fn run(ctx: &super::Ctx) -> Result<(), String> {
    let events: u64 = if ctx.quick { 2_000_000 } else { 50_000_000 };
    let runs = if ctx.quick { 1 } else { 3 };
    let scratch = Scratch::new("bench-check");
    let (log, events) = synthetic_log(events, &scratch.0)?;
    let log_arg = log.to_str().ok_or("log path is not UTF-8")?.to_string();
    let size = std::fs::metadata(&log).map(|m| m.len()).unwrap_or(0);
    println!(
        "synthetic log with payloads: {events} events, {:.1} MiB",
        size as f64 / (1 << 20) as f64
    );
    let per_s = |s: f64| format!("{:.1}M", events as f64 / s / 1e6);
    let mib = |b: u64| format!("{:.0} MiB", b as f64 / (1 << 20) as f64);
    let mut t = Table::new(&[
        "what",
        "order",
        "threads",
        "time",
        "events/s",
        "peak RSS",
        "status",
        "time vs decoding alone",
    ]);
    for threads in super::thread_counts() {
        let dt = super::causal::decode_alone(&log, threads, runs)?;
        t.row(vec![
            "decoding alone (in process)".into(),
            "-".into(),
            threads.to_string(),
            secs(Some(dt)),
            per_s(dt),
            "-".into(),
            "-".into(),
            "1.00x".into(),
        ]);
        for (i, (what, order, text)) in PROPERTIES.iter().enumerate() {
            let spec = scratch.0.join(format!("p{i}.tspec"));
            std::fs::write(&spec, text).map_err(|e| e.to_string())?;
            let n = threads.to_string();
            let args = [
                "check",
                log_arg.as_str(),
                "--spec",
                spec.to_str().ok_or("scratch path is not UTF-8")?,
                "--threads",
                &n,
            ];
            let r = best(&ctx.trace, &args, runs)?;
            t.row(vec![
                format!("trace check: {what}"),
                order.to_string(),
                threads.to_string(),
                secs(Some(r.secs)),
                per_s(r.secs),
                mib(r.peak_rss),
                r.status,
                format!("{:.2}x", r.secs / dt),
            ]);
        }
    }
    t.print();
    recorded(ctx, &scratch.0, runs)
}

/// The ping-pong property on a recorded run, over the thread counts.
fn recorded(ctx: &super::Ctx, dir: &Path, runs: usize) -> Result<(), String> {
    let (pairs, rounds) = if ctx.quick {
        (16, 10_000)
    } else {
        (16, 200_000)
    };
    let log = dir.join("pairs.trace");
    let src = super::programs::dir().join("pairs.erl");
    let log_arg = log.to_str().ok_or("scratch path is not UTF-8")?;
    let src = src.to_str().ok_or("program path is not UTF-8")?;
    let entry = format!("pairs:main({pairs}, {rounds})");
    best(
        &ctx.trace,
        &["record", "-q", "-o", log_arg, src, "--entry", &entry],
        1,
    )?;
    let events = trace_format::LogReader::open(&log)
        .map_err(|e| e.to_string())?
        .event_count();
    let spec = dir.join("pingpong.tspec");
    std::fs::write(
        &spec,
        "answered: every receive(P, From, {ping, From}) is followed by send(P, From, pong).\n",
    )
    .map_err(|e| e.to_string())?;
    println!("\nrecorded run: pairs:main({pairs}, {rounds}), {events} events");
    let mut t = Table::new(&["what", "threads", "time", "events/s", "1 thread/this"]);
    let spec_arg = spec.to_str().ok_or("scratch path is not UTF-8")?;
    let checks: [(&str, [&str; 2]); 2] = [
        ("ping answered (shared variable)", ["--spec", spec_arg]),
        ("built-in all_received", ["--builtin", "all_received"]),
    ];
    for (what, how) in checks {
        let mut one = None;
        for threads in super::thread_counts() {
            let n = threads.to_string();
            let args = ["check", log_arg, how[0], how[1], "--threads", &n];
            let took = best(&ctx.trace, &args, runs)?.secs;
            let base = *one.get_or_insert(took);
            t.row(vec![
                what.to_string(),
                n,
                secs(Some(took)),
                format!("{:.1}M", events as f64 / took / 1e6),
                format!("{:.2}x", base / took),
            ]);
        }
    }
    t.print();
    Ok(())
}
