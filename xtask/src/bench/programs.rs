//! Running one benchmark program (`xtask/programs/NAME.erl`, entry
//! `NAME:main()`) on erl and on the engine, and timing both.
//!
//! erl's time is measured inside the VM with `timer:tc` (its boot is left
//! out); the engine's is the wall time of `trace run`, load and compile
//! included, so the ratio is, if anything, unfair to the engine. Both must
//! print the same output, or the row says so.

use crate::erl::{self, Scratch};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(600);

/// Where benchmark programs live.
pub fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("programs")
}

/// One program's best times over `runs` runs.
pub struct Timing {
    pub erl: Option<f64>,
    pub trace: Option<f64>,
    /// Set when the two printed different things (or one failed).
    pub problem: Option<String>,
}

/// Times `NAME:main()` on erl (if present) and on the engine with `extra`
/// arguments to `trace run`.
pub fn time(ctx: &super::Ctx, name: &str, runs: usize, extra: &[&str]) -> Timing {
    let src = dir().join(format!("{name}.erl"));
    let mut problem = None;
    let mut erl_out = None;
    let mut erl_best: Option<f64> = None;
    if ctx.erl {
        let scratch = Scratch::new(&format!("bench-{name}"));
        match erl::compile(std::slice::from_ref(&src), &scratch.0) {
            Ok(()) => {
                for _ in 0..runs {
                    match run_erl(name, &scratch.0) {
                        Ok((secs, out)) => {
                            erl_best = Some(erl_best.map_or(secs, |b: f64| b.min(secs)));
                            erl_out = Some(out);
                        }
                        Err(e) => problem = Some(e),
                    }
                }
            }
            Err(e) => problem = Some(e),
        }
    }
    let mut trace_best: Option<f64> = None;
    for _ in 0..runs {
        let mut cmd = Command::new(&ctx.trace);
        cmd.arg("run").args(extra).arg(&src);
        match erl::run_limited(cmd, LIMIT) {
            Ok(r) if r.status == Some(0) => {
                let s = r.elapsed.as_secs_f64();
                trace_best = Some(trace_best.map_or(s, |b| b.min(s)));
                if let Some(o) = &erl_out {
                    if *o != r.stdout {
                        problem = Some(format!(
                            "outputs differ: erl {:?}, trace {:?}",
                            String::from_utf8_lossy(o),
                            String::from_utf8_lossy(&r.stdout)
                        ));
                    }
                }
            }
            Ok(r) => {
                problem = Some(format!(
                    "trace run exited with {:?}: {}",
                    r.status,
                    String::from_utf8_lossy(&r.stderr)
                ))
            }
            Err(e) => problem = Some(format!("trace run: {e}")),
        }
    }
    Timing {
        erl: erl_best,
        trace: trace_best,
        problem,
    }
}

/// Runs the program once on erl; returns the in-VM seconds and its output.
fn run_erl(name: &str, beams: &Path) -> Result<(f64, Vec<u8>), String> {
    let mut cmd = Command::new("erl");
    cmd.arg("-noshell")
        .arg("-pa")
        .arg(beams)
        .arg("-eval")
        .arg(format!(
            "{{T, _}} = timer:tc('{name}', main, []), \
         io:format(standard_error, \"~p~n\", [T]), erlang:halt(0, [{{flush, true}}])."
        ));
    let r = erl::run_limited(cmd, LIMIT).map_err(|e| format!("erl: {e}"))?;
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
    Ok((micros / 1e6, r.stdout))
}
