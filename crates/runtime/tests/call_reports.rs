//! With `RunOptions::trace_calls`, the Observer hears each call of a user
//! function with its arguments, each return with its depth and line (tail
//! calls return once, through the last callee; library functions are not
//! reported as calls), and the bindings where each `receive` starts.
//! Without it, none of these are reported.

mod common;

use std::sync::{Arc, Mutex};
use trace_runtime::hooks::{
    CallReport, Event, Native, Observer, ProcessObserver, ProcessStart, ReturnReport,
};
use trace_runtime::inspect::FrameState;
use trace_runtime::{LoadOptions, RunOptions, Runtime};

type Log = Arc<Mutex<Vec<(Vec<u32>, String)>>>;

struct Collect(Log);

struct Items {
    path: Vec<u32>,
    log: Log,
}

impl Observer for Collect {
    fn process_started(&self, p: &ProcessStart) -> Option<Box<dyn ProcessObserver>> {
        Some(Box::new(Items {
            path: p.path.clone(),
            log: self.0.clone(),
        }))
    }
}

impl Items {
    fn push(&mut self, s: String) {
        self.log.lock().unwrap().push((self.path.clone(), s));
    }
}

fn w(t: &trace_term::Term) -> String {
    trace_term::write_term(t)
}

impl ProcessObserver for Items {
    fn event(&mut self, ev: &Event<'_>) {
        if let Event::Receive { payload, .. } = ev {
            self.push(format!("receive {}", w(payload)));
        }
    }
    fn call(&mut self, c: &CallReport<'_>) {
        let args: Vec<String> = c.args.iter().map(w).collect();
        let s = format!(
            "call {}:{}({}) depth {} line {}",
            c.place.module.name(),
            c.place.function.name(),
            args.join(","),
            c.depth,
            c.place.line
        );
        self.push(s);
    }
    fn returned(&mut self, r: &ReturnReport<'_>) {
        self.push(format!(
            "return {} depth {} line {}",
            w(r.value),
            r.depth,
            r.line
        ));
    }
    fn receive_reached(&mut self, f: &FrameState) {
        let b: Vec<String> = f
            .bindings
            .iter()
            .map(|(n, v)| format!("{n}={}", w(v)))
            .collect();
        self.push(format!("at receive line {} {}", f.place.line, b.join(",")));
    }
}

const PROGRAM: &str = "-module(calls).
-export([main/0, loop/1]).
main() ->
    X = add(2, 3),
    P = spawn(calls, loop, [X]),
    P ! {inc, self()},
    receive V -> lists:reverse([V, count(2)]) end.
add(A, B) -> A + B.
count(0) -> done;
count(N) -> count(N - 1).
loop(S) ->
    receive
        {inc, From} -> From ! S + 1
    end.
";

fn run(trace_calls: bool) -> Vec<(Vec<u32>, String)> {
    // Written once: the two tests run at once and would race on the file.
    static FILE: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    let file = FILE
        .get_or_init(|| common::program("calls", PROGRAM))
        .clone();
    let opts = LoadOptions {
        debug: true,
        ..LoadOptions::default()
    };
    let loaded = trace_runtime::load(std::slice::from_ref(&file), &opts).unwrap();
    let (entry, _) = trace_runtime::entry(&loaded, None).unwrap();
    let log = Log::default();
    let run = RunOptions {
        schedulers: 1,
        reports: false,
        trace_calls,
        ..RunOptions::default()
    };
    let rt = Runtime::new(
        loaded.program,
        run,
        Arc::new(Collect(log.clone())),
        Arc::new(Native),
        Box::new(std::io::sink()),
    );
    trace_runtime::run(rt, entry);
    let v = log.lock().unwrap().clone();
    v
}

fn of(log: &[(Vec<u32>, String)], path: &[u32]) -> Vec<String> {
    log.iter()
        .filter(|(p, _)| p == path)
        .map(|(_, s)| s.clone())
        .collect()
}

#[test]
fn calls_returns_and_receive_bindings_are_reported_when_asked() {
    let log = run(true);
    let main = of(&log, &[]);
    assert_eq!(
        main,
        [
            "call calls:main() depth 0 line 4",
            "call calls:add(2,3) depth 1 line 8",
            "return 5 depth 1 line 8",
            "at receive line 7 P=<0.81.0>,X=5",
            "receive 6",
            "call calls:count(2) depth 1 line 9",
            "call calls:count(1) depth 1 line 9",
            "call calls:count(0) depth 1 line 9",
            "return done depth 1 line 9",
            "return [done,6] depth 0 line 7",
        ]
    );
    let child = of(&log, &[1]);
    assert_eq!(
        child,
        [
            "call calls:loop(5) depth 0 line 12",
            "at receive line 12 S=5",
            "receive {inc,<0.80.0>}",
            "return 6 depth 0 line 13",
        ]
    );
}

#[test]
fn nothing_is_reported_without_the_flag() {
    let log = run(false);
    assert!(log.iter().all(|(_, s)| s.starts_with("receive")), "{log:?}");
}
