//! Every event of DESIGN §4 reaches the Observer, per process, in the
//! process's order: spawn, send, delivery, receipt, timeout, signals sent and
//! taken, nondeterministic results, output and exit; and slices run on every
//! scheduler thread.

mod common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use trace_runtime::hooks::{
    Effect, Event, Native, NondetBif, Observer, ProcessObserver, ProcessStart, SentSignal,
};

type Log = Arc<Mutex<HashMap<Vec<u32>, Vec<String>>>>;

/// Collects every process's events; with `false`, says it wants no deliveries.
#[derive(Default)]
struct Collect(Log, bool);

struct Events {
    path: Vec<u32>,
    log: Log,
    no_deliveries: bool,
}

impl Observer for Collect {
    fn process_started(&self, p: &ProcessStart) -> Option<Box<dyn ProcessObserver>> {
        Some(Box::new(Events {
            path: p.path.clone(),
            log: self.0.clone(),
            no_deliveries: self.1,
        }))
    }
}

fn describe(ev: &Event<'_>) -> String {
    match ev {
        Event::Spawn { link, monitor, .. } => format!("spawn link={link} monitor={monitor}"),
        Event::Send { id, payload, .. } => format!("send #{} {}", id.index, w(payload)),
        Event::Deliver { .. } => "deliver".into(),
        Event::Receive { payload, .. } => format!("receive {}", w(payload)),
        Event::Timeout => "timeout".into(),
        Event::Signal { signal, .. } => match signal {
            SentSignal::Exit { reason, linked } => {
                format!("signal exit {} linked={linked}", w(reason))
            }
            other => format!("signal {other:?}"),
        },
        Event::SignalTaken { effect, .. } => format!("taken {}", effect_name(*effect)),
        Event::Nondet { kind, value } => format!("nondet {} {}", kind_name(*kind), w(value)),
        Event::Output { bytes, .. } => format!("output {:?}", String::from_utf8_lossy(bytes)),
        Event::Exit { reason } => format!("exit {}", w(reason)),
        Event::Blocked { stuck } => format!("blocked stuck={stuck}"),
    }
}

fn w(t: &trace_term::Term) -> String {
    trace_term::write_term(t)
}

fn effect_name(e: Effect) -> &'static str {
    match e {
        Effect::Applied => "applied",
        Effect::Ignored => "ignored",
        Effect::Converted => "converted",
        Effect::Killed => "killed",
    }
}

fn kind_name(k: NondetBif) -> &'static str {
    match k {
        NondetBif::IsProcessAlive => "is_process_alive",
        NondetBif::Whereis => "whereis",
        NondetBif::Register => "register",
        NondetBif::MonotonicTime => "monotonic_time",
        NondetBif::Random => "random",
        _ => "other",
    }
}

impl ProcessObserver for Events {
    fn wants_deliveries(&self) -> bool {
        !self.no_deliveries
    }
    fn event(&mut self, ev: &Event<'_>) {
        self.log
            .lock()
            .unwrap()
            .entry(self.path.clone())
            .or_default()
            .push(describe(ev));
    }
}

const PROGRAM: &str = r#"
-module(events).
-export([main/0]).
main() ->
    process_flag(trap_exit, true),
    P = spawn_link(fun() -> receive {ping, From} -> From ! pong end end),
    P ! {ping, self()},
    receive pong -> ok end,
    receive {'EXIT', P, normal} -> ok end,
    io:format("done~n"),
    receive never -> ok after 0 -> ok end,
    false = is_process_alive(P),
    register(me, self()),
    me ! hi,
    receive hi -> ok end,
    _ = rand:uniform(10),
    {M, R} = spawn_monitor(fun() -> exit(bye) end),
    receive {'DOWN', R, process, M, bye} -> ok end,
    ok.
"#;

/// `want` appears in `events` in this order (other events may come between).
fn in_order(events: &[String], want: &[&str]) {
    let mut it = events.iter();
    for w in want {
        assert!(
            it.any(|e| e.starts_with(w)),
            "{w:?} missing or out of order in {events:#?}"
        );
    }
}

#[test]
fn every_kind_of_event_reaches_the_observer_in_process_order() {
    let file = common::program("events", PROGRAM);
    for schedulers in [1, 2] {
        let log = Log::default();
        let (outcome, out) = common::run_with(
            &file,
            schedulers,
            Arc::new(Collect(log.clone(), false)),
            Arc::new(Native),
        );
        assert_eq!(outcome.verdict(), trace_runtime::Verdict::Ok);
        assert_eq!(out, b"done\n");
        let log = log.lock().unwrap();
        let main = &log[&vec![]];
        in_order(
            main,
            &[
                "spawn link=true monitor=false",
                "send #0 {ping,<0.",
                "receive pong",
                "receive {'EXIT',<0.",
                "output \"done\\n\"",
                "timeout",
                "nondet is_process_alive false",
                "nondet register {me,<0.",
                "nondet whereis <0.",
                "send #1 hi",
                "receive hi",
                "nondet random",
                "spawn link=false monitor=true",
                "receive {'DOWN',",
                "exit normal",
            ],
        );
        // The child's exit signal became the 'EXIT' message before main took it.
        in_order(main, &["taken converted", "receive {'EXIT',"]);
        // Messages are delivered (pong, hi); 'EXIT' and 'DOWN' enter the
        // mailbox as signals taken and converted.
        assert_eq!(
            main.iter().filter(|e| *e == "deliver").count(),
            2,
            "{main:#?}"
        );
        assert_eq!(
            main.iter().filter(|e| *e == "taken converted").count(),
            2,
            "{main:#?}"
        );
        let child = &log[&vec![1]];
        in_order(
            child,
            &[
                "deliver",
                "receive {ping,<0.",
                "send #0 pong",
                "exit normal",
                "signal exit normal linked=true",
            ],
        );
        let monitored = &log[&vec![2]];
        in_order(monitored, &["exit bye", "signal Down"]);
    }
}

/// An observer that wants no deliveries gets every other event, in the
/// same order, and no call for a message entering a mailbox.
#[test]
fn an_observer_without_deliveries_gets_every_other_event() {
    let file = common::program("events", PROGRAM);
    let run = |no_deliveries: bool| {
        let log = Log::default();
        let (outcome, _) = common::run_with(
            &file,
            1,
            Arc::new(Collect(log.clone(), no_deliveries)),
            Arc::new(Native),
        );
        assert_eq!(outcome.verdict(), trace_runtime::Verdict::Ok);
        let events = std::mem::take(&mut *log.lock().unwrap());
        events
    };
    let (all, some) = (run(false), run(true));
    assert!(all.values().flatten().any(|e| e == "deliver"));
    assert_eq!(all.len(), some.len());
    // Compared by kind: a random number differs from run to run.
    let kinds = |events: &[String]| -> Vec<String> {
        events
            .iter()
            .filter(|e| *e != "deliver")
            .map(|e| e.split(' ').next().unwrap_or_default().to_string())
            .collect()
    };
    for (path, events) in &all {
        assert_eq!(kinds(&some[path]), kinds(events), "process {path:?}");
    }
}

/// Records which scheduler threads ran slices of processes.
#[derive(Default)]
struct Threads(Arc<Mutex<std::collections::HashSet<String>>>);

struct ThreadsOf(Arc<Mutex<std::collections::HashSet<String>>>);

impl Observer for Threads {
    fn process_started(&self, _: &ProcessStart) -> Option<Box<dyn ProcessObserver>> {
        Some(Box::new(ThreadsOf(self.0.clone())))
    }
}

impl ProcessObserver for ThreadsOf {
    fn event(&mut self, _: &Event<'_>) {}
    fn slice_begin(&mut self) {
        let name = std::thread::current().name().unwrap_or("?").to_string();
        self.0.lock().unwrap().insert(name);
    }
}

/// With several runnable processes, idle scheduler threads steal work: the
/// processes of a run are spread over every thread.
#[test]
fn runnable_processes_are_spread_over_the_scheduler_threads() {
    let src = r#"
-module(spread).
-export([main/0]).
main() ->
    Me = self(),
    [spawn(fun() -> Me ! {done, fib(23)} end) || _ <- [1, 2, 3, 4, 5, 6, 7, 8]],
    [receive {done, F} -> F end || _ <- [1, 2, 3, 4, 5, 6, 7, 8]],
    ok.
fib(N) when N < 2 -> N;
fib(N) -> fib(N - 1) + fib(N - 2).
"#;
    let file = common::program("spread", src);
    // The OS may leave a scheduler thread without a core for a whole run on
    // a loaded machine; stealing must show in one of a few runs.
    let mut seen = Default::default();
    for _ in 0..5 {
        let threads = Threads::default();
        let shared = threads.0.clone();
        let (outcome, _) = common::run_with(&file, 3, Arc::new(threads), Arc::new(Native));
        assert_eq!(outcome.verdict(), trace_runtime::Verdict::Ok);
        seen = std::mem::take(&mut *shared.lock().unwrap());
        if seen.len() == 3 {
            break;
        }
    }
    assert_eq!(seen.len(), 3, "threads that ran processes: {seen:?}");
}
