//! Group `record`: what recording and replaying cost. Every benchmark
//! program of `xtask/programs/` runs under `trace run`, under `trace record`
//! and under `trace replay` (of that recording) in the same session; the
//! table gives the recording overhead, how many events were recorded per
//! second, how big the log is per event, and replay time against record time.
//! When erl is here, a second table sets the message-bound programs' recording
//! overhead beside that of the Erlang VM's own tracing ([`super::vm_tracing`]).

use super::programs;
use super::table::{secs, Table};
use super::vm_tracing;
use crate::erl::{self, Scratch};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(600);

/// Best wall time of `runs` runs of `trace ARGS`, and the peak memory of the best one.
fn best(trace: &Path, args: &[&str], runs: usize) -> Result<(f64, u64), String> {
    let mut best: Option<(f64, u64)> = None;
    for _ in 0..runs {
        let mut cmd = Command::new(trace);
        cmd.args(args);
        let (r, usage) = erl::run_measured(cmd, LIMIT).map_err(|e| e.to_string())?;
        if r.status.is_none() {
            return Err(format!(
                "trace {} did not finish: {}",
                args.join(" "),
                String::from_utf8_lossy(&r.stderr)
            ));
        }
        let t = r.elapsed.as_secs_f64();
        if best.is_none_or(|(b, _)| t < b) {
            best = Some((t, usage.peak_kb.unwrap_or(0) * 1024));
        }
    }
    best.ok_or_else(|| "no run".into())
}

pub fn run(ctx: &super::Ctx) -> Result<(), String> {
    let runs = if ctx.quick { 1 } else { 5 };
    let scratch = Scratch::new("bench-record");
    let log = scratch.0.join("run.trace");
    let mut names: Vec<String> = std::fs::read_dir(programs::dir())
        .map_err(|e| e.to_string())?
        .flatten()
        .filter_map(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n.strip_suffix(".erl").map(str::to_string)
        })
        .collect();
    names.sort();
    let mut t = Table::new(&[
        "program",
        "run",
        "record",
        "overhead",
        "events",
        "events/s",
        "log",
        "bytes/event",
        "peak RSS run/record",
        "replay",
        "replay/record",
    ]);
    let mut message_bound = Vec::new();
    for name in &names {
        let src = programs::dir().join(format!("{name}.erl"));
        let src = src.to_str().ok_or("program path is not UTF-8")?;
        let (run_t, run_mem) = best(&ctx.trace, &["run", src], runs)?;
        let (rec_t, rec_mem) = best(
            &ctx.trace,
            &[
                "record",
                "-q",
                "-o",
                log.to_str().unwrap_or("run.trace"),
                src,
            ],
            runs,
        )?;
        let (replay_t, _) = best(
            &ctx.trace,
            &["replay", src, log.to_str().unwrap_or("run.trace")],
            runs,
        )?;
        let r = trace_format::LogReader::open(&log).map_err(|e| format!("{name}: {e}"))?;
        let events = r.event_count();
        let bytes = r.file_len();
        // Compute-bound programs log a spawn and an exit; the VM's tracing
        // would have nothing to trace either.
        if events >= 1000 {
            message_bound.push(vm_tracing::Recorded {
                name: name.clone(),
                run: run_t,
                record: rec_t,
                events,
                log_bytes: bytes,
            });
        }
        t.row(vec![
            name.clone(),
            secs(Some(run_t)),
            secs(Some(rec_t)),
            format!("{:+.1}%", (rec_t / run_t - 1.0) * 100.0),
            events.to_string(),
            format!("{:.2}M", events as f64 / rec_t / 1e6),
            format!("{:.1} KiB", bytes as f64 / 1024.0),
            if events > 0 {
                format!("{:.2}", bytes as f64 / events as f64)
            } else {
                "-".into()
            },
            format!(
                "{:.0} / {:.0} MiB",
                run_mem as f64 / (1 << 20) as f64,
                rec_mem as f64 / (1 << 20) as f64
            ),
            secs(Some(replay_t)),
            format!("{:.2}x", replay_t / rec_t),
        ]);
    }
    t.print();
    if ctx.erl && !message_bound.is_empty() {
        println!();
        println!(
            "The VM's own tracing: erl plain, and erl with dbg tracing send, receive and \
             procs of the program to a file trace port (as ttb does); best of {runs} each:"
        );
        vm_tracing::print(&message_bound, runs)?;
    }
    Ok(())
}
