//! Group `explore`: `trace explore` to completion on three programs of the
//! explore corpus (`crates/explore/tests/programs/`), interleavings per
//! second beside the steps of each interleaving, best of three. The first
//! run of a new process is slow (cold caches: a few hundred microseconds),
//! so the rate after it is shown too: a program with two or three
//! interleavings measures little else; then N independent
//! senders (N = 2..8), whose interleavings must not grow as N!, beside
//! senders whose messages are taken in arrival order (every one of the N!
//! orders is a different run).

use super::table::Table;
use super::Ctx;
use std::path::{Path, PathBuf};
use std::process::Command;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../crates/explore/tests/programs")
        .to_path_buf()
}

/// What one exploration's summary says.
struct Explored {
    interleavings: u64,
    steps: u64,
    seconds: f64,
    /// The first run's seconds (a new process's caches are cold).
    first: f64,
}

/// The best of three explorations (this machine is noisy; the counts are
/// the same every time).
fn explore(ctx: &Ctx, file: &str, entry: Option<&str>) -> Result<Explored, String> {
    let mut best = explore_once(ctx, file, entry)?;
    for _ in 0..2 {
        let e = explore_once(ctx, file, entry)?;
        if e.seconds < best.seconds {
            best = e;
        }
    }
    Ok(best)
}

fn explore_once(ctx: &Ctx, file: &str, entry: Option<&str>) -> Result<Explored, String> {
    let path = corpus().join(file);
    let mut cmd = Command::new(&ctx.trace);
    cmd.arg("explore").arg(&path).args(["--json", "--quiet"]);
    if let Some(e) = entry {
        cmd.args(["--entry", e]);
    }
    let out = cmd
        .current_dir(std::env::temp_dir())
        .output()
        .map_err(|e| format!("trace explore {file}: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let summary = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|v| v["type"] == "summary")
        .ok_or_else(|| format!("trace explore {file}: no summary"))?;
    let n = |k: &str| summary[k].as_u64().unwrap_or(0);
    let f = |k: &str| summary[k].as_f64().unwrap_or(0.0);
    Ok(Explored {
        interleavings: n("interleavings"),
        steps: n("steps"),
        seconds: f("seconds"),
        first: f("first_seconds"),
    })
}

fn row(t: &mut Table, name: String, e: Explored) {
    let n = e.interleavings;
    let after = if n > 1 {
        format!("{:.0}", (n - 1) as f64 / (e.seconds - e.first).max(1e-9))
    } else {
        "-".into()
    };
    t.row(vec![
        name,
        n.to_string(),
        format!("{:.1}", e.steps as f64 / n.max(1) as f64),
        format!("{:.3}", e.seconds),
        format!("{:.3}", e.first * 1e3),
        format!("{:.0}", n as f64 / e.seconds.max(1e-9)),
        after,
    ]);
}

pub fn run(ctx: &Ctx) -> Result<(), String> {
    let headers = [
        "program",
        "interleavings",
        "steps each",
        "s",
        "first run ms",
        "interleavings/s",
        "after the first /s",
    ];
    let mut t = Table::new(&headers);
    for f in [
        "ets_lost_update.erl",
        "demonitor_race.erl",
        "proxy_server.erl",
    ] {
        row(&mut t, f.to_string(), explore(ctx, f, None)?);
    }
    t.print();
    println!();
    let mut t = Table::new(&headers);
    let top = if ctx.quick { 5 } else { 8 };
    for n in 2..=top {
        let e = format!("senders:main({n})");
        row(&mut t, e.clone(), explore(ctx, "senders.erl", Some(&e))?);
    }
    for n in 2..=top.min(6) {
        let e = format!("senders_any:main({n})");
        row(
            &mut t,
            e.clone(),
            explore(ctx, "senders_any.erl", Some(&e))?,
        );
    }
    t.print();
    Ok(())
}
