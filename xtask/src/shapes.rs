//! `cargo xtask shapes [MODULE...] [--steps N]`: the prelude's data
//! structures against OTP's own modules on the real VM. Each prelude module
//! is compiled for erl under another name (`trace_queue`, ...) beside a
//! harness in `erl/shapes/` that runs random operations on both and
//! compares every result, the data structure's internal shape included
//! (it is visible to programs), every exception's class and reason, and the
//! calls made to the funs passed in.

use crate::erl::{self, Scratch};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Duration;

/// Harness module, and the prelude modules it compares with OTP's.
const HARNESSES: &[(&str, &[&str])] = &[
    ("shape_queue", &["queue"]),
    ("shape_gb_trees", &["gb_trees"]),
    ("shape_gb_sets", &["gb_sets"]),
    ("shape_ordered", &["ordsets", "orddict"]),
    ("shape_dict", &["dict"]),
    ("shape_sets", &["sets"]),
    ("shape_array", &["array"]),
    ("shape_lists", &["lists"]),
];

const LIMIT: Duration = Duration::from_secs(600);

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The prelude module renamed `trace_M`; calls to its own functions through
/// `M:` follow it, except for `lists`, whose native functions only OTP's
/// module has here.
fn renamed(module: &str) -> Result<String, String> {
    let path = root().join(format!("crates/runtime/prelude/{module}.erl"));
    let src = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = src.replacen(
        &format!("-module({module})."),
        &format!("-module(trace_{module})."),
        1,
    );
    if module != "lists" {
        out = out.replace(&format!(" {module}:"), &format!(" trace_{module}:"));
        out = out.replace(&format!("({module}:"), &format!("(trace_{module}:"));
    }
    Ok(out)
}

fn check(harness: &str, modules: &[&str], steps: u64) -> Result<bool, String> {
    let dir = Scratch::new(harness);
    let mut files = Vec::new();
    for m in modules {
        let f = dir.0.join(format!("trace_{m}.erl"));
        std::fs::write(&f, renamed(m)?).map_err(|e| e.to_string())?;
        files.push(f);
    }
    let shapes = Path::new(env!("CARGO_MANIFEST_DIR")).join("erl/shapes");
    files.push(shapes.join("shape_check.erl"));
    files.push(shapes.join(format!("{harness}.erl")));
    let mut cmd = Command::new("erlc");
    cmd.arg("+nowarn_deprecated_function")
        .arg("+nowarn_unused_vars")
        .arg("-o")
        .arg(&dir.0)
        .args(&files);
    let r = erl::run_limited(cmd, Duration::from_secs(120)).map_err(|e| format!("erlc: {e}"))?;
    if r.status != Some(0) {
        return Err(format!(
            "erlc failed:\n{}{}",
            String::from_utf8_lossy(&r.stdout),
            String::from_utf8_lossy(&r.stderr)
        ));
    }
    let mut cmd = Command::new("erl");
    cmd.arg("-noshell")
        .arg("-pa")
        .arg(&dir.0)
        .arg("-eval")
        .arg(format!(
            "halt(case {harness}:main({steps}) of 0 -> 0; _ -> 1 end)."
        ));
    let r = erl::run_limited(cmd, LIMIT).map_err(|e| format!("erl: {e}"))?;
    print!("{}", String::from_utf8_lossy(&r.stdout));
    eprint!("{}", String::from_utf8_lossy(&r.stderr));
    Ok(r.status == Some(0))
}

pub fn main(args: &[String]) -> ExitCode {
    if !erl::available() {
        eprintln!("shapes: erl and erlc are needed (Debian: apt-get install erlang-nox)");
        return ExitCode::from(2);
    }
    let mut steps = 100_000u64;
    let mut filters = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--steps" {
            match it.next().and_then(|n| n.parse().ok()) {
                Some(n) => steps = n,
                None => {
                    eprintln!("shapes: --steps takes a number");
                    return ExitCode::from(2);
                }
            }
        } else {
            filters.push(a.as_str());
        }
    }
    let mut failed = 0;
    for (harness, modules) in HARNESSES {
        if !filters.is_empty() && !modules.iter().any(|m| filters.contains(m)) {
            continue;
        }
        match check(harness, modules, steps) {
            Ok(true) => {}
            Ok(false) => failed += 1,
            Err(e) => {
                eprintln!("shapes: {harness}: {e}");
                failed += 1;
            }
        }
    }
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
