//! Sessions without a log: the user schedules the run (fixtures/papers and
//! small programs written here). A free session reaches interleavings the
//! engine's own schedule never takes, walks back over them as over any
//! log, and saves them as logs that `trace replay` replays to the same
//! output.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use trace_debug::{Flow, FreeConfig, Session};
use trace_format::LogReader;
use trace_replayer::ReplayConfig;
use trace_runtime::{LoadOptions, RunOptions, Verdict};

fn program(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/papers")
        .join(format!("{name}.erl"))
}

fn status(v: Verdict) -> i32 {
    match v {
        Verdict::Ok => 0,
        Verdict::EntryCrashed => 1,
        Verdict::Deadlock => 5,
        _ => 2,
    }
}

fn tempdir(what: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("trace-free-test-{what}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn load(src: &Path, debug: bool) -> trace_runtime::Loaded {
    let opts = LoadOptions {
        debug,
        ..LoadOptions::default()
    };
    trace_runtime::load(&[src.to_path_buf()], &opts).unwrap()
}

/// A session without a log over the program at `src`.
fn open_free(src: &Path, dir: &Path) -> Session {
    let loaded = load(src, true);
    let (entry, call) = trace_runtime::entry(&loaded, None).unwrap();
    let cfg = FreeConfig {
        entry,
        entry_text: call,
        run: RunOptions::default(),
        footer_status: status,
        path: dir.join("free.trace"),
    };
    Session::open_free(loaded, cfg).unwrap()
}

fn exec(s: &mut Session, line: &str) -> String {
    let mut out = Vec::new();
    let flow = s.execute(line, &mut out);
    let text = String::from_utf8(out).unwrap();
    assert_eq!(flow, Flow::Go, "{line}: {text}");
    text
}

/// What the program prints when `trace replay` replays `log`.
fn replayed(src: &Path, log: &Path) -> String {
    let loaded = load(src, false);
    let reader = Arc::new(LogReader::open(log).unwrap());
    let out = trace_recorder::Captured::default();
    let cfg = ReplayConfig {
        run: RunOptions {
            schedulers: 1,
            reports: false,
            ..RunOptions::default()
        },
        ..ReplayConfig::default()
    };
    let r = trace_replayer::replay(&loaded, reader, &cfg, Box::new(out.clone())).unwrap();
    assert!(r.outcome.divergence.is_none(), "{:?}", r.outcome.divergence);
    let bytes = out.0.lock().unwrap().clone();
    String::from_utf8(bytes).unwrap()
}

/// What the program prints on the engine's own schedule.
fn native_output(src: &Path) -> String {
    let loaded = load(src, false);
    let (entry, _) = trace_runtime::entry(&loaded, None).unwrap();
    let out = trace_recorder::Captured::default();
    let rt = trace_runtime::Runtime::new(
        loaded.program.clone(),
        RunOptions {
            schedulers: 1,
            reports: false,
            ..RunOptions::default()
        },
        Arc::new(trace_runtime::hooks::Native),
        Arc::new(trace_runtime::hooks::Native),
        Box::new(out.clone()),
    );
    trace_runtime::run(rt, entry);
    let bytes = out.0.lock().unwrap().clone();
    String::from_utf8(bytes).unwrap()
}

#[test]
fn the_proxy_bug_is_reached_by_picking_who_steps_and_its_saved_log_replays() {
    let dir = tempdir("proxy");
    let src = program("proxy_server");
    let mut s = open_free(&src, &dir);
    let procs = exec(&mut s, "procs");
    assert!(
        procs.starts_with("P ") && procs.contains("can step"),
        "{procs}"
    );
    // The client spawns both, sends to the proxy, then 2 to the server,
    // before the proxy moves.
    let did = exec(&mut s, "step P 4");
    assert!(did.contains("send P:1 to P.1"), "{did}");
    let procs = exec(&mut s, "procs");
    assert!(procs.contains("waits in receive"), "{procs}");
    // The server takes 2: its catch-all clause.
    let out = exec(&mut s, "step P.1 2");
    assert!(
        out.contains("server: unexpected message 2, giving up"),
        "{out}"
    );
    exec(&mut s, "run");
    assert!(exec(&mut s, "procs").contains("nothing can step"));
    let saved = dir.join("bug.trace");
    exec(&mut s, &format!("save {}", saved.display()));
    let printed = exec(&mut s, "output");
    assert_eq!(replayed(&src, &saved), printed);
    assert!(printed.contains("unexpected message 2"), "{printed}");
}

#[test]
fn a_free_session_goes_back_and_takes_a_way_the_engine_never_takes() {
    let dir = tempdir("other-way");
    let src = program("proxy_server");
    // The engine's own schedule: 2 reaches the server before the forward.
    let native = native_output(&src);
    assert!(native.contains("unexpected message 2"), "{native}");
    let mut s = open_free(&src, &dir);
    exec(&mut s, "step P 4");
    exec(&mut s, "step P.1");
    // Undo the direct send: the server's receipt goes with it.
    let undone = exec(&mut s, "rollback send(P:1)");
    assert!(undone.contains("receive P:1"), "{undone}");
    // Nothing has reached the server: it cannot step.
    let mut out = Vec::new();
    s.execute("step P.1", &mut out);
    assert!(
        String::from_utf8_lossy(&out).contains("cannot step"),
        "{}",
        String::from_utf8_lossy(&out)
    );
    // The proxy forwards first this time, then the client sends 2.
    exec(&mut s, "step P.2 2");
    exec(&mut s, "step P.1");
    exec(&mut s, "step P");
    let end = exec(&mut s, "run");
    assert!(end.contains("client got 42"), "{end}");
    let saved = dir.join("good.trace");
    exec(&mut s, &format!("save {}", saved.display()));
    assert_eq!(replayed(&src, &saved), exec(&mut s, "output"));
}

#[test]
fn back_then_step_in_a_free_session_gives_the_same_state() {
    let dir = tempdir("back-step");
    let src = program("purchase");
    let mut s = open_free(&src, &dir);
    exec(&mut s, "step P 3");
    let cut = s.cut().clone();
    let procs = exec(&mut s, "procs");
    exec(&mut s, "back P");
    exec(&mut s, "step P");
    assert_eq!(s.cut(), &cut);
    assert_eq!(exec(&mut s, "procs"), procs);
}

#[test]
fn a_timer_message_is_delivered_when_the_user_says() {
    let dir = tempdir("timer");
    let src = dir.join("tick.erl");
    std::fs::write(
        &src,
        "-module(tick).\n-export([main/0]).\n\
         main() ->\n    erlang:send_after(100, self(), tick),\n\
         \x20   receive tick -> io:format(\"tick~n\") after 50 -> io:format(\"timeout~n\") end.\n",
    )
    .unwrap();
    let mut s = open_free(&src, &dir);
    exec(&mut s, "step P");
    let procs = exec(&mut s, "procs");
    assert!(procs.contains("deliver P:0"), "{procs}");
    assert!(procs.contains("after 50"), "{procs}");
    exec(&mut s, "deliver P:0");
    let out = exec(&mut s, "run");
    assert!(out.lines().any(|l| l == "tick"), "{out}");
    // Back to before the timer was set: this time the receive times out.
    let undone = exec(&mut s, "rollback send(P:0)");
    assert!(undone.contains("receive P:0"), "{undone}");
    let out = exec(&mut s, "step P 3");
    assert!(out.lines().any(|l| l == "timeout"), "{out}");
    assert!(!out.lines().any(|l| l == "tick"), "{out}");
}

/// Every event of every process, as text.
fn events_of(log: &Path) -> Vec<String> {
    let log = LogReader::open(log).unwrap();
    let mut v = Vec::new();
    for p in log.processes() {
        log.for_each_event_of(p.id, |i, _, e| {
            v.push(format!("{} {i} {:?}", p.id.0, e.to_owned()))
        })
        .unwrap();
    }
    v
}

#[test]
fn run_rollback_spawn_run_in_a_free_session_ends_with_the_same_output_and_log() {
    let dir = tempdir("spawn");
    for (name, child) in [
        ("client_server", "P.2"),
        ("purchase", "P.2"),
        ("proxy_server", "P.2"),
        ("dining_philosophers", "P.1.2"),
    ] {
        let src = program(name);
        let mut s = open_free(&src, &dir);
        exec(&mut s, "run");
        let printed = exec(&mut s, "output");
        let first = dir.join(format!("{name}-first.trace"));
        exec(&mut s, &format!("save {}", first.display()));
        let undone = exec(&mut s, &format!("rollback spawn({child})"));
        assert!(undone.contains("undid"), "{name}: {undone}");
        exec(&mut s, "run");
        assert_eq!(exec(&mut s, "output"), printed, "{name}");
        let again = dir.join(format!("{name}-again.trace"));
        exec(&mut s, &format!("save {}", again.display()));
        assert_eq!(events_of(&again), events_of(&first), "{name}");
    }
}

/// `run` in a free session lets time pass only when nothing else can go:
/// a server fed by workers is read after a `timer:sleep`, as on the engine's
/// own schedule (a sleep that fired first would read an empty store).
#[test]
fn a_free_run_takes_a_timeout_only_when_nothing_else_can_go() {
    let dir = tempdir("sleep");
    let src = dir.join("kv.erl");
    std::fs::write(
        &src,
        "-module(kv).\n-export([main/0]).\n\
         main() ->\n    register(kv, spawn(fun() -> loop(#{}) end)),\n    \
         [spawn(fun() -> kv ! {put, K, K * K} end) || K <- lists:seq(1, 4)],\n    \
         timer:sleep(10),\n    kv ! {get, self(), 3},\n    \
         receive {val, V} -> io:format(\"3 -> ~p~n\", [V]) end.\n\
         loop(M) ->\n    receive\n        {put, K, V} -> loop(M#{K => V});\n        \
         {get, From, K} -> From ! {val, maps:get(K, M, undefined)}, loop(M)\n    end.\n",
    )
    .unwrap();
    let mut s = open_free(&src, &dir);
    let out = exec(&mut s, "run");
    assert!(out.contains("3 -> 9"), "{out}");
    assert_eq!(native_output(&src), "3 -> 9\n");
}
