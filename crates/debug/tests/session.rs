//! Scripted sessions on the papers' programs (fixtures/papers): each run is
//! recorded, then walked with the commands a user types; the states reached
//! are compared with fresh forward replays to the same cuts, and the cuts
//! with what the causal model says each move must do and undo.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use trace_causal::EventId;
use trace_debug::{Cut, Flow, Session};
use trace_format::{LogReader, WriterOptions};
use trace_recorder::{RecordConfig, RecordFlags};
use trace_runtime::{Chaos, LoadOptions, RunOptions, Verdict};

/// A fixture: `purchase` (of fixtures/papers) or `conc/ets_owner`.
fn program(name: &str) -> PathBuf {
    let rel = if name.contains('/') {
        format!("{name}.erl")
    } else {
        format!("papers/{name}.erl")
    };
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(rel)
}

/// The footer's exit status, as `trace record` writes it.
fn status(v: Verdict) -> i32 {
    match v {
        Verdict::Ok => 0,
        Verdict::EntryCrashed => 1,
        Verdict::Deadlock => 5,
        _ => 2,
    }
}

/// Records a run of fixture `name` (chaos `seed` perturbing its schedule,
/// when given) into `dir`; returns the log and what the run printed.
fn record(name: &str, seed: Option<u64>, dir: &Path) -> (Arc<LogReader>, Vec<u8>) {
    let loaded = trace_runtime::load(&[program(name)], &LoadOptions::default()).unwrap();
    let (entry, call) = trace_runtime::entry(&loaded, None).unwrap();
    let out = dir.join(format!("{}-{seed:?}.trace", name.replace('/', "-")));
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
            ..RunOptions::default()
        },
        entry_text: call,
        footer_status: status,
    };
    let printed = trace_recorder::Captured::default();
    trace_recorder::record(&loaded, entry, &cfg, Box::new(printed.clone()), None).unwrap();
    let bytes = printed.0.lock().unwrap().clone();
    (Arc::new(LogReader::open(&out).unwrap()), bytes)
}

fn open(name: &str, log: &Arc<LogReader>) -> Session {
    let opts = LoadOptions {
        debug: true,
        entry: Some(log.header().entry.clone()),
        ..LoadOptions::default()
    };
    let loaded = trace_runtime::load(&[program(name)], &opts).unwrap();
    Session::open(loaded, log.clone(), false).unwrap()
}

/// Runs one command, which must succeed; returns what it printed.
fn exec(s: &mut Session, line: &str) -> String {
    let mut out = Vec::new();
    let flow = s.execute(line, &mut out);
    let text = String::from_utf8(out).unwrap();
    assert_eq!(flow, Flow::Go, "{line}: {text}");
    text
}

/// Every process's state at the session's cut, as text (pids in order).
fn state(s: &Session) -> String {
    let mut v: Vec<_> = s.snapshot().processes.iter().collect();
    v.sort_by_key(|(pid, _)| **pid);
    format!("{v:?}")
}

/// The session's state equals a fresh forward replay to the same cut.
fn assert_is_a_replay(name: &str, log: &Arc<LogReader>, s: &Session) {
    let fresh = open(name, log);
    let snap = fresh.bring_to_life(s.cut());
    assert!(snap.failure.is_none(), "{:?}", snap.failure);
    let mut v: Vec<_> = snap.processes.iter().collect();
    v.sort_by_key(|(pid, _)| **pid);
    assert_eq!(format!("{v:?}"), state(s));
}

/// The first chaos seed whose run of `name` prints `wanted`.
fn run_printing(name: &str, wanted: &str, dir: &Path) -> Arc<LogReader> {
    for seed in 0..200 {
        let (log, printed) = record(name, Some(seed), dir);
        if String::from_utf8_lossy(&printed).contains(wanted) {
            return log;
        }
    }
    panic!("no run of {name} printed {wanted}");
}

#[test]
fn purchase_bug_is_found_by_rolling_back_from_the_symptom() {
    let dir = tempdir("purchase");
    // The bug: the purchase is approved although the credit check failed.
    let log = run_printing("purchase", "approved: true", &dir);
    let mut s = open("purchase", &log);
    assert!(exec(&mut s, "run").contains("purchase approved: true"));
    // Back to just before main bound the approval: what it received is the
    // answer of the "and" (P.1); its history says which answers it took.
    let back = exec(&mut s, "rollback var P Result");
    assert!(back.contains("receive P.1:0"), "{back}");
    let and = exec(&mut s, "show P.1");
    assert!(
        and.contains("receive P.3:0") && and.contains("receive P.4:0"),
        "{and}"
    );
    assert!(!and.contains("receive P.2:0"), "{and}");
    // The credit check's false was sent but never taken.
    let t = exec(&mut s, "trace P.2:0");
    assert!(t.contains("sent      P.2#0      done"), "{t}");
    assert!(t.contains("never received"), "{t}");
    assert_is_a_replay("purchase", &log, &s);
}

#[test]
fn rollback_of_a_send_undoes_its_receipt_and_consequences_and_nothing_else() {
    let dir = tempdir("client_server");
    for name in [
        "client_server",
        "proxy_server",
        "dining_philosophers",
        "purchase",
    ] {
        let (log, _) = record(name, None, &dir);
        let mut s = open(name, &log);
        exec(&mut s, "run");
        let end = s.cut().clone();
        // Every message of the run, one rollback each from the end.
        for (slot, p) in s.model().processes().to_vec().iter().enumerate() {
            let mut sends = 0;
            let mut events = Vec::new();
            log.for_each_event_of(p.id, |i, _, e| {
                if e.sends_signal() {
                    if matches!(e, trace_format::EventRef::Send { .. }) {
                        events.push((i, sends));
                    }
                    sends += 1;
                }
            })
            .unwrap();
            for (i, index) in events.into_iter().take(3) {
                let spec = format!("send({}:{index})", s.model().names().short(p.id));
                exec(&mut s, &format!("rollback {spec}"));
                let send = EventId::new(p.id, i);
                assert!(!s.cut().holds(slot, send), "{name} {spec}");
                let future = s.model().causal_future_of(&[send]);
                for (k, q) in s.model().processes().iter().enumerate() {
                    // Exactly the causal future is undone: a process keeps
                    // every event before its first one in that future.
                    let first = future.first(q.id).unwrap_or(u64::MAX).min(end.get(k));
                    let kept = s.cut().get(k);
                    assert!(kept <= first, "{name} {spec}: {} kept too much", q.id.0);
                    assert!(
                        first - kept <= 2,
                        "{name} {spec}: process {} lost {kept}..{first}",
                        q.id.0
                    );
                }
                assert_is_a_replay(name, &log, &s);
                exec(&mut s, "run");
                assert_eq!(s.cut(), &end, "{name}: run after {spec}");
            }
        }
    }
}

#[test]
fn back_then_step_gives_the_same_state() {
    let dir = tempdir("back_step");
    for name in ["client_server", "proxy_server", "purchase"] {
        let (log, _) = record(name, None, &dir);
        let mut s = open(name, &log);
        exec(&mut s, "run");
        let mut checked = 0;
        for slot in 0..s.model().processes().len() {
            let p = s.model().names().short(s.model().processes()[slot].id);
            let (before_cut, before) = (s.cut().clone(), state(&s));
            if before_cut.get(slot) == 0 {
                continue;
            }
            exec(&mut s, &format!("back {p}"));
            let alone =
                (0..before_cut.0.len()).all(|k| k == slot || s.cut().get(k) == before_cut.get(k));
            if alone {
                // Nothing else depended on the step: it is redone alone.
                exec(&mut s, &format!("step {p}"));
                checked += 1;
            } else {
                // Its dependents were undone too: forward redoes them.
                for k in 0..before_cut.0.len() {
                    if s.cut().get(k) < before_cut.get(k) {
                        let q = s.model().names().short(s.model().processes()[k].id);
                        exec(&mut s, &format!("forward {q}#{}", before_cut.get(k) - 1));
                    }
                }
            }
            assert_eq!(s.cut(), &before_cut, "{name} {p}");
            assert_eq!(state(&s), before, "{name} {p}");
        }
        assert!(checked > 0, "{name}: no step undone alone");
        assert_is_a_replay(name, &log, &s);
    }
}

#[test]
fn run_rollback_spawn_run_ends_with_the_same_output_and_log() {
    let dir = tempdir("spawn");
    for (name, child) in [
        ("client_server", "P.2"),
        ("purchase", "P.2"),
        ("proxy_server", "P.2"),
        ("dining_philosophers", "P.1.2"),
    ] {
        let (log, printed) = record(name, None, &dir);
        let mut s = open(name, &log);
        exec(&mut s, "run");
        let undone = exec(&mut s, &format!("rollback spawn({child})"));
        assert!(undone.contains("undid"), "{name}: {undone}");
        exec(&mut s, "run");
        assert_eq!(exec(&mut s, "output").as_bytes(), &printed[..], "{name}");
        let saved = dir.join(format!("{name}-saved.trace"));
        exec(&mut s, &format!("save {}", saved.display()));
        let again = LogReader::open(&saved).unwrap();
        assert_eq!(events_of(&again), events_of(&log), "{name}");
    }
}

#[test]
fn run_stops_before_a_breakpoint_and_passes_it_the_next_time() {
    let dir = tempdir("break");
    let (log, _) = record("client_server", None, &dir);
    let mut s = open("client_server", &log);
    exec(&mut s, "break receive(P.1:0)");
    let out = exec(&mut s, "run");
    assert!(out.contains("stopped before receive(P.1:0)"), "{out}");
    let list = exec(&mut s, "break");
    assert!(list.contains("receive(P.1:0)  here"), "{list}");
    // Nothing that depends on the receipt is done; everything else is.
    let recv = trace_causal::resolve(s.model(), &"receive(P.1:0)".parse().unwrap()).unwrap();
    let slot = trace_debug::cut::slot_of(s.model(), recv.proc).unwrap();
    assert_eq!(s.cut().get(slot), recv.index);
    assert_is_a_replay("client_server", &log, &s);
    exec(&mut s, "run");
    assert_eq!(exec(&mut s, "break"), "receive(P.1:0)  passed\n");
    exec(&mut s, "delete");
    assert_eq!(exec(&mut s, "break"), "no breakpoints\n");
}

#[test]
fn a_table_given_away_is_undone_with_its_message() {
    let dir = tempdir("give_away");
    let (log, _) = record("conc/ets_owner", None, &dir);
    let mut s = open("conc/ets_owner", &log);
    exec(&mut s, "run");
    // ets:give_away sends 'ETS-TRANSFER' as it gives: undoing the message
    // undoes the gift (and the check that the new owner lives) with it.
    for m in ["P:1", "P:2"] {
        exec(&mut s, &format!("rollback send({m})"));
        let p = s.model().processes()[0].id;
        let mut next = String::new();
        log.for_each_event_of(p, |i, _, e| {
            if i == s.cut().get(0) {
                next = format!("{:?}", e.to_owned());
            }
        })
        .unwrap();
        assert!(next.starts_with("Nondet"), "P stopped before {next}");
        assert_is_a_replay("conc/ets_owner", &log, &s);
        exec(&mut s, "run");
    }
}

#[test]
fn a_mistake_is_named_and_the_session_goes_on() {
    let dir = tempdir("mistake");
    let (log, _) = record("purchase", None, &dir);
    let mut s = open("purchase", &log);
    let mut out = Vec::new();
    assert_eq!(s.execute("rollback send(P.2:0)", &mut out), Flow::Failed);
    assert!(String::from_utf8_lossy(&out).contains("not done"));
    let mut out = Vec::new();
    assert_eq!(s.execute("step P.9", &mut out), Flow::Failed);
    let step = exec(&mut s, "step P");
    assert!(step.contains("spawn P.1"), "{step}");
    assert_eq!(s.cut(), &Cut(vec![1, 0, 0, 0, 0]));
}

/// Every event of every process, as text.
fn events_of(log: &LogReader) -> Vec<String> {
    let mut v = Vec::new();
    for p in log.processes() {
        log.for_each_event_of(p.id, |i, _, e| {
            v.push(format!("{} {i} {:?}", p.id.0, e.to_owned()))
        })
        .unwrap();
    }
    v
}

fn tempdir(what: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("trace-debug-test-{what}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}
