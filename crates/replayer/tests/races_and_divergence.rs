//! Replay of scheduling-dependent runs (each recorded outcome comes back),
//! replay against an edited program (refused, or the first departure is
//! reported), and a log whose events cannot all happen (reported, no hang).

mod common;
use common::{quiet, record, replay_of, text};
use std::path::Path;
use trace_fixtures::Scratch;
use trace_format::{Header, LogWriter, MsgId, ProcId, WriterOptions};
use trace_replayer::{ReplayConfig, ReplayError};
use trace_runtime::{Chaos, LoadOptions, Loaded, RunOptions};

const RACE: &str = "-module(race).\n-export([main/0]).\n\
main() ->\n    Self = self(),\n    spawn(fun() -> Self ! a end),\n    spawn(fun() -> Self ! b end),\n\
    receive X -> receive Y -> io:format(\"~p then ~p~n\", [X, Y]), {X, Y} end end.\n";

fn load(p: &Path) -> Loaded {
    trace_runtime::load(&[p.to_path_buf()], &LoadOptions::default()).unwrap()
}

#[test]
fn each_outcome_of_a_race_replays_as_recorded() {
    let dir = Scratch::new("race");
    let src = dir.write("race.erl", RACE);
    let loaded = load(&src);
    let mut seen = std::collections::BTreeSet::new();
    for seed in 0..40 {
        let log = dir.path(&format!("r{seed}.trace"));
        let (_, printed) = record(
            &loaded,
            &log,
            RunOptions {
                chaos: Some(Chaos { seed }),
                schedulers: 1,
                ..quiet(1)
            },
        );
        for schedulers in [1, 2] {
            let cfg = ReplayConfig {
                run: quiet(schedulers),
                force: false,
                holds: None,
            };
            let (r, replayed) = replay_of(&loaded, &log, &cfg).unwrap();
            assert!(r.outcome.divergence.is_none() && r.stuck.is_empty());
            assert_eq!(
                text(replayed),
                text(printed.clone()),
                "seed {seed}, {schedulers} schedulers"
            );
        }
        seen.insert(text(printed));
    }
    assert_eq!(
        seen.len(),
        2,
        "chaos scheduling produced both orders: {seen:?}"
    );
}

#[test]
fn an_edited_program_is_refused_and_forced_replay_names_the_departure() {
    let dir = Scratch::new("edited");
    let src = dir.write("race.erl", RACE);
    let log = dir.path("r.trace");
    record(&load(&src), &log, quiet(1));
    // Same module, but the second child sends `c` instead of `b`.
    let edited = dir.write("race.erl", &RACE.replace("Self ! b", "Self ! c"));
    let loaded = load(&edited);
    let cfg = ReplayConfig {
        run: quiet(2),
        force: false,
        holds: None,
    };
    match replay_of(&loaded, &log, &cfg) {
        Err(ReplayError::Identity(m)) => {
            assert_eq!(m.len(), 1);
            assert!(m[0].to_string().contains("module race"), "{}", m[0]);
        }
        other => panic!("expected a refusal, got {:?}", other.map(|r| r.1)),
    }
    let forced = ReplayConfig { force: true, ..cfg };
    let (r, _) = replay_of(&loaded, &log, &forced).unwrap();
    let d = r
        .outcome
        .divergence
        .clone()
        .expect("the replay departs from the log");
    assert_eq!(d.pid.number(), 82, "the second child departs");
    assert_eq!(d.event_index, 0);
    assert!(d.expected.contains(": b"), "{}", d.expected);
    assert!(d.happened.contains(": c"), "{}", d.happened);
    assert_eq!(r.verdict(), trace_runtime::Verdict::Diverged);
}

#[test]
fn a_log_whose_events_cannot_happen_is_reported_without_hanging() {
    let dir = Scratch::new("stuck");
    let src = dir.write(
        "wait.erl",
        "-module(wait).\n-export([main/0]).\nmain() -> receive X -> X end.\n",
    );
    let loaded = load(&src);
    // A log saying the entry received message 0 of a process that never sent it.
    let log = dir.path("w.trace");
    let w = hand_made_log(&loaded, "wait:main()", &log);
    let mut p0 = w.register(80, None);
    let mut p1 = w.register(81, Some(ProcId(0)));
    p0.slice().push_receive(MsgId {
        sender: ProcId(1),
        index: 0,
    });
    p1.slice().push_timeout();
    drop((p0, p1));
    w.finish(Default::default()).unwrap();

    let cfg = ReplayConfig {
        run: quiet(2),
        force: false,
        holds: None,
    };
    let (r, _) = replay_of(&loaded, &log, &cfg).unwrap();
    assert!(r.outcome.divergence.is_none());
    assert_eq!(r.stuck.len(), 1, "{:?}", r.stuck);
    assert_eq!(r.stuck[0].pid, 80);
    assert!(
        r.stuck[0].next.contains("receive P.1:0"),
        "{}",
        r.stuck[0].next
    );
    assert_eq!(r.never_started, vec![(ProcId(1), 81)]);
    assert_eq!(r.verdict(), trace_runtime::Verdict::Diverged);
}

#[test]
fn a_write_whose_turn_never_comes_is_reported_without_hanging() {
    let dir = Scratch::new("gap");
    let src = dir.write(
        "hello.erl",
        "-module(hello).\n-export([main/0]).\nmain() -> io:format(\"hi~n\").\n",
    );
    let loaded = load(&src);
    // A log whose only write is numbered 1: write 0 never happens.
    let log = dir.path("g.trace");
    let w = hand_made_log(&loaded, "hello:main()", &log);
    let mut p0 = w.register(80, None);
    p0.slice().push_output(1, None);
    drop(p0);
    w.finish(Default::default()).unwrap();

    let cfg = ReplayConfig {
        run: quiet(2),
        force: false,
        holds: None,
    };
    let (r, printed) = replay_of(&loaded, &log, &cfg).unwrap();
    assert!(printed.is_empty(), "nothing is printed out of turn");
    assert!(r.outcome.divergence.is_none());
    assert_eq!(r.stuck.len(), 1, "{:?}", r.stuck);
    assert_eq!(r.stuck[0].pid, 80);
    assert!(r.stuck[0].next.contains("output"), "{}", r.stuck[0].next);
    assert_eq!(r.verdict(), trace_runtime::Verdict::Diverged);
}

/// A writer for a log of the single-module program `loaded`, its entry
/// `entry` run as pid 80, with payloads; the test writes the events.
fn hand_made_log(
    loaded: &trace_runtime::Loaded,
    entry: &str,
    log: &std::path::Path,
) -> std::sync::Arc<LogWriter> {
    let module = &loaded.modules[0];
    let header = Header {
        modules: vec![trace_format::ModuleInfo {
            name: module.name.clone(),
            path: module.path.display().to_string(),
            hash: module.hash,
        }],
        entry: entry.into(),
        entry_pid: 80,
        options: trace_format::RecordingOptions {
            payloads: true,
            ..Default::default()
        },
        ..Default::default()
    };
    LogWriter::create(log, header, WriterOptions::default()).unwrap()
}
