//! Bad programs through the `trace` binary, as a user meets them: each gets
//! the documented exit status (README: 2 trouble, 3 compile error, 4
//! unsupported, 1 the entry crashed) and a diagnostic in erlc's words at
//! `file:line:col`, without a panic.

mod common;
use common::{trace_cmd, Scratch};
use std::path::Path;
use std::process::Output;

fn trace_run(args: &[&Path], extra: &[&str]) -> Output {
    trace_cmd()
        .arg("run")
        .args(args)
        .args(extra)
        .output()
        .expect("running trace")
}

/// Runs one module and returns (status, stderr, stdout).
fn run_module(name: &str, source: &str) -> (i32, String, String) {
    let d = Scratch::new(&format!("bad-{name}"));
    let f = d.write(&format!("{name}.erl"), source);
    let out = trace_run(&[&f], &[]);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// Asserts a compile error (status 3) whose one diagnostic line ends with
/// `name.erl:LINE:COL: message`.
fn assert_compile_error(name: &str, source: &str, at: &str, message: &str) {
    let (status, stderr, stdout) = run_module(name, source);
    assert_eq!(status, 3, "{name}: stderr was {stderr}");
    assert!(stdout.is_empty(), "{name}: printed {stdout}");
    let want = format!("{name}.erl:{at}: {message}");
    assert!(
        stderr.lines().any(|l| l.ends_with(&want)),
        "{name}: expected a line ending with {want:?}, got:\n{stderr}"
    );
}

const HEAD: &str = "-export([main/0]).\n";

fn module(name: &str, body: &str) -> String {
    format!("-module({name}).\n{HEAD}{body}")
}

/// Runs the module `name` made of `body` and asserts that it stops as
/// unsupported (status 4) saying `message`; returns what it printed.
fn assert_unsupported(name: &str, body: &str, message: &str) -> String {
    let (status, stderr, stdout) = run_module(name, &module(name, body));
    assert_eq!(status, 4, "{stderr}");
    assert!(stderr.contains(message), "{stderr}");
    stdout
}

#[test]
fn a_record_test_without_a_record_name_is_an_illegal_guard_not_a_crash() {
    // Each of these once sent the guard compiler round in a circle until
    // the stack overflowed.
    for (name, guard, col) in [
        ("guard_rec_int", "is_record(T, 3)", "14"),
        ("guard_rec_var", "is_record(T, R)", "14"),
        ("guard_rec_one", "is_record(T)", "14"),
        ("guard_fun_three", "is_function(T, 1, 2)", "14"),
    ] {
        assert_compile_error(
            name,
            &module(
                name,
                &format!("main() -> f(x, y).\nf(T, R) when {guard} -> R;\nf(_, _) -> no.\n"),
            ),
            &format!("4:{col}"),
            "illegal guard expression",
        );
    }
}

#[test]
fn syntax_errors_say_where_and_what_was_expected() {
    assert_compile_error(
        "syn_operand",
        &module("syn_operand", "main() ->\n    X = 1 +,\n    X.\n"),
        "4:12",
        "syntax error before: ',': expected an expression",
    );
    assert_compile_error(
        "syn_end",
        &module("syn_end", "main() -> case 1 of 1 -> ok end end.\n"),
        "3:33",
        "syntax error before: 'end': expected ',', ';' or '.'",
    );
    assert_compile_error(
        "syn_try",
        &module("syn_try", "main() -> try ok end.\n"),
        "3:18",
        "syntax error before: 'end': expected 'of', 'catch' or 'after'",
    );
    assert_compile_error(
        "syn_string",
        &module("syn_string", "main() ->\n    \"unterminated.\n"),
        "4:5",
        "unterminated string starting with \"unterminated.\\n\"",
    );
    assert_compile_error(
        "syn_integer",
        &module("syn_integer", "main() -> 16#GG.\n"),
        "3:11",
        "illegal integer",
    );
}

#[test]
fn compile_time_errors_are_reported_as_erlc_does() {
    assert_compile_error(
        "unbound",
        &module("unbound", "main() ->\n    io:format(\"~p~n\", [Y]).\n"),
        "4:24",
        "variable 'Y' is unbound",
    );
    assert_compile_error(
        "undef_local",
        &module("undef_local", "main() ->\n    helper(1).\n"),
        "4:5",
        "function helper/1 undefined",
    );
    assert_compile_error(
        "undef_export",
        "-module(undef_export).\n-export([main/0, missing/1]).\nmain() -> ok.\n",
        "2:2",
        "function missing/1 undefined",
    );
    assert_compile_error(
        "undef_record",
        &module("undef_record", "main() -> #rec{a = 1}.\n"),
        "3:11",
        "record rec undefined",
    );
    assert_compile_error(
        "undef_macro",
        &module("undef_macro", "main() -> ?NOPE.\n"),
        "3:12",
        "undefined macro 'NOPE'",
    );
    assert_compile_error(
        "unsafe",
        &module(
            "unsafe",
            "main() -> case self() of 1 -> Z = 1; _ -> ok end, Z.\n",
        ),
        "3:51",
        "variable 'Z' unsafe in 'case' (line 3, column 11)",
    );
    assert_compile_error(
        "twice",
        &module("twice", "main() -> ok.\nmain() -> again.\n"),
        "4:1",
        "function main/0 already defined",
    );
    assert_compile_error(
        "bad_guard",
        &module("bad_guard", "f(X) when foo(X) -> X.\nmain() -> f(1).\n"),
        "3:11",
        "illegal guard expression",
    );
    assert_compile_error(
        "min_guard",
        &module(
            "min_guard",
            "f(X) when min(X, 1) > 0 -> X.\nmain() -> f(1).\n",
        ),
        "3:11",
        "illegal guard expression",
    );
    assert_compile_error(
        "unterminated_ifdef",
        &module("unterminated_ifdef", "-ifdef(X).\nmain() -> ok.\n"),
        "5:1",
        "unterminated '-ifdef'",
    );
    assert_compile_error(
        "no_include",
        &module("no_include", "-include(\"nofile.hrl\").\nmain() -> ok.\n"),
        "3:10",
        "can't find include file \"nofile.hrl\"",
    );
}

#[test]
fn a_missing_file_or_module_is_one_plain_line() {
    let d = Scratch::new("bad-missing");
    let missing = d.path("nofile.erl");
    let out = trace_run(&[&missing], &[]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("nofile.erl: no such file or directory"),
        "{stderr}"
    );

    let ok = d.write("ok.erl", &module("ok", "main() -> ok.\n"));
    let out = trace_run(&[&ok], &["--entry", "nomod:main()"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.trim_end(),
        "trace run: module 'nomod' is not loaded (give its .erl file)"
    );
    let out = trace_run(&[&ok], &["--entry", "ok:nofun(1)"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        "trace run: function ok:nofun/1 is not exported"
    );
}

#[test]
fn unsupported_functions_are_named_at_compile_time() {
    let stdout = assert_unsupported(
        "uses_get_line",
        "main() ->\n    io:get_line(\"> \").\n",
        "uses_get_line.erl:4:5: unsupported: io:get_line/1 is not implemented by trace",
    );
    assert!(stdout.is_empty());
    assert_unsupported(
        "uses_dets",
        "main() ->\n    dets:open_file(t, []).\n",
        "unsupported: module 'dets' is not supported by trace (called as dets:open_file/2)",
    );
}

#[test]
fn attributes_that_change_behaviour_are_unsupported_not_ignored() {
    let stdout = assert_unsupported(
        "loads",
        "-on_load(init/0).\ninit() -> ok.\nmain() -> ok.\n",
        "loads.erl:3:2: unsupported: -on_load (not implemented by trace)",
    );
    assert!(stdout.is_empty());
    assert_unsupported(
        "transforms",
        "-compile({parse_transform, pt}).\nmain() -> ok.\n",
        "unsupported: parse transforms",
    );
}

#[test]
fn unsupported_calls_made_at_run_time_stop_the_run_naming_them() {
    let stdout = assert_unsupported(
        "dyn_get_line",
        "main() ->\n    io:format(\"before~n\"),\n    M = io,\n    \
         R = (catch M:get_line(\"> \")),\n    io:format(\"after ~p~n\", [R]).\n",
        "dyn_get_line.erl:6: unsupported: io:get_line/1 is not implemented by trace (called at run time)",
    );
    // What was printed before stays; nothing after the unsupported call runs.
    assert_eq!(stdout, "before\n");
    assert_unsupported(
        "compressed",
        "main() -> term_to_binary(x, [compressed]).\n",
        "erlang:term_to_binary/2 with option compressed is not implemented by trace",
    );
    assert_unsupported(
        "info_item",
        "main() -> catch erlang:system_info(allocated_areas).\n",
        "info_item.erl:3: unsupported: erlang:system_info(allocated_areas) is not supported by trace",
    );
}

#[test]
fn a_crash_of_the_entry_is_status_1_with_its_output_kept() {
    let (status, stderr, stdout) = run_module(
        "crashes",
        &module(
            "crashes",
            "main() ->\n    io:format(\"first~n\"),\n    1 = length([a, b]).\n",
        ),
    );
    assert_eq!(status, 1);
    assert_eq!(stdout, "first\n");
    assert!(stderr.contains("{badmatch,2}"), "{stderr}");
}

#[test]
fn lists_too_long_to_build_are_a_system_limit_not_an_abort() {
    let (status, stderr, stdout) = run_module(
        "huge",
        &module(
            "huge",
            "main() ->\n    io:format(\"~p~n\", [catch lists:duplicate(1 bsl 40, x)]),\n    \
             io:format(\"~p~n\", [catch lists:seq(1, 1 bsl 40)]).\n",
        ),
    );
    assert_eq!(status, 0, "{stderr}");
    assert_eq!(stdout.matches("system_limit").count(), 2, "{stdout}");
}

#[test]
fn undefined_functions_of_user_modules_are_undef_at_run_time() {
    let (status, stderr, stdout) = run_module(
        "calls_undef",
        &module(
            "calls_undef",
            "main() ->\n    io:format(\"~p~n\", [catch calls_undef:nothere()]).\n",
        ),
    );
    assert_eq!(status, 0, "{stderr}");
    assert!(stdout.starts_with("{'EXIT',{undef,"), "{stdout}");
}

#[test]
fn thread_counts_out_of_range_are_refused_before_anything_starts() {
    let d = Scratch::new("bad-threads");
    let ok = d.write("ok.erl", &module("ok", "main() -> ok.\n"));
    let log = d.path("ok.trace");
    let (src, log_s) = (ok.to_str().unwrap(), log.to_str().unwrap());
    let rec = trace_cmd()
        .args(["record", "-q", "-o", log_s, src])
        .output()
        .unwrap();
    assert_eq!(rec.status.code(), Some(0));
    for args in [
        vec!["run", src, "--schedulers", "0"],
        vec!["run", src, "--schedulers", "18446744073709551615"],
        vec!["record", "-o", log_s, src, "--schedulers", "100000"],
        vec!["replay", src, log_s, "--schedulers", "5000"],
        vec!["replay", log_s, "--threads", "100000"],
        vec!["diff", log_s, log_s, "--threads", "2000"],
        vec!["check", log_s, "--threads=-1"],
    ] {
        let out = trace_cmd().args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("expected a number of threads from 1 to 1024"),
            "{args:?}: {stderr}"
        );
    }
}
