//! Causal-consistent replay: `--until EVENT` replays all and only the causes
//! of the event, then shows where its process stands.

mod common;
use common::{record, replay_of, text};
use std::path::{Path, PathBuf};
use trace_causal_replay::{Config, Error, Outcome};
use trace_fixtures::Scratch;
use trace_format::ProcId;
use trace_runtime::{LoadOptions, Loaded, RunOptions};

const PIPELINE: &str = "-module(pipeline).\n-export([main/0]).\n\
main() ->\n\
    B = spawn(fun() -> b() end),\n\
    _A = spawn(fun() -> a(B) end),\n\
    io:format(\"main goes on~n\"),\n\
    B ! {from_main, 1},\n\
    ok.\n\
a(B) -> B ! {from_a, 2}.\n\
b() ->\n\
    receive {from_a, X} -> ok end,\n\
    io:format(\"b got ~p~n\", [X]),\n\
    receive {from_main, Y} -> Y end.\n";

/// One scheduler: main runs its slice to the end before `b` prints, so
/// every recording has the same output order.
fn no_reports() -> RunOptions {
    RunOptions {
        reports: false,
        schedulers: 1,
        ..RunOptions::default()
    }
}

fn setup(tag: &str) -> (Scratch, Loaded, PathBuf) {
    recorded(tag, "pipeline.erl", PIPELINE)
}

/// `source`, written as `file`, loaded and recorded in a scratch folder.
fn recorded(tag: &str, file: &str, source: &str) -> (Scratch, Loaded, PathBuf) {
    let d = Scratch::new(&format!("until-{tag}"));
    let src = d.write(file, source);
    let loaded = trace_runtime::load(&[src], &LoadOptions::default()).unwrap();
    let log = d.path("run.trace");
    record(&loaded, &log, no_reports());
    (d, loaded, log)
}

fn until(loaded: &Loaded, log: &Path, event: &str) -> Result<(Outcome, String), Error> {
    let cfg = Config {
        run: no_reports(),
        force: false,
        until: Some(event.parse().unwrap()),
    };
    let (r, printed) = replay_of(loaded, log, &cfg)?;
    Ok((r, text(printed)))
}

#[test]
fn only_the_causes_of_a_receipt_are_replayed() {
    let (_d, loaded, log) = setup("receipt");
    let (r, stdout) = until(&loaded, &log, "receive(P.2:0)").unwrap();
    assert!(
        r.replay.outcome.divergence.is_none(),
        "{:?}",
        r.replay.outcome.divergence
    );
    assert!(r.replay.stuck.is_empty(), "{:?}", r.replay.stuck);
    assert_eq!(r.verdict(), trace_runtime::Verdict::Ok);
    // main's output and its send to P.1 are not causes of the receipt.
    assert_eq!(stdout, "", "nothing printed is in the causal past");
    let u = r.until.expect("an until report");
    let took: Vec<(String, u64)> = u
        .participants
        .iter()
        .map(|p| (p.label.clone(), p.events))
        .collect();
    assert_eq!(
        took,
        vec![
            ("P <0.80.0>".to_string(), 2),
            ("P.1 <0.81.0>".to_string(), 1),
            ("P.2 <0.82.0>".to_string(), 1)
        ]
    );
    assert_eq!(u.events, 4);
    assert_eq!(u.process, "P.1 <0.81.0>");
    let s = u.state.expect("P.1 waits where the replay stopped it");
    assert_eq!(s.function, "pipeline:b/0");
    assert!(s.location.ends_with("pipeline.erl:12"), "{}", s.location);
    assert_eq!(s.mailbox_len, 0, "main's message is not sent yet");
}

#[test]
fn the_past_of_a_later_event_brings_its_output_and_mailbox() {
    let (_d, loaded, log) = setup("later");
    // P#3 is main's send to P.1: its past holds main's output.
    let (r, stdout) = until(&loaded, &log, "P#3").unwrap();
    assert_eq!(stdout, "main goes on\n");
    let u = r.until.unwrap();
    assert_eq!(u.process, "P <0.80.0>");
    assert_eq!(u.participants.len(), 1, "{:?}", u.participants);
    // P.1's receipt of that message is in the future: run to it instead.
    // Its exit is not a cause of the receipt, so P.1 is held before it.
    let (r, stdout) = until(&loaded, &log, "receive(P:0)").unwrap();
    assert_eq!(stdout, "main goes on\nb got 2\n");
    let u = r.until.unwrap();
    assert_eq!(u.process, "P.1 <0.81.0>");
    let s = u.state.expect("held before its exit");
    assert_eq!((s.function.as_str(), s.mailbox_len), ("pipeline:b/0", 0));
    // Up to an exit, the process is gone: there is no state to show.
    let (r, _) = until(&loaded, &log, "exit(P.2)").unwrap();
    let u = r.until.unwrap();
    assert_eq!(u.process, "P.2 <0.82.0>");
    assert!(u.state.is_none());
}

#[test]
fn a_write_waits_only_for_the_earlier_writes_in_the_past() {
    // Main waits before printing, so `b` prints first in the recording; the
    // past of main's send holds main's write but not b's, which comes first.
    let d = Scratch::new("until-output-order");
    let src = d.write(
        "pipeline.erl",
        &PIPELINE.replace(
            "io:format(\"main goes on~n\"),",
            "receive after 50 -> ok end,\nio:format(\"main goes on~n\"),",
        ),
    );
    let loaded = trace_runtime::load(&[src], &LoadOptions::default()).unwrap();
    let log = d.path("p.trace");
    let (_, printed) = record(&loaded, &log, no_reports());
    assert_eq!(text(printed), "b got 2\nmain goes on\n");
    let (r, stdout) = until(&loaded, &log, "P#4").unwrap();
    assert!(
        r.replay.outcome.divergence.is_none(),
        "{:?}",
        r.replay.outcome.divergence
    );
    assert_eq!(stdout, "main goes on\n");
    assert_eq!(r.until.unwrap().participants.len(), 1);
    let (_, stdout) = until(&loaded, &log, "receive(P:0)").unwrap();
    assert_eq!(stdout, "b got 2\nmain goes on\n");
}

#[test]
fn an_event_not_in_the_log_is_refused_with_the_reason() {
    let (_d, loaded, log) = setup("missing");
    match until(&loaded, &log, "P.7#0") {
        Err(Error::Until(m)) => assert!(m.contains("P.7"), "{m}"),
        other => panic!("expected a refusal, got {:?}", other.map(|r| r.1)),
    }
    let _ = ProcId(0);
}

const LINKED: &str = "-module(linked).\n-export([main/0]).\n\
main() ->\n\
    process_flag(trap_exit, true),\n\
    W = spawn_link(fun() -> ok end),\n\
    M = spawn(fun() -> receive stop -> ok end end),\n\
    erlang:monitor(process, M),\n\
    M ! stop,\n\
    receive {'EXIT', W, R} -> R end,\n\
    receive {'DOWN', _, process, M, _} -> ok end.\n";

/// The exit and 'DOWN' signals a death sends come after its `exit` event in
/// the log, and the engine sends them as part of the exit: replaying up to
/// the exit replays them too, and is no departure.
#[test]
fn the_past_of_an_exit_includes_what_the_death_sends() {
    let (_d, loaded, log) = recorded("exit-signals", "linked.erl", LINKED);
    for event in ["exit(P.1)", "exit(P.2)"] {
        let (r, _) = until(&loaded, &log, event).unwrap();
        assert_eq!(
            r.verdict(),
            trace_runtime::Verdict::Ok,
            "{event}: {:?}",
            r.replay.outcome.divergence
        );
        assert!(r.replay.outcome.divergence.is_none(), "{event}");
    }
}

const MONITORING: &str = "-module(mon).\n-export([main/0]).\n\
main() ->\n\
    S = spawn(fun() -> server(2) end),\n\
    [spawn(fun() -> client(S, I) end) || I <- [1, 2]],\n\
    ok.\n\
server(0) -> ok;\n\
server(N) -> receive {req, I} -> io:format(\"req ~p~n\", [I]), server(N - 1) end.\n\
client(S, I) ->\n\
    erlang:monitor(process, S),\n\
    S ! {req, I}.\n";

/// `erlang:monitor/2` logs the monitor signal and then whether the target
/// was alive, in one call: a causal past that takes the signal (the server
/// took the second client's monitor before its first request) replays the
/// observation too, and is no departure.
#[test]
fn a_monitor_in_the_past_brings_the_liveness_its_call_observed() {
    let (_d, loaded, log) = recorded("monitor", "mon.erl", MONITORING);
    let (r, _) = until(&loaded, &log, "P.1#2").unwrap();
    assert!(
        r.replay.outcome.divergence.is_none(),
        "{:?}",
        r.replay.outcome.divergence
    );
    assert_eq!(r.verdict(), trace_runtime::Verdict::Ok);
    let until = r.until.expect("an until report");
    let third = until.participants.iter().find(|p| p.id == ProcId(3));
    assert_eq!(third.map(|p| p.events), Some(2), "{:?}", until.participants);
}
