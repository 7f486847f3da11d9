//! Engine behaviour that the fixtures do not show on standard output: the
//! reports of a run (blocked processes with where they wait, crashes), and
//! regressions of the process machinery.

mod common;

use trace_runtime::{EndRule, EntryOutcome, RunOutcome, Waiting};

#[test]
fn a_deadlock_lists_each_blocked_process_with_its_function_and_line() {
    let (outcome, out) = common::run(&common::fixture("conc/deadlock.erl"), 2);
    assert_eq!(out, b"started two processes that wait for each other\n");
    assert_eq!(outcome.verdict(), trace_runtime::Verdict::Deadlock);
    assert!(matches!(outcome.entry, EntryOutcome::Unfinished));
    assert_eq!(outcome.blocked.len(), 3, "{:?}", outcome.blocked);
    for b in &outcome.blocked[1..] {
        assert_eq!(b.mfa.0.name(), "deadlock");
        assert_eq!((b.mfa.1.name(), b.mfa.2), ("philosopher", 3));
        assert_eq!(b.line, 9, "the line of `receive {{fork, Other}}`");
        assert!(b.file.ends_with("deadlock.erl"));
        assert_eq!(b.mailbox_len, 0);
        assert_eq!(b.waiting, Waiting::Stuck);
    }
    let names: Vec<&str> = outcome
        .blocked
        .iter()
        .map(|b| b.symbolic.as_str())
        .collect();
    assert_eq!(names, ["P", "P.1", "P.2"]);
}

/// A server left waiting for work, a process left waiting for a reply, and
/// one left waiting for one particular process's message.
const LEFT_WAITING: &str = "-module(left).\n-export([main/0, main/1]).\n\
main() -> main(none).\n\
main(Stuck) ->\n\
    S = spawn(fun() -> server(0) end),\n\
    S ! {add, 2},\n\
    case Stuck of\n\
        reply -> spawn(fun() -> Ref = make_ref(), S ! {get, self(), Ref}, receive {Ref, N} -> N end end);\n\
        peer -> Me = self(), spawn(fun() -> receive {hello, Me} -> ok end end);\n\
        none -> ok\n\
    end,\n\
    ok.\n\
server(N) ->\n\
    receive\n\
        {add, K} -> server(N + K);\n\
        {get, From, _Tag} -> From ! N, server(N)\n\
    end.\n";

fn run_left(entry: &str, rule: EndRule) -> RunOutcome {
    let file = common::program("left", LEFT_WAITING);
    let loaded = trace_runtime::load(&[file], &Default::default()).unwrap();
    let (entry, _) = trace_runtime::entry(&loaded, Some(entry)).unwrap();
    let opts = trace_runtime::RunOptions {
        schedulers: 1,
        reports: false,
        end_rule: rule,
        ..Default::default()
    };
    let rt = trace_runtime::Runtime::new(
        loaded.program,
        opts,
        std::sync::Arc::new(trace_runtime::hooks::Native),
        std::sync::Arc::new(trace_runtime::hooks::Native),
        Box::new(std::io::sink()),
    );
    trace_runtime::run(rt, entry)
}

#[test]
fn servers_idle_at_the_end_are_no_deadlock_but_a_process_stuck_waiting_is() {
    // The entry returned; the server waits for work: the run is over, as on BEAM.
    let o = run_left("left:main(none)", EndRule::Settled);
    assert_eq!(o.verdict(), trace_runtime::Verdict::Ok);
    assert_eq!(o.blocked.len(), 1);
    assert_eq!(o.blocked[0].waiting, Waiting::Idle);
    assert_eq!(o.idle().count(), 1);
    // Waiting for a reply that never comes (the server answers without the tag).
    let o = run_left("left:main(reply)", EndRule::Settled);
    assert_eq!(o.verdict(), trace_runtime::Verdict::Deadlock);
    let stuck: Vec<&str> = o.deadlocked().map(|b| b.symbolic.as_str()).collect();
    assert_eq!(stuck, ["P.2"]);
    // Waiting for a message from one particular process.
    let o = run_left("left:main(peer)", EndRule::Settled);
    assert_eq!(o.verdict(), trace_runtime::Verdict::Deadlock);
    assert_eq!(o.deadlocked().count(), 1);
    // --strict: every process left waiting is a deadlock.
    let o = run_left("left:main(none)", EndRule::Strict);
    assert_eq!(o.verdict(), trace_runtime::Verdict::Deadlock);
}

#[test]
fn a_crash_of_the_entry_is_status_1_and_listed_with_its_reason() {
    let (outcome, _) = common::run(&common::fixture("conc/entry_crash.erl"), 1);
    assert_eq!(outcome.verdict(), trace_runtime::Verdict::EntryCrashed);
    let EntryOutcome::Crashed(reason) = &outcome.entry else {
        panic!("{:?}", outcome.entry)
    };
    assert!(trace_term::write_term(reason).starts_with("{badarith,[{entry_crash,divide,2,"));
    assert_eq!(outcome.crashes.len(), 1);
    assert_eq!(outcome.crash_count, 1);
    assert_eq!(outcome.crashes[0].symbolic, "P");
}

#[test]
fn exits_with_reason_normal_or_by_exit_1_are_not_crashes_of_the_run() {
    let (outcome, _) = common::run(&common::fixture("conc/links.erl"), 2);
    assert_eq!(outcome.verdict(), trace_runtime::Verdict::Ok);
    assert!(outcome.blocked.is_empty());
}

/// A callee's stack window starts inside its caller's; a slice ending in
/// the callee (here in timer:sleep) trims the stack to the callee's window,
/// and the caller must get its upper slots back when the callee returns.
#[test]
fn a_caller_keeps_its_slots_when_a_slice_ends_in_a_small_callee() {
    let src = r#"
-module(trim).
-export([main/0]).
main() ->
    X = self(),
    timer:sleep(1),
    L = [{a, X}, {b, X}, {c, X}, {d, X}, {e, X}, {f, X}, {g, X}, {h, X},
         {i, X}, {j, X}, {k, X}, {l, X}, {m, X}, {n, X}, {o, X}, {p, X}],
    timer:sleep(1),
    io:format("~p~n", [length(L) + length([{q, X}, {r, X}, {s, X}, {t, X}, {u, X}])]).
"#;
    let (outcome, out) = common::run(&common::program("trim", src), 1);
    assert_eq!(outcome.internal_error, None);
    assert_eq!(String::from_utf8_lossy(&out), "21\n");
    assert_eq!(outcome.verdict(), trace_runtime::Verdict::Ok);
}

/// BEAM's selective receive with a message lent to the matching code: a
/// message that matches no clause goes back to its place, in order, also
/// when a guard fails after part of the pattern matched.
#[test]
fn messages_that_match_no_clause_stay_in_order() {
    let src = r#"
-module(order).
-export([main/0]).
main() ->
    [self() ! {n, I} || I <- [5, 1, 7, 3, 9]],
    A = receive {n, X} when X > 6 -> X end,
    B = receive {n, Y} when Y > 6 -> Y end,
    io:format("~p ~p ~p~n", [A, B, flush()]).
flush() -> receive M -> [M | flush()] after 0 -> [] end.
"#;
    let (_, out) = common::run(&common::program("order", src), 1);
    assert_eq!(String::from_utf8_lossy(&out), "7 9 [{n,5},{n,1},{n,3}]\n");
}

/// A caller's window reaching far above its callee's stays whole while the
/// callee runs for many slices (each slice's end cuts the stack) and when an
/// exception is caught by a callee with a small window: the caller writes
/// its temporaries there after the return (as erl prints).
#[test]
fn a_callers_window_outlives_its_callees_slices_and_unwinding() {
    let src = r#"
-module(windows).
-export([main/0]).
main() -> io:format("~p~n~p~n", [wide(0), unwound(0)]).
wide(N) ->
    X = count(100000, 0),
    {X, N + 1, N + 2, N + 3, N + 4, N + 5, N + 6, N + 7, N + 8, N + 9}.
count(0, Acc) -> Acc;
count(K, Acc) -> count(K - 1, Acc + 1).
unwound(N) ->
    R = catcher(),
    {R, N + 1, N + 2, N + 3, N + 4, N + 5, N + 6, N + 7, N + 8, N + 9}.
catcher() -> try deep(5000) catch throw:D -> D end.
deep(0) -> throw(bottom);
deep(K) -> 1 + deep(K - 1).
"#;
    let (outcome, out) = common::run(&common::program("windows", src), 1);
    assert_eq!(outcome.internal_error, None);
    assert_eq!(
        String::from_utf8_lossy(&out),
        "{100000,1,2,3,4,5,6,7,8,9}\n{bottom,1,2,3,4,5,6,7,8,9}\n"
    );
}

/// A `case` on a comparison whose clauses are `true` and `false` (in either
/// order) takes the clause of the comparison's value for every operator and
/// every pair of numbers, atoms, tuples and lists (as erl prints).
#[test]
fn a_case_on_a_comparison_takes_the_clause_of_its_value() {
    let src = r#"
-module(cmpcase).
-export([main/0]).
main() ->
    Vs = [1, 1.0, 2, a, {1}, [1]],
    io:format("~w~n", [[{t(X, Y), f(X, Y)} || X <- Vs, Y <- Vs]]),
    io:format("~w~n", [loop(10, 0)]).
t(X, Y) ->
    [case X < Y of true -> lt; false -> nlt end,
     case X =< Y of true -> le; false -> nle end,
     case X > Y of true -> gt; false -> ngt end,
     case X >= Y of true -> ge; false -> nge end,
     case X == Y of true -> eq; false -> neq end,
     case X /= Y of true -> ne; false -> nne end,
     case X =:= Y of true -> xeq; false -> nxeq end,
     case X =/= Y of true -> xne; false -> nxne end].
f(X, Y) ->
    [case X < Y of false -> nlt; true -> lt end,
     case X == Y of false -> neq; true -> eq end,
     case X =/= Y of false -> nxne; true -> xne end].
loop(N, Acc) ->
    case N > 0 of
        true -> loop(N - 1, Acc + N);
        false -> Acc
    end.
"#;
    let (outcome, out) = common::run(&common::program("cmpcase", src), 1);
    assert_eq!(outcome.internal_error, None);
    let expected = concat!(
        "[{[nlt,le,ngt,ge,eq,nne,xeq,nxne],[nlt,eq,nxne]},{[nlt,le,ngt,ge,eq,nne,nxeq,xne],[nlt,eq,xne]},{[lt,le,ngt,nge,neq,ne,nxeq,xne],[lt,neq,xne]},{[lt,le,ngt,nge,neq,ne,nxeq,xne],[lt,neq,xne]},{[lt,le,ngt,nge,neq,ne,nxeq,xne],[lt,neq,xne]},{[lt,le,ngt,nge,neq,ne,nxeq,xne],[lt,neq,xne]},{[nlt,le,ngt,ge,eq,nne,nxeq,xne],[nlt,eq,xne]},{[nlt,le,ngt,ge,eq,nne,xeq,nxne],[nlt,eq,nxne]},{[lt,le,ngt,nge,neq,ne,nxeq,xne],[lt,neq,xne]},{[lt,le,ngt,nge,neq,ne,nxeq,xne],[lt,neq,xne]},{[lt,le,ngt,nge,neq,ne,nxeq,xne],[lt,neq,xne]},{[lt,le,ngt,nge,neq,ne,nxeq,xne],[lt,neq,xne]},{[nlt,nle,gt,ge,neq,ne,nxeq,xne],[nlt,neq,xne]},{[nlt,nle,gt,ge,neq,ne,nxeq,xne],[nlt,neq,xne]},{[nlt,le,ngt,ge,eq,nne,xeq,nxne],[nlt,eq,nxne]},{[lt,le,ngt,nge,neq,ne,nxeq,xne],[lt,neq,xne]},{[lt,le,ngt,nge,neq,ne,nxeq,xne],[lt,neq,xne]},{[lt,le,ngt,nge,neq,ne,nxeq,xne],[lt,neq,xne]},{[nlt,nle,gt,ge,neq,ne,nxeq,xne],[nlt,neq,xne]},{[nlt,nle,gt,ge,neq,ne,nxeq,xne],[nlt,neq,xne]},{[nlt,nle,gt,ge,neq,ne,nxeq,xne],[nlt,neq,xne]},{[nlt,le,ngt,ge,eq,nne,xeq,nxne],[nlt,eq,nxne]},{[lt,le,ngt,nge,neq,ne,nxeq,xne],[lt,neq,xne]},{[lt,le,ngt,nge,neq,ne,nxeq,xne],[lt,neq,xne]},{[nlt,nle,gt,ge,neq,ne,nxeq,xne],[nlt,neq,xne]},{[nlt,nle,gt,ge,neq,ne,nxeq,xne],[nlt,neq,xne]},{[nlt,nle,gt,ge,neq,ne,nxeq,xne],[nlt,neq,xne]},{[nlt,nle,gt,ge,neq,ne,nxeq,xne],[nlt,neq,xne]},{[nlt,le,ngt,ge,eq,nne,xeq,nxne],[nlt,eq,nxne]},{[lt,le,ngt,nge,neq,ne,nxeq,xne],[lt,neq,xne]},{[nlt,nle,gt,ge,neq,ne,nxeq,xne],[nlt,neq,xne]},{[nlt,nle,gt,ge,neq,ne,nxeq,xne],[nlt,neq,xne]},{[nlt,nle,gt,ge,neq,ne,nxeq,xne],[nlt,neq,xne]},{[nlt,nle,gt,ge,neq,ne,nxeq,xne],[nlt,neq,xne]},{[nlt,nle,gt,ge,neq,ne,nxeq,xne],[nlt,neq,xne]},{[nlt,le,ngt,ge,eq,nne,xeq,nxne],[nlt,eq,nxne]}]\n",
        "55\n",
    );
    assert_eq!(String::from_utf8_lossy(&out), expected);
}

/// What OTP would run but the engine cannot is named at load time, as
/// unsupported (exit status 4), not reported as an undefined function.
#[test]
fn unsupported_process_builtins_are_named() {
    let src = r#"
-module(remote).
-export([main/0, a/0, b/0, c/0]).
main() -> ok.
a() -> spawn(node(), fun() -> ok end).
b() -> spawn_link(node(), ?MODULE, main, []).
c() -> nothing_like_this(1).
"#;
    let file = common::program("remote", src);
    let Err(diags) = trace_runtime::load(&[file], &Default::default()) else {
        panic!("loaded a program with unsupported calls");
    };
    let text: Vec<String> = diags.iter().map(|d| d.to_string()).collect();
    let has = |s: &str| text.iter().any(|t| t.contains(s));
    assert!(has("unsupported: erlang:spawn/2"), "{text:#?}");
    assert!(has("unsupported: erlang:spawn_link/4"), "{text:#?}");
    assert!(has("function nothing_like_this/1 undefined"), "{text:#?}");
    let src =
        "-module(sreq).\n-export([main/0]).\nmain() -> erlang:spawn_request(fun() -> ok end).\n";
    let Err(diags) = trace_runtime::load(&[common::program("sreq", src)], &Default::default())
    else {
        panic!("loaded a program calling erlang:spawn_request/1");
    };
    assert!(diags[0]
        .to_string()
        .contains("unsupported: erlang:spawn_request/1"));
}

/// The receive marker (a receive whose clauses all need a fresh reference
/// starts after the messages that arrived before the reference was made)
/// never skips a message that could match, and leaves the others in order.
#[test]
fn a_receive_on_a_fresh_reference_skips_only_older_messages() {
    let src = r#"
-module(marker).
-export([main/0]).
main() ->
    Me = self(),
    [Me ! {old, I} || I <- [1, 2, 3]],
    R1 = make_ref(),
    Me ! {reply, R1, first},
    R2 = make_ref(),
    %% R1 is not the reference made last: its receive scans from the start.
    A = receive {reply, R1, X} -> X end,
    Me ! {reply, R2, second},
    [Me ! {new, I} || I <- [4, 5]],
    B = receive {reply, R2, Y} -> Y; {'DOWN', R2, _, _, Why} -> Why end,
    %% A monitor's reference is fresh too; its 'DOWN' comes after the mark.
    {P, R3} = spawn_monitor(fun() -> ok end),
    C = receive {'DOWN', R3, process, P, Why3} -> Why3 end,
    R4 = make_ref(),
    D = receive {reply, R4, _} -> found after 0 -> nothing end,
    io:format("~p ~p ~p ~p ~p~n", [A, B, C, D, flush()]).
flush() -> receive M -> [M | flush()] after 0 -> [] end.
"#;
    for schedulers in [1, 2] {
        let (outcome, out) = common::run(&common::program("marker", src), schedulers);
        assert_eq!(outcome.verdict(), trace_runtime::Verdict::Ok);
        assert_eq!(
            String::from_utf8_lossy(&out),
            "first second normal nothing [{old,1},{old,2},{old,3},{new,4},{new,5}]\n"
        );
    }
}
