//! Scripted sessions on the papers' examples with their planted bugs: each
//! run is recorded, its debugging tree built by replaying it, and the
//! answers a user would give walk the tree to exactly the buggy clause or
//! receive, in a counted number of questions. The same bugs are found
//! with a specification or a good run of the fixed program as the oracle,
//! with no question to the user.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use trace_format::{LogReader, WriterOptions};
use trace_recorder::{RecordConfig, RecordFlags};
use trace_runtime::{Chaos, LoadOptions, RunOptions, Verdict};
use trace_why::{answer, report, Answer, BadAnswer, NodeId, Outcome, Session, Strategy, Tree};

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(rel)
}

fn program(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/programs")
        .join(name)
}

fn status(v: Verdict) -> i32 {
    match v {
        Verdict::Ok => 0,
        Verdict::EntryCrashed => 1,
        Verdict::Deadlock => 5,
        _ => 2,
    }
}

/// Records a run of `file` on one scheduler (chaos `seed` perturbing it);
/// returns the log and what it printed.
fn record(file: &Path, seed: Option<u64>) -> (Arc<LogReader>, String) {
    let loaded = trace_runtime::load(&[file.to_path_buf()], &LoadOptions::default()).unwrap();
    let (entry, call) = trace_runtime::entry(&loaded, None).unwrap();
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("why-sessions");
    std::fs::create_dir_all(&dir).unwrap();
    let stem = file.file_stem().unwrap().to_string_lossy();
    static N: AtomicUsize = AtomicUsize::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    let out = dir.join(format!("{stem}-{seed:?}-{}-{n}.trace", std::process::id()));
    let cfg = RecordConfig {
        out: out.clone(),
        flags: RecordFlags {
            payloads: true,
            deliveries: false,
            output: true,
        },
        writer: WriterOptions::default(),
        run: RunOptions {
            schedulers: 1,
            chaos: seed.map(|seed| Chaos { seed }),
            reports: false,
            ..RunOptions::default()
        },
        entry_text: call,
        footer_status: status,
    };
    let printed = trace_recorder::Captured::default();
    trace_recorder::record(&loaded, entry, &cfg, Box::new(printed.clone()), None).unwrap();
    let bytes = printed.0.lock().unwrap().clone();
    (
        Arc::new(LogReader::open(&out).unwrap()),
        String::from_utf8(bytes).unwrap(),
    )
}

/// The first chaos seed whose run of `file` prints `want`.
fn record_printing(file: &Path, want: &str) -> Arc<LogReader> {
    for seed in 0..200 {
        let (log, out) = record(file, Some(seed));
        if out.contains(want) {
            return log;
        }
    }
    panic!("no seed below 200 makes {} print {want}", file.display());
}

fn tree(file: &Path, log: &Arc<LogReader>) -> Tree {
    let opts = LoadOptions {
        debug: true,
        entry: Some(log.header().entry.clone()),
        ..LoadOptions::default()
    };
    let loaded = trace_runtime::load(&[file.to_path_buf()], &opts).unwrap();
    trace_why::debugging_tree(&loaded, log, false, trace_why::DEFAULT_MAX_NODES).unwrap()
}

/// A user answering from a script; every question is kept.
struct Script {
    answers: Vec<&'static str>,
    questions: Vec<String>,
}

impl Script {
    fn new(answers: &[&'static str]) -> Script {
        Script {
            answers: answers.iter().rev().copied().collect(),
            questions: Vec::new(),
        }
    }
}

impl trace_why::User for Script {
    fn answer(&mut self, tree: &Tree, node: NodeId) -> Result<Option<Answer>, BadAnswer> {
        self.questions.push(trace_why::question::text(tree, node));
        match self.answers.pop() {
            Some(a) => answer::parse(a).expect("an answer").map(Some),
            None => Ok(None),
        }
    }
}

/// Runs a session; returns the buggy node's report and the questions asked.
fn session(
    tree: &Tree,
    strategy: Strategy,
    start: Option<&str>,
    oracles: &[&dyn trace_why::Oracle],
    answers: &[&'static str],
) -> (report::Buggy, Script, usize) {
    let start = start.map(|s| trace_why::resolve_start(tree, s).unwrap());
    let mut s = Session::new(tree, strategy, start);
    let mut user = Script::new(answers);
    let outcome = s.run(oracles, &mut user).unwrap();
    let Outcome::Buggy { node, item, .. } = outcome else {
        panic!(
            "no buggy node: {outcome:?}; asked:\n{}",
            user.questions.join("\n")
        );
    };
    assert!(user.answers.is_empty(), "answers left: {:?}", user.answers);
    let by_oracles = s.asked.iter().filter(|a| a.by != "user").count();
    (report::buggy(tree, node, item), user, by_oracles)
}

fn ends_with(code: &str, tail: &str) {
    assert!(code.ends_with(tail), "{code:?} does not end with {tail:?}");
}

#[test]
fn tcp_bug_1_the_server_that_stops_is_found_in_two_questions_as_in_the_paper() {
    let file = fixture("papers/tcp.erl");
    // Client 1's SYN first: the server answers rst and ends; main deadlocks.
    let (log, out) = record(&file, None);
    assert_eq!(out, "");
    let t = tree(&file, &log);
    let (b, user, _) = session(&t, Strategy::TopDown, Some("P.1"), &[], &["n", "n"]);
    assert_eq!(user.questions.len(), 2);
    assert!(user.questions[0].contains("tcp:server(<0.80.0>, 50, 500)"));
    assert!(user.questions[0].contains("with the value rst"));
    assert!(user.questions[1].contains("bindings: Main = <0.80.0>, Port = 50, Seq = 500"));
    assert!(user.questions[1].contains("consumed: {<0.82.0>,{syn,57,100}} from P.2"));
    assert_eq!(b.kind, "erroneous transition");
    ends_with(&b.code, "tcp.erl:29 (tcp:server/3)");
    assert!(b
        .lines
        .iter()
        .any(|(n, l)| *n == 35 && l.contains("Client ! rst")));
    assert_eq!(b.until.as_deref(), Some("receive(P.2:0)"));
}

#[test]
fn tcp_bug_2_a_wrong_message_leads_to_its_sender_in_two_questions() {
    let file = fixture("papers/tcp.erl");
    let log = record_printing(&file, "main received error_ack");
    let t = tree(&file, &log);
    // From the event the paper starts at: the ack process's {data, error_ack}.
    let (b, user, _) = session(
        &t,
        Strategy::TopDown,
        Some("send(P.1.1:0)"),
        &[],
        // The sender's transition is then asked about: its state is right.
        &["n consumed", "y"],
    );
    assert_eq!(user.questions.len(), 2);
    assert!(user.questions[0].contains("consumed: {<0.83.0>,{201,50,501,ack}} from P.3"));
    assert!(
        user.questions[1].contains("tcp.erl:54"),
        "{}",
        user.questions[1]
    );
    assert_eq!(b.kind, "erroneous transition");
    ends_with(&b.code, "tcp.erl:54 (tcp:syn_ack/3)");
    assert!(b
        .lines
        .iter()
        .any(|(n, l)| *n == 58 && l.contains("% bug 2")));
}

#[test]
fn cfib_top_down_from_the_output_reaches_the_wrong_add() {
    let file = fixture("papers/cfib.erl");
    let (log, out) = record(&file, None);
    assert!(out.contains("cfib(2) = 0"));
    let t = tree(&file, &log);
    // main's run is wrong; its start and the first two results are right;
    // the third consumed 0 for cfib(2): that message is wrong; add(1, 0) = 0 is.
    let answers = ["n", "y", "y", "y", "n consumed", "n"];
    let (b, user, _) = session(&t, Strategy::TopDown, None, &[], &answers);
    assert_eq!(user.questions.len(), 6);
    assert!(user.questions[4].contains("printed:  \"cfib(2) = 0\\n\""));
    assert!(user.questions[5].starts_with("cfib:add("));
    assert_eq!(b.kind, "wrong function result");
    assert!(
        b.code.starts_with("the clause of cfib:add/2 at "),
        "{}",
        b.code
    );
    ends_with(&b.code, "cfib.erl:27");
}

#[test]
fn cfib_process_directed_and_divide_and_query_reach_the_same_clause() {
    let file = fixture("papers/cfib.erl");
    let (log, _) = record(&file, None);
    let t = tree(&file, &log);
    // P.3 computes cfib(2): the paper's tree (its six nodes: the process,
    // three transitions, add) asks five questions top-down.
    let (b, user, _) = session(
        &t,
        Strategy::TopDown,
        Some("P.3"),
        &[],
        &["n", "y", "y", "n", "n"],
    );
    assert_eq!(user.questions.len(), 5);
    assert!(b.code.ends_with("cfib.erl:27"), "{}", b.code);
    // Divide & query below P.3 asks about the transition holding half of
    // the tree (the one that calls add) first, then add: three questions.
    let answers = ["n", "n", "n"];
    let (b, user, _) = session(&t, Strategy::DivideAndQuery, Some("P.3"), &[], &answers);
    assert!(
        user.questions[1].contains("consumed: 0 from P.3.2"),
        "{}",
        user.questions[1]
    );
    assert!(
        user.questions[2].starts_with("cfib:add("),
        "{}",
        user.questions[2]
    );
    assert_eq!(user.questions.len(), 3);
    assert!(b.code.ends_with("cfib.erl:27"), "{}", b.code);
}

#[test]
fn fghi_the_receive_that_subtracts_is_the_buggy_transition() {
    let file = program("fghi.erl");
    let (log, out) = record(&file, None);
    assert_eq!(out, "f(4) = -1\n");
    let t = tree(&file, &log);
    let (b, user, _) = session(&t, Strategy::TopDown, None, &[], &["n", "y", "n"]);
    assert_eq!(user.questions.len(), 3);
    assert!(user.questions[2].contains("bindings: Pid = <0.81.0>, X = 4"));
    assert_eq!(b.kind, "erroneous transition");
    ends_with(&b.code, "fghi.erl:18 (fghi:h/2)");
    assert!(b.lines.iter().any(|(n, l)| *n == 19 && l.contains("M - X")));
}

#[test]
fn undo_dont_know_and_trust_steer_the_session() {
    let file = fixture("papers/cfib.erl");
    let (log, _) = record(&file, None);
    let t = tree(&file, &log);
    // "d" on the first transition is undone and answered again; trusting
    // add makes the transition that calls it the buggy node.
    let answers = ["n", "d", "u", "y", "y", "n", "t"];
    let (b, user, _) = session(&t, Strategy::TopDown, Some("P.3"), &[], &answers);
    assert_eq!(user.questions.len(), 7);
    assert_eq!(user.questions[1], user.questions[3], "undo asks again");
    assert_eq!(b.kind, "erroneous transition");
}

#[test]
fn a_specification_finds_both_tcp_bugs_with_no_question() {
    let file = fixture("papers/tcp.erl");
    let (log, _) = record(&file, None);
    let t = tree(&file, &log);
    let spec = trace_check::load(&program("tcp_loop.tspec")).unwrap();
    let oracle = trace_why::WrongEvents::of_spec("spec".into(), &spec, &log).unwrap();
    let (b, user, by_oracles) = session(&t, Strategy::TopDown, None, &[&oracle], &[]);
    assert!(user.questions.is_empty());
    assert!(by_oracles > 0);
    ends_with(&b.code, "tcp.erl:29 (tcp:server/3)");

    let log = record_printing(&file, "main received error_ack");
    let t = tree(&file, &log);
    let spec = trace_check::load(&program("tcp_ack.tspec")).unwrap();
    let oracle = trace_why::WrongEvents::of_spec("spec".into(), &spec, &log).unwrap();
    let (b, user, _) = session(&t, Strategy::DivideAndQuery, None, &[&oracle], &[]);
    assert!(user.questions.is_empty());
    ends_with(&b.code, "tcp.erl:54 (tcp:syn_ack/3)");
}

#[test]
fn a_good_run_of_the_fixed_program_finds_the_bugs_with_no_question() {
    let cases = [
        ("papers/cfib.erl", "cfib_fixed.erl", "cfib.erl:27"),
        (
            "papers/tcp.erl",
            "tcp_fixed.erl",
            "tcp.erl:29 (tcp:server/3)",
        ),
    ];
    for (bad, good, tail) in cases {
        let file = fixture(bad);
        let (log, _) = record(&file, None);
        let (good_log, _) = record(&program(good), None);
        let t = tree(&file, &log);
        let opts = trace_diff::Options::default();
        let oracle =
            trace_why::WrongEvents::of_good_run("good".into(), &log, &good_log, &opts, &t).unwrap();
        let (b, user, _) = session(&t, Strategy::TopDown, None, &[&oracle], &[]);
        assert!(user.questions.is_empty(), "{bad}: {:?}", user.questions);
        ends_with(&b.code, tail);
    }
    let file = program("fghi.erl");
    let (log, _) = record(&file, None);
    let (good_log, _) = record(&program("fghi_fixed.erl"), None);
    let t = tree(&file, &log);
    let opts = trace_diff::Options::default();
    let oracle =
        trace_why::WrongEvents::of_good_run("good".into(), &log, &good_log, &opts, &t).unwrap();
    let (b, user, _) = session(&t, Strategy::DivideAndQuery, None, &[&oracle], &[]);
    assert!(user.questions.is_empty());
    ends_with(&b.code, "fghi.erl:18 (fghi:h/2)");
}

#[test]
fn bad_starts_and_another_programs_log_are_refused_with_a_reason() {
    let file = program("fghi.erl");
    let (log, _) = record(&file, None);
    let t = tree(&file, &log);
    let e = trace_why::resolve_start(&t, "P.7").unwrap_err();
    assert!(e.contains("no process P.7"), "{e}");
    let e = trace_why::resolve_start(&t, "receive(P.1:9)").unwrap_err();
    assert!(e.contains("never received"), "{e}");
    assert!(trace_why::resolve_start(&t, "send(P.1)").is_err());
    let opts = LoadOptions {
        debug: true,
        entry: Some(log.header().entry.clone()),
        ..LoadOptions::default()
    };
    let other = trace_runtime::load(&[program("fghi_fixed.erl")], &opts).unwrap();
    let e = trace_why::debugging_tree(&other, &log, false, 1000)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("not the program the log was recorded from"),
        "{e}"
    );
}

#[test]
fn a_tree_over_the_node_budget_is_refused_with_a_clear_message() {
    let file = fixture("papers/cfib.erl");
    let (log, _) = record(&file, None);
    let opts = LoadOptions {
        debug: true,
        entry: Some(log.header().entry.clone()),
        ..LoadOptions::default()
    };
    let loaded = trace_runtime::load(&[file], &opts).unwrap();
    let e = trace_why::debugging_tree(&loaded, &log, false, 10)
        .unwrap_err()
        .to_string();
    assert!(e.contains("more than 10 nodes (--max-nodes)"), "{e}");
}
