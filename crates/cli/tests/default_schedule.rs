//! The default schedule resembles BEAM's where a program can see it
//! (docs/concurrency.md): a write to standard output and a logged report
//! end the writer's slice, as a request to the io server or the logger does
//! on BEAM. The expected outputs are what erl (OTP 25) printed, on every
//! run, for these programs.

mod common;
use common::{program, s, text, trace};

/// Main prints, spawns a printer, sends to a receiver and prints again; erl
/// prints the four lines in this order.
#[test]
fn output_of_several_processes_interleaves_as_on_beam() {
    let src = program("print_order.erl");
    let out = trace(&["run", "--schedulers", "1", s(&src)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines,
        [
            "after spawn",
            "spawned runs",
            "sender continues",
            "receiver"
        ]
    );
}

/// A client retries a call while the supervisor restarts the server. On
/// BEAM the supervisor is preempted while it logs the child's exit, the
/// client's retry comes before the new server has registered, and the
/// client crashes with noproc on every run (8 of 8 with erl, 1 scheduler or
/// more). The default schedule shows the same bug, with no --chaos.
#[test]
fn a_restart_race_that_fails_on_beam_fails_without_chaos() {
    let src = program("restart_race.erl");
    for schedulers in ["1", "2"] {
        let out = trace(&["run", "--schedulers", schedulers, s(&src)]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(
            err.contains("{noproc,{gen_server,call,[srv,ping]}}"),
            "{err}"
        );
    }
}
