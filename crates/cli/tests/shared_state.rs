//! A race on an ETS table, as a user chases it: `record --until-failure
//! --chaos` finds the lost update, `replay` runs it again the same way, the
//! log alone is consistent, `diff` puts the root divergence at the table
//! operation, and `check` states the race with the `ets` predicate.

mod common;

use common::{program, s, text, trace, Scratch};

/// Records a lost update of `lost_update.erl` (main/0 returns 1, not 2) and
/// a plain run, in which each worker reads and writes in one go.
fn bad_and_good(dir: &Scratch) -> (String, String) {
    let prog = program("lost_update.erl");
    let bad = dir.path("bad.trace");
    let out = trace(&[
        "record",
        s(&prog),
        "-o",
        s(&bad),
        "--until-failure",
        "--chaos",
        "--expect",
        "2",
        "--attempts",
        "300",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("the entry returned 1"),
        "{}",
        text(&out.stderr)
    );
    let good = dir.path("good.trace");
    let out = trace(&["record", s(&prog), "-o", s(&good), "--schedulers", "1"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    (s(&bad).to_string(), s(&good).to_string())
}

#[test]
fn a_lost_update_is_found_replayed_diffed_and_checked() {
    let dir = Scratch::new("shared-lost-update");
    let (bad, good) = bad_and_good(&dir);
    let prog = program("lost_update.erl");

    // The replay forces the recorded order of table operations: the same
    // lost update again.
    let replay = trace(&["replay", s(&prog), &bad]);
    assert!(replay.status.success(), "{}", text(&replay.stderr));
    assert_eq!(text(&replay.stdout), "1\n");
    let dump_bad = trace(&["dump", &bad]);
    assert!(text(&dump_bad.stdout).contains("shared lookup table P/0"));

    // The log alone: operations on the table are in happened-before.
    let alone = trace(&["replay", &bad]);
    assert!(alone.status.success(), "{}", text(&alone.stdout));
    assert!(text(&alone.stdout).contains("consistent"));

    // Diff: the runs differ first where a worker's operation came after a
    // different operation on the table.
    let diff = trace(&["diff", &good, &bad]);
    assert_eq!(diff.status.code(), Some(1));
    let d = text(&diff.stdout);
    let root = d
        .lines()
        .skip_while(|l| !l.starts_with("root divergence"))
        .find(|l| l.trim_start().starts_with('!'))
        .unwrap_or_else(|| panic!("no marked root divergence:\n{d}"));
    assert!(
        root.contains(" shared ") && root.contains("table P/0"),
        "{root}"
    );

    // Check: no other worker writes between a worker's read and its write.
    let spec = dir.path("atomic.tspec");
    std::fs::write(
        &spec,
        "atomic_add: never ets(V, counters, insert, hits) when V /= W\n    \
         between ets(W, counters, lookup, hits) and ets(W, counters, insert, hits).\n\
         one_table: exactly 1 ets(_, counters, new).\n",
    )
    .unwrap();
    let on_good = trace(&["check", &good, "--spec", s(&spec)]);
    assert!(on_good.status.success(), "{}", text(&on_good.stdout));
    let on_bad = trace(&["check", &bad, "--spec", s(&spec), "--json"]);
    assert_eq!(on_bad.status.code(), Some(1), "{}", text(&on_bad.stdout));
    let j = text(&on_bad.stdout);
    assert!(
        j.contains("\"atomic_add\"") && j.contains("violated"),
        "{j}"
    );
}

#[test]
fn a_chaos_recording_of_table_operations_replays_identically() {
    let dir = Scratch::new("shared-chaos-replay");
    let prog = program("lost_update.erl");
    for seed in 1..=8 {
        let log = dir.path(&format!("run{seed}.trace"));
        let seed = seed.to_string();
        let rec = trace(&[
            "record",
            s(&prog),
            "-o",
            s(&log),
            "--chaos",
            "--seed",
            &seed,
        ]);
        let replay = trace(&["replay", s(&prog), s(&log)]);
        assert_eq!(rec.status.code(), replay.status.code(), "seed {seed}");
        assert_eq!(rec.stdout, replay.stdout, "seed {seed}");
        let alone = trace(&["replay", s(&log)]);
        assert!(
            alone.status.success(),
            "seed {seed}: {}",
            text(&alone.stdout)
        );
    }
}

/// A table named in a property that the log never created (a misspelt
/// name, or the name given to an unnamed table) gets a warning listing the
/// log's tables, not a silent verdict.
#[test]
fn a_table_the_log_never_created_is_warned_of() {
    let dir = Scratch::new("shared-unknown-table");
    let prog = program("lost_update.erl");
    let log = dir.path("run.trace");
    let out = trace(&["record", s(&prog), "-o", s(&log), "--schedulers", "1"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let spec = dir.path("t.tspec");
    std::fs::write(
        &spec,
        "known: never ets(_, counters, delete, _).\nmisspelt: never ets(_, counter, delete, _).\n",
    )
    .unwrap();
    let out = trace(&["check", s(&log), "--spec", s(&spec)]);
    let report = text(&out.stdout);
    let warned: Vec<&str> = report.lines().filter(|l| l.contains("warning:")).collect();
    assert_eq!(warned.len(), 1, "{report}");
    assert!(
        warned[0].contains("ets(_, counter, delete, _): no table of this log is matched")
            && warned[0].contains("[counters]"),
        "{report}"
    );
}

/// A renamed table is named by the name it had at each operation: the one
/// it was created with up to its rename (which is called by that name),
/// the new one after.
#[test]
fn a_renamed_table_is_named_as_it_was_at_each_operation() {
    let dir = Scratch::new("shared-renamed-table");
    let prog = dir.path("ren.erl");
    std::fs::write(
        &prog,
        "-module(ren).\n-export([main/0]).\n\
         main() ->\n    t1 = ets:new(t1, [named_table, public]),\n\
         true = ets:insert(t1, {a, 1}),\n    t2 = ets:rename(t1, t2),\n\
         true = ets:insert(t2, {b, 2}),\n    ok.\n",
    )
    .unwrap();
    let log = dir.path("ren.trace");
    let out = trace(&["record", s(&prog), "-o", s(&log)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let spec = dir.path("t.tspec");
    std::fs::write(
        &spec,
        "before: exactly 1 ets(_, t1, insert, a).\n\
         renamed: exactly 1 ets(_, t1, rename).\n\
         later: exactly 1 ets(_, t2, insert, b).\n\
         never_old_after: never ets(_, t1, insert, b).\n",
    )
    .unwrap();
    let out = trace(&["check", s(&log), "--spec", s(&spec)]);
    let report = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{report}");
    assert!(report.contains("4 properties: 4 satisfied"), "{report}");
    assert!(!report.contains("warning"), "{report}");
}
