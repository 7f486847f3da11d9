//! The explore corpus: small racy programs whose verdicts were worked out
//! by hand (each says it in a `%% explore:` line), explored to completion,
//! each in the number of interleavings its `%% interleavings:` line says.

use std::path::{Path, PathBuf};
use trace_explore::{explore, Config, Summary, Timeouts};

fn programs() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("the corpus is there")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "erl"))
        .collect();
    v.sort();
    v
}

/// The verdict a program's `%% explore:` line gives: distinct failures.
fn expected(path: &Path) -> usize {
    let text = std::fs::read_to_string(path).expect("readable");
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("%% explore: "))
        .expect("every program states its verdict");
    match line.split_whitespace().collect::<Vec<_>>()[..] {
        ["clean"] => 0,
        ["fails", n] => n.parse().expect("a number of failures"),
        _ => panic!("{}: bad verdict line {line}", path.display()),
    }
}

/// The interleavings a program's `%% interleavings:` line says its
/// exploration runs to completion.
fn expected_interleavings(path: &Path) -> u64 {
    let text = std::fs::read_to_string(path).expect("readable");
    text.lines()
        .find_map(|l| l.strip_prefix("%% interleavings: "))
        .expect("every program states its interleavings")
        .trim()
        .parse()
        .expect("a number of interleavings")
}

fn run(path: &Path) -> Summary {
    let loaded = trace_runtime::load(&[path.to_path_buf()], &Default::default())
        .unwrap_or_else(|d| panic!("{}: {d:?}", path.display()));
    let (entry, _) = trace_runtime::entry(&loaded, None).expect("main/0");
    explore(&loaded, &entry, &Config::default(), None).expect("no check, no log")
}

#[test]
fn every_program_gets_its_verdict_and_the_exploration_completes() {
    let mut wrong = Vec::new();
    for p in programs() {
        let s = run(&p);
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        eprintln!(
            "{name}: {} interleavings, {} failing, {} distinct, {} redundant, complete {}",
            s.interleavings,
            s.failing,
            s.groups.len(),
            s.redundant,
            s.complete()
        );
        for g in &s.groups {
            eprintln!(
                "  {} ({}x, {} preemptions)",
                g.failure, g.count, g.preemptions
            );
        }
        if s.groups.len() != expected(&p)
            || !s.complete()
            || s.interleavings != expected_interleavings(&p)
        {
            wrong.push(name.clone());
        }
        // A failure is never the only outcome here: each program also has
        // an interleaving that passes.
        if !s.groups.is_empty() && s.failing >= s.interleavings {
            wrong.push(format!("{name} (no passing interleaving)"));
        }
    }
    assert!(wrong.is_empty(), "wrong verdicts: {wrong:?}");
}

fn explore_entry(file: &str, entry: &str) -> Summary {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/programs")
        .join(file);
    let loaded = trace_runtime::load(&[path], &Default::default()).expect("compiles");
    let (entry, _) = trace_runtime::entry(&loaded, Some(entry)).expect("an entry");
    explore(&loaded, &entry, &Config::default(), None).expect("no check, no log")
}

#[test]
fn independent_senders_explore_one_interleaving_whatever_their_number() {
    for n in 2..=6 {
        let s = explore_entry("senders.erl", &format!("senders:main({n})"));
        assert!(s.complete() && s.groups.is_empty());
        assert_eq!(s.interleavings, 1, "{n} senders");
    }
}

#[test]
fn senders_taken_in_arrival_order_explore_every_order() {
    for (n, orders) in [(2, 2), (3, 6), (4, 24)] {
        let s = explore_entry("senders_any.erl", &format!("senders_any:main({n})"));
        assert!(s.complete() && s.groups.is_empty());
        assert_eq!(s.interleavings, orders, "{n} senders");
    }
}

#[test]
fn real_timeouts_fire_in_deadline_order_only() {
    for file in [
        "slow_ready.erl",
        "timer_order.erl",
        "timer_deadline.erl",
        "cancel_race.erl",
    ] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/programs")
            .join(file);
        let loaded = trace_runtime::load(&[path], &Default::default()).expect("compiles");
        let (entry, _) = trace_runtime::entry(&loaded, None).expect("main/0");
        let cfg = Config {
            timeouts: Timeouts::Real,
            ..Config::default()
        };
        let s = explore(&loaded, &entry, &cfg, None).expect("no check, no log");
        assert!(s.complete(), "{file}");
        assert!(s.groups.is_empty(), "{file}: {:?}", s.groups[0].failure);
        assert_eq!(s.interleavings, 1, "{file}");
    }
}
