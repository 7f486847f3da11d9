//! `trace check` as a user runs it: recorded runs of the papers' programs
//! (the paper fixtures, tests/programs/ for the ones they lack, and copies
//! of either with one bug put in), with known verdicts for the buggy and the
//! correct runs; output, JSON, exit statuses, errors in specifications, and
//! `trace record --until-failure --check`.

mod common;
use common::{program, s, text, trace, Scratch};
use std::path::{Path, PathBuf};

fn record(prog: &str, log: &Path, extra: &[&str]) -> std::process::Output {
    record_file(&program(prog), log, extra)
}

fn record_file(prog: &Path, log: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["record", s(prog), "-o", s(log), "-q"];
    args.extend_from_slice(extra);
    trace(&args)
}

/// A program of the paper fixtures (`fixtures/papers/`).
fn paper(name: &str) -> PathBuf {
    trace_fixtures::root().join("papers").join(name)
}

/// A copy of `source` in `dir/bug/` with a bug put in: each `(correct,
/// buggy)` pair replaces text that must stand once in the source.
fn with_bug(dir: &Scratch, source: &Path, edits: &[(&str, &str)]) -> PathBuf {
    let mut text = std::fs::read_to_string(source).unwrap();
    for (correct, buggy) in edits {
        assert_eq!(
            text.matches(correct).count(),
            1,
            "{correct:?} in {source:?}"
        );
        text = text.replace(correct, buggy);
    }
    let bug = dir.path("bug");
    std::fs::create_dir_all(&bug).unwrap();
    let copy = bug.join(source.file_name().unwrap());
    std::fs::write(&copy, text).unwrap();
    copy
}

/// The STATUS line of each property, by name.
fn statuses(out: &str) -> Vec<(String, String)> {
    let lines: Vec<&str> = out.lines().collect();
    let mut v = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if let Some(st) = l.strip_prefix("STATUS: ") {
            let name = lines[i - 2].split_whitespace().next().unwrap().to_string();
            v.push((name, st.to_string()));
        }
    }
    v
}

const PROXY_SPEC: &str = "\
%% The server receives {C, N} before the number it adds.
server_order:
    every receive(<P.1>, N) when is_integer(N)
        is preceded by receive(<P.1>, {_, _}).
";

/// Records the proxy/server program under chaos scheduling until a run
/// prints `want` (the bug and the correct outcome both occur).
fn proxy_run(dir: &Scratch, want: &str) -> std::path::PathBuf {
    let log = dir.path(&format!("proxy-{}.trace", want.trim()));
    for seed in 1..3000 {
        let out = record(
            "proxy_server.erl",
            &log,
            &["--chaos", "--seed", &seed.to_string()],
        );
        if text(&out.stdout) == want {
            return log;
        }
    }
    panic!("no run printed {want:?}");
}

#[test]
fn proxy_server_ordering_bug_is_a_violation_and_a_correct_run_is_satisfied() {
    let dir = Scratch::new("check-proxy");
    let props = dir.write("proxy.tspec", PROXY_SPEC);
    // The faulty run: the server takes 2 first and stops; the client waits.
    let bad = proxy_run(&dir, "");
    let out = trace(&["check", s(&bad), "--spec", s(&props)]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert_eq!(
        statuses(&stdout),
        [("server_order".into(), "Violated".into())]
    );
    assert!(stdout.contains("P.1 <0.81.0> #0 receive P:1"), "{stdout}");
    assert!(stdout.contains("payload   2"), "{stdout}");
    assert!(stdout.contains("bindings  N = 2"), "{stdout}");
    // The slice: the client's send of 2, then its receipt.
    assert!(
        stdout.contains("slice     P <0.80.0> #3 send P:1 to P.1 <0.81.0>: 2"),
        "{stdout}"
    );
    let replay = format!("trace replay {} --until 'receive(P:1)'", s(&bad));
    assert!(stdout.contains(&replay), "{stdout}");
    // The printed --until stops replay exactly there.
    let out = trace(&["replay", s(&bad), "--until", "receive(P:1)", "--summary"]);
    assert!(
        text(&out.stdout).contains("receive(P:1)"),
        "{}",
        text(&out.stdout)
    );

    // A correct run: 40 + 2 reaches the client.
    let good = proxy_run(&dir, "42\n");
    let out = trace(&["check", s(&good), "--spec", s(&props)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert_eq!(
        statuses(&text(&out.stdout)),
        [("server_order".into(), "Satisfied".into())]
    );
}

const STOCK_SPEC: &str = "\
%% The server (the entry process) never answers a negative stock.
no_negative_stock: never send(<P>, _, N) when is_integer(N), N < 0.
%% Every take is answered, after the take, in the server's order.
takes_answered:
    every receive(<P>, C, {del, M, C}) is followed by send(<P>, C, N) when is_integer(N).
";

#[test]
fn stock_server_never_answers_a_negative_stock() {
    let dir = Scratch::new("check-stock");
    let props = dir.write("stock.tspec", STOCK_SPEC);
    let stock = paper("stock_server.erl");
    for seed in 1..=5 {
        let log = dir.path("stock.trace");
        let out = record_file(&stock, &log, &["--chaos", "--seed", &seed.to_string()]);
        assert_eq!(text(&out.stdout), "Stock: 3\nServer stopped with stock 3\n");
        let out = trace(&["check", s(&log), "--spec", s(&props)]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    }
    // Without the guard N >= M, the take is served before enough adds.
    let unguarded = with_bug(
        &dir,
        &stock,
        &[("{del, M, C} when N >= M ->", "{del, M, C} ->")],
    );
    // The bug shows under most interleavings, not all: search for a run
    // whose output differs from the correct one.
    let log = dir.path("stock_bug.trace");
    let good = dir.write("good.stdout", "Stock: 3\nServer stopped with stock 3\n");
    let out = record_file(
        &unguarded,
        &log,
        &[
            "--until-failure",
            "--attempts",
            "50",
            "--chaos",
            "--expect-stdout",
            s(&good),
        ],
    );
    assert_eq!(
        text(&out.stdout),
        "Stock: -7\nServer stopped with stock 3\n",
        "{}",
        text(&out.stderr)
    );
    let out = trace(&["check", s(&log), "--spec", s(&props)]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert_eq!(
        statuses(&stdout),
        [
            ("no_negative_stock".into(), "Violated".into()),
            ("takes_answered".into(), "Satisfied".into())
        ]
    );
    assert!(stdout.contains("payload   -7"), "{stdout}");
    assert!(stdout.contains("--until 'send(P:0)'"), "{stdout}");
}

const DINING_SPEC: &str = "\
%% While the waiter waits for a fork's answer, it takes no other request.
waits_for_forks:
    never receive(<P.1>, _, {hungry, _})
    after send(<P.1>, F, {get_state, _}) until receive(<P.1>, F, _).

%% Every hungry philosopher gets an answer.
answered:
    every send(Ph, <P.1>, {hungry, Ph}) is followed by receive(Ph, <P.1>, _).

%% A fork the waiter marks used is freed again.
forks_freed:
    every send(<P.1>, F, {set_state, used, _})
        is followed by send(<P.1>, F, {set_state, free, _}).

%% No fork is handed out twice before it is freed.
exclusive:
    at most 1 send(<P.1>, F, {set_state, used, _})
    after send(<P.1>, F, {set_state, used, _}) until send(<P.1>, F, {set_state, free, _}).
";

fn all_satisfied(log: &Path, props: &Path) {
    let out = trace(&["check", s(log), "--spec", s(props)]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.ends_with("4 properties: 4 satisfied, 0 violated\n"),
        "{stdout}"
    );
}

#[test]
fn dining_philosophers_bugs_are_caught() {
    let dir = Scratch::new("check-dining");
    let props = dir.write("dining.tspec", DINING_SPEC);
    // Correct runs, under several schedules.
    for seed in 1..=4 {
        let log = dir.path("dining.trace");
        let out = record(
            "dining.erl",
            &log,
            &["--chaos", "--seed", &seed.to_string()],
        );
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        all_satisfied(&log, &props);
    }
    // The paper's message-order bug: --until-failure --check finds a
    // violating run.
    let log = dir.path("simple_bug.trace");
    let out = record_file(
        &paper("dining_philosophers.erl"),
        &log,
        &["--until-failure", "--chaos", "--check", s(&props)],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("violates waits_for_forks"), "{stderr}");
    // The failure line names the violating event and says what it was.
    let line = stderr.lines().find(|l| l.contains("violates")).unwrap();
    assert!(line.contains("waits_for_forks at P."), "{line}");
    assert!(!line.trim_end().ends_with(':'), "{line}");
    let out = trace(&["check", s(&log), "--spec", s(&props)]);
    let stdout = text(&out.stdout);
    assert!(
        statuses(&stdout).contains(&("waits_for_forks".into(), "Violated".into())),
        "{stdout}"
    );
    // The swapped operands of rem when a philosopher has eaten: philosopher
    // 1 frees fork 1 twice and fork 2 stays used forever.
    let swapped = with_bug(
        &dir,
        &program("dining.erl"),
        &[(
            "{eaten, P} ->\n            {L, R} = forks_of(P, Forks, Philos),",
            "{eaten, P} ->\n            Id = lookup(P, Philos),\n            \
             {L, R} = {lookup(Id, Forks), lookup(1 + (?N rem Id), Forks)},",
        )],
    );
    let log = dir.path("bug.trace");
    let out = record_file(
        &swapped,
        &log,
        &["--until-failure", "--chaos", "--check", s(&props)],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let out = trace(&["check", s(&log), "--spec", s(&props)]);
    let stdout = text(&out.stdout);
    assert!(
        statuses(&stdout).contains(&("forks_freed".into(), "Violated".into())),
        "{stdout}"
    );
    assert!(stdout.contains("{set_state,used,"), "{stdout}");
}

#[test]
fn builtins_run_without_a_spec_and_json_is_one_object_per_property() {
    let dir = Scratch::new("check-builtins");
    let log = dir.path("cfib.trace");
    record("cfib.erl", &log, &[]);
    let out = trace(&["check", s(&log)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert_eq!(
        statuses(&text(&out.stdout)),
        [
            ("all_received".into(), "Satisfied".into()),
            ("no_deadlock".into(), "Satisfied".into()),
            ("no_abnormal_exit".into(), "Satisfied".into())
        ]
    );
    let log = dir.path("proxy.trace");
    record("proxy_server.erl", &log, &["--chaos", "--seed", "1"]);
    let out = trace(&["check", s(&log), "--builtin", "no_deadlock", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["name"], "no_deadlock");
    assert_eq!(lines[0]["status"], "Violated");
    let d = &lines[0]["details"][0];
    assert_eq!(d["process"]["name"], "P");
    assert_eq!(d["process"]["pid"], "<0.80.0>");
    assert!(d["until"].is_string());
    assert_eq!(lines[1]["type"], "summary");
    assert_eq!(lines[1]["violated"], 1);
}

#[test]
fn histories_of_cfib() {
    let dir = Scratch::new("check-cfib");
    let log = dir.path("cfib.trace");
    let out = record("cfib.erl", &log, &[]);
    assert_eq!(text(&out.stdout), "0\n");
    let props = dir.write(
        "cfib.tspec",
        "%% cfib(3): spawn two, receive twice, send one result.
shape: history <P.1>: [{_, none, [], [_, _]}, {_, {_, _}, [], []}, {_, {_, _}, [_], []}].
%% ... and the result is 2 (it is 0: add/2 multiplies).
result: history <P.1>: [{_, none, [], [_, _]}, *, {_, _, [{<P>, 2}], []}].
short: history <P.1>: [{_, none, [], [_, _]}].
long: history <P.1>: [+, {_, _, _, _}, {_, _, _, _}, {_, _, _, _}].
each: history W: [{W, none, _, _}, *].
path: history global: [{<P>, none, [], [_]}, *, {<P>, {_, R}, [], []}].
",
    );
    let out = trace(&["check", s(&log), "--spec", s(&props)]);
    let stdout = text(&out.stdout);
    assert_eq!(
        statuses(&stdout),
        [
            ("shape".into(), "Satisfied".into()),
            ("result".into(), "Violated".into()),
            ("short".into(), "Violated".into()),
            ("long".into(), "Violated".into()),
            ("each".into(), "Satisfied".into()),
            ("path".into(), "Satisfied".into()),
        ],
        "{stdout}"
    );
    assert!(
        stdout.contains("violation: step 2 of its process"),
        "{stdout}"
    );
    assert!(stdout.contains("unexpected extra behaviour"), "{stdout}");
    assert!(stdout.contains("more behaviour expected"), "{stdout}");
}

#[test]
fn registered_names_are_read_off_the_log() {
    let dir = Scratch::new("check-registered");
    let log = dir.path("registered.trace");
    let out = record("registered.erl", &log, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // No declaration: `server` is the process register/2 named so (P.1).
    let props = dir.write(
        "named.tspec",
        "no_two: never receive(server, {_, 2}).\n\
         doubles: never send(server, _, {reply, N}) when N rem 2 =/= 0.\n\
         ghost: never receive(nobody_here, _).\n",
    );
    let out = trace(&["check", s(&log), "--spec", s(&props)]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert_eq!(
        statuses(&stdout),
        [
            ("no_two".into(), "Violated".into()),
            ("doubles".into(), "Satisfied".into()),
            ("ghost".into(), "Satisfied".into())
        ]
    );
    assert!(
        stdout.contains("[1/1] P.1 <0.81.0> #2 receive P:1"),
        "{stdout}"
    );
    assert!(
        stdout.contains("warning: nobody_here: no process of this log registered it"),
        "{stdout}"
    );

    // `worker` is held by P.2, then by P.3: the property must say which.
    let props = dir.write("worker.tspec", "quiet: never receive(worker, _).\n");
    let out = trace(&["check", s(&log), "--spec", s(&props)]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    let stdout = text(&out.stdout);
    assert_eq!(statuses(&stdout), [("quiet".into(), "GaveUp".into())]);
    assert!(
        stdout.contains("held in turn by <P.2>, <P.3>")
            && stdout.contains("-registered(worker, <P.2>)"),
        "{stdout}"
    );
    // A declaration settles it (P.3 takes `stop`).
    let props = dir.write(
        "declared.tspec",
        "-registered(worker, <P.2>).\nquiet: never receive(worker, _).\n",
    );
    let out = trace(&["check", s(&log), "--spec", s(&props)]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(text(&out.stdout).contains("P.2 <0.82.0> #0 receive"));
}

#[test]
fn spec_errors_point_at_line_and_column() {
    let dir = Scratch::new("check-errors");
    let log = dir.path("cfib.trace");
    record("cfib.erl", &log, &[]);
    let props = dir.write(
        "bad.tspec",
        "ok: never send(_, _, x).\nbad: every send(A, B, {x) is followed by exit(A).\n",
    );
    let out = trace(&["check", s(&log), "--spec", s(&props)]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with(&format!("{}:2:25: ", s(&props))),
        "{stderr}"
    );
    let out = trace(&["check", s(&dir.path("missing.trace")), "--spec", s(&props)]);
    assert_eq!(out.status.code(), Some(2));
    let out = trace(&["check", s(&log), "--builtin", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no_deadlock"));
}

#[test]
fn built_in_checks_a_log_cannot_answer_are_left_out_and_named() {
    let dir = Scratch::new("check-no-payloads");
    let log = dir.path("run.trace");
    let smoke = trace_fixtures::root().join("seq").join("smoke.erl");
    let out = record_file(&smoke, &log, &["--no-payloads"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = trace(&["check", s(&log)]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    // no_abnormal_exit reads exit reasons, which this log does not hold.
    assert!(
        stderr.contains("left out: no_abnormal_exit, because"),
        "{stderr}"
    );
    let names: Vec<String> = statuses(&stdout).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["all_received", "no_deadlock"], "{stdout}");
    // Asked for by name, it is an error: the log cannot answer it.
    let out = trace(&["check", s(&log), "--builtin", "no_abnormal_exit"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    assert!(text(&out.stderr).contains("reads terms the log does not hold"));
}
