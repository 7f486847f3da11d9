//! `trace dump` and `trace stats` run as a user runs them.

mod common;
use common::{s, text, trace, Scratch};
use std::path::{Path, PathBuf};
use std::process::Output;
use trace_format::{
    Dest, Event, Header, LogWriter, MsgId, Outcome, Payload, ProcId, WriterOptions,
};

/// A directory `name` in `dir` holding a CauDEr log: its `(file, text)`s.
fn cauder_dir(dir: &Scratch, name: &str, files: &[(&str, &str)]) -> PathBuf {
    let d = dir.path(name);
    std::fs::create_dir_all(&d).unwrap();
    for (file, text) in files {
        std::fs::write(d.join(file), text).unwrap();
    }
    d
}

/// A CauDEr v3 log `in` in `dir`: process 5 spawns 6 and sends it a
/// message, which 6 receives.
fn ping_cauder_dir(dir: &Scratch) -> PathBuf {
    cauder_dir(
        dir,
        "in",
        &[
            ("trace_result.log", "{call,{ping,main,[]}}.\n{pid,5}.\n"),
            (
                "trace_5.log",
                "{trace_spawn,nonode@nohost,6,true}.\n{trace_send,0}.\n",
            ),
            ("trace_6.log", "{trace_receive,0}.\n"),
        ],
    )
}

/// `trace import --cauder CDIR -o LOG`.
fn import(cdir: &Path, log: &Path) -> Output {
    trace(&["import", "--cauder", s(cdir), "-o", s(log)])
}

/// Process 0 spawns 1, sends it `{ping,1}`, 1 receives it and both exit.
fn ping_log(path: &Path) {
    let header = Header {
        entry: "ping:main()".into(),
        node: "nonode@nohost".into(),
        entry_pid: 80,
        ..Default::default()
    };
    let w = LogWriter::create(path, header, WriterOptions::default()).unwrap();
    let mut p0 = w.register(80, None);
    let mut p1 = w.register(81, Some(ProcId(0)));
    let ping = trace_term::etf::to_vec(&trace_term::Term::tuple(vec![
        trace_term::Term::atom("ping"),
        trace_term::Term::int(1),
    ]));
    p0.push(&Event::Spawn {
        child: ProcId(1),
        pid: 81,
        link: true,
        monitor: false,
    });
    p0.push(&Event::Send {
        to: Dest::Proc(ProcId(1)),
        payload: Some(Payload(ping)),
    });
    p1.push(&Event::Receive {
        msg: MsgId {
            sender: ProcId(0),
            index: 0,
        },
    });
    p0.push(&Event::Exit { reason: None });
    p1.push(&Event::Exit { reason: None });
    drop((p0, p1));
    w.finish(Outcome::default()).unwrap();
}

#[test]
fn dump_prints_one_event_per_line() {
    let dir = Scratch::new("log-dump");
    let log = dir.path("ping.trace");
    ping_log(&log);
    let out = trace(&["dump", s(&log)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let lines: Vec<String> = text(&out.stdout).lines().map(String::from).collect();
    assert_eq!(lines.len(), 5, "{lines:?}");
    assert_eq!(lines[0], "P <0.80.0> #0 spawn P.1 <0.81.0> link");
    assert!(
        lines[1].starts_with("P <0.80.0> #1 send P:0 to P.1 <0.81.0>: "),
        "{}",
        lines[1]
    );
    assert_eq!(lines[2], "P <0.80.0> #2 exit");
    // A receive shows the message it took, although its sender is printed
    // apart.
    assert_eq!(lines[3], "P.1 <0.81.0> #0 receive P:0: {ping,1}");

    let out = trace(&["dump", s(&log), "--process", "<0.81.0>", "--json"]);
    assert!(out.status.success());
    let lines: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{}", text(&out.stdout));
    assert_eq!(lines[0]["kind"], "receive");
    assert_eq!(lines[0]["msg"], "P:0");
    assert_eq!(lines[0]["payload"], "{ping,1}");
    assert_eq!(lines[0]["name"], "P.1");
    assert_eq!(lines[1]["kind"], "exit");

    let out = trace(&["dump", s(&log), "--process", "P.7"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("no process"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn stats_reports_counts_and_sizes() {
    let dir = Scratch::new("log-stats");
    let log = dir.path("stats.trace");
    ping_log(&log);
    let out = trace(&["stats", s(&log)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    assert!(s.contains("processes        2\n"), "{s}");
    assert!(s.contains("events           5\n"), "{s}");
    assert!(s.contains("  send           1\n"), "{s}");
    assert!(s.contains("payload bytes    11 "), "{s}");
    assert!(s.contains("run completed"), "{s}");
}

#[test]
fn foreign_and_truncated_files_are_explained() {
    let dir = Scratch::new("log-foreign");
    let caud = dir.write("trace_80.log", "{trace_send,0}.\n");
    let out = trace(&["dump", s(&caud)]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("not a trace log: a CauDEr text log"), "{err}");

    let log = dir.path("cut.trace");
    ping_log(&log);
    let bytes = std::fs::read(&log).unwrap();
    std::fs::write(&log, &bytes[..bytes.len() - 20]).unwrap();
    let out = trace(&["dump", s(&log)]);
    assert!(out.status.success());
    assert!(
        text(&out.stderr).contains("warning: no footer"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(text(&out.stdout).lines().count(), 5);
}

#[test]
fn cauder_import_and_export_round_trip() {
    let dir = Scratch::new("log-cauder");
    let cdir = ping_cauder_dir(&dir);
    let log = dir.path("run.trace");
    let out = import(&cdir, &log);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("imported a CauDEr v3 log: 2 processes, 3 events"));
    let out = trace(&["dump", s(&log)]);
    assert_eq!(
        text(&out.stdout),
        "P <0.5.0> #0 spawn P.1 <0.6.0>\nP <0.5.0> #1 send P:0 to ? (not recorded)\nP.1 <0.6.0> #0 receive P:0\n"
    );
    let back = dir.path("back");
    let out = trace(&["export", "--cauder", s(&back), s(&log)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        std::fs::read_to_string(back.join("trace_6.log")).unwrap(),
        "{trace_receive,0}.\n"
    );
    let out = import(Path::new("/nonexistent/dir"), &log);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).starts_with("trace import: /nonexistent/dir: "),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn cauder_import_reads_the_oldest_form() {
    let dir = Scratch::new("log-cauder-v1");
    let cdir = cauder_dir(
        &dir,
        "v1",
        &[
            (
                "trace_result.log",
                "call \"ping:main()\"\nmain_pid 74\nresult none\n",
            ),
            (
                "trace_74.log",
                "{74,spawn,78}\n{74,send,3}\n{74,'receive',13}\n",
            ),
            ("trace_78.log", "{78,'receive',3}\n{78,send,13}\n"),
        ],
    );
    let log = dir.path("v1.trace");
    let out = import(&cdir, &log);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).starts_with("imported a CauDEr v1 log: 2 processes, 5 events"),
        "{}",
        text(&out.stdout)
    );
    let out = trace(&["dump", s(&log)]);
    assert_eq!(
        text(&out.stdout),
        "P <0.74.0> #0 spawn P.1 <0.78.0>\n\
         P <0.74.0> #1 send P:0 to ? (not recorded)\n\
         P <0.74.0> #2 receive P.1:0\n\
         P.1 <0.78.0> #0 receive P:0\n\
         P.1 <0.78.0> #1 send P.1:0 to ? (not recorded)\n"
    );
}

/// What a CauDEr directory holds that the import cannot use is said, not
/// passed over: a stray `.log` file, a spawn of a process without a log, a
/// v2/v3 entry without its final dot (read as a v1 line).
#[test]
fn cauder_import_warns_of_what_it_cannot_use() {
    let dir = Scratch::new("log-cauder-warn");
    let cases: [(&str, &str, &str, &str); 3] = [
        (
            "stray",
            "trace_abc.log",
            "{trace_send,9}.\n",
            "warning: trace_abc.log is not a process log (trace_N.log) nor trace_result.log: ignored",
        ),
        (
            "unlogged",
            "trace_6.log",
            "{trace_spawn,nonode@nohost,7,true}.\n{trace_receive,0}.\n",
            "trace_6.log:1: spawn of process 7, which has no log (trace_7.log)",
        ),
        (
            "dotless",
            "trace_6.log",
            "{trace_receive,0}\n",
            "trace_6.log:1: v3 entry without its final '.' (read as a line)",
        ),
    ];
    for (name, file, body, want) in cases {
        let cdir = cauder_dir(
            &dir,
            name,
            &[
                ("trace_result.log", "{call,{ping,main,[]}}.\n{pid,5}.\n"),
                (
                    "trace_5.log",
                    "{trace_spawn,nonode@nohost,6,true}.\n{trace_send,0}.\n",
                ),
                ("trace_6.log", "{trace_receive,0}.\n"),
                (file, body),
            ],
        );
        let out = import(&cdir, &dir.path(&format!("{name}.trace")));
        let err = text(&out.stderr);
        assert!(out.status.success(), "{name}: {err}");
        assert!(err.contains(want), "{name}: {err}");
        assert_eq!(err.lines().count(), 1, "{name}: {err}");
    }
}

#[test]
fn no_command_writes_over_its_own_input() {
    let dir = Scratch::new("log-no-overwrite");
    let cdir = ping_cauder_dir(&dir);
    // import: the log may not replace a file of the directory being read.
    let input = cdir.join("trace_6.log");
    let out = import(&cdir, &input);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("would overwrite one of the CauDEr files"));
    assert_eq!(
        std::fs::read_to_string(&input).unwrap(),
        "{trace_receive,0}.\n"
    );

    // export: not into a directory that already holds a CauDEr log.
    let log = dir.path("run.trace");
    assert!(import(&cdir, &log).status.success());
    let out = trace(&["export", "--cauder", s(&cdir), s(&log)]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr)
            .contains("already holds a CauDEr log (trace_5.log, trace_6.log, trace_result.log)"),
        "{}",
        text(&out.stderr)
    );

    // record: the log may not replace the program's source.
    let src = dir.path("ok.erl");
    let source = "-module(ok).\n-export([main/0]).\nmain() -> ok.\n";
    std::fs::write(&src, source).unwrap();
    let out = trace(&["record", "-q", "-o", s(&src), s(&src)]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("would overwrite"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(std::fs::read_to_string(&src).unwrap(), source);
}

#[test]
fn misplaced_inputs_are_named_plainly() {
    let dir = Scratch::new("log-misplaced");
    let log = dir.path("ping.trace");
    ping_log(&log);
    // A directory where a log goes.
    let out = trace(&["dump", s(dir.path("").as_path())]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("is a directory, not a trace log"),
        "{}",
        text(&out.stderr)
    );
    // A process the log does not have, named as the user wrote it.
    let out = trace(&["dump", s(&log), "--process", "P.99"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("no process P.99 in this log"),
        "{}",
        text(&out.stderr)
    );
    let out = trace(&["dump", s(&log), "--process", "<0.99.0>"]);
    assert!(
        text(&out.stderr).contains("no process <0.99.0> in this log"),
        "{}",
        text(&out.stderr)
    );
    // A log where the program's source goes.
    for args in [vec!["run", s(&log)], vec!["replay", s(&log), s(&log)]] {
        let out = trace(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            text(&out.stderr).contains("ping.trace: a trace log, not Erlang source"),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
}

#[test]
fn check_on_a_cauder_import_leaves_out_what_the_format_cannot_say() {
    let dir = Scratch::new("log-cauder-check");
    let cdir = ping_cauder_dir(&dir);
    let log = dir.path("run.trace");
    assert!(import(&cdir, &log).status.success());
    let out = trace(&["check", s(&log)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("all_received"));
    let err = text(&out.stderr);
    for prop in ["no_deadlock", "no_abnormal_exit"] {
        let line = err
            .lines()
            .find(|l| l.contains(&format!("left out: {prop}, because")))
            .unwrap_or_else(|| panic!("{prop} not left out: {err}"));
        assert!(line.contains("imported from CauDEr's format"), "{line}");
        assert!(!line.contains("--no-payloads"), "{line}");
    }
}
