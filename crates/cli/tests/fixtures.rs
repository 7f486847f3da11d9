//! Every bundled fixture runs on the engine as a user runs it (`trace run`)
//! and must print exactly what the real VM printed (committed beside it) and
//! end with the committed exit status — on one scheduler thread and on
//! several.

use std::process::Command;
use trace_fixtures::Fixture;

fn run(f: &Fixture, schedulers: usize) -> Result<(), String> {
    let expected = f.expected()?;
    let out = Command::new(env!("CARGO_BIN_EXE_trace"))
        .arg("run")
        .arg("--schedulers")
        .arg(schedulers.to_string())
        .args(f.run_args())
        .output()
        .map_err(|e| format!("{}: {e}", f.id))?;
    let mut problems = Vec::new();
    if !expected.allows(&out.stdout) {
        problems.push(format!(
            "stdout differs from {}:\n--- got ---\n{}--- expected ---\n{}",
            if expected.nondeterministic {
                f.outcomes_path()
            } else {
                f.stdout_path()
            }
            .display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&expected.outcomes[0])
        ));
    }
    let status = out.status.code();
    let status_ok = match status {
        Some(s) => u8::try_from(s).is_ok_and(|s| expected.allows_run(&out.stdout, s)),
        None => false,
    };
    if problems.is_empty() && !status_ok {
        problems.push(format!(
            "exit status {status:?} does not go with that output (expected {:?})",
            expected.statuses
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} (--schedulers {schedulers}): {}\n--- stderr ---\n{}",
            f.id,
            problems.join("\n"),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

#[test]
fn every_fixture_prints_what_erl_printed() {
    let fixtures = trace_fixtures::discover(&trace_fixtures::root());
    assert!(!fixtures.is_empty(), "no fixtures found");
    let failures: Vec<String> = std::thread::scope(|s| {
        let chunks: Vec<_> = fixtures.chunks(fixtures.len().div_ceil(4)).collect();
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                s.spawn(move || {
                    let mut errs = Vec::new();
                    for f in chunk {
                        for n in [1, 4] {
                            if let Err(e) = run(f, n) {
                                errs.push(e);
                            }
                        }
                    }
                    errs
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("fixture thread"))
            .collect()
    });
    assert!(
        failures.is_empty(),
        "{} of {} fixture runs failed:\n\n{}",
        failures.len(),
        fixtures.len() * 2,
        failures.join("\n\n")
    );
}
