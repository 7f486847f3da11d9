//! Group `causal`: `trace replay LOG` from the log alone — decoding, the
//! causal model, the consistency checks and the rebuild of a derivation —
//! on the synthetic log of [`super::synth`] (50 million events; 2 million
//! with `--quick`), on 1 and 2 threads (and doubling up to the
//! machine's cores). The baseline, measured in the same
//! run, is decoding alone: the format crate's parallel reader decoding every
//! block of the same log, in this process, on as many threads.
//!
//! `CAUSAL_BENCH_LOG=/path/to/file.trace` keeps the generated log there and
//! reuses it when it exists, for profiling `trace replay` on it.

use super::synth;
use super::table::{secs, Table};
use crate::erl::{self, Scratch};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use trace_format::WriterOptions;

const LIMIT: Duration = Duration::from_secs(900);

/// Best wall time of `runs` runs, with that run's peak memory and its stdout.
fn best(
    trace: &Path,
    args: &[&str],
    threads: usize,
    runs: usize,
) -> Result<(f64, u64, String), String> {
    let mut best: Option<(f64, u64, String)> = None;
    for _ in 0..runs {
        let mut cmd = Command::new(trace);
        cmd.args(args).env("RAYON_NUM_THREADS", threads.to_string());
        let (r, usage) = erl::run_measured(cmd, LIMIT).map_err(|e| e.to_string())?;
        if r.status.is_none() {
            return Err(format!(
                "trace {} did not finish: {}",
                args.join(" "),
                String::from_utf8_lossy(&r.stderr)
            ));
        }
        let t = r.elapsed.as_secs_f64();
        if best.as_ref().is_none_or(|(b, _, _)| t < *b) {
            best = Some((
                t,
                usage.peak_kb.unwrap_or(0) * 1024,
                String::from_utf8_lossy(&r.stdout).into_owned(),
            ));
        }
    }
    best.ok_or_else(|| "no run".into())
}

/// Best time of decoding every block of the log on `threads` threads.
pub(super) fn decode_alone(log: &Path, threads: usize, runs: usize) -> Result<f64, String> {
    let reader = trace_format::LogReader::open(log).map_err(|e| e.to_string())?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| e.to_string())?;
    let mut best = f64::MAX;
    for _ in 0..runs {
        let start = Instant::now();
        let counts = pool
            .install(|| reader.par_map_blocks(|ev| ev.count()))
            .map_err(|e| e.to_string())?;
        best = best.min(start.elapsed().as_secs_f64());
        if counts.iter().sum::<usize>() as u64 != reader.event_count() {
            return Err("decoding lost events".into());
        }
    }
    Ok(best)
}

/// The synthetic log of `events` events: the kept one (`CAUSAL_BENCH_LOG`)
/// when it has that many, else written anew (there, or in `dir`).
fn synthetic_log(events: u64, dir: &Path) -> Result<PathBuf, String> {
    let kept = std::env::var_os("CAUSAL_BENCH_LOG").map(PathBuf::from);
    let log = kept.clone().unwrap_or_else(|| dir.join("synth.trace"));
    if let Some(k) = &kept {
        if let Ok(r) = trace_format::LogReader::open(k) {
            if r.event_count() == events {
                return Ok(log);
            }
        }
    }
    let spec = synth::Spec::new(events);
    let payloads = synth::Payloads::new(&spec);
    let steps = synth::steps(&spec);
    synth::write_log(&log, &spec, &payloads, &steps, WriterOptions::default())
        .map_err(|e| format!("writing the synthetic log: {e}"))?;
    Ok(log)
}

pub fn run(ctx: &super::Ctx) -> Result<(), String> {
    let events: u64 = if ctx.quick { 2_000_000 } else { 50_000_000 };
    let runs = if ctx.quick { 1 } else { 5 };
    let scratch = Scratch::new("bench-causal");
    let log = synthetic_log(events, &scratch.0)?;
    let log_arg = log.to_str().ok_or("scratch path is not UTF-8")?;
    let reader = trace_format::LogReader::open(&log).map_err(|e| e.to_string())?;
    println!(
        "synthetic log: {} events, {} processes, {:.1} MiB",
        reader.event_count(),
        reader.processes().len(),
        std::fs::metadata(&log).map_or(0, |m| m.len()) as f64 / (1 << 20) as f64
    );
    let events = reader.event_count();
    drop(reader);

    // (threads, decode time and memory, replay time and memory)
    let mut measured = Vec::new();
    for threads in super::thread_counts() {
        let dt = decode_alone(&log, threads, runs)?;
        let n = threads.to_string();
        let (rt, rmem, out) = best(
            &ctx.trace,
            &["replay", log_arg, "--summary", "--threads", &n],
            threads,
            runs,
        )?;
        let verdict = out.lines().last().unwrap_or_default();
        if !verdict.starts_with("consistent: ") {
            return Err(format!("the synthetic log did not check clean: {verdict}"));
        }
        measured.push((threads, dt, (rt, rmem)));
    }
    let mut t = Table::new(&[
        "what",
        "threads",
        "time",
        "events/s",
        "speed-up 1→2",
        "peak RSS",
        "time vs decoding alone",
    ]);
    let per_s = |s: f64| format!("{:.1}M", events as f64 / s / 1e6);
    let mib = |b: u64| format!("{:.0} MiB", b as f64 / (1 << 20) as f64);
    let (one_d, one_r) = (measured[0].1, measured[0].2 .0);
    for &(threads, dt, (rt, rmem)) in &measured {
        let speedup = |one: f64, this: f64| {
            if threads == 1 {
                "-".to_string()
            } else {
                format!("{:.2}x", one / this)
            }
        };
        t.row(vec![
            "decoding alone (in process)".into(),
            threads.to_string(),
            secs(Some(dt)),
            per_s(dt),
            speedup(one_d, dt),
            "-".into(),
            "1.00x".into(),
        ]);
        t.row(vec![
            "rebuild + check (trace replay --summary)".into(),
            threads.to_string(),
            secs(Some(rt)),
            per_s(rt),
            speedup(one_r, rt),
            mib(rmem),
            format!("{:.2}x", rt / dt),
        ]);
    }
    t.print();
    Ok(())
}
