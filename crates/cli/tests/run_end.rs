//! How a run ends (docs/concurrency.md): a server left idle in its loop is
//! normal, as on BEAM; the entry, or a process stuck waiting for a reply,
//! left waiting is a deadlock; `--strict` makes any process left waiting one.

mod common;
use common::{s, text, trace, Scratch};

const COUNTER: &str = "-module(counter).\n-export([main/0]).\n\
main() ->\n\
    register(counter, spawn(fun() -> loop(0) end)),\n\
    counter ! {add, 3},\n\
    io:format(\"started~n\").\n\
loop(N) ->\n\
    receive\n\
        {add, K} -> loop(N + K);\n\
        {get, From} -> From ! N, loop(N)\n\
    end.\n";

const CALLER: &str = "-module(caller).\n-export([main/0]).\n\
main() ->\n\
    S = spawn(fun() -> receive _ -> ok end end),\n\
    spawn(fun() -> Ref = make_ref(), S ! {call, self(), Ref}, receive {Ref, R} -> R end end),\n\
    ok.\n";

#[test]
fn a_server_left_idle_ends_the_run_normally_and_is_named() {
    let dir = Scratch::new("run-end-idle");
    let prog = dir.write("counter.erl", COUNTER);
    let out = trace(&["run", s(&prog)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "started\n");
    let err = text(&out.stderr);
    assert!(
        err.contains(
            "left idle in receive at the end of the run: <0.81.0> (P.1) in counter:loop/1"
        ),
        "{err}"
    );
    assert!(!err.contains("deadlock"), "{err}");
    let strict = trace(&["run", "--strict", s(&prog)]);
    assert_eq!(strict.status.code(), Some(5), "{}", text(&strict.stderr));
    assert!(text(&strict.stderr).contains("(deadlock)"));
    // record judges alike, and so does the replay of what it recorded.
    let log = dir.path("counter.trace");
    let rec = trace(&["record", "--strict", s(&prog), "-o", s(&log)]);
    assert_eq!(rec.status.code(), Some(5), "{}", text(&rec.stderr));
    let rep = trace(&["replay", s(&prog), s(&log)]);
    assert_eq!(rep.status.code(), Some(5), "{}", text(&rep.stderr));
}

#[test]
fn a_process_stuck_waiting_for_a_reply_is_a_deadlock() {
    let dir = Scratch::new("run-end-stuck");
    let prog = dir.write("caller.erl", CALLER);
    let out = trace(&["run", s(&prog)]);
    assert_eq!(out.status.code(), Some(5), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains("1 process blocked forever"), "{err}");
    assert!(err.contains("(P.2)"), "{err}");
}

#[test]
fn an_entry_that_exits_abnormally_says_why_once() {
    let dir = Scratch::new("run-end-exit");
    let prog = dir.write(
        "wrong.erl",
        "-module(wrong).\n-export([main/0]).\n\
         main() -> spawn(fun() -> error(bang) end), receive after 10 -> ok end, exit({wrong_replies, [1, 2]}).\n",
    );
    let out = trace(&["run", s(&prog)]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert_eq!(
        err.matches("exited with reason:\n{wrong_replies,[1,2]}")
            .count(),
        1,
        "{err}"
    );
    // The other process's crash is reported as BEAM's logger reports it, once.
    assert_eq!(err.matches("=ERROR REPORT====").count(), 1, "{err}");
    assert!(err.contains("{bang,"), "{err}");
}

const TICKER: &str = "-module(ticker).\n-export([main/0]).\n\
main() -> spawn(fun() -> tick(0) end), ok.\n\
tick(N) -> receive after 5 -> ok end, io:format(\"tick ~p~n\", [N]), tick(N + 1).\n";

#[test]
fn a_run_that_never_ends_is_cut_at_a_limit_and_its_log_replays() {
    let dir = Scratch::new("run-end-limit");
    let prog = dir.write("ticker.erl", TICKER);
    let out = trace(&["run", "--time-limit", "300ms", s(&prog)]);
    assert_eq!(out.status.code(), Some(124), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("tick 0\n"));
    let log = dir.path("ticker.trace");
    let rec = trace(&["record", "--max-events", "40", "-o", s(&log), s(&prog)]);
    assert_eq!(rec.status.code(), Some(124), "{}", text(&rec.stderr));
    assert!(text(&rec.stderr).contains("cut at a limit"));
    let stats = trace(&["stats", s(&log)]);
    assert!(text(&stats.stdout).contains("run cut at a limit"));
    // The replay replays what the log holds: the same output, then stops.
    let rep = trace(&["replay", s(&prog), s(&log)]);
    assert_eq!(rep.status.code(), Some(0), "{}", text(&rep.stderr));
    assert_eq!(text(&rep.stdout), text(&rec.stdout));
    // A search cuts each attempt: a program that never fails nor ends is
    // searched in bounded time.
    let search = trace(&[
        "record",
        "--until-failure",
        "--attempts",
        "3",
        "--time-limit",
        "100ms",
        "-o",
        s(&log),
        s(&prog),
    ]);
    assert_eq!(search.status.code(), Some(0), "{}", text(&search.stderr));
    assert!(text(&search.stderr).contains("no failure in 3 attempts"));
}

/// The entry starts a ticker that never stops and returns: with `--halt`
/// the run ends there, as `erl -eval 'm:main(), halt().'` does.
const HALTING: &str = "-module(halting).\n-export([main/0]).\n\
main() ->\n\
    spawn(fun() -> tick(0) end),\n\
    spawn(fun() -> receive never -> ok end end),\n\
    timer:sleep(10),\n\
    io:format(\"done~n\").\n\
tick(N) -> receive after 1 -> tick(N + 1) end.\n";

#[test]
fn halt_ends_the_run_with_the_entry_and_its_log_replays() {
    let dir = Scratch::new("run-end-halt");
    let prog = dir.write("halting.erl", HALTING);
    let out = trace(&["run", "--halt", s(&prog)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "done\n");
    // Nothing is reported of the processes left behind: the run ended.
    assert_eq!(text(&out.stderr), "");
    let log = dir.path("halting.trace");
    let rec = trace(&["record", "--halt", "-q", "-o", s(&log), s(&prog)]);
    assert_eq!(rec.status.code(), Some(0), "{}", text(&rec.stderr));
    let stats = trace(&["stats", s(&log)]);
    assert!(text(&stats.stdout).contains("its entry ended under --halt"));
    let rep = trace(&["replay", s(&prog), s(&log)]);
    assert_eq!(rep.status.code(), Some(0), "{}", text(&rep.stderr));
    assert_eq!(text(&rep.stdout), "done\n");
    assert!(text(&rep.stderr).contains("its entry ended under --halt"));
    let alone = trace(&["replay", s(&log)]);
    assert!(alone.status.success(), "{}", text(&alone.stdout));
    // An entry that crashes still says so, and the run ends there too.
    let crash = dir.write(
        "crashing.erl",
        "-module(crashing).\n-export([main/0]).\n\
         main() -> spawn(fun() -> receive after infinity -> ok end end), exit(boom).\n",
    );
    let out = trace(&["run", "--halt", s(&crash)]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("boom"));
}

/// A program that prints, halts with status 3 while a helper still waits,
/// and would print again if it went on.
const HALTS: &str = "-module(halts).\n-export([main/0]).\n\
main() ->\n\
    spawn(fun() -> receive never -> ok end end),\n\
    Self = self(),\n\
    spawn(fun() -> io:format(\"helper~n\"), Self ! go end),\n\
    receive go -> ok end,\n\
    io:format(\"before~n\"),\n\
    halt(3),\n\
    io:format(\"after~n\").\n";

#[test]
fn erlang_halt_ends_the_run_with_its_status_and_the_replay_too() {
    let dir = Scratch::new("run-end-erlang-halt");
    let prog = dir.write("halts.erl", HALTS);
    let out = trace(&["run", s(&prog)]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "helper\nbefore\n");
    assert_eq!(text(&out.stderr), "");
    let log = dir.path("halts.trace");
    let rec = trace(&["record", "-o", s(&log), s(&prog)]);
    assert_eq!(rec.status.code(), Some(3), "{}", text(&rec.stderr));
    assert!(
        text(&rec.stderr).contains("halted with status 3"),
        "{}",
        text(&rec.stderr)
    );
    let stats = trace(&["stats", s(&log)]);
    assert!(text(&stats.stdout).contains("halted (erlang:halt"));
    let rep = trace(&["replay", s(&prog), s(&log)]);
    assert_eq!(rep.status.code(), Some(3), "{}", text(&rep.stderr));
    assert_eq!(text(&rep.stdout), "helper\nbefore\n");
    let alone = trace(&["replay", s(&log), "--summary"]);
    assert!(alone.status.success(), "{}", text(&alone.stdout));
    // A slogan (which on BEAM writes a crash dump) is not supported.
    let slogan = dir.write(
        "slogan.erl",
        "-module(slogan).\n-export([main/0]).\nmain() -> halt(\"bye\").\n",
    );
    let out = trace(&["run", s(&slogan)]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("erlang:halt/1 with a slogan"));
}
