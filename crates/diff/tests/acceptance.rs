//! The acceptance tests of issue 7, through the library, on runs recorded
//! from the programs in `tests/programs/` (the papers' examples, in our
//! own words, until fixtures/papers/ holds them).

mod common;

use common::{open, record, How, Scratch};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use trace_capture::SymbolicName;
use trace_causal::Model;
use trace_diff::render::{self, Style};
use trace_diff::{diff, Diff, Kind, Options, ProcName};
use trace_format::{Event, LogReader};

fn text(d: &Diff) -> String {
    render::text(d, &Style::default(), ["a", "b"]).join("\n")
}

fn compare(a: &Path, b: &Path, opts: &Options) -> Diff {
    diff(&open(a), &open(b), opts).unwrap()
}

fn name(s: &str) -> SymbolicName {
    s.parse().unwrap()
}

/// Raw pid of each process, by symbolic name (trace-causal's names).
fn pids_by_name(p: &Path) -> BTreeMap<String, u64> {
    let r = open(p);
    let m = Model::build(&r);
    r.processes()
        .iter()
        .map(|q| (m.names().short(q.id), q.pid))
        .collect()
}

/// The exit reason of process `who`, as `~p` prints it.
fn exit_reason(p: &Path, who: &str) -> String {
    let r = open(p);
    let id = Model::build(&r).names().lookup(&name(who)).unwrap();
    r.events_of(id)
        .unwrap()
        .iter()
        .find_map(|e| match e {
            Event::Exit { reason } => reason
                .as_ref()
                .map(|r| trace_format::text::render_payload(r.bytes())),
            _ => None,
        })
        .unwrap_or_default()
}

/// Records `program` under chaos seeds from 0 until `keep` says a run is
/// the one wanted; panics after `tries` seeds.
fn hunt(dir: &Scratch, program: &str, tries: u64, keep: impl Fn(&Path) -> bool) -> PathBuf {
    for seed in 0..tries {
        let p = dir.path(&format!("{program}-{seed}.trace"));
        record(
            program,
            &p,
            How {
                chaos: Some(seed),
                ..How::default()
            },
        );
        if keep(&p) {
            return p;
        }
    }
    panic!("no run of {program} in {tries} chaos seeds was the one wanted");
}

#[test]
fn one_program_under_two_schedules_is_equivalent_although_raw_pids_differ() {
    let dir = Scratch::new("schedules");
    let first = dir.path("first.trace");
    record("spawn_tree.erl", &first, How::default());
    let pids = pids_by_name(&first);
    let other = hunt(&dir, "spawn_tree.erl", 100, |p| pids_by_name(p) != pids);
    // The premise: the same names got other raw pids.
    let moved: Vec<_> = pids_by_name(&other)
        .into_iter()
        .filter(|(n, pid)| pids[n] != *pid)
        .collect();
    assert!(!moved.is_empty());

    let d = compare(&first, &other, &Options::default());
    assert!(d.equivalent(), "{}", text(&d));
    assert_eq!(d.processes, 7);
    assert_eq!(d.events[0], d.events[1]);
    assert_eq!(d.events[0], open(&first).event_count());
    assert!(d.roots.is_empty() && d.notes.is_empty(), "{}", text(&d));
    let v = render::verdict(&d);
    assert_eq!(
        v,
        format!(
            "equivalent: 7 processes and {} events compared",
            d.events[0]
        )
    );
}

#[test]
fn the_two_outcomes_of_the_echo_race_differ_at_the_targets_receipts() {
    let dir = Scratch::new("race");
    let crashed = |p: &Path| exit_reason(p, "P.2").contains("badmatch");
    let good = hunt(&dir, "echo_race.erl", 200, |p| !crashed(p));
    let bad = hunt(&dir, "echo_race.erl", 200, crashed);

    let d = compare(&good, &bad, &Options::default());
    assert!(!d.equivalent());
    assert!(d.only_in.is_empty());
    // Only the target differs: main and echo did the same in both runs.
    assert_eq!(d.differences.len(), 1, "{}", text(&d));
    let t = &d.differences[0];
    assert_eq!(t.name, ProcName::Symbolic(name("P.2")));
    assert_eq!(t.kind, Kind::Event);
    assert_eq!(t.position, 0);
    let first = t.first.clone().map(|s| s.unwrap().text);
    assert_eq!(
        first,
        ["receive P:0".to_string(), "receive P.1:0".to_string()]
    );
    let exit = t.exit.as_ref().expect("the exits differ");
    assert_eq!(exit.a.as_ref().unwrap().text, "exit: normal");
    assert!(exit.b.as_ref().unwrap().text.contains("badmatch"));

    assert_eq!(d.roots.len(), 1);
    let root = &d.roots[0];
    assert_eq!(render::root_place(root), "P.2#0");
    assert_eq!(root.root_in, [true, true]);
    let rows: Vec<(String, String, bool)> = root
        .context
        .iter()
        .map(|r| {
            let c = r
                .cells
                .clone()
                .map(|c| c.map(|s| s.text).unwrap_or_default());
            (c[0].clone(), c[1].clone(), r.differs)
        })
        .collect();
    assert_eq!(
        rows[0],
        ("receive P:0".into(), "receive P.1:0".into(), true)
    );
    assert_eq!(
        rows[1],
        ("receive P.1:0".into(), "receive P:0".into(), true)
    );
    assert!(
        render::verdict(&d).ends_with("1 root divergence: P.2#0"),
        "{}",
        render::verdict(&d)
    );

    // The other way round, the same place.
    let back = compare(&bad, &good, &Options::default());
    assert_eq!(render::root_place(&back.roots[0]), "P.2#0");
}

#[test]
fn map_and_pmap_are_equivalent_to_an_observer_of_the_result_only() {
    let dir = Scratch::new("map");
    let (map, pmap) = (dir.path("map.trace"), dir.path("pmap.trace"));
    assert_eq!(record("seqmap.erl", &map, How::default()), "[2,3,4,5]\n");
    assert_eq!(record("parmap.erl", &pmap, How::default()), "[2,3,4,5]\n");

    let observed = Options {
        observe: vec![name("P")],
        ..Options::default()
    };
    let d = compare(&map, &pmap, &observed);
    assert!(d.equivalent(), "{}", text(&d));
    assert_eq!(d.processes, 1);
    // What P consumed (the result) and its exit.
    assert_eq!(d.events, [2, 2]);
    assert!(render::verdict(&d).starts_with("equivalent for the observers: 1 process"));

    // Step by step they differ: the mapper works otherwise, and pmap has a helper.
    let d = compare(&map, &pmap, &Options::default());
    assert!(!d.equivalent());
    let names: Vec<String> = d.differences.iter().map(|p| p.name.to_string()).collect();
    assert_eq!(names, ["P", "P.1"], "{}", text(&d));
    assert_eq!(d.only_in.len(), 1);
    assert_eq!(
        (d.only_in[0].run, d.only_in[0].name.to_string()),
        (1, "P.1.1".to_string())
    );
    // The mapper's first event is where it starts: it spawns instead of sending.
    let roots: Vec<String> = d.roots.iter().map(render::root_place).collect();
    assert_eq!(roots, ["P.1#0"], "{}", text(&d));

    // Observing the mapper too tells them apart, at the mapper.
    let both = Options {
        observe: vec![name("P"), name("P.1")],
        ..Options::default()
    };
    let d = compare(&map, &pmap, &both);
    assert!(!d.equivalent());
    assert_eq!(d.differences.len(), 1);
    assert_eq!(d.differences[0].name.to_string(), "P.1");
    // map's mapper sends the result to P; pmap's sends half of it to its
    // helper (after spawning it, which is not observed).
    let first = d.differences[0].first.clone().map(|s| s.unwrap().text);
    assert_eq!(first[0], "send P.1:0 to P: {result,[2,3,4,5]}");
    assert_eq!(first[1], "send P.1:0 to P.1.1: {rest,[4,5]}");
    let roots: Vec<String> = d.roots.iter().map(render::root_place).collect();
    assert_eq!(roots, ["P.1 (a #0, b #1)"]);
}

#[test]
fn a_log_compared_with_itself_is_equivalent() {
    let dir = Scratch::new("itself");
    for prog in [
        "spawn_tree.erl",
        "echo_race.erl",
        "parmap.erl",
        "reply_v1.erl",
    ] {
        let p = dir.path("run.trace");
        record(
            prog,
            &p,
            How {
                chaos: Some(3),
                ..How::default()
            },
        );
        let d = compare(&p, &p, &Options::default());
        assert!(d.equivalent(), "{prog}: {}", text(&d));
        assert_eq!(d.events, [open(&p).event_count(); 2]);
        assert_eq!(d.processes, open(&p).processes().len() as u64);
    }
}

/// Exports a log to a CauDEr directory and imports it back.
fn through_cauder(dir: &Scratch, log: &Path, tag: &str) -> PathBuf {
    let cdir = dir.path(&format!("cauder-{tag}"));
    trace_format::cauder::export(&open(log), &cdir).unwrap();
    let out = dir.path(&format!("{tag}-imported.trace"));
    trace_format::cauder::import(&cdir, &out).unwrap();
    out
}

#[test]
fn logs_imported_from_cauder_compare_like_native_ones() {
    let dir = Scratch::new("cauder");
    let crashed = |p: &Path| exit_reason(p, "P.2").contains("badmatch");
    let good = hunt(&dir, "echo_race.erl", 200, |p| !crashed(p));
    let bad = hunt(&dir, "echo_race.erl", 200, crashed);
    let (ig, ib) = (
        through_cauder(&dir, &good, "good"),
        through_cauder(&dir, &bad, "bad"),
    );

    let native = compare(&good, &bad, &Options::default());
    let imported = compare(&ig, &ib, &Options::default());
    assert!(!imported.equivalent());
    let places = |d: &Diff| -> Vec<String> { d.roots.iter().map(render::root_place).collect() };
    assert_eq!(places(&imported), places(&native));
    let firsts = |d: &Diff| -> Vec<(String, [Option<String>; 2])> {
        d.differences
            .iter()
            .map(|p| {
                (
                    p.name.to_string(),
                    p.first.clone().map(|s| s.map(|s| s.text)),
                )
            })
            .collect()
    };
    assert_eq!(firsts(&imported), firsts(&native), "{}", text(&imported));
    // CauDEr records no destinations: against a native log, the report
    // says they were not compared.
    assert!(!imported.notes.iter().any(|n| n.contains("destinations")));
    let mixed = compare(&good, &ig, &Options::default());
    assert!(
        mixed.notes.iter().any(|n| n.contains("destinations")),
        "{:?}",
        mixed.notes
    );

    let same = compare(&ig, &ig, &Options::default());
    assert!(same.equivalent(), "{}", text(&same));
    // A second import of the same run is equivalent too.
    let again = through_cauder(&dir, &good, "good-again");
    assert!(compare(&ig, &again, &Options::default()).equivalent());
}

#[test]
fn a_handwritten_cauder_log_pair_differs_at_the_receive_order() {
    // CauDEr v3 logs of a main process that spawns two senders and takes
    // their messages in either order.
    let dir = Scratch::new("cauder-hand");
    let write = |tag: &str, first: u32, second: u32| -> PathBuf {
        let d = dir.path(tag);
        std::fs::create_dir_all(&d).unwrap();
        let files = [
            ("trace_result.log", "{call,{race,main,[]}}.\n{pid,80}.\n{return,{value,ok}}.\n{tracing,success}.\n".to_string()),
            (
                "trace_80.log",
                format!(
                    "{{trace_spawn,nonode@nohost,81,true}}.\n{{trace_spawn,nonode@nohost,82,true}}.\n\
                     {{trace_receive,{first}}}.\n{{trace_receive,{second}}}.\n"
                ),
            ),
            ("trace_81.log", "{trace_send,7}.\n".to_string()),
            ("trace_82.log", "{trace_send,9}.\n".to_string()),
        ];
        for (f, text) in files {
            std::fs::write(d.join(f), text).unwrap();
        }
        let out = dir.path(&format!("{tag}.trace"));
        trace_format::cauder::import(&d, &out).unwrap();
        out
    };
    let (x, y) = (write("x", 7, 9), write("y", 9, 7));
    let d = compare(&x, &y, &Options::default());
    assert_eq!(d.differences.len(), 1);
    assert_eq!(
        d.differences[0].first.clone().map(|s| s.unwrap().text),
        ["receive P.1:0".to_string(), "receive P.2:0".to_string()]
    );
    assert_eq!(
        d.roots.iter().map(render::root_place).collect::<Vec<_>>(),
        ["P#2"]
    );
    assert!(compare(&x, &x, &Options::default()).equivalent());
}

#[test]
fn payload_levels_ignore_and_abstract() {
    let dir = Scratch::new("levels");
    let (v1, v2) = (dir.path("v1.trace"), dir.path("v2.trace"));
    record("reply_v1.erl", &v1, How::default());
    record("reply_v2.erl", &v2, How::default());

    let d = compare(&v1, &v2, &Options::default());
    assert!(!d.equivalent());
    assert!(
        d.differences.iter().all(|p| p.kind == Kind::Payload),
        "{}",
        text(&d)
    );
    // The server's first reply is where the versions part ways.
    let roots: Vec<String> = d.roots.iter().map(render::root_place).collect();
    assert_eq!(roots, ["P.1#1"], "{}", text(&d));

    let ignoring = Options {
        ignore_payloads: true,
        ..Options::default()
    };
    assert!(compare(&v1, &v2, &ignoring).equivalent());

    let abstracting = |patterns: &[&str]| Options {
        abstractions: patterns
            .iter()
            .map(|p| trace_diff::Abstraction::parse(p).unwrap())
            .collect(),
        ..Options::default()
    };
    // The version tag is wildcarded; the squares are still compared.
    let d = compare(&v1, &v2, &abstracting(&["{reply, _, _, V}"]));
    assert!(d.equivalent(), "{}", text(&d));
    // Wildcarding the squares instead leaves the tags apart.
    let d = compare(&v1, &v2, &abstracting(&["{reply, _, N, _}"]));
    assert!(!d.equivalent());
    let d = compare(&v1, &v2, &abstracting(&["A when A =:= v1; A =:= v2"]));
    assert!(d.equivalent(), "{}", text(&d));
}

#[test]
fn a_log_without_payloads_is_compared_without_them_and_says_so() {
    let dir = Scratch::new("nopayloads");
    let (full, bare) = (dir.path("full.trace"), dir.path("bare.trace"));
    record("spawn_tree.erl", &full, How::default());
    record(
        "spawn_tree.erl",
        &bare,
        How {
            no_payloads: true,
            ..How::default()
        },
    );
    let d = compare(&full, &bare, &Options::default());
    assert!(d.equivalent(), "{}", text(&d));
    assert!(
        d.notes
            .iter()
            .any(|n| n.starts_with("b: the log holds no payloads")),
        "{:?}",
        d.notes
    );
}

#[test]
fn a_process_only_one_run_has_is_listed() {
    let dir = Scratch::new("only");
    let (map, pmap) = (dir.path("map.trace"), dir.path("pmap.trace"));
    record("seqmap.erl", &map, How::default());
    record("parmap.erl", &pmap, How::default());
    let d = compare(&pmap, &map, &Options::default());
    assert_eq!(d.only_in.len(), 1);
    assert_eq!(d.only_in[0].run, 0);
    assert_eq!(d.only_in[0].name.to_string(), "P.1.1");
    assert!(d.only_in[0].events > 0);
    let t = text(&d);
    assert!(t.contains("only in a: P.1.1 <0."), "{t}");
}

/// Names from the process table (what diff reads) agree with trace-causal's,
/// which come from spawn events.
#[test]
fn names_from_the_process_table_agree_with_spawn_events() {
    let dir = Scratch::new("names");
    let p = dir.path("t.trace");
    record(
        "spawn_tree.erl",
        &p,
        How {
            chaos: Some(5),
            ..How::default()
        },
    );
    let r: LogReader = open(&p);
    let d = diff(&r, &r, &Options::default()).unwrap();
    assert!(d.notes.is_empty(), "{:?}", d.notes);
    assert_eq!(d.processes, 7);
}

#[test]
fn deliveries_recorded_in_one_log_only_are_left_out() {
    let dir = Scratch::new("deliveries");
    let (with, without, again) = (
        dir.path("with.trace"),
        dir.path("without.trace"),
        dir.path("again.trace"),
    );
    let deliveries = How {
        deliveries: true,
        ..How::default()
    };
    record("echo_race.erl", &with, deliveries);
    record("echo_race.erl", &without, How::default());
    record("echo_race.erl", &again, deliveries);
    let d = compare(&with, &without, &Options::default());
    assert!(d.equivalent(), "{}", text(&d));
    assert!(d
        .notes
        .iter()
        .any(|n| n.starts_with("deliveries are recorded in one log only")));
    assert_eq!(d.events[0], d.events[1]);
    // Both with deliveries: they are compared, and agree.
    let d = compare(&with, &again, &Options::default());
    assert!(d.equivalent() && d.notes.is_empty(), "{}", text(&d));
    assert!(open(&with).event_count() > open(&without).event_count());
}
