//! `cargo xtask fuzz`: runs the release `trace` binary on generated and
//! mutated hostile input for a bounded time, and counts what a user must
//! never see — panics (status 101), crashes (a signal), hangs (a case past
//! its time limit) and unbounded memory (a case past the RSS cap) — with the
//! worst peak RSS of any case.
//!
//! ```text
//! seeds: fixtures recorded into logs, their CauDEr exports, the fixtures'
//!        sources, specifications, a decompression bomb, special files
//!   └─► case (rng): pick a kind, mutate or generate its input, pick a command
//!         └─► runner: trace ARGS (time limit, RSS cap) ─► tally; a defect's
//!             case is kept under target/fuzz/failures/
//! ```
//!
//! Cases are a function of `--seed`: a failure is reproduced with the seed
//! the run printed (and the files it kept).

mod cases;
mod gen;
mod mutate;
mod rng;
mod runner;

use rng::Rng;
use runner::End;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// What a run is asked to do.
struct Options {
    seconds: u64,
    seed: u64,
    limit: Duration,
    cap_kb: u64,
}

fn options(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        seconds: 60,
        seed: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_secs()),
        limit: Duration::from_secs(10),
        cap_kb: 2 << 20,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || -> Result<u64, String> {
            it.next()
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("{a} needs a number"))
        };
        match a.as_str() {
            "--seconds" => o.seconds = value()?,
            "--seed" => o.seed = value()?,
            "--case-seconds" => o.limit = Duration::from_secs(value()?),
            "--max-rss-mb" => o.cap_kb = value()? << 10,
            _ => return Err(format!("unknown option {a}")),
        }
    }
    Ok(o)
}

pub const USAGE: &str = "fuzz [--seconds N] [--seed S] [--case-seconds N] [--max-rss-mb N]";

pub fn main(args: &[String]) -> ExitCode {
    let o = match options(args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("cargo xtask fuzz: {e}\nusage: cargo xtask {USAGE}");
            return ExitCode::from(2);
        }
    };
    let bin = match crate::erl::trace_binary() {
        Ok(b) => b,
        Err(e) => {
            eprintln!("cargo xtask fuzz: {e}");
            return ExitCode::from(2);
        }
    };
    let out = bin
        .parent()
        .and_then(Path::parent)
        .map_or_else(|| PathBuf::from("target/fuzz"), |t| t.join("fuzz"));
    let seeds = match cases::Seeds::make(&bin, &out.join("seeds")) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("cargo xtask fuzz: making seeds: {e}");
            return ExitCode::from(2);
        }
    };
    let tally = fuzz(&o, &bin, &seeds, &out);
    tally.report(&o);
    if tally.defects > 0 {
        eprintln!("fuzz: cases kept under {}", out.join("failures").display());
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// Cases until the time is up.
fn fuzz(o: &Options, bin: &Path, seeds: &cases::Seeds, out: &Path) -> Tally {
    let mut rng = Rng::new(o.seed);
    let mut tally = Tally::default();
    let deadline = Instant::now() + Duration::from_secs(o.seconds);
    let dir = out.join("case");
    let _ = std::fs::remove_dir_all(out.join("failures"));
    while Instant::now() < deadline {
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("case directory");
        let case = cases::make(&mut rng, seeds, &dir, tally.cases);
        let run = runner::run(bin, &case.args, &dir, o.limit, o.cap_kb);
        tally.add(&case, &run, &dir, out);
    }
    tally
}

/// What the cases came to.
#[derive(Default)]
struct Tally {
    cases: u64,
    by_kind: std::collections::BTreeMap<&'static str, u64>,
    panics: u64,
    crashes: u64,
    hangs: u64,
    over_memory: u64,
    defects: u64,
    worst_kb: u64,
    worst: String,
}

impl Tally {
    fn add(&mut self, case: &cases::Case, run: &runner::Run, dir: &Path, out: &Path) {
        self.cases += 1;
        *self.by_kind.entry(case.kind).or_default() += 1;
        if run.peak_kb > self.worst_kb {
            self.worst_kb = run.peak_kb;
            self.worst = format!("{}: trace {}", case.kind, case.args.join(" "));
        }
        match run.end {
            End::Exit(101) => self.panics += 1,
            End::Signal(_) => self.crashes += 1,
            End::Hang => self.hangs += 1,
            End::OverMemory => self.over_memory += 1,
            End::Exit(_) => {}
        }
        if run.end.is_defect() {
            self.defects += 1;
            self.keep(case, run, dir, out);
        }
    }

    /// Keeps a defect's files and command, and says what it was.
    fn keep(&self, case: &cases::Case, run: &runner::Run, dir: &Path, out: &Path) {
        let to = out
            .join("failures")
            .join(format!("{}-{}", self.defects, case.kind));
        let _ = std::fs::create_dir_all(to.parent().expect("has a parent"));
        let _ = std::fs::rename(dir, &to);
        let command = format!("trace {}\n", case.args.join(" "));
        let _ = std::fs::write(to.join("command"), &command);
        let stderr = std::fs::read(to.join("stderr")).unwrap_or_default();
        let tail = String::from_utf8_lossy(&stderr[stderr.len().saturating_sub(400)..]);
        eprintln!(
            "fuzz: {:?} in {} ({}): {command}{tail}",
            run.end,
            to.display(),
            case.kind
        );
    }

    fn report(&self, o: &Options) {
        let kinds: Vec<String> = self
            .by_kind
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        println!(
            "fuzz: {} cases in {} s (seed {}): {}",
            self.cases,
            o.seconds,
            o.seed,
            kinds.join(", ")
        );
        println!(
            "fuzz: panics {}, crashes {}, hangs {} (limit {} s), over memory {} (cap {} MB)",
            self.panics,
            self.crashes,
            self.hangs,
            o.limit.as_secs(),
            self.over_memory,
            o.cap_kb >> 10
        );
        println!("fuzz: worst RSS {} MB, {}", self.worst_kb >> 10, self.worst);
    }
}
