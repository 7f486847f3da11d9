//! `cargo xtask view`: the pages `trace view`, `check --html` and `diff
//! --html` write, opened in a headless Chromium and used as a person
//! would: each loads with no console error and no request to anywhere,
//! has a lane per process and an arrow per message received, a click on
//! an event highlights exactly its causal past (the set `trace replay
//! --until` replays), and a screenshot of the diagram is not blank. A page
//! of 100,000 events must load in a few seconds (the time is printed, and
//! how long drawing a screenful takes). The exports are checked too: the
//! Perfetto JSON against the trace-event format, the ShiViz log against
//! its printed regular expression (in the browser's own RegExp) and its
//! vector clocks against the causal model's.
//!
//! `--screenshot FILE` also writes the README's picture of a diagram.

mod cdp;
mod exports;
mod pages;

use crate::erl::{self, Scratch};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// The longest a 100,000-event page may take to load.
const LOAD_LIMIT_S: f64 = 10.0;

/// What the checks found: a line per failure.
#[derive(Default)]
pub struct Failures(Vec<String>);

impl Failures {
    pub fn check(&mut self, ok: bool, what: impl FnOnce() -> String) {
        if !ok {
            let w = what();
            println!("  FAIL {w}");
            self.0.push(w);
        }
    }

    pub fn count(&self) -> usize {
        self.0.len()
    }

    /// `ok` when nothing failed since `before` failures were counted.
    pub fn tag(&self, before: usize) -> &'static str {
        if self.0.len() == before {
            "ok  "
        } else {
            "FAIL"
        }
    }

    pub fn all(&mut self, what: &str, problems: Vec<String>) {
        for p in problems {
            self.check(false, || format!("{what}: {p}"));
        }
    }
}

/// The Chromium to drive: `$CHROMIUM`, or the first of the usual names.
fn chromium() -> Option<PathBuf> {
    if let Some(c) = std::env::var_os("CHROMIUM") {
        return Some(PathBuf::from(c));
    }
    [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ]
    .iter()
    .find_map(|name| {
        std::env::var_os("PATH")?
            .to_str()?
            .split(':')
            .map(|d| Path::new(d).join(name))
            .find(|p| p.is_file())
    })
}

/// Runs `trace ARGS`; its stdout, or why it failed. Statuses 1 and 5 are
/// findings, not failures (a run that crashed or deadlocked is recorded
/// all the same; check and diff found something).
pub fn trace(bin: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new(bin)
        .args(args)
        .output()
        .map_err(|e| format!("{}: {e}", bin.display()))?;
    match out.status.code() {
        Some(0 | 1 | 5) => Ok(String::from_utf8_lossy(&out.stdout).into_owned()),
        code => Err(format!(
            "trace {}: status {code:?}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        )),
    }
}

pub fn main(args: &[String]) -> ExitCode {
    let mut screenshot = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--screenshot" => screenshot = it.next().map(PathBuf::from),
            other => {
                eprintln!("view: unknown argument {other}; usage: cargo xtask view [--screenshot FILE.png]");
                return ExitCode::from(2);
            }
        }
    }
    let Some(chromium) = chromium() else {
        eprintln!("view: no Chromium found (Debian: apt-get install chromium; or set CHROMIUM)");
        return ExitCode::from(2);
    };
    let bin = match erl::trace_binary() {
        Ok(b) => b,
        Err(e) => {
            eprintln!("view: {e}");
            return ExitCode::from(2);
        }
    };
    let dir = Scratch::new("view");
    let mut fails = Failures::default();
    let ctx = pages::Ctx {
        bin: &bin,
        chromium: &chromium,
        dir: &dir.0,
    };
    if let Err(e) = run(&ctx, &mut fails, screenshot.as_deref()) {
        fails.check(false, || e);
    }
    if fails.0.is_empty() {
        println!("view: every check passed");
        ExitCode::SUCCESS
    } else {
        println!("view: {} checks failed", fails.0.len());
        ExitCode::FAILURE
    }
}

fn run(
    ctx: &pages::Ctx<'_>,
    fails: &mut Failures,
    screenshot: Option<&Path>,
) -> Result<(), String> {
    let mut browser = ctx.browser(1400, 900)?;
    for (fixture, deliveries) in [
        ("conc/links_monitors", true),
        ("papers/client_server", false),
        ("conc/ets_shared", false),
        ("conc/deadlock", true),
        ("papers/purchase", false),
    ] {
        let log = ctx.record_fixture(fixture, deliveries)?;
        pages::fixture_page(ctx, &mut browser, &log, fixture, fails)?;
        exports::check(ctx, &mut browser, &log, fixture, fails)?;
    }
    pages::findings_pages(ctx, &mut browser, fails)?;
    pages::large_page(ctx, &mut browser, LOAD_LIMIT_S, fails)?;
    if let Some(path) = screenshot {
        pages::readme_picture(ctx, path)?;
    }
    Ok(())
}
