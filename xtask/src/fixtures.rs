//! `cargo xtask fixtures`: runs fixtures on `erl` and commits what it printed
//! as their expectations (`.stdout`, and `.status` when not 0). A fixture
//! with a hand-written `.outcomes` file keeps it; erl's output must be one of
//! its outcomes.

use crate::erl::{self, Scratch};
use std::process::ExitCode;
use std::time::Duration;

pub fn main(args: &[String]) -> ExitCode {
    if !erl::available() {
        eprintln!("fixtures: erl and erlc are needed (Debian: apt-get install erlang-nox)");
        return ExitCode::from(2);
    }
    let mut failed = 0;
    for f in crate::conformance::selected(args) {
        let scratch = Scratch::new(&f.module);
        if let Err(e) = erl::compile_fixture(&f, &scratch.0) {
            eprintln!("{}: {e}", f.id);
            failed += 1;
            continue;
        }
        let r = match erl::run_fixture(&f.module, &scratch.0, Duration::from_secs(60)) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("{}: erl: {e}", f.id);
                failed += 1;
                continue;
            }
        };
        let Some(status) = r.status else {
            eprintln!("{}: erl did not finish within 60 s", f.id);
            failed += 1;
            continue;
        };
        if f.outcomes_path().exists() {
            match f.expected() {
                Ok(e) if u8::try_from(status).is_ok_and(|s| e.allows_run(&r.stdout, s)) => {
                    println!("ok      {} (one of its outcomes)", f.id);
                    continue;
                }
                _ => {
                    eprintln!(
                        "{}: erl printed an output (exit status {status}) that is not in {}:\n{}",
                        f.id,
                        f.outcomes_path().display(),
                        String::from_utf8_lossy(&r.stdout)
                    );
                    failed += 1;
                    continue;
                }
            }
        } else {
            write(&f.stdout_path(), &r.stdout);
            println!("wrote   {} ({} bytes)", f.id, r.stdout.len());
        }
        if status == 0 {
            let _ = std::fs::remove_file(f.status_path());
        } else {
            write(&f.status_path(), format!("{status}\n").as_bytes());
        }
    }
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn write(path: &std::path::Path, bytes: &[u8]) {
    if let Err(e) = std::fs::write(path, bytes) {
        eprintln!("{}: {e}", path.display());
    }
}
