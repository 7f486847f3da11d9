//! Inspection of a settled run: a Director that sees the run once it has
//! settled reads each process's place, variables by source name, mailbox,
//! links and monitors (`trace debug` shows them), and may resume the run.

mod common;

use std::io::Write;
use std::sync::{Arc, Mutex};
use trace_runtime::hooks::{Director, Native, Settle};
use trace_runtime::inspect::{Activity, ProcessState, View};
use trace_runtime::{LoadOptions, RunOptions, Runtime};

/// Keeps every process's state at the first settle, then ends the run.
#[derive(Default)]
struct Snapshot(Mutex<Vec<ProcessState>>);

impl Director for Snapshot {
    fn settled(&self, view: &View<'_>) -> Settle {
        let mut s = self.0.lock().unwrap();
        if s.is_empty() {
            s.extend(view.pids().into_iter().filter_map(|p| view.process(p)));
        }
        Settle::End
    }
}

const PROGRAM: &str = r#"-module(waits).
-export([main/0]).

main() ->
    Greeting = {hello, 42},
    Child = spawn_link(fun() -> worker(Greeting, 7) end),
    Ref = monitor(process, Child),
    Child ! first,
    receive {Ref, never} -> Greeting end.

worker(Msg, N) ->
    Twice = N * 2,
    receive
        stop -> {Msg, Twice}
    end.
"#;

fn settled_states(debug: bool) -> Vec<ProcessState> {
    let dir = std::env::temp_dir().join(format!("trace-inspect-{}-{debug}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("waits.erl");
    std::fs::File::create(&file)
        .unwrap()
        .write_all(PROGRAM.as_bytes())
        .unwrap();
    let opts = LoadOptions {
        debug,
        ..LoadOptions::default()
    };
    let loaded = trace_runtime::load(std::slice::from_ref(&file), &opts).unwrap();
    let (entry, _) = trace_runtime::entry(&loaded, None).unwrap();
    let director = Arc::new(Snapshot::default());
    let run = RunOptions {
        schedulers: 1,
        reports: false,
        ..RunOptions::default()
    };
    let rt = Runtime::new(
        loaded.program,
        run,
        Arc::new(Native),
        director.clone(),
        Box::new(common::Captured::default()),
    );
    trace_runtime::run(rt, entry);
    let states = director.0.lock().unwrap().clone();
    states
}

fn binding(p: &ProcessState, name: &str) -> Option<String> {
    let f = p.user_frame()?;
    f.bindings
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| trace_term::pretty(v, &Default::default()))
}

#[test]
fn a_settled_run_shows_places_bindings_mailboxes_links_and_monitors() {
    let states = settled_states(true);
    assert_eq!(states.len(), 2, "main and its child wait");
    let (main, child) = (&states[0], &states[1]);
    assert_eq!(main.symbolic, "P");
    assert_eq!(child.symbolic, "P.1");
    assert_eq!(main.activity, Activity::Receiving);
    let at = &main.user_frame().unwrap().place;
    assert_eq!((at.function.name(), at.line), ("main", 9));
    assert!(at.file.ends_with("waits.erl"));
    assert_eq!(binding(main, "Greeting").as_deref(), Some("{hello,42}"));
    assert!(binding(main, "Child").is_some_and(|v| v.starts_with("<0.")));
    assert!(binding(main, "Ref").is_some_and(|v| v.starts_with("#Ref<")));
    // The child is in worker/2, called from the fun: both frames show.
    let w = child.user_frame().unwrap();
    assert_eq!((w.place.function.name(), w.place.line), ("worker", 13));
    assert_eq!(binding(child, "Twice").as_deref(), Some("14"));
    assert_eq!(binding(child, "Msg").as_deref(), Some("{hello,42}"));
    assert_eq!(binding(child, "N").as_deref(), Some("7"));
    assert_eq!(child.mailbox.len(), 1, "first is not taken by `stop`");
    assert_eq!(main.links, vec![child.pid]);
    assert_eq!(child.links, vec![main.pid]);
    assert_eq!(main.monitors.len(), 1);
    assert_eq!(child.monitored_by, vec![main.pid]);
}

#[test]
fn without_debug_information_frames_have_places_and_no_bindings() {
    let states = settled_states(false);
    let main = &states[0];
    assert_eq!(main.user_frame().unwrap().place.line, 9);
    assert!(main.frames.iter().all(|f| f.bindings.is_empty()));
}
