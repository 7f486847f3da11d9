//! `trace replay prog.erl run.trace` as a user runs it: the replay prints
//! what the recording printed and ends the same way; an edited program is
//! refused or, forced, its first departure is reported; `--until` replays a
//! causal past; a killed recording replays as far as its log goes.

mod common;

use common::{program, s, text, trace, trace_cmd, Scratch};
use std::process::Stdio;
use std::time::Duration;

fn record(
    dir: &Scratch,
    files: &[&str],
    extra: &[&str],
) -> (std::path::PathBuf, std::process::Output) {
    let log = dir.path("run.trace");
    let mut args = vec!["record", "-q", "-o", s(&log)];
    args.extend_from_slice(extra);
    args.extend_from_slice(files);
    let out = trace(&args);
    (log, out)
}

/// Reports carry the time (`=ERROR REPORT==== 23-Nov-2026::...`, and the
/// CRASH, SUPERVISOR and logger reports of OTP code); compare them without
/// it, and without the line a replay of a halted run adds.
fn without_times(stderr: &str) -> String {
    stderr
        .lines()
        .filter(|l| !(l.starts_with('=') && l.contains(" REPORT==== ")))
        .filter(|l| !l.starts_with("trace replay: the recording halted"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn every_fixture_replays_as_recorded_through_the_binary() {
    let dir = Scratch::new("rp-fixtures");
    for f in trace_fixtures::discover(&trace_fixtures::root()) {
        let files: Vec<&str> = f.files.iter().map(|p| s(p)).collect();
        let entry: Vec<&str> = match &f.entry {
            Some(e) => vec!["--entry", e],
            None => vec![],
        };
        let (log, rec) = record(&dir, &files, &entry);
        for n in ["1", "3"] {
            let mut args = vec!["replay", "--schedulers", n];
            args.extend_from_slice(&files);
            args.push(s(&log));
            let rep = trace(&args);
            assert_eq!(
                text(&rep.stdout),
                text(&rec.stdout),
                "{}: stdout, {n} schedulers; stderr:\n{}",
                f.id,
                text(&rep.stderr)
            );
            assert_eq!(rep.status.code(), rec.status.code(), "{}: status", f.id);
            // The same crash and deadlock reports (times apart).
            assert_eq!(
                without_times(&text(&rep.stderr)),
                without_times(&text(&rec.stderr)),
                "{}: reports",
                f.id
            );
        }
    }
}

#[test]
fn an_edited_program_is_refused_and_forced_replay_reports_the_departure() {
    let dir = Scratch::new("rp-edited");
    let src = dir.path("race.erl");
    std::fs::copy(program("race.erl"), &src).unwrap();
    let (log, _) = record(&dir, &[s(&src)], &[]);
    let edited = std::fs::read_to_string(&src)
        .unwrap()
        .replace("Self ! b", "Self ! c");
    std::fs::write(&src, edited).unwrap();
    let o = trace(&["replay", s(&src), s(&log)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("module race") && text(&o.stderr).contains("--force"),
        "{}",
        text(&o.stderr)
    );
    let o = trace(&["replay", "--force", s(&src), s(&log)]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(6), "{err}");
    assert!(
        err.contains("departed from the log at P.2 <0.82.0>, event #0"),
        "{err}"
    );
    assert!(err.contains("race.erl:9"), "the source line: {err}");
    assert!(
        err.contains("the log has: send P.2:0 to P <0.80.0>: b"),
        "{err}"
    );
    assert!(
        err.contains("the run did: send P.2:0 to P <0.80.0>: c"),
        "{err}"
    );
}

/// A ping-pong whose statements an edit moves: each line is one statement.
const ECHO: &str = "-module(echo).
-export([main/0]).

main() ->
    P = spawn(fun() -> loop() end),
    P ! {self(), one},
    receive {one, X} -> ok end,
    io:format(\"got ~p~n\", [X]),
    P ! {self(), two},
    receive {two, Y} -> ok end,
    io:format(\"got ~p~n\", [Y]),
    P ! stop.

loop() ->
    receive
        {From, M} ->
            From ! {M, M},
            loop();
        stop -> ok
    end.
";

/// A statement inserted into a recorded program (an output, a send, a
/// spawn) makes the run depart at the first statement whose event the log
/// does not have — reported at that statement's line, not the next one —
/// and the report says where the run last agreed with the log. (An inserted
/// output matches a logged output, which records no bytes here: the run
/// departs at the next output.)
#[test]
fn a_departure_is_reported_at_the_statement_that_departed() {
    let dir = Scratch::new("rp-departure");
    let src = dir.write("echo.erl", ECHO);
    let (log, out) = record(&dir, &[s(&src)], &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // (line inserted at, statement, line where the run departs, last agreed)
    let edits = [
        (8, "    io:format(\"extra~n\"),", 9, 8),
        (9, "    P ! {self(), extra},", 9, 8),
        (6, "    self() ! hi,", 6, 5),
        (7, "    spawn(fun() -> ok end),", 7, 6),
        (11, "    io:format(\"more~n\"),", 12, 11),
    ];
    std::fs::create_dir_all(dir.path("edited")).unwrap();
    for (line, statement, departs, agreed) in edits {
        let mut lines: Vec<&str> = ECHO.lines().collect();
        lines.insert(line - 1, statement);
        let edited = dir.write("edited/echo.erl", &(lines.join("\n") + "\n"));
        let o = trace(&["replay", "--force", s(&edited), s(&log)]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(6), "{statement}: {err}");
        let at = |l: usize| format!("{}:{l}", edited.display());
        assert!(
            err.contains(&format!("({}):", at(departs))),
            "{statement}: {err}"
        );
        assert!(
            err.contains(&format!(" at {}\n", at(departs))),
            "{statement}: {err}"
        );
        let before = format!("the run last agreed with the log at {}\n", at(agreed));
        assert!(err.contains(&before), "{statement}: {err}");
    }
}

#[test]
fn until_replays_the_causes_and_shows_the_process() {
    let dir = Scratch::new("rp-until");
    let src = dir.path("race.erl");
    std::fs::copy(program("race.erl"), &src).unwrap();
    let (log, _) = record(&dir, &[s(&src)], &["--schedulers", "1"]);
    // The entry's first receipt: its causes are the spawns and one send.
    let o = trace(&["replay", s(&src), s(&log), "--until", "P#2"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert_eq!(text(&o.stdout), "", "the print comes later");
    assert!(
        err.contains("replayed the causal past of P#2: 4 events of 2 processes"),
        "{err}"
    );
    assert!(err.contains("P <0.80.0>"), "{err}");
    assert!(
        err.contains("P <0.80.0> stopped in race:main/0 at "),
        "{err}"
    );
    // A name that names nothing is trouble, with the reason.
    let o = trace(&["replay", s(&src), s(&log), "--until", "P.9#0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("P.9"), "{}", text(&o.stderr));
}

/// A process replayed to an event goes on to its next one before it stops:
/// the report says where the event itself happened, and where it waits.
#[test]
fn until_says_where_the_event_happened_and_where_the_process_waits() {
    let dir = Scratch::new("rp-until-place");
    let src = dir.path("rl.erl");
    std::fs::write(
        &src,
        "-module(rl).\n-export([main/0]).\n\nmain() ->\n    Self = self(),\n    \
         spawn(fun() -> Self ! a end),\n    X = receive\n        M -> M\n    end,\n    \
         io:format(\"got ~p~n\", [X]),\n    Self ! X,\n    ok.\n",
    )
    .unwrap();
    let (log, _) = record(&dir, &[s(&src)], &[]);
    let cases = [
        (
            "receive(P.1:0)",
            "did receive(P.1:0) at ",
            "rl.erl:8, then stopped in rl:main/0 at ",
            "rl.erl:10",
        ),
        (
            "send(P:0)",
            "did send(P:0) at ",
            "rl.erl:11, then stopped in rl:main/0 at ",
            "rl.erl:12",
        ),
        (
            "spawn(P.1)",
            "did spawn(P.1) at ",
            "rl.erl:6, then stopped in rl:main/0 at ",
            "rl.erl:7",
        ),
    ];
    for (event, did, then, waits) in cases {
        let o = trace(&["replay", s(&src), s(&log), "--until", event]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{event}: {err}");
        let line = err
            .lines()
            .find(|l| l.starts_with("P <0.80.0> "))
            .unwrap_or("");
        assert!(
            line.contains(did) && line.contains(then) && line.contains(waits),
            "{event}: {err}"
        );
    }
}

/// An operation on a table is a built-in call's event: `--until` names its
/// own line, not the line of the process's event before it.
#[test]
fn until_says_where_a_table_operation_happened() {
    let dir = Scratch::new("rp-until-table");
    let src = dir.write(
        "rt.erl",
        "-module(rt).\n-export([main/0]).\n\nmain() ->\n    T = ets:new(t, [public]),\n    \
         Self = self(),\n    spawn(fun() -> Self ! a end),\n    receive _ -> ok end,\n    \
         ets:insert(T, {k, 1}),\n    io:format(\"~p~n\", [ets:lookup(T, k)]).\n",
    );
    let (log, _) = record(&dir, &[s(&src)], &[]);
    // P#0 creates the table, P#3 inserts into it (after the receive, P#2).
    for (event, line) in [("P#0", "rt.erl:5,"), ("P#3", "rt.erl:9,")] {
        let o = trace(&["replay", s(&src), s(&log), "--until", event]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{event}: {err}");
        let did = format!("did {event} at ");
        let said = err
            .lines()
            .find(|l| l.starts_with("P <0.80.0> "))
            .unwrap_or("");
        assert!(said.contains(&did) && said.contains(line), "{event}: {err}");
    }
}

#[test]
fn a_killed_recording_replays_as_far_as_its_log_goes() {
    let dir = Scratch::new("rp-killed");
    let src = program("forever.erl");
    let log = dir.path("k.trace");
    let mut child = trace_cmd()
        .args([
            "record",
            "-q",
            "--flush-interval",
            "20",
            "-o",
            s(&log),
            s(&src),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(600));
    child.kill().unwrap();
    child.wait().unwrap();
    // A killed recording leaves its log under its partial name (docs/record.md).
    let log = dir.path(&format!("k.trace.recording-{}", child.id()));
    let o = trace(&["replay", s(&src), s(&log)]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("no footer"), "{err}");
    assert!(err.contains("cut short"), "{err}");
}

#[test]
fn an_option_of_the_other_mode_is_refused() {
    let d = Scratch::new("replay-modes");
    let src = program("race.erl");
    let log = d.path("race.trace");
    let out = trace(&["record", "-q", "-o", s(&log), s(&src)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    for (args, says) in [
        (
            vec![s(&src), s(&log), "--json"],
            "--json applies only from the log alone",
        ),
        (
            vec![s(&src), s(&log), "--summary"],
            "--summary applies only from the log alone",
        ),
        (
            vec![s(&log), "--force"],
            "--force applies only with the program",
        ),
        (
            vec![s(&log), "--schedulers", "2"],
            "--schedulers applies only with the program",
        ),
    ] {
        let out = trace_cmd().arg("replay").args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            text(&out.stderr).contains(says),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
}

#[test]
fn a_replay_sees_the_recorded_environment_not_its_own() {
    let dir = Scratch::new("replay-env");
    let prog = dir.write(
        "env_read.erl",
        "-module(env_read).\n-export([main/0]).\n\
         main() -> io:format(\"~p ~p~n\", [os:getenv(\"TRACE_TEST_ENV\"), \
         erlang:system_info(schedulers)]).\n",
    );
    let log = dir.path("env.trace");
    // Each run prints what the program read, whatever the host says now.
    let prints = |args: &[&str], value: &str| {
        let out = trace_cmd()
            .args(args)
            .env("TRACE_TEST_ENV", value)
            .output()
            .unwrap();
        assert_eq!(
            text(&out.stdout),
            "\"recorded\" 3\n",
            "{}",
            text(&out.stderr)
        );
    };
    prints(
        &["record", "-q", "--schedulers", "3", "-o", s(&log), s(&prog)],
        "recorded",
    );
    prints(
        &["replay", "--schedulers", "1", s(&prog), s(&log)],
        "changed",
    );
}
