//! `trace record` as a user runs it: the same output and status as `trace
//! run`, a log that reads back, the recording flags, a run killed or
//! interrupted, and the search for a failing run.

mod common;

use common::{program, s, text, trace, trace_cmd, Scratch};
use std::process::Stdio;
use std::time::Duration;
use trace_format::{Event, LogReader, RunEnd};

#[test]
fn record_prints_what_run_prints_and_the_log_reads_back() {
    let dir = Scratch::new("rec-fixtures");
    for f in trace_fixtures::discover(&trace_fixtures::root()) {
        let expected = f.expected().unwrap();
        let log = dir.path(&format!("{}.trace", f.module));
        let mut args = vec!["record".to_string(), "-q".into(), "-o".into()];
        args.push(s(&log).into());
        args.extend(
            f.run_args()
                .iter()
                .map(|a| a.to_string_lossy().into_owned()),
        );
        let out = trace_cmd().args(&args).output().unwrap();
        let status = out.status.code().unwrap_or(-1);
        assert!(
            expected.allows_run(&out.stdout, status as u8),
            "{}: recorded run (status {status}) is not an allowed outcome:\n{}\n{}",
            f.id,
            text(&out.stdout),
            text(&out.stderr)
        );
        let r = LogReader::open(&log).unwrap();
        assert!(!r.recovered() && r.warnings().is_empty(), "{}", f.id);
        let (outcome, _) = r.outcome().unwrap();
        // A fixture that calls erlang:halt/1 ends halted, with its status.
        assert!(
            matches!(outcome.end, RunEnd::Completed | RunEnd::Halted),
            "{}: {:?}",
            f.id,
            outcome.end
        );
        assert_eq!(outcome.exit_status, Some(status));
        assert!(r.event_count() > 0, "{}: no events", f.id);
        let dump = trace(&["dump", s(&log)]);
        assert!(dump.status.success(), "{}: {}", f.id, text(&dump.stderr));
        assert_eq!(
            text(&dump.stdout).lines().count() as u64,
            r.event_count(),
            "{}: one line per event",
            f.id
        );
    }
}

#[test]
fn a_crash_is_reported_on_stderr_as_by_run() {
    let dir = Scratch::new("rec-crash");
    let src = dir.path("crash.erl");
    std::fs::write(
        &src,
        "-module(crash).\n-export([main/0]).\nmain() -> spawn(fun() -> 1 = length([]) end), ok.\n",
    )
    .unwrap();
    let run = trace(&["run", s(&src)]);
    let rec = trace(&["record", "-o", s(&dir.path("c.trace")), s(&src)]);
    assert_eq!(run.status.code(), rec.status.code());
    for out in [&run, &rec] {
        assert!(
            text(&out.stderr).contains("Error in process <0.81.0> with exit value:"),
            "{}",
            text(&out.stderr)
        );
    }
    let dump = text(&trace(&["dump", s(&dir.path("c.trace"))]).stdout);
    assert!(dump.contains("exit: {{badmatch,0},"), "{dump}");
}

#[test]
fn the_default_log_name_comes_from_the_module() {
    let dir = Scratch::new("rec-default");
    let out = trace_cmd()
        .current_dir(&dir.0)
        .args(["record", "-q", s(&program("race.erl"))])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(dir.path("race.trace").is_file());
}

#[test]
fn payloads_deliveries_and_output_are_recorded_on_request() {
    let dir = Scratch::new("rec-flags");
    let src = program("race.erl");
    let dump_of = |name: &str, flags: &[&str]| {
        let log = dir.path(name);
        let mut args = vec!["record", "-q", "-o", s(&log)];
        args.extend_from_slice(flags);
        args.push(s(&src));
        let out = trace(&args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&trace(&["dump", s(&log)]).stdout)
    };
    let plain = dump_of("plain.trace", &[]);
    assert!(plain.contains(": a") || plain.contains(": b"), "{plain}");
    assert!(!plain.contains(" deliver "), "{plain}");

    let bare = dump_of("bare.trace", &["--no-payloads"]);
    assert_eq!(bare.lines().count(), plain.lines().count());
    assert!(!bare.contains(": a") && !bare.contains(": b"), "{bare}");

    let deliveries = dump_of("deliver.trace", &["--deliveries"]);
    assert_eq!(
        deliveries.matches(" deliver ").count(),
        2,
        "both messages arrive: {deliveries}"
    );

    let output = dump_of("output.trace", &["--printed"]);
    assert!(
        output.contains("then"),
        "the printed line is in the log: {output}"
    );
}

fn spawn_forever(log: &std::path::Path) -> std::process::Child {
    spawn_forever_with(log, &[])
}

/// `trace record` of a program that never ends, with `extra` options.
fn spawn_forever_with(log: &std::path::Path, extra: &[&str]) -> std::process::Child {
    trace_cmd()
        .args([
            "record",
            "-q",
            "--flush-interval",
            "20",
            "-o",
            s(log),
            s(&program("forever.erl")),
        ])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits until the run has begun writing its log, or a search its attempt's
/// (`LOG.attempt`): the program is loaded and Ctrl-C is handled by then,
/// however long loading took. Then a little more, so that some events are
/// in it.
fn wait_until_recording(log: &std::path::Path) {
    let attempt = log.with_extension("trace.attempt");
    for _ in 0..2000 {
        if log.exists() || attempt.exists() {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_millis(200));
}

/// Reads every process log and checks the program's own invariant: each
/// process receives the other's messages in the order they were sent, with
/// none missing, so a log with a hole in it would fail. Returns the events read.
fn check_prefix(r: &LogReader) -> u64 {
    let logs = r.read_all().unwrap();
    for log in &logs {
        let mut next = 0;
        for e in &log.events {
            if let Event::Receive { msg } = e {
                assert_ne!(
                    msg.sender, log.id,
                    "a ping-pong process never messages itself"
                );
                assert_eq!(
                    msg.index, next,
                    "process {} received out of order",
                    log.id.0
                );
                next += 1;
            }
        }
    }
    logs.iter().map(|l| l.events.len() as u64).sum()
}

#[test]
fn a_recording_killed_at_any_moment_leaves_a_readable_log() {
    let dir = Scratch::new("rec-kill");
    // Kill moments counted from the log file's creation: while the header is
    // written, before the first flush, and well after several.
    for (i, ms) in [0u64, 10, 60, 250, 700].into_iter().enumerate() {
        let out = dir.path(&format!("k{i}.trace"));
        let mut child = spawn_forever(&out);
        // Until the run ends the log is written beside its name, under one
        // of its own (docs/record.md): that is where a killed run leaves it.
        let log = dir.path(&format!("k{i}.trace.recording-{}", child.id()));
        let mut waited = 0;
        while !log.exists() && waited < 10_000 {
            std::thread::sleep(Duration::from_millis(1));
            waited += 1;
        }
        std::thread::sleep(Duration::from_millis(ms));
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(!out.exists(), "a killed run put its log in place");
        let r = match LogReader::open(&log) {
            Ok(r) => r,
            // Killed while the header was being written: nothing to recover,
            // and the reader says why in one line.
            Err(e) if ms == 0 => {
                let m = e.to_string();
                assert!(m.contains("not a trace log") || m.contains("byte"), "{m}");
                continue;
            }
            Err(e) => panic!("{ms} ms: {e}"),
        };
        assert!(r.recovered(), "no footer after SIGKILL");
        let read = check_prefix(&r);
        assert_eq!(read, r.event_count());
        if ms >= 250 {
            // Several flush intervals have passed: blocks reached the file
            // (how many depends on how busy the machine is).
            assert!(read > 0, "{ms} ms: no event survived");
        }
        let dump = trace(&["dump", s(&log)]);
        assert!(dump.status.success(), "{}", text(&dump.stderr));
        assert!(
            text(&dump.stderr).contains("no footer"),
            "{}",
            text(&dump.stderr)
        );
    }
}

/// Two recordings into one output at once: each writes its own file and
/// puts it in place whole when its run ends, so the output is one run's log
/// (never the header of one with the events of the other), and nothing is
/// left beside it.
#[test]
fn two_recorders_of_one_output_leave_one_whole_log() {
    let dir = Scratch::new("rec-two");
    let log = dir.path("same.trace");
    for _ in 0..3 {
        let children: Vec<_> = (0..2)
            .map(|_| {
                trace_cmd()
                    .args(["record", "-q", "-o", s(&log), s(&program("cfib.erl"))])
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for c in children {
            let out = c.wait_with_output().unwrap();
            assert!(out.status.success(), "{}", text(&out.stderr));
        }
        let r = LogReader::open(&log).unwrap();
        assert!(r.warnings().is_empty(), "{:?}", r.warnings());
        let replay = trace(&["replay", s(&log), "--summary"]);
        assert!(replay.status.success(), "{}", text(&replay.stdout));
        let replay = trace(&["replay", s(&program("cfib.erl")), s(&log)]);
        assert!(replay.status.success(), "{}", text(&replay.stderr));
        let names: Vec<_> = std::fs::read_dir(dir.path("")).unwrap().collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }
}

/// A crowd of workers each sending a few results to one collector.
const CROWD: &str = "-module(crowd).\n-export([main/0]).\n\
main() -> Me = self(), [spawn(fun() -> work(Me, I) end) || I <- lists:seq(1, 400)],\n\
    io:format(\"~p~n\", [collect(1200, 0)]).\n\
work(To, I) -> [To ! {I, K} || K <- [1, 2, 3]].\n\
collect(0, Sum) -> Sum;\n\
collect(N, Sum) -> receive {I, K} -> collect(N - 1, Sum + I * K) end.\n";

/// With 8 schedulers the recorder runs two compressors, which may finish
/// blocks out of order; small blocks make many of them. The log reads back
/// whole and replays to the recorded output.
#[test]
fn a_log_from_several_compressors_replays_to_the_recorded_output() {
    let dir = Scratch::new("rec-compressors");
    let src = dir.write("crowd.erl", CROWD);
    let log = dir.path("crowd.trace");
    let rec = trace(&[
        "record",
        "-q",
        "-o",
        s(&log),
        "--schedulers",
        "8",
        "--block-size",
        "256",
        s(&src),
    ]);
    assert!(rec.status.success(), "{}", text(&rec.stderr));
    assert_eq!(text(&rec.stdout), "481200\n");
    let r = LogReader::open(&log).unwrap();
    assert!(r.warnings().is_empty(), "{:?}", r.warnings());
    assert!(r.blocks().len() > 10, "{} blocks", r.blocks().len());
    let summary = trace(&["replay", s(&log), "--summary"]);
    assert!(summary.status.success(), "{}", text(&summary.stdout));
    let replay = trace(&["replay", s(&src), s(&log)]);
    assert!(replay.status.success(), "{}", text(&replay.stderr));
    assert_eq!(text(&replay.stdout), text(&rec.stdout));
}

/// An output that is not a regular file (a device, a directory) is refused
/// before the program runs, not after.
#[test]
fn an_output_that_cannot_take_a_log_is_refused_before_the_run() {
    for out in ["/dev/null", "/tmp"] {
        let r = trace(&["record", "-o", out, s(&program("cfib.erl"))]);
        assert_eq!(r.status.code(), Some(2), "{}", text(&r.stderr));
        assert!(r.stdout.is_empty(), "the program ran: {}", text(&r.stdout));
        assert!(text(&r.stderr).contains("a log is written to a regular file"));
    }
}

#[test]
fn ctrl_c_finalises_the_log_and_marks_it_interrupted() {
    let dir = Scratch::new("rec-int");
    let log = dir.path("i.trace");
    let child = spawn_forever(&log);
    wait_until_recording(&log);
    // SAFETY: sending a signal to our own child process.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", text(&out.stderr));
    let r = LogReader::open(&log).unwrap();
    assert!(!r.recovered() && r.warnings().is_empty());
    assert_eq!(r.outcome().unwrap().0.end, RunEnd::Interrupted);
    assert_eq!(check_prefix(&r), r.event_count());
    assert!(r.event_count() > 0);
}

#[test]
fn ctrl_c_during_a_search_keeps_the_attempt_and_says_so() {
    let dir = Scratch::new("rec-int-hunt");
    let log = dir.path("h.trace");
    let child = spawn_forever_with(&log, &["--until-failure", "--chaos"]);
    wait_until_recording(&log);
    // SAFETY: sending a signal to our own child process.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("interrupted during attempt 1 (chaos seed 2), before any failure"),
        "{stderr}"
    );
    let r = LogReader::open(&log).unwrap();
    assert_eq!(r.outcome().unwrap().0.end, RunEnd::Interrupted);
}

#[test]
fn until_failure_with_chaos_finds_the_losing_order_of_a_race() {
    let dir = Scratch::new("rec-hunt");
    let log = dir.path("race.trace");
    let out = trace(&[
        "record",
        "-q",
        "--until-failure",
        "--chaos",
        "--seed",
        "3",
        "--attempts",
        "200",
        "--expect",
        "{a, b}",
        "-o",
        s(&log),
        s(&program("race.erl")),
    ]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("failed: the entry returned {b,a}"), "{err}");
    assert!(err.contains("chaos seed"), "{err}");
    assert_eq!(text(&out.stdout), "b then a\n");
    let dump = text(&trace(&["dump", s(&log)]).stdout);
    assert!(dump.contains("receive"), "{dump}");
    assert!(!dir.path("race.trace.attempt").exists());
}

/// A race of OTP code: a client calls a registered server that its
/// supervisor is restarting, and its retry can come before the new server
/// has registered the name (`noproc`); --until-failure finds it, and the
/// kept log replays to the same crash.
#[test]
fn until_failure_finds_a_call_to_a_server_its_supervisor_is_restarting() {
    let dir = Scratch::new("rec-restart-race");
    let log = dir.path("race.trace");
    let src = program("restart_race.erl");
    let out = trace(&[
        "record",
        "-q",
        "--until-failure",
        "--chaos",
        "--seed",
        "1",
        "--attempts",
        "300",
        "-o",
        s(&log),
        s(&src),
    ]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let noproc = "{noproc,{gen_server,call,[srv,ping]}}";
    assert!(err.contains(&format!("(P) crashed: {noproc}")), "{err}");
    let dump = text(&trace(&["dump", s(&log)]).stdout);
    assert!(dump.contains("{'$gen_call',{<0.80.0>,[alias|"), "{dump}");
    assert!(dump.contains(&format!("exit: {noproc}")), "{dump}");
    for n in ["1", "2"] {
        let rep = trace(&["replay", "--schedulers", n, s(&src), s(&log)]);
        assert_eq!(rep.status.code(), Some(1), "{}", text(&rep.stderr));
        assert_eq!(text(&rep.stdout), text(&out.stdout));
        // The supervisor, whose parent died of it, reports the reason.
        assert!(text(&rep.stderr).contains(noproc), "{}", text(&rep.stderr));
    }
}

#[test]
fn until_failure_keeps_no_log_when_every_attempt_succeeds() {
    let dir = Scratch::new("rec-nofail");
    let log = dir.path("race.trace");
    let out = trace(&[
        "record",
        "-q",
        "--until-failure",
        "--attempts",
        "5",
        "--expect",
        "{_, _}",
        "-o",
        s(&log),
        s(&program("race.erl")),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("no failure in 5 attempts"));
    assert!(!log.exists());
}

/// Every attempt leaves a server idle (a report each); only an attempt
/// whose entry gets `late` first fails `--expect`.
const NOISY: &str = "-module(noisy).\n-export([main/0]).\n\
main() ->\n\
    spawn(fun() -> receive stop -> ok end end),\n\
    Me = self(),\n\
    spawn(fun() -> Me ! early end),\n\
    spawn(fun() -> Me ! late end),\n\
    receive X -> X end.\n";

#[test]
fn until_failure_shows_only_the_failing_attempts_reports_and_a_summary() {
    let dir = Scratch::new("rec-noisy");
    let prog = dir.write("noisy.erl", NOISY);
    let log = dir.path("noisy.trace");
    // A first seed whose search passes at least one attempt before the
    // failing one (which seeds do depends on the chaos, not on this test).
    let err = (1..=20)
        .map(|seed| {
            let seed = seed.to_string();
            let out = trace(&[
                "record",
                "--until-failure",
                "--chaos",
                "--seed",
                &seed,
                "--attempts",
                "200",
                "--expect",
                "early",
                "-o",
                s(&log),
                s(&prog),
            ]);
            let err = text(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{err}");
            let attempt: usize = err
                .split("trace record: attempt ")
                .nth(1)
                .and_then(|r| r.split(' ').next())
                .and_then(|n| n.parse().ok())
                .expect("the failing attempt's number");
            (attempt, err)
        })
        .find(|(attempt, _)| *attempt > 1)
        .map(|(_, err)| err)
        .expect("a search that passed an attempt before failing");
    // Every attempt left the server idle, but only the failing one's
    // report is shown.
    assert_eq!(err.matches("left idle in receive").count(), 1, "{err}");
    assert!(err.contains("trace record: found after "), "{err}");
    assert!(log.exists());
}

#[test]
fn until_failure_compares_stdout_with_a_file() {
    let dir = Scratch::new("rec-stdout");
    let want = dir.path("want.txt");
    std::fs::write(&want, "a then b\n").unwrap();
    let out = trace(&[
        "record",
        "-q",
        "--until-failure",
        "--chaos",
        "--attempts",
        "200",
        "--expect-stdout",
        s(&want),
        "-o",
        s(&dir.path("r.trace")),
        s(&program("race.erl")),
    ]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("differs from --expect-stdout at line 1"),
        "{err}"
    );
}

#[test]
fn a_bad_expect_pattern_is_trouble() {
    let out = trace(&[
        "record",
        "--until-failure",
        "--expect",
        "{a,",
        s(&program("race.erl")),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--expect"),
        "{}",
        text(&out.stderr)
    );
}

/// The papers' programs whose outcome depends on scheduling: a chaos search
/// finds the failing interleaving within a bounded number of attempts, keeps
/// its log, and says what failed. The kept run replays to the same failure.
#[test]
fn until_failure_finds_the_bugs_of_the_papers_races() {
    let dir = Scratch::new("rec-papers");
    let papers = trace_fixtures::root().join("papers");
    let cases: &[(&str, &[&str], &str)] = &[
        ("echo_target", &[], "crashed: {{badmatch"),
        ("proxy_server", &[], "deadlock: "),
        (
            "purchase",
            &["--expect", "false"],
            "the entry returned true",
        ),
        ("dining_philosophers", &[], "deadlock: "),
        ("tcp", &[], "deadlock: "),
    ];
    for (name, extra, failure) in cases {
        let src = papers.join(format!("{name}.erl"));
        let log = dir.path(&format!("{name}.trace"));
        let mut args = vec![
            "record",
            "-q",
            "--until-failure",
            "--chaos",
            "--seed",
            "1",
            "--attempts",
            "200",
            "-o",
            s(&log),
        ];
        args.extend_from_slice(extra);
        args.push(s(&src));
        let out = trace(&args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {err}");
        assert!(err.contains(failure), "{name}: {err}");
        assert!(err.contains("attempt "), "{name}: {err}");
        let replayed = trace(&["replay", s(&src), s(&log)]);
        assert_eq!(
            text(&replayed.stdout),
            text(&out.stdout),
            "{name}: the kept run replays to the same output"
        );
    }
}

/// A run that never ends (a ping-pong forever) violates a safety property
/// early: the attempt stops at the violation instead of running on, its log
/// ends there, and checking the kept log shows the same violation. The
/// time limit is only a net, so that a regression fails instead of hanging.
#[test]
fn until_failure_check_stops_an_attempt_at_the_first_safety_violation() {
    let dir = Scratch::new("rec-safety-stop");
    let spec = dir.path("props.tspec");
    std::fs::write(
        &spec,
        "few_rounds: never receive(_, {pong, 5000}).\n\
         answered: every send(P, Q, {ping, P, N}) is followed by receive(P, Q, {pong, N}).\n",
    )
    .unwrap();
    let log = dir.path("r.trace");
    let out = trace(&[
        "record",
        "--until-failure",
        "--check",
        s(&spec),
        "--time-limit",
        "120s",
        "-o",
        s(&log),
        s(&program("forever.erl")),
    ]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("violates few_rounds at P"), "{err}");
    assert!(err.contains("stopped at the violation"), "{err}");
    let r = LogReader::open(&log).unwrap();
    assert_eq!(r.outcome().unwrap().0.end, RunEnd::Interrupted);
    let checked = trace(&["check", s(&log), "--spec", s(&spec)]);
    let report = text(&checked.stdout);
    assert!(
        report.contains("few_rounds") && report.contains("STATUS: Violated"),
        "{report}"
    );
}
