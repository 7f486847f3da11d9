//! Symbolic names and the EVENT syntax: parsing (with the column of a
//! mistake), printing, and resolving against a log.

mod common;

use common::*;
use trace_capture::{EventSpec, MsgRef, ProcRef, SymbolicName};
use trace_causal::{EventId, Model};
use trace_format::{ProcId, SignalEffect, SignalKind};

fn e(p: u32, i: u64) -> EventId {
    EventId::new(ProcId(p), i)
}

fn name(s: &str) -> SymbolicName {
    s.parse().unwrap()
}

/// P spawns P.1 and P.2; P.2 spawns P.2.1; P.1 pings P.2.1, which answers;
/// P.2.1's death sends an exit signal to P.2, which takes it as a message.
fn family() -> Vec<Proc> {
    vec![
        proc(0, None, vec![spawn(1), spawn(2), exit()]),
        proc(1, Some(0), vec![recv(2, 0), send(3), recv(3, 0), exit()]),
        proc(
            2,
            Some(0),
            vec![
                spawn(3),
                send(1),
                taken(3, 1, SignalEffect::Converted),
                recv(3, 1),
                exit(),
            ],
        ),
        proc(
            3,
            Some(2),
            vec![recv(1, 0), send(1), exit(), exit_signal(2)],
        ),
    ]
}

#[test]
fn names_follow_the_spawn_tree() {
    let dir = Scratch::new("names");
    let m = Model::build(&open(&dir, &family()));
    let names: Vec<String> = (0..4)
        .map(|i| m.names().name(ProcId(i)).unwrap().to_string())
        .collect();
    assert_eq!(names, ["P", "P.1", "P.2", "P.2.1"]);
    assert_eq!(m.names().label(ProcId(3)), "P.2.1 <0.83.0>");
    for (i, n) in names.iter().enumerate() {
        assert_eq!(m.names().lookup(&name(n)), Ok(ProcId(i as u32)));
    }
    assert_eq!(
        m.names().lookup(&name("P.3")).unwrap_err().to_string(),
        "no process P.3 in this log: P spawned 2, P.1 to P.2"
    );
    assert_eq!(
        m.names().lookup(&name("P.1.1")).unwrap_err().to_string(),
        "no process P.1.1 in this log: P.1 spawned no process"
    );
    assert_eq!(m.names().lookup_pid(83), Ok(ProcId(3)));
}

#[test]
fn an_unspawned_process_has_no_name() {
    let procs = vec![
        proc(0, None, vec![exit()]),
        proc(1, Some(0), vec![spawn(2), exit()]),
        proc(2, Some(1), vec![exit()]),
    ];
    let dir = Scratch::new("unnamed");
    let m = Model::build(&open(&dir, &procs));
    assert_eq!(m.names().name(ProcId(1)), None);
    assert_eq!(
        m.names().name(ProcId(2)),
        None,
        "a child of an unnamed process"
    );
    assert_eq!(m.names().label(ProcId(2)), "<0.82.0>");
}

#[test]
fn names_parse_and_print() {
    assert_eq!(name("P"), SymbolicName::root());
    assert_eq!(name(" P.2.10 ").path(), &[2, 10]);
    assert_eq!(name("P.2.10").to_string(), "P.2.10");
    assert_eq!(name("P.2").child(1), name("P.2.1"));
    assert_eq!(name("P.2.1").parent(), Some(name("P.2")));
    for (bad, col) in [
        ("Q", 1),
        ("P.0", 3),
        ("P.", 3),
        ("P.1x", 4),
        ("P..1", 3),
        ("Pid", 2),
    ] {
        let err = bad.parse::<SymbolicName>().unwrap_err();
        assert_eq!(err.column, col, "{bad}: {err}");
    }
}

#[test]
fn events_parse_and_print() {
    let p21 = ProcRef::Name(name("P.2.1"));
    let cases = [
        (
            "P.2.1#5",
            EventSpec::Nth {
                proc: p21.clone(),
                index: 5,
            },
        ),
        (
            "<0.83.0>#0",
            EventSpec::Nth {
                proc: ProcRef::Pid(83),
                index: 0,
            },
        ),
        (
            "send(P.2.1:3)",
            EventSpec::Send(MsgRef {
                sender: p21.clone(),
                index: 3,
            }),
        ),
        (
            " receive ( P.2.1:3 ) ",
            EventSpec::Receive(MsgRef {
                sender: p21.clone(),
                index: 3,
            }),
        ),
        (
            "deliver(<0.80.0>:1)",
            EventSpec::Deliver(MsgRef {
                sender: ProcRef::Pid(80),
                index: 1,
            }),
        ),
        (
            "taken(P.2.1:0)",
            EventSpec::Taken(MsgRef {
                sender: p21.clone(),
                index: 0,
            }),
        ),
        ("spawn(P.2.1)", EventSpec::Spawn(p21.clone())),
        (
            "exit(P)",
            EventSpec::Exit(ProcRef::Name(SymbolicName::root())),
        ),
    ];
    for (text, spec) in cases {
        let parsed: EventSpec = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(parsed, spec, "{text}");
        // The printed form parses back to the same event.
        assert_eq!(spec.to_string().parse::<EventSpec>().unwrap(), spec);
    }
}

#[test]
fn event_syntax_errors_point_at_the_column() {
    let cases = [
        ("P.2#", 5, "an event index"),
        ("P.2", 4, "'#'"),
        ("recv(P.1:0)", 1, "an event: P.2#5"),
        ("send(P.1)", 9, "':'"),
        ("send P.1:0", 6, "'(' after send"),
        ("send(P.1:0", 11, "')'"),
        ("P.2#5 x", 7, "the end"),
        ("spawn(Q)", 7, "a process"),
        ("<0.83.1>#0", 7, "serial 0"),
        ("P.2#99999999999999999999999", 5, "too large"),
        ("", 1, "an event"),
    ];
    for (text, col, expected) in cases {
        let err = text.parse::<EventSpec>().unwrap_err();
        assert_eq!(err.column, col, "{text}: {err}");
        assert!(err.expected.contains(expected), "{text}: {err}");
        assert!(err.to_string().contains(&format!("column {col}")), "{err}");
    }
}

#[test]
fn events_resolve_to_their_place_in_the_log() {
    let dir = Scratch::new("resolve");
    let m = Model::build(&open(&dir, &family()));
    let r = |s: &str| trace_causal::resolve(&m, &s.parse().unwrap());
    assert_eq!(r("P.2.1#1"), Ok(e(3, 1)));
    assert_eq!(r("<0.83.0>#1"), Ok(e(3, 1)));
    assert_eq!(r("send(P.1:0)"), Ok(e(1, 1)));
    assert_eq!(r("receive(P.1:0)"), Ok(e(3, 0)));
    assert_eq!(r("spawn(P.2.1)"), Ok(e(2, 0)));
    assert_eq!(r("exit(P.2.1)"), Ok(e(3, 2)));
    // The exit signal P.2.1's death sent is its second signal.
    assert_eq!(r("send(P.2.1:1)"), Ok(e(3, 3)));
    assert_eq!(r("taken(P.2.1:1)"), Ok(e(2, 2)));
    assert_eq!(r("receive(P.2.1:1)"), Ok(e(2, 3)));
}

#[test]
fn events_that_name_nothing_say_why() {
    let procs = vec![
        proc(0, None, vec![spawn(1), send(1), exit()]),
        proc(1, Some(0), vec![signal(0, SignalKind::Link)]),
    ];
    let dir = Scratch::new("unresolved");
    let m = Model::build(&open(&dir, &procs));
    let err = |s: &str| {
        trace_causal::resolve(&m, &s.parse().unwrap())
            .unwrap_err()
            .to_string()
    };
    assert_eq!(err("P.1#4"), "P.1#4: P.1 has one event, P.1#0");
    assert_eq!(
        err("P.4#0"),
        "P.4#0: no process P.4 in this log: P spawned one, P.1"
    );
    assert_eq!(err("send(P:3)"), "send(P:3): P sent one signal, P:0");
    assert_eq!(err("receive(P:0)"), "receive(P:0): P:0 was never received");
    assert_eq!(err("taken(P.1:0)"), "taken(P.1:0): P.1:0 was never taken");
    assert_eq!(
        err("deliver(P:0)"),
        "deliver(P:0): this log has no deliveries (record with --deliveries)"
    );
    assert_eq!(
        err("spawn(P)"),
        "spawn(P): P is the entry process: no spawn created it"
    );
    assert_eq!(err("exit(P.1)"), "exit(P.1): P.1 never exited");
    assert_eq!(
        err("<0.99.0>#0"),
        "<0.99.0>#0: no process <0.99.0> in this log"
    );
}
