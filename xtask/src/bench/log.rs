//! Group `log`: the log format on a synthetic run of 50 million events
//! ([`super::synth`]), written without and with small payloads, and on a
//! crowd of a million processes alive at once with a few events each.
//! Reports write throughput (the writer fed as the recorder feeds it, from
//! `create` to a finished, synced file), the writer's memory, bytes per
//! event, full decode throughput (open, then every event of every block
//! decoded, on all cores and on one), and what the same events take as
//! CauDEr text logs and as OTP dbg trace-port records, computed in the same
//! run.
//!
//! The figures only mean something for optimised code, so a debug build of
//! xtask runs this group in a release build of itself.

use super::heap;
use super::log_baselines::{cauder_bytes, dbg_bytes};
use super::synth::{self, Payloads, Spec, Step};
use super::table::Table;
use crate::erl::Scratch;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Instant;
use trace_format::{EventRef, LogReader, SignalKindRef, WriterOptions};

const EVENTS: u64 = 50_000_000;
const QUICK_EVENTS: u64 = 2_000_000;
/// Decoding is timed this many times; the best run counts.
const DECODE_RUNS: usize = 3;

/// Set in the release child so it does not start another one.
const CHILD: &str = "TRACE_BENCH_LOG_RELEASE";

pub fn run(ctx: &super::Ctx) -> Result<(), String> {
    if cfg!(debug_assertions) && std::env::var_os(CHILD).is_none() {
        return run_in_release(ctx.quick);
    }
    let events = if ctx.quick { QUICK_EVENTS } else { EVENTS };
    let scratch = Scratch::new("bench-log");
    // For working on the format: `LOG_BENCH_CROWD_ONLY=1` measures the crowd alone.
    if std::env::var_os("LOG_BENCH_CROWD_ONLY").is_some() {
        return crowd_only(events, &scratch);
    }

    // The main run, written without and then with payloads (same events).
    let spec = Spec::new(events);
    let (steps, processes) = generate(&spec);
    let bare = measure(&spec, &steps, processes, &scratch)?;
    let full = measure(
        &spec.clone().with_payloads(true),
        &steps,
        processes,
        &scratch,
    )?;
    drop(steps);
    println!("mix: {}", bare.mix);

    // A million processes alive at once, a few events each: the writer's
    // memory must stay within its budget however many blocks are open.
    let crowd = crowd_spec(events);
    let (steps, processes) = generate(&crowd);
    let many = measure(&crowd, &steps, processes, &scratch)?;
    drop(steps);

    print_table(&bare, &full, &many);
    let mut missed = Vec::new();
    for (what, f, most_bytes, least_rate) in [("", &bare, 2.0, 200e6), ("crowd ", &many, 5.0, 50e6)]
    {
        let bpe = f.file_bytes as f64 / f.events as f64;
        if bpe > most_bytes {
            missed.push(format!("{what}bytes per event {bpe:.3} > {most_bytes}"));
        }
        if f.decode_rate < least_rate {
            missed.push(format!(
                "{what}decode {} events/s < {}/s",
                rate(f.decode_rate),
                rate(least_rate)
            ));
        }
    }
    if !missed.is_empty() {
        println!("targets missed: {}", missed.join("; "));
    }
    Ok(())
}

/// The crowd alone, in one line.
fn crowd_only(events: u64, scratch: &Scratch) -> Result<(), String> {
    let crowd = crowd_spec(events);
    let (steps, processes) = generate(&crowd);
    let f = measure(&crowd, &steps, processes, scratch)?;
    println!(
        "crowd: {:.3} bytes/event, decode {} /s all cores, {} /s one thread, write {} /s, \
         writer heap {:.0} MB",
        f.file_bytes as f64 / f.events as f64,
        rate(f.decode_rate),
        rate(f.decode_rate_1),
        rate(f.write_rate),
        f.writer_mb
    );
    Ok(())
}

/// The figures of the three logs side by side, and what they leave out.
fn print_table(bare: &Figures, full: &Figures, many: &Figures) {
    let cols = [bare, full, many];
    let mut t = Table::new(&[
        "figure",
        "no payloads",
        "small payloads",
        "crowd, no payloads",
        "target (crowd: <= 5 B/event, >= 50 M/s decode)",
    ]);
    let mut row = |name: &str, f: &dyn Fn(&Figures) -> String, target: &str| {
        let mut cells = vec![name.to_string()];
        cells.extend(cols.iter().map(|c| f(c)));
        cells.push(target.into());
        t.row(cells);
    };
    row("events", &|f| count(f.events), "");
    row(
        "processes (cap on those alive at once)",
        &|f| format!("{} ({})", count(f.processes), count(f.live)),
        "",
    );
    row(
        "write (events/s, to a synced file)",
        &|f| format!("{} ({:.0} MB/s)", rate(f.write_rate), f.write_mb_s),
        "",
    );
    row(
        "writer heap at its peak (process handles included)",
        &|f| format!("{:.0} MB", f.writer_mb),
        "open blocks within the 64 MiB budget",
    );
    row(
        "log size",
        &|f| format!("{:.1} MB", f.file_bytes as f64 / 1e6),
        "",
    );
    row(
        "bytes per event",
        &|f| format!("{:.3}", f.file_bytes as f64 / f.events as f64),
        "<= 2 without payloads",
    );
    row(
        "term bytes per event (ETF: payloads, built-ins' results)",
        &|f| format!("{:.2}", f.payload_bytes as f64 / f.events as f64),
        "",
    );
    row(
        "decode, all cores (events/s)",
        &|f| rate(f.decode_rate),
        ">= 200 M/s",
    );
    row(
        "decode, one thread (events/s)",
        &|f| rate(f.decode_rate_1),
        "",
    );
    row(
        "decode, one thread (events per CPU-second)",
        &|f| f.decode_rate_cpu.map_or("-".into(), rate),
        "",
    );
    row(
        "CauDEr v3 text, bytes per event",
        &|f| {
            format!(
                "{:.2} ({} ours)",
                f.cauder_bytes as f64 / f.events as f64,
                times(f.cauder_bytes as f64 / f.file_bytes as f64)
            )
        },
        "",
    );
    row(
        "dbg trace port, bytes per event",
        &|f| {
            format!(
                "{:.2} ({} ours)",
                f.dbg_bytes as f64 / f.events as f64,
                times(f.dbg_bytes as f64 / f.file_bytes as f64)
            )
        },
        "",
    );
    t.print();
    println!(
        "CauDEr keeps {} of the {} events (spawns, sends, receives); dbg writes {} records \
         (no record for built-ins' results or taken link/exit signals); without payloads, \
         dbg records carry `[]` where the message or reason goes.",
        count(bare.cauder_events),
        count(bare.events),
        count(bare.dbg_records)
    );
    println!(
        "writer heap: open blocks are held to the writer's budget (over it, idle blocks \
         are cut); the rest is each live process's handle and the footer's index, about \
         10 bytes per block written."
    );
}

/// A million processes alive at once (for 50 million events), a few events each.
fn crowd_spec(events: u64) -> Spec {
    Spec {
        events: events / 5,
        processes: (events / 40) as u32,
        live: (events / 50) as u32,
        ..Spec::new(events)
    }
}

/// The run's steps and how many processes it has.
fn generate(spec: &Spec) -> (Vec<Step>, usize) {
    let t = Instant::now();
    let steps = synth::steps(spec);
    let secs = t.elapsed().as_secs_f64();
    let processes = steps.iter().map(|s| s.process).max().unwrap_or(0) as usize + 1;
    println!(
        "synthetic run: {} events, {} processes (at most {} alive at once), seed {}; \
         generated at {}/s",
        count(spec.events),
        count(processes as u64),
        count(spec.live as u64),
        spec.seed,
        rate(spec.events as f64 / secs)
    );
    (steps, processes)
}

/// What one variant measured.
struct Figures {
    events: u64,
    processes: u64,
    live: u64,
    writer_mb: f64,
    file_bytes: u64,
    payload_bytes: u64,
    write_rate: f64,
    write_mb_s: f64,
    decode_rate: f64,
    decode_rate_1: f64,
    /// Events per second of CPU time spent decoding on one thread: what a
    /// core does, however busy the machine is with other work.
    decode_rate_cpu: Option<f64>,
    cauder_bytes: u64,
    cauder_events: u64,
    dbg_bytes: u64,
    dbg_records: u64,
    mix: String,
}

fn measure(
    spec: &Spec,
    steps: &[Step],
    processes: usize,
    scratch: &Scratch,
) -> Result<Figures, String> {
    let payloads = Payloads::new(spec);
    let path = scratch
        .0
        .join(format!("synth-{}-{}.trace", spec.live, spec.payloads));
    let before = heap::reset_peak();
    let t = Instant::now();
    let summary = synth::write_log(&path, spec, &payloads, steps, WriterOptions::default())
        .map_err(|e| format!("writing {}: {e}", path.display()))?;
    let write_secs = t.elapsed().as_secs_f64();
    let writer_mb = heap::peak().saturating_sub(before) as f64 / 1e6;
    // For profiling the reader on the same logs: `LOG_BENCH_KEEP=DIR`.
    if let Some(dir) = std::env::var_os("LOG_BENCH_KEEP") {
        let kept = std::path::Path::new(&dir).join(path.file_name().expect("a file name"));
        std::fs::copy(&path, &kept).map_err(|e| format!("{}: {e}", kept.display()))?;
    }
    if summary.events != steps.len() as u64 || summary.lost_events != 0 {
        return Err(format!("the writer lost events: {summary:?}"));
    }

    let mut best = f64::MAX;
    let mut decoded = Decoded::default();
    for _ in 0..DECODE_RUNS {
        let t = Instant::now();
        decoded = decode(&path)?;
        best = best.min(t.elapsed().as_secs_f64());
    }
    if decoded.events != summary.events {
        return Err(format!(
            "decoded {} events, wrote {}",
            decoded.events, summary.events
        ));
    }
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .map_err(|e| e.to_string())?;
    let mut best_1 = f64::MAX;
    let mut best_cpu = f64::MAX;
    for _ in 0..DECODE_RUNS {
        let (t, cpu) = (Instant::now(), cpu_secs());
        one.install(|| decode(&path))?;
        best_1 = best_1.min(t.elapsed().as_secs_f64());
        if let (Some(a), Some(b)) = (cpu, cpu_secs()) {
            best_cpu = best_cpu.min(b - a);
        }
    }

    let reader = LogReader::open(&path).map_err(|e| e.to_string())?;
    let (cauder, cauder_events) = cauder_bytes(&reader)?;
    let (dbg, dbg_records) = dbg_bytes(steps, processes, spec.payloads.then_some(&payloads));
    let events = summary.events;
    let mix = trace_format::EventKind::ALL
        .iter()
        .zip(decoded.by_kind)
        .filter(|(_, n)| *n > 0)
        .map(|(k, n)| format!("{k} {:.2}%", 100.0 * n as f64 / events as f64))
        .collect::<Vec<_>>()
        .join(", ");
    Ok(Figures {
        events,
        processes: processes as u64,
        live: spec.live as u64,
        writer_mb,
        file_bytes: summary.bytes,
        payload_bytes: decoded.payload_bytes,
        write_rate: events as f64 / write_secs,
        write_mb_s: summary.bytes as f64 / 1e6 / write_secs,
        decode_rate: events as f64 / best,
        decode_rate_1: events as f64 / best_1,
        decode_rate_cpu: (best_cpu < f64::MAX).then(|| events as f64 / best_cpu),
        cauder_bytes: cauder,
        cauder_events,
        dbg_bytes: dbg,
        dbg_records,
        mix,
    })
}

#[derive(Default)]
struct Decoded {
    events: u64,
    by_kind: [u64; trace_format::EventKind::ALL.len()],
    payload_bytes: u64,
    /// Folds every decoded field, so no part of decoding can be skipped.
    digest: u64,
}

/// Opens the log and decodes every event of every block, in parallel, as a
/// whole-log reader does (folding, without a result per block).
fn decode(path: &std::path::Path) -> Result<Decoded, String> {
    let r = LogReader::open(path).map_err(|e| e.to_string())?;
    let per_task = r
        .par_fold_blocks(Decoded::default, |d, ev| {
            for e in ev {
                d.events += 1;
                let len = |p: Option<&[u8]>| p.map_or(0, <[u8]>::len) as u64;
                // One match per event, touching every field a consumer would.
                let (k, x, terms) = match e {
                    EventRef::Spawn { child, pid, .. } => (0, child.0 as u64 ^ pid, 0),
                    EventRef::Send { msg, to, payload } => (1, msg.index ^ dest(to), len(payload)),
                    EventRef::Deliver { msg } => (2, msg.index ^ msg.sender.0 as u64, 0),
                    EventRef::Receive { msg } => (3, msg.index ^ msg.sender.0 as u64, 0),
                    EventRef::Timeout => (4, 0, 0),
                    EventRef::Signal { signal, to, kind } => {
                        let reason = match kind {
                            SignalKindRef::Exit { reason, .. } | SignalKindRef::Down { reason } => {
                                len(reason)
                            }
                            _ => 0,
                        };
                        (5, signal.index ^ dest(to), reason)
                    }
                    EventRef::SignalTaken { signal, .. } => {
                        (6, signal.index ^ signal.sender.0 as u64, 0)
                    }
                    EventRef::Nondet { value, .. } => (7, value.len() as u64, value.len() as u64),
                    EventRef::Output { seq, bytes } => (8, seq, len(bytes)),
                    EventRef::Exit { reason } => (9, 0, len(reason)),
                    EventRef::Shared { seq, key, .. } => (10, seq, len(key)),
                    EventRef::Blocked { stuck } => (11, stuck as u64, 0),
                };
                d.payload_bytes += terms;
                d.by_kind[k] += 1;
                d.digest = d.digest.rotate_left(5) ^ x;
            }
        })
        .map_err(|e| e.to_string())?;
    let mut all = Decoded::default();
    for d in per_task {
        all.events += d.events;
        all.payload_bytes += d.payload_bytes;
        all.digest ^= d.digest;
        for (a, b) in all.by_kind.iter_mut().zip(d.by_kind) {
            *a += b;
        }
    }
    Ok(all)
}

fn dest(d: trace_format::Dest) -> u64 {
    match d {
        trace_format::Dest::Proc(p) => p.0 as u64,
        trace_format::Dest::Foreign(n) => n,
        trace_format::Dest::Unknown => u64::MAX,
    }
}

/// CPU time used so far by all threads of this process (Linux), in seconds.
fn cpu_secs() -> Option<f64> {
    let mut ns = 0u64;
    for task in std::fs::read_dir("/proc/self/task").ok()? {
        let stat = std::fs::read_to_string(task.ok()?.path().join("schedstat")).ok()?;
        ns += stat.split_whitespace().next()?.parse::<u64>().ok()?;
    }
    Some(ns as f64 / 1e9)
}

/// A size ratio: whole times when large, one decimal below 10, so that a
/// baseline smaller than our log does not read as "1x".
fn times(r: f64) -> String {
    if r >= 10.0 {
        format!("{r:.0}x")
    } else {
        format!("{r:.1}x")
    }
}

/// `12.3 M` style counts.
fn count(n: u64) -> String {
    let n = n as f64;
    if n >= 1e6 {
        format!("{:.1} M", n / 1e6)
    } else if n >= 1e3 {
        format!("{:.1} k", n / 1e3)
    } else {
        format!("{n}")
    }
}

fn rate(r: f64) -> String {
    count(r as u64)
}

/// Runs `cargo xtask bench log` in a release build of xtask, passing its
/// output through (without the group heading, which the caller printed).
fn run_in_release(quick: bool) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .args([
            "run",
            "--release",
            "--quiet",
            "-p",
            "xtask",
            "--",
            "bench",
            "log",
        ])
        .env(CHILD, "1")
        .stdout(Stdio::piped());
    if quick {
        cmd.arg("--quick");
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cargo run --release: {e}"))?;
    let out = child.stdout.take().expect("piped");
    for line in BufReader::new(out).lines() {
        let line = line.map_err(|e| e.to_string())?;
        if line != "== log" {
            println!("{line}");
        }
    }
    let st = child.wait().map_err(|e| e.to_string())?;
    if st.success() {
        Ok(())
    } else {
        Err("the release run failed (see above)".into())
    }
}
