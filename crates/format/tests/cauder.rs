//! CauDEr log directories written by hand in CauDEr's syntax: import, export,
//! and back again.

mod common;

use common::*;
use std::path::Path;
use trace_format::cauder;
use trace_format::{Dest, Event, LogReader, MsgId, ProcId, ProcessLog, RunEnd};

fn write_dir(dir: &Path, files: &[(&str, &str)]) {
    std::fs::create_dir_all(dir).unwrap();
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
}

fn m(sender: u32, index: u64) -> MsgId {
    MsgId {
        sender: ProcId(sender),
        index,
    }
}

fn spawn(child: u32, pid: u64) -> Event {
    Event::Spawn {
        child: ProcId(child),
        pid,
        link: false,
        monitor: false,
    }
}

const SEND: Event = Event::Send {
    to: Dest::Unknown,
    payload: None,
};

const V3_RESULT: &str =
    "{call,{barber,main,[]}}.\n{comp,1281000}.\n{exec,10016000}.\n{node,nonode@nohost}.\n\
                         {pid,209}.\n{return,none}.\n{tracing,timeout}.\n";

fn v3_dir(dir: &Path) {
    write_dir(
        dir,
        &[
            ("trace_result.log", V3_RESULT),
            (
                "trace_209.log",
                "{trace_spawn,nonode@nohost,212,true}.\n{trace_spawn,nonode@nohost,213,true}.\n\
                 {trace_send,0}.\n{trace_receive,2}.\n",
            ),
            ("trace_212.log", "{trace_receive,0}.\n{trace_send,1}.\n"),
            ("trace_213.log", "{trace_receive,1}.\n{trace_send,2}.\n"),
        ],
    );
}

fn barber_logs() -> Vec<ProcessLog> {
    vec![
        ProcessLog {
            id: ProcId(0),
            pid: 209,
            parent: None,
            events: vec![
                spawn(1, 212),
                spawn(2, 213),
                SEND,
                Event::Receive { msg: m(2, 0) },
            ],
        },
        ProcessLog {
            id: ProcId(1),
            pid: 212,
            parent: Some(ProcId(0)),
            events: vec![Event::Receive { msg: m(0, 0) }, SEND],
        },
        ProcessLog {
            id: ProcId(2),
            pid: 213,
            parent: Some(ProcId(0)),
            events: vec![Event::Receive { msg: m(1, 0) }, SEND],
        },
    ]
}

#[test]
fn v3_imports_with_uids_mapped_to_sender_and_index() {
    let t = TempPath::new("v3");
    v3_dir(&t.0);
    let imp = cauder::read_dir(&t.0).unwrap();
    assert_eq!(imp.report.generation, "v3");
    assert_eq!(imp.logs, barber_logs());
    assert_eq!(imp.header.entry, "barber:main()");
    assert_eq!(imp.header.entry_pid, 209);
    assert_eq!(imp.outcome.end, RunEnd::Interrupted);
}

#[test]
fn v3_round_trips_through_a_trace_log() {
    let t = TempPath::new("v3rt");
    v3_dir(&t.0);
    let log = t.dir().join("barber.trace");
    let report = cauder::import(&t.0, &log).unwrap();
    assert_eq!((report.processes, report.events), (3, 8));
    let r = LogReader::open(&log).unwrap();
    assert_eq!(r.read_all().unwrap(), barber_logs());

    let out = t.dir().join("exported");
    let ex = cauder::export(&r, &out).unwrap();
    assert_eq!(ex.written, 8);
    assert!(ex.dropped.is_empty());
    // The result file comes back as it was; uids are renumbered (process 0's
    // messages from 0, process 1's from 4, process 2's from 6).
    assert_eq!(
        std::fs::read_to_string(out.join("trace_result.log")).unwrap(),
        V3_RESULT
    );
    assert_eq!(
        std::fs::read_to_string(out.join("trace_209.log")).unwrap(),
        "{trace_spawn,nonode@nohost,212,true}.\n{trace_spawn,nonode@nohost,213,true}.\n\
         {trace_send,0}.\n{trace_receive,6}.\n"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("trace_212.log")).unwrap(),
        "{trace_receive,0}.\n{trace_send,4}.\n"
    );
    // And importing the export gives the same process logs.
    assert_eq!(cauder::read_dir(&out).unwrap().logs, barber_logs());
}

#[test]
fn v1_imports_the_oldest_form() {
    let t = TempPath::new("v1");
    write_dir(
        &t.0,
        &[
            (
                "trace_result.log",
                "call \"barber:main()\"\ncomp \"barber.erl\" 1200\nmain_pid 74\ntracing success\nresult none\nexec 2000\n",
            ),
            ("trace_74.log", "{74,spawn,78}\n{74,send,3}\n{74,'receive',13}\n"),
            ("trace_78.log", "{78,'receive',3}\n{78,send,13}\n"),
        ],
    );
    let imp = cauder::read_dir(&t.0).unwrap();
    assert_eq!(imp.report.generation, "v1");
    assert_eq!(imp.header.entry, "barber:main()");
    assert_eq!(imp.outcome.end, RunEnd::Completed);
    assert_eq!(
        imp.logs[0].events,
        vec![spawn(1, 78), SEND, Event::Receive { msg: m(1, 0) }]
    );
    assert_eq!(
        imp.logs[1].events,
        vec![Event::Receive { msg: m(0, 0) }, SEND]
    );
    assert_eq!(imp.logs[1].parent, Some(ProcId(0)));

    // Round trip: v1 in, a trace log, v3 out, and back in again.
    let log = t.dir().join("v1.trace");
    cauder::import(&t.0, &log).unwrap();
    let r = LogReader::open(&log).unwrap();
    assert_eq!(r.read_all().unwrap(), imp.logs);
    let out = t.dir().join("v3");
    let ex = cauder::export(&r, &out).unwrap();
    assert_eq!(ex.written, 5);
    assert_eq!(
        std::fs::read_to_string(out.join("trace_74.log")).unwrap(),
        "{trace_spawn,nonode@nohost,78,true}.\n{trace_send,0}.\n{trace_receive,3}.\n"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("trace_78.log")).unwrap(),
        "{trace_receive,0}.\n{trace_send,3}.\n"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("trace_result.log")).unwrap(),
        "{call,{barber,main,[]}}.\n{comp,1200}.\n{exec,2000}.\n{node,nonode@nohost}.\n\
         {pid,74}.\n{return,none}.\n{tracing,success}.\n"
    );
    let again = cauder::read_dir(&out).unwrap();
    assert_eq!(again.report.generation, "v3");
    assert_eq!(again.logs, imp.logs);
}

#[test]
fn v2_deliveries_become_deliver_events() {
    let t = TempPath::new("v2");
    write_dir(
        &t.0,
        &[
            (
                "trace_result.log",
                "{call,{ping,main,[3]}}.\n{pid,90}.\n{return,{value,{ok,[1,2]}}}.\n",
            ),
            (
                "trace_90.log",
                "{spawn,{nonode@nohost,91},success}.\n{send,0}.\n",
            ),
            ("trace_91.log", "{deliver,0}.\n{'receive',0}.\n"),
        ],
    );
    let imp = cauder::read_dir(&t.0).unwrap();
    assert_eq!(imp.report.generation, "v2");
    assert_eq!(imp.header.entry, "ping:main(3)");
    assert!(imp.header.options.deliveries);
    assert_eq!(imp.outcome.entry_result.as_deref(), Some("{ok,[1,2]}"));
    assert_eq!(
        imp.logs[1].events,
        vec![
            Event::Deliver { msg: m(0, 0) },
            Event::Receive { msg: m(0, 0) }
        ]
    );
}

#[test]
fn inconsistent_logs_are_errors_with_file_and_line() {
    let t = TempPath::new("bad");
    write_dir(
        &t.0,
        &[
            ("trace_result.log", "{pid,1}.\n"),
            ("trace_1.log", "{trace_send,0}.\n{trace_receive,7}.\n"),
        ],
    );
    let e = cauder::read_dir(&t.0).unwrap_err();
    assert_eq!(e.line, Some(2));
    assert!(
        e.to_string()
            .contains("trace_1.log:2: message uid 7 is taken but no process log sends it"),
        "{e}"
    );

    let t2 = TempPath::new("bad2");
    write_dir(
        &t2.0,
        &[
            ("trace_result.log", "{pid,1}.\n"),
            ("trace_1.log", "{trace_send,0}.\n{oops}.\n"),
        ],
    );
    let e = cauder::read_dir(&t2.0).unwrap_err();
    assert!(
        e.to_string()
            .ends_with("trace_1.log:2: not a CauDEr log entry: {oops}"),
        "{e}"
    );

    let t3 = TempPath::new("bad3");
    write_dir(&t3.0, &[("trace_1.log", "{trace_send,0}.\n")]);
    let e = cauder::read_dir(&t3.0).unwrap_err();
    assert!(e.to_string().contains("no trace_result.log"), "{e}");
}

#[test]
fn export_reports_what_cauder_cannot_hold() {
    let t = TempPath::new("ring.trace");
    let logs = ring(3, 2, true);
    write(&t.0, &logs, Default::default());
    let r = LogReader::open(&t.0).unwrap();
    let out = t.dir().join("ring-cauder");
    let ex = cauder::export(&r, &out).unwrap();
    assert_eq!(ex.dropped.get("exit"), Some(&3));
    assert_eq!(ex.written, 2 + 6 + 6);
    let back = cauder::read_dir(&out).unwrap();
    assert_eq!(back.report.generation, "v3");
    // The same messages flow, without destinations, payloads and exits.
    for (orig, imp) in logs.iter().zip(&back.logs) {
        let keep: Vec<Event> = orig
            .events
            .iter()
            .filter_map(|e| match e {
                Event::Send { .. } => Some(SEND),
                Event::Spawn { child, pid, .. } => Some(spawn(child.0, *pid)),
                Event::Receive { .. } => Some(e.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(imp.events, keep);
    }
}

#[test]
fn export_leaves_out_receives_of_signals_so_cauder_can_read_it() {
    use trace_format::{SignalEffect, SignalKind};
    // Process 1 is linked to 0 and ends; 0 traps exits, so the exit signal
    // 1:1 becomes an 'EXIT' message that 0 receives. CauDEr has no
    // `trace_send` for a signal: that receive must not be exported.
    let logs = vec![
        ProcessLog {
            id: ProcId(0),
            pid: 80,
            parent: None,
            events: vec![
                Event::Spawn {
                    child: ProcId(1),
                    pid: 81,
                    link: true,
                    monitor: false,
                },
                Event::Receive { msg: m(1, 0) },
                Event::SignalTaken {
                    signal: m(1, 1),
                    effect: SignalEffect::Converted,
                },
                Event::Receive { msg: m(1, 1) },
            ],
        },
        ProcessLog {
            id: ProcId(1),
            pid: 81,
            parent: Some(ProcId(0)),
            events: vec![
                Event::Send {
                    to: Dest::Proc(ProcId(0)),
                    payload: None,
                },
                Event::Signal {
                    to: Dest::Proc(ProcId(0)),
                    kind: SignalKind::Exit {
                        reason: None,
                        linked: true,
                    },
                },
                Event::Exit { reason: None },
            ],
        },
    ];
    let t = TempPath::new("trap.trace");
    write(&t.0, &logs, Default::default());
    let r = LogReader::open(&t.0).unwrap();
    let out = t.dir().join("trap-cauder");
    let ex = cauder::export(&r, &out).unwrap();
    assert_eq!(ex.written, 3, "{ex:?}");
    assert!(
        ex.notes.iter().any(|n| n.contains("1 receives left out")),
        "{ex:?}"
    );
    // Process 1's uids start after process 0's 4 events.
    assert_eq!(
        std::fs::read_to_string(out.join("trace_80.log")).unwrap(),
        "{trace_spawn,nonode@nohost,81,true}.\n{trace_receive,4}.\n"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("trace_81.log")).unwrap(),
        "{trace_send,4}.\n"
    );
    let back = cauder::read_dir(&out).unwrap();
    assert_eq!(back.logs[0].events[1], Event::Receive { msg: m(1, 0) });
}
