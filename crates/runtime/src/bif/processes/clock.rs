//! Clocks, unique integers and random numbers: every value is a
//! nondeterministic result.

use crate::bif::{Builder, Ctx, AUTO};
use crate::exception::{badarg, BifResult, Fault};
use crate::hooks::NondetBif;
use std::time::{SystemTime, UNIX_EPOCH};
use trace_term::{atom, Term};

pub fn register(b: &mut Builder) {
    let e = "erlang";
    b.proc(
        e,
        "monotonic_time",
        0,
        |cx, _| monotonic(cx, &Term::Atom(atom::NATIVE)),
        0,
    );
    b.proc(e, "monotonic_time", 1, |cx, a| monotonic(cx, &a[0]), 0);
    b.proc(
        e,
        "system_time",
        0,
        |cx, _| system_time(cx, &Term::Atom(atom::NATIVE)),
        0,
    );
    b.proc(e, "system_time", 1, |cx, a| system_time(cx, &a[0]), 0);
    b.proc(
        "os",
        "system_time",
        0,
        |cx, _| system_time(cx, &Term::Atom(atom::NATIVE)),
        0,
    );
    b.proc("os", "system_time", 1, |cx, a| system_time(cx, &a[0]), 0);
    b.proc(e, "timestamp", 0, timestamp, 0);
    b.proc("os", "timestamp", 0, timestamp, 0);
    b.proc(e, "now", 0, timestamp, AUTO);
    b.proc(e, "unique_integer", 0, |cx, _| unique(cx, &Term::Nil), 0);
    b.proc(e, "unique_integer", 1, |cx, a| unique(cx, &a[0]), 0);
    b.proc(e, "localtime", 0, |cx, _| datetime(cx, "localtime"), 0);
    b.proc(
        e,
        "universaltime",
        0,
        |cx, _| datetime(cx, "universaltime"),
        0,
    );
    b.proc(e, "date", 0, |cx, _| date_or_time(cx, true), AUTO);
    b.proc(e, "time", 0, |cx, _| date_or_time(cx, false), AUTO);
    b.proc(e, "statistics", 1, statistics, AUTO);
    b.pure(e, "convert_time_unit", 3, convert_time_unit, 0);
    b.proc("rand", "uniform", 0, |cx, _| uniform(cx, None), 0);
    b.proc("rand", "uniform", 1, |cx, a| uniform(cx, Some(&a[0])), 0);
    b.proc("rand", "uniform_real", 0, |cx, _| uniform(cx, None), 0);
    b.proc("rand", "normal", 0, |cx, _| normal(cx, 0.0, 1.0), 0);
    b.proc("rand", "normal", 2, normal2, 0);
    b.proc("rand", "bytes", 1, bytes, 0);
    b.proc("rand", "seed", 1, |cx, _| seed(cx), 0);
    b.proc("rand", "seed", 2, |cx, _| seed(cx), 0);
}

/// Parts per second of a time unit.
fn unit_pps(u: &Term) -> Result<u64, Fault> {
    match u {
        Term::Atom(a) => match a.name() {
            "second" | "seconds" => Ok(1),
            "millisecond" | "milli_seconds" => Ok(1_000),
            "microsecond" | "micro_seconds" => Ok(1_000_000),
            "nanosecond" | "nano_seconds" | "native" | "perf_counter" => Ok(1_000_000_000),
            _ => Err(badarg()),
        },
        Term::Int(n) if *n > 0 => Ok(*n as u64),
        _ => Err(badarg()),
    }
}

fn scale(ns: i128, pps: u64) -> Term {
    let v = ns * pps as i128 / 1_000_000_000;
    Term::Int(v as i64)
}

/// `erlang:monotonic_time(nanosecond)` now.
pub(crate) fn monotonic_ns(rt: &crate::sched::Runtime) -> i128 {
    // Offset so values look like BEAM's (large negative numbers are common there too).
    rt.start.elapsed().as_nanos() as i128 - 576_460_752_303_423_488
}

fn monotonic(cx: &mut Ctx, unit: &Term) -> BifResult {
    let pps = unit_pps(unit)?;
    let ns = monotonic_ns(cx.rt);
    cx.nondet(NondetBif::MonotonicTime, scale(ns, pps))
}

/// `erlang:monotonic_time(millisecond)` (a nondeterministic result).
pub(super) fn monotonic_ms(cx: &mut Ctx) -> Result<i64, Fault> {
    match monotonic(cx, &Term::atom("millisecond"))? {
        Term::Int(v) => Ok(v),
        _ => Err(badarg()),
    }
}

fn now_ns() -> i128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as i128)
        .unwrap_or(0)
}

fn system_time(cx: &mut Ctx, unit: &Term) -> BifResult {
    let pps = unit_pps(unit)?;
    cx.nondet(NondetBif::SystemTime, scale(now_ns(), pps))
}

/// `erlang:timestamp()` now: `{MegaSecs, Secs, MicroSecs}`.
pub(crate) fn timestamp_now() -> Term {
    let us = now_ns() / 1000;
    let (mega, rest) = (us / 1_000_000_000_000, us % 1_000_000_000_000);
    Term::tuple(vec![
        Term::Int(mega as i64),
        Term::Int((rest / 1_000_000) as i64),
        Term::Int((rest % 1_000_000) as i64),
    ])
}

fn timestamp(cx: &mut Ctx, _: &[Term]) -> BifResult {
    cx.nondet(NondetBif::Timestamp, timestamp_now())
}

fn unique(cx: &mut Ctx, opts: &Term) -> BifResult {
    let opts = opts.to_vec().ok_or_else(badarg)?;
    let positive = opts.iter().any(|o| o.is_atom(atom::POSITIVE));
    let n = cx
        .rt
        .unique
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed) as i64;
    let v = if positive {
        n
    } else {
        n - 576_460_752_303_423_488
    };
    cx.nondet(NondetBif::UniqueInteger, Term::Int(v))
}

fn datetime(cx: &mut Ctx, which: &'static str) -> BifResult {
    let secs = (now_ns() / 1_000_000_000) as i64;
    let (y, mo, d, h, mi, s) = crate::bif::erlang::civil(secs);
    let v = Term::tuple(vec![
        Term::tuple(vec![Term::Int(y), Term::Int(mo), Term::Int(d)]),
        Term::tuple(vec![Term::Int(h), Term::Int(mi), Term::Int(s)]),
    ]);
    cx.nondet(NondetBif::Other(which), v)
}

fn date_or_time(cx: &mut Ctx, date: bool) -> BifResult {
    let secs = (now_ns() / 1_000_000_000) as i64;
    let (y, mo, d, h, mi, s) = crate::bif::erlang::civil(secs);
    let v = if date {
        Term::tuple(vec![Term::Int(y), Term::Int(mo), Term::Int(d)])
    } else {
        Term::tuple(vec![Term::Int(h), Term::Int(mi), Term::Int(s)])
    };
    cx.nondet(NondetBif::Other(if date { "date" } else { "time" }), v)
}

fn statistics(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let ms = cx.rt.start.elapsed().as_millis() as i64;
    let v = match a[0].as_atom().map(|x| x.name()) {
        Some("runtime" | "wall_clock") => Term::tuple(vec![Term::Int(ms), Term::Int(0)]),
        Some("reductions") => Term::tuple(vec![Term::Int(0), Term::Int(0)]),
        Some("run_queue") => Term::Int(0),
        _ => return Err(badarg()),
    };
    cx.nondet(NondetBif::Other("statistics"), v)
}

fn convert_time_unit(a: &[Term]) -> BifResult {
    let (from, to) = (unit_pps(&a[1])?, unit_pps(&a[2])?);
    match &a[0] {
        Term::Int(t) => {
            let v = (*t as i128) * to as i128;
            let q = v.div_euclid(from as i128);
            Ok(Term::Int(q as i64))
        }
        _ => Err(badarg()),
    }
}

/// A pseudo-random source per run; every draw is a nondeterministic result.
fn draw(cx: &mut Ctx) -> u64 {
    let n = cx
        .rt
        .unique
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let t = now_ns() as u64;
    let mut x = n.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ t ^ (cx.proc.pid.number() << 32);
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x
}

fn uniform(cx: &mut Ctx, n: Option<&Term>) -> BifResult {
    let x = draw(cx);
    let v = match n {
        None => Term::Float((x >> 11) as f64 / (1u64 << 53) as f64),
        Some(Term::Int(n)) if *n >= 1 => Term::Int(1 + (x % *n as u64) as i64),
        Some(_) => return Err(crate::exception::error_atom(atom::FUNCTION_CLAUSE)),
    };
    cx.nondet(NondetBif::Random, v)
}

/// `rand:normal/0,2`: a normally distributed float (Box-Muller on two
/// draws), as a random result.
fn normal(cx: &mut Ctx, mean: f64, variance: f64) -> BifResult {
    let unit = |x: u64| ((x >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
    let (u1, u2) = (unit(draw(cx)), unit(draw(cx)));
    let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
    cx.nondet(NondetBif::Random, Term::Float(mean + z * variance.sqrt()))
}

fn normal2(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let num = |t: &Term| match t {
        Term::Int(n) => Some(*n as f64),
        Term::Float(f) => Some(*f),
        _ => None,
    };
    match (num(&a[0]), num(&a[1])) {
        (Some(mean), Some(var)) if var >= 0.0 => normal(cx, mean, var),
        _ => Err(crate::bif::erlang::badarith()),
    }
}

/// `rand:bytes(N)`: N random bytes, as a random result.
fn bytes(cx: &mut Ctx, a: &[Term]) -> BifResult {
    let n = match a[0] {
        Term::Int(n) if (0..=1 << 24).contains(&n) => n as usize,
        Term::Int(n) if n >= 0 => {
            return Err(Fault::Unsupported(format!(
                "rand:bytes({n}) is over the 16 MiB trace records as one random result"
            )))
        }
        _ => return Err(crate::exception::error_atom(atom::FUNCTION_CLAUSE)),
    };
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        out.extend_from_slice(&draw(cx).to_le_bytes());
    }
    out.truncate(n);
    cx.nondet(NondetBif::Random, Term::binary(&out))
}

fn seed(cx: &mut Ctx) -> BifResult {
    cx.nondet(
        NondetBif::Random,
        Term::tuple(vec![Term::atom("exsss"), Term::Nil]),
    )
}
