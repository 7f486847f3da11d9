//! What the loader makes of a program: the prelude modules it can reach
//! (and all of them when it makes atoms at run time), and projects laid out
//! as rebar3 lays them out.

mod common;

use std::path::PathBuf;
use std::sync::Arc;
use trace_runtime::hooks::Native;
use trace_runtime::{LoadOptions, Loaded, RunOptions, Runtime};
use trace_term::Atom;

fn load(files: &[PathBuf], entry: Option<&str>) -> Loaded {
    let opts = LoadOptions {
        entry: entry.map(str::to_string),
        ..LoadOptions::default()
    };
    trace_runtime::load(files, &opts).unwrap_or_else(|d| panic!("{d:?}"))
}

fn has(l: &Loaded, m: &str) -> bool {
    l.program.modules.contains_key(&Atom::intern(m))
}

/// Runs `entry` (or main/0) of a loaded program; its output.
fn run(l: Loaded, entry: Option<&str>) -> String {
    let (entry, _) = trace_runtime::entry(&l, entry).unwrap();
    let out = common::Captured::default();
    let opts = RunOptions {
        schedulers: 2,
        reports: false,
        ..RunOptions::default()
    };
    let rt = Runtime::new(
        l.program,
        opts,
        Arc::new(Native),
        Arc::new(Native),
        Box::new(out.clone()),
    );
    let outcome = trace_runtime::run(rt, entry);
    // Supervisors stop their children with shutdown: no crash.
    let shutdown = trace_term::Term::atom("shutdown");
    assert!(
        outcome.crashes.iter().all(|c| c.reason == shutdown),
        "{:?}",
        outcome.crashes
    );
    let bytes = out.0.lock().unwrap().clone();
    String::from_utf8(bytes).unwrap()
}

#[test]
fn a_program_gets_the_prelude_modules_it_can_reach() {
    let src = "-module(reach).\n-export([main/0]).\n\
               main() -> {ok, P} = gen_server:start(reach_srv, [], []), gen_server:stop(P).\n";
    let l = load(&[common::program("reach", src)], None);
    // Named, and named by what is named (gen_server -> gen, proc_lib, sys).
    for m in ["gen_server", "gen", "proc_lib", "sys", "trace_prelude"] {
        assert!(has(&l, m), "{m} missing");
    }
    for m in ["supervisor", "gen_statem", "gen_event", "application"] {
        assert!(!has(&l, m), "{m} loaded though nothing names it");
    }
    let plain = "-module(plain).\n-export([main/0]).\nmain() -> 1 + 1.\n";
    let l = load(&[common::program("plain", plain)], None);
    assert!(has(&l, "trace_prelude") && !has(&l, "lists") && !has(&l, "gen_server"));
}

#[test]
fn an_atom_in_data_brings_its_module() {
    // A child spec names gen_event only as data; the call is made by
    // supervisor:start_child through apply/3.
    let src = r#"
-module(childspec).
-export([main/0, init/1]).
init([]) -> {ok, {#{strategy => one_for_one}, []}}.
main() ->
    {ok, Sup} = supervisor:start_link(?MODULE, []),
    {ok, M} = supervisor:start_child(Sup, #{id => ev, start => {gen_event, start_link, []}}),
    io:format("~p~n", [gen_event:which_handlers(M) =:= [] andalso is_pid(M)]),
    unlink(Sup),
    exit(Sup, shutdown).
"#;
    let l = load(&[common::program("childspec", src)], None);
    assert!(has(&l, "gen_event"));
    assert_eq!(run(l, None), "true\n");
}

#[test]
fn a_program_making_atoms_gets_the_whole_prelude() {
    let src = r#"
-module(dynamic).
-export([main/0]).
main() ->
    M = list_to_atom("gen_" ++ "statem"),
    io:format("~p~n", [erlang:function_exported(M, call, 2)]).
"#;
    let l = load(&[common::program("dynamic", src)], None);
    for m in ["gen_statem", "supervisor", "application", "logger"] {
        assert!(has(&l, m), "{m} missing");
    }
    assert_eq!(run(l, None), "true\n");
}

#[test]
fn the_entry_arguments_name_modules_too() {
    let src = r#"
-module(byarg).
-export([main/1]).
main(M) -> io:format("~p~n", [erlang:function_exported(M, start_link, 3)]).
"#;
    let file = common::program("byarg", src);
    let l = load(std::slice::from_ref(&file), Some("byarg:main(supervisor)"));
    assert!(has(&l, "supervisor"));
    assert_eq!(run(l, Some("byarg:main(supervisor)")), "true\n");
}

/// A scratch project: `files` are (relative path, contents).
fn project(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("project-{}-{name}", std::process::id()))
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    for (rel, text) in files {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
    }
    dir
}

const APP_A: &str = r#"{application, alpha, [{vsn, "1"}, {applications, [kernel, stdlib]},
  {mod, {alpha_app, []}}, {env, [{greeting, hello}]}]}."#;

fn two_apps() -> PathBuf {
    project(
        "twoapps",
        &[
            ("rebar.config", "{deps, []}.\n"),
            (
                "apps/alpha/include/alpha.hrl",
                "-define(GREETING_KEY, greeting).\n",
            ),
            ("apps/alpha/src/alpha.app.src", APP_A),
            (
                "apps/alpha/src/alpha_app.erl",
                "-module(alpha_app).\n-export([start/2, stop/1]).\n\
                 start(_, _) -> {ok, spawn_link(fun() -> receive stop -> ok end end)}.\n\
                 stop(_) -> ok.\n",
            ),
            (
                "apps/beta/src/beta.app.src",
                "{application, beta, [{applications, [kernel, stdlib, alpha]}]}.\n",
            ),
            (
                "apps/beta/src/deep/beta_main.erl",
                "-module(beta_main).\n-include_lib(\"alpha/include/alpha.hrl\").\n\
                 -export([main/0]).\n\
                 main() ->\n\
                     {ok, Started} = application:ensure_all_started(beta),\n\
                     {ok, G} = application:get_env(alpha, ?GREETING_KEY),\n\
                     io:format(\"~p ~p~n\", [Started, G]),\n\
                     ok = application:stop(beta), ok = application:stop(alpha).\n",
            ),
        ],
    )
}

#[test]
fn a_project_of_two_applications_runs_as_a_whole() {
    let dir = two_apps();
    let l = load(std::slice::from_ref(&dir), Some("beta_main:main()"));
    let names: Vec<&str> = l.modules.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["alpha_app", "beta_main"]);
    assert_eq!(l.program.apps.len(), 2);
    assert_eq!(run(l, Some("beta_main:main()")), "[alpha,beta] hello\n");
}

#[test]
fn a_project_without_an_entry_says_how_to_give_one() {
    let dir = two_apps();
    let l = load(std::slice::from_ref(&dir), None);
    let Err(msg) = trace_runtime::entry(&l, None) else {
        panic!("a project ran without an entry");
    };
    assert!(
        msg.contains("is a project (applications: alpha, beta)"),
        "{msg}"
    );
    assert!(msg.contains("--entry 'beta_main:main()'"), "{msg}");
}

#[test]
fn a_bad_application_resource_file_is_reported_where_it_is() {
    let dir = project(
        "badapp",
        &[
            ("src/badapp.app.src", "{application, badapp}.\n"),
            ("src/m.erl", "-module(m).\n"),
        ],
    );
    let Err(d) = trace_runtime::load(std::slice::from_ref(&dir), &LoadOptions::default()) else {
        panic!("a bad .app.src was accepted");
    };
    let text = d[0].to_string();
    assert!(text.contains("badapp.app.src"), "{text}");
    assert!(
        text.contains("expected {application, Name, Properties}"),
        "{text}"
    );
    let empty = project("nothing", &[("README", "")]);
    let Err(d) = trace_runtime::load(std::slice::from_ref(&empty), &LoadOptions::default()) else {
        panic!("a directory without sources was accepted");
    };
    assert!(d[0].to_string().contains("not a project"), "{}", d[0]);
}

#[test]
fn an_unknown_otp_application_is_unsupported_and_a_missing_one_is_an_error() {
    let src = r#"
-module(apps).
-export([main/0]).
main() -> io:format("~p~n", [application:load(no_such_app)]), application:start(sasl).
"#;
    let l = load(&[common::program("apps", src)], None);
    let (entry, _) = trace_runtime::entry(&l, None).unwrap();
    let out = common::Captured::default();
    let rt = Runtime::new(
        l.program,
        RunOptions {
            reports: false,
            ..RunOptions::default()
        },
        Arc::new(Native),
        Arc::new(Native),
        Box::new(out.clone()),
    );
    let outcome = trace_runtime::run(rt, entry);
    let bytes = out.0.lock().unwrap().clone();
    assert_eq!(
        String::from_utf8(bytes).unwrap(),
        "{error,{\"no such file or directory\",\"no_such_app.app\"}}\n"
    );
    let what = outcome
        .unsupported
        .expect("sasl is reported as unsupported");
    assert!(what.contains("the OTP application sasl"), "{what}");
}
