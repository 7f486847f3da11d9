//! `cargo xtask conformance`: every fixture on `erl` and on the engine side
//! by side; reports every mismatch of standard output or exit status, and
//! every fixture whose committed expectation erl no longer produces.

use crate::erl::{self, Scratch};
use std::process::{Command, ExitCode};
use std::time::Duration;
use trace_fixtures::Fixture;

const LIMIT: Duration = Duration::from_secs(60);

/// Fixtures whose id contains one of the filters (all when none is given).
pub fn selected(filters: &[String]) -> Vec<Fixture> {
    trace_fixtures::discover(&trace_fixtures::root())
        .into_iter()
        .filter(|f| filters.is_empty() || filters.iter().any(|x| f.id.contains(x.as_str())))
        .collect()
}

pub fn main(args: &[String]) -> ExitCode {
    if !erl::available() {
        eprintln!("conformance: erl and erlc are needed (Debian: apt-get install erlang-nox)");
        return ExitCode::from(2);
    }
    let trace = match erl::trace_binary() {
        Ok(t) => t,
        Err(e) => {
            eprintln!("conformance: {e}");
            return ExitCode::from(2);
        }
    };
    let fixtures = selected(args);
    let mut mismatches = 0;
    for f in &fixtures {
        let (problems, times) = check(f, &trace);
        if problems.is_empty() {
            println!("ok       {:<36} {times}", f.id);
        } else {
            mismatches += 1;
            println!("MISMATCH {}", f.id);
            for p in problems {
                for line in p.lines() {
                    println!("    {line}");
                }
            }
        }
    }
    println!(
        "conformance: {} fixtures, {} agree with erl, {} mismatch",
        fixtures.len(),
        fixtures.len() - mismatches,
        mismatches
    );
    if mismatches == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// The problems found, and both run times (erl's includes its boot and the
/// runner's settling time).
fn check(f: &Fixture, trace: &std::path::Path) -> (Vec<String>, String) {
    let mut problems = Vec::new();
    let scratch = Scratch::new(&f.module);
    if let Err(e) = erl::compile_fixture(f, &scratch.0) {
        return (vec![e], String::new());
    }
    let on_erl = match erl::run_fixture(&f.module, &scratch.0, LIMIT) {
        Ok(r) => r,
        Err(e) => return (vec![format!("erl: {e}")], String::new()),
    };
    let mut cmd = Command::new(trace);
    cmd.arg("run").args(f.run_args());
    let on_engine = match erl::run_limited(cmd, LIMIT) {
        Ok(r) => r,
        Err(e) => return (vec![format!("trace: {e}")], String::new()),
    };
    let times = format!(
        "erl {:.2}s, trace {:.2}s",
        on_erl.elapsed.as_secs_f64(),
        on_engine.elapsed.as_secs_f64()
    );
    let expected = f.expected().ok();
    // A nondeterministic fixture may end differently on each side, as long
    // as each side's output and status are one of its outcomes.
    let allowed = |out: &[u8], status: Option<i32>| match (&expected, status) {
        (Some(e), Some(s)) if e.nondeterministic => {
            u8::try_from(s).is_ok_and(|s| e.allows_run(out, s))
        }
        _ => false,
    };
    let both_allowed =
        allowed(&on_erl.stdout, on_erl.status) && allowed(&on_engine.stdout, on_engine.status);
    if on_engine.stdout != on_erl.stdout && !both_allowed {
        problems.push(format!(
            "stdout differs\n{}",
            first_difference(&on_erl.stdout, &on_engine.stdout)
        ));
    }
    if on_engine.status != on_erl.status && !both_allowed {
        problems.push(format!(
            "exit status: erl {:?}, trace {:?}\ntrace's stderr:\n{}",
            on_erl.status,
            on_engine.status,
            String::from_utf8_lossy(&on_engine.stderr)
        ));
    }
    match &expected {
        Some(e) if !e.allows(&on_erl.stdout) => problems.push(
            "erl's output is not the committed expectation (run `cargo xtask fixtures`)".into(),
        ),
        Some(e) if !allowed(&on_erl.stdout, on_erl.status) && e.nondeterministic => {
            problems.push(format!(
                "erl's exit status {:?} does not go with its output in {}",
                on_erl.status,
                f.outcomes_path().display()
            ))
        }
        Some(e) if !e.nondeterministic && on_erl.status != Some(e.status as i32) => {
            problems.push(format!(
                "erl's exit status {:?} is not the committed {}",
                on_erl.status, e.status
            ))
        }
        None => problems.push("no committed expectation (run `cargo xtask fixtures`)".into()),
        _ => {}
    }
    (problems, times)
}

/// The first differing line of two outputs, as `erl:`/`trace:` lines.
pub fn first_difference(erl: &[u8], trace: &[u8]) -> String {
    let a = String::from_utf8_lossy(erl);
    let b = String::from_utf8_lossy(trace);
    let mut la = a.lines();
    let mut lb = b.lines();
    let mut n = 1;
    loop {
        match (la.next(), lb.next()) {
            (None, None) => return "(they differ in line endings)".into(),
            (x, y) if x == y => n += 1,
            (x, y) => {
                return format!(
                    "line {n}:\n  erl:   {}\n  trace: {}",
                    x.unwrap_or("<end of output>"),
                    y.unwrap_or("<end of output>")
                )
            }
        }
    }
}
