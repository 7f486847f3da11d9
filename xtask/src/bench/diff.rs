//! Group `diff`: `trace diff` on two 50-million-event synthetic logs
//! ([`super::synth`], with payloads; 2 million with `--quick`): a log
//! against a byte copy of itself and against the run with one early
//! divergence (a message's payload changed 1% into the run, so roots are
//! walked), both written alike (blocks cut by size only) — equal blocks are
//! compared without being decoded — and then against the same two written
//! with another zstd level,
//! so that no block is equal and every event is decoded and compared. The
//! baseline, measured in the same run, is decoding both logs alone (the
//! format crate's parallel reader, in this process, on as many threads).
//!
//! Events per second count one log's events, as the target does (each
//! comparison reads both logs). Memory is the peak of the anonymous
//! resident set (heap and stacks) of the `trace diff` process, sampled from
//! /proc: the logs themselves are mapped files, whose pages are the page
//! cache's, not the process's.

use super::synth::{self, Spec, Step, SynthEvent};
use super::table::{secs, Table};
use crate::erl::Scratch;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use trace_format::{LogReader, WriterOptions};

const LIMIT: Duration = Duration::from_secs(900);

/// One `trace diff` run: wall time, peak anonymous memory, exit status, stdout.
pub(super) struct Measured {
    pub(super) secs: f64,
    pub(super) anon: u64,
    pub(super) status: Option<i32>,
    pub(super) stdout: String,
}

/// The anonymous resident set of process `pid`, in bytes.
fn rss_anon(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = s.lines().find(|l| l.starts_with("RssAnon:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

pub(super) fn run_once(trace: &Path, args: &[&str], threads: usize) -> Result<Measured, String> {
    let start = Instant::now();
    let mut child = Command::new(trace)
        .args(args)
        .env("RAYON_NUM_THREADS", threads.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("trace {}: {e}", args.join(" ")))?;
    let mut out = child.stdout.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let mut anon = 0;
    let status = loop {
        if let Some(a) = rss_anon(child.id()) {
            anon = anon.max(a);
        }
        match child.try_wait().map_err(|e| e.to_string())? {
            Some(st) => break st.code(),
            None if start.elapsed() > LIMIT => {
                let _ = child.kill();
                return Err(format!("trace {} did not finish", args.join(" ")));
            }
            None => std::thread::sleep(Duration::from_millis(2)),
        }
    };
    Ok(Measured {
        secs: start.elapsed().as_secs_f64(),
        anon,
        status,
        stdout: reader.join().unwrap_or_default(),
    })
}

/// The fastest of `runs` runs (memory and output of that run).
fn best(trace: &Path, args: &[&str], threads: usize, runs: usize) -> Result<Measured, String> {
    let mut best: Option<Measured> = None;
    for _ in 0..runs {
        let m = run_once(trace, args, threads)?;
        if best.as_ref().is_none_or(|b| m.secs < b.secs) {
            best = Some(m);
        }
    }
    best.ok_or_else(|| "no run".into())
}

/// Best time of decoding every block of both logs on `threads` threads.
fn decode_alone(logs: [&Path; 2], threads: usize, runs: usize) -> Result<f64, String> {
    let readers = logs
        .iter()
        .map(|p| LogReader::open(p).map_err(|e| e.to_string()))
        .collect::<Result<Vec<_>, _>>()?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| e.to_string())?;
    let mut best = f64::MAX;
    for _ in 0..runs {
        let start = Instant::now();
        for r in &readers {
            let counts = pool
                .install(|| r.par_map_blocks(|ev| ev.count()))
                .map_err(|e| e.to_string())?;
            if counts.iter().sum::<usize>() as u64 != r.event_count() {
                return Err("decoding lost events".into());
            }
        }
        best = best.min(start.elapsed().as_secs_f64());
    }
    Ok(best)
}

/// The run with one early divergence: the first message sent 1% into the
/// run carries another payload.
fn diverge(steps: &mut [Step]) -> Result<(), String> {
    let from = steps.len() / 100;
    let s = steps[from..]
        .iter_mut()
        .find(|s| matches!(s.ev, SynthEvent::Send { .. }))
        .ok_or("no send to change")?;
    if let SynthEvent::Send { payload, .. } = &mut s.ev {
        *payload = payload.wrapping_add(1);
    }
    Ok(())
}

pub fn run(ctx: &super::Ctx) -> Result<(), String> {
    let events: u64 = if ctx.quick { 2_000_000 } else { 50_000_000 };
    let runs = if ctx.quick { 1 } else { 3 };
    let scratch = Scratch::new("bench-diff");
    let path = |n: &str| scratch.0.join(n);
    let (a, copy, diverged, recompressed, diverged_recompressed) = (
        path("a.trace"),
        path("copy.trace"),
        path("diverged.trace"),
        path("recompressed.trace"),
        path("diverged-recompressed.trace"),
    );

    let spec = Spec::new(events).with_payloads(true);
    let payloads = synth::Payloads::new(&spec);
    let mut steps = synth::steps(&spec);
    let write = |p: &Path, steps: &[Step], opts: WriterOptions| {
        synth::write_log(p, &spec, &payloads, steps, opts)
            .map_err(|e| format!("writing {}: {e}", p.display()))
    };
    // Blocks cut by size only (not also by time, as when recording), so
    // that the same events are written in the same blocks.
    let alike = WriterOptions {
        flush_interval: Duration::from_secs(24 * 3600),
        ..WriterOptions::default()
    };
    let other_level = WriterOptions {
        zstd_level: 1,
        ..alike.clone()
    };
    let summary = write(&a, &steps, alike.clone())?;
    std::fs::copy(&a, &copy).map_err(|e| e.to_string())?;
    write(&recompressed, &steps, other_level.clone())?;
    diverge(&mut steps)?;
    write(&diverged, &steps, alike)?;
    write(&diverged_recompressed, &steps, other_level)?;
    drop(steps);

    let reader = LogReader::open(&a).map_err(|e| e.to_string())?;
    let largest = reader
        .processes()
        .iter()
        .map(|p| p.events)
        .max()
        .unwrap_or(0);
    let mib = |b: u64| format!("{:.1} MiB", b as f64 / (1 << 20) as f64);
    let size = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    println!(
        "synthetic logs: {} events each, {} processes (the largest has {} events); \
         {} in {} blocks (zstd level 1: {})",
        summary.events,
        summary.processes,
        largest,
        mib(size(&a)),
        reader.blocks().len(),
        mib(size(&recompressed)),
    );
    drop(reader);

    let s = |p: &Path| {
        p.to_str()
            .map(str::to_string)
            .ok_or("scratch path is not UTF-8")
    };
    let sa = s(&a)?;
    let cases = [
        ("a log and its byte copy", s(&copy)?, 0, "equivalent: "),
        ("one early divergence", s(&diverged)?, 1, "different: "),
        (
            "the same run, recompressed",
            s(&recompressed)?,
            0,
            "equivalent: ",
        ),
        (
            "one early divergence, recompressed",
            s(&diverged_recompressed)?,
            1,
            "different: ",
        ),
    ];
    let mut t = Table::new(&[
        "what",
        "threads",
        "time",
        "events/s (one log's)",
        "time vs decoding both alone",
        "peak anon memory",
    ]);
    let per_s = |s: f64| format!("{:.1}M", summary.events as f64 / s / 1e6);
    let mut verdicts = Vec::new();
    for threads in [1usize, 2] {
        let dt = decode_alone([&a, &recompressed], threads, runs)?;
        t.row(vec![
            "decoding both logs alone (in process)".into(),
            threads.to_string(),
            secs(Some(dt)),
            per_s(dt),
            "1.00x".into(),
            "-".into(),
        ]);
        for (what, b, want, verdict) in &cases {
            let (want, verdict) = (*want, *verdict);
            let n = threads.to_string();
            let m = best(
                &ctx.trace,
                &["diff", &sa, b, "--threads", &n],
                threads,
                runs,
            )?;
            let last = m.stdout.lines().last().unwrap_or_default().to_string();
            if m.status != Some(want) || !last.starts_with(verdict) {
                return Err(format!(
                    "trace diff ({what}) said {last:?}, status {:?}",
                    m.status
                ));
            }
            if threads == 2 {
                verdicts.push(format!("{what}: {last}"));
            }
            t.row(vec![
                format!("trace diff: {what}"),
                threads.to_string(),
                secs(Some(m.secs)),
                per_s(m.secs),
                format!("{:.2}x", m.secs / dt),
                mib(m.anon),
            ]);
        }
    }
    t.print();
    for v in verdicts {
        println!("{v}");
    }
    Ok(())
}
