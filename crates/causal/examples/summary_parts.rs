//! The parts of `trace replay LOG --summary` one after the other, each
//! timed, with the peak memory after each: decoding alone, building the
//! model, checking it; then the build and the checks as `trace replay`
//! runs them (the rebuild of the derivation beside the decoding). For
//! profiling the log-only rebuild (`cargo run --release --example
//! summary_parts -- LOG`; `RAYON_NUM_THREADS` sets the threads). Under
//! callgrind the decoding alone is what this run counts beyond the same
//! run of `trace replay LOG --summary`.

use std::time::Instant;
use trace_causal::Model;
use trace_format::LogReader;

// As in the CLI: memory figures are only comparable under one allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[inline(never)]
fn decode_alone(r: &LogReader) -> usize {
    r.par_map_each_block(|ev| ev.count())
        .into_iter()
        .map(|n| n.unwrap_or(0))
        .sum()
}

#[inline(never)]
fn build(r: &LogReader) -> Model {
    Model::build(r)
}

#[inline(never)]
fn check(m: &Model) -> trace_causal::Report {
    trace_causal::validate(m)
}

#[inline(never)]
fn build_and_check(r: &LogReader) -> (Model, trace_causal::Report) {
    trace_causal::build_and_validate(r)
}

/// The process's peak resident memory so far, in MiB (Linux).
fn peak_mib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse::<u64>().ok())
        })
        .map_or(0, |kb| kb / 1024)
}

fn main() {
    let path = std::env::args().nth(1).expect("usage: summary_parts LOG");
    let r = LogReader::open(&path).expect("open");
    let t = Instant::now();
    let n = decode_alone(&r);
    let decoded = t.elapsed().as_secs_f64();
    let peak_decoded = peak_mib();
    let t = Instant::now();
    let m = build(&r);
    let built = t.elapsed().as_secs_f64();
    let peak_built = peak_mib();
    let t = Instant::now();
    let report = check(&m);
    let checked = t.elapsed().as_secs_f64();
    println!(
        "{n} events; decode alone {decoded:.3} s, build {built:.3} s, check {checked:.3} s; consistent: {}",
        report.is_consistent()
    );
    println!(
        "peak memory: {peak_decoded} MiB after decoding, {peak_built} MiB after building, {} MiB after checking",
        peak_mib()
    );
    drop(m);
    let t = Instant::now();
    let (_, report) = build_and_check(&r);
    println!(
        "build and check as trace replay does: {:.3} s; consistent: {}",
        t.elapsed().as_secs_f64(),
        report.is_consistent()
    );
}
