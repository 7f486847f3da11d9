//! Running one benchmark program (`xtask/programs/NAME.erl`, entry
//! `NAME:main()` or `NAME:main(ARGS)`) on erl and on the engine, and timing
//! both.
//!
//! erl's time is measured inside the VM with `timer:tc` (its boot is left
//! out); the engine's is the wall time of `trace run`, load and compile
//! included, so the ratio is, if anything, unfair to the engine. Peak memory
//! is the whole OS process's maximum resident set on both sides (erl's
//! includes its boot, about 40 MB). Both must print the same output, or the
//! row says so.

use crate::erl::{self, run_measured, Scratch};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(600);

/// Where benchmark programs live.
pub fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("programs")
}

/// What to run.
#[derive(Clone, Copy)]
pub struct Spec<'a> {
    pub name: &'a str,
    /// Arguments of `main`, as Erlang source (`"1000, 2000"`); empty: `main()`.
    pub args: &'a str,
    /// Extra arguments to `trace run`.
    pub trace_flags: &'a [&'a str],
    /// Extra arguments to `erl` (emulator flags such as `+P 2000000`).
    pub erl_flags: &'a [&'a str],
}

/// One program's best times (and peak memory) over its runs.
#[derive(Default)]
pub struct Timing {
    pub erl: Option<f64>,
    pub trace: Option<f64>,
    /// Peak resident set, kilobytes.
    pub erl_peak: Option<u64>,
    pub trace_peak: Option<u64>,
    /// CPU seconds of the engine's best run (all threads).
    pub trace_cpu: Option<f64>,
    /// Set when the two printed different things (or one failed).
    pub problem: Option<String>,
}

/// Times `NAME:main()` on erl (if present) and on the engine with `extra`
/// arguments to `trace run`.
pub fn time(ctx: &super::Ctx, name: &str, runs: usize, extra: &[&str]) -> Timing {
    measure(
        ctx,
        Spec {
            name,
            args: "",
            trace_flags: extra,
            erl_flags: &[],
        },
        runs,
        true,
        true,
    )
}

/// Runs `spec` `runs` times on erl (when `on_erl` and erl is here) and on the
/// engine (when `on_trace`), keeping the best time and the largest peak.
pub fn measure(ctx: &super::Ctx, spec: Spec, runs: usize, on_erl: bool, on_trace: bool) -> Timing {
    let src = dir().join(format!("{}.erl", spec.name));
    let mut t = Timing::default();
    let mut erl_out = None;
    if ctx.erl && on_erl {
        let scratch = Scratch::new(&format!("bench-{}", spec.name));
        match erl::compile(std::slice::from_ref(&src), &scratch.0) {
            Ok(()) => {
                for _ in 0..runs {
                    match run_erl(spec, &scratch.0, None) {
                        Ok((secs, out, peak)) => {
                            t.erl = Some(t.erl.map_or(secs, |b: f64| b.min(secs)));
                            t.erl_peak = t.erl_peak.max(peak);
                            erl_out = Some(out);
                        }
                        Err(e) => t.problem = Some(e),
                    }
                }
            }
            Err(e) => t.problem = Some(e),
        }
    }
    if !on_trace {
        return t;
    }
    for _ in 0..runs {
        let mut cmd = Command::new(&ctx.trace);
        cmd.arg("run").args(spec.trace_flags).arg(&src);
        if !spec.args.is_empty() {
            cmd.arg("--entry")
                .arg(format!("{}:main({})", spec.name, spec.args));
        }
        match run_measured(cmd, LIMIT) {
            Ok((r, usage)) if r.status == Some(0) => {
                let s = r.elapsed.as_secs_f64();
                if t.trace.is_none_or(|b| s < b) {
                    t.trace = Some(s);
                    t.trace_cpu = Some(usage.cpu);
                }
                t.trace_peak = t.trace_peak.max(usage.peak_kb);
                if let Some(o) = &erl_out {
                    if *o != r.stdout {
                        t.problem = Some(format!(
                            "outputs differ: erl {:?}, trace {:?}",
                            String::from_utf8_lossy(o),
                            String::from_utf8_lossy(&r.stdout)
                        ));
                    }
                }
            }
            Ok((r, _)) => {
                t.problem = Some(format!(
                    "trace run exited with {:?}: {}",
                    r.status,
                    String::from_utf8_lossy(&r.stderr)
                ))
            }
            Err(e) => t.problem = Some(format!("trace run: {e}")),
        }
    }
    t
}

/// Emulator flags a program needs on erl (`idle` keeps a million processes).
pub fn erl_flags(name: &str) -> &'static [&'static str] {
    match name {
        "idle" => &["+P", "2000000"],
        _ => &[],
    }
}

/// Runs the program once on erl; returns the in-VM seconds, its output and
/// the VM's peak resident set. With `trace`, the VM's own tracing records
/// every send, receive and process event (spawn, exit, link) of the program
/// to that file, through dbg's file trace port (what ttb uses); the time
/// then covers starting the tracer and flushing it at the end.
pub fn run_erl(
    spec: Spec,
    beams: &Path,
    trace: Option<&Path>,
) -> Result<(f64, Vec<u8>, Option<u64>), String> {
    let call = format!("'{}':main({})", spec.name, spec.args);
    let timed = match trace {
        None => call,
        Some(file) => format!(
            "dbg:tracer(port, dbg:trace_port(file, {file:?})), \
             dbg:p(self(), [send, 'receive', procs, set_on_spawn]), \
             R = {call}, dbg:flush_trace_port(), R"
        ),
    };
    let mut cmd = Command::new("erl");
    // In the scratch folder: a VM that fails writes its crash dump there,
    // not in the user's working directory.
    cmd.current_dir(beams)
        .args(spec.erl_flags)
        .arg("-noshell")
        .arg("-pa")
        .arg(beams)
        .arg("-eval")
        .arg(format!(
            "{{T, _}} = timer:tc(fun() -> {timed} end), \
         io:format(standard_error, \"~p~n\", [T]), erlang:halt(0, [{{flush, true}}])."
        ));
    let (r, usage) = run_measured(cmd, LIMIT).map_err(|e| format!("erl: {e}"))?;
    if r.status != Some(0) {
        return Err(format!(
            "erl exited with {:?}: {}",
            r.status,
            String::from_utf8_lossy(&r.stderr)
        ));
    }
    let micros: f64 = String::from_utf8_lossy(&r.stderr)
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .ok_or_else(|| "erl did not report its time".to_string())?;
    Ok((micros / 1e6, r.stdout, usage.peak_kb))
}

/// A benchmark program: its arguments at full size and under `--quick`,
/// and what a run of it does.
pub struct Bench {
    pub name: &'static str,
    pub args: &'static str,
    pub quick: &'static str,
    pub what: &'static str,
}

impl Bench {
    /// Its arguments for this run's size.
    pub fn args(&self, ctx: &super::Ctx) -> &'static str {
        if ctx.quick {
            self.quick
        } else {
            self.args
        }
    }
}

/// Each program on erl and on the engine (best of `runs`), with peak
/// memory, and the engine's CPU time when `cpu`: the table, and the
/// problems met.
pub fn beside_erl(
    ctx: &super::Ctx,
    programs: &[Bench],
    runs: usize,
    cpu: bool,
) -> (super::table::Table, Vec<String>) {
    use super::table::{kilobytes, ratio, secs, Table};
    let mut problems = Vec::new();
    let mut head = vec!["benchmark", "erl", "trace", "trace/erl"];
    if cpu {
        head.push("trace CPU");
    }
    head.extend(["erl peak RSS", "trace peak RSS", "what"]);
    let mut t = Table::new(&head);
    for b in programs {
        let spec = Spec {
            name: b.name,
            args: b.args(ctx),
            trace_flags: &[],
            erl_flags: erl_flags(b.name),
        };
        let r = measure(ctx, spec, runs, true, true);
        if let Some(p) = r.problem {
            problems.push(format!("{}: {p}", b.name));
        }
        let mut row = vec![
            b.name.to_string(),
            secs(r.erl),
            secs(r.trace),
            ratio(r.trace, r.erl),
        ];
        if cpu {
            row.push(secs(r.trace_cpu));
        }
        row.extend([
            kilobytes(r.erl_peak),
            kilobytes(r.trace_peak),
            b.what.to_string(),
        ]);
        t.row(row);
    }
    (t, problems)
}
