//! Mistakes in a specification get `file:line:col` and what was expected;
//! every bad statement is reported, not only the first.

use std::path::Path;

fn errors(spec: &str) -> Vec<String> {
    match trace_check::load_str(Path::new("t.tspec"), spec) {
        Ok(_) => panic!("the specification compiled:\n{spec}"),
        Err(e) => e.iter().map(|x| x.to_string()).collect(),
    }
}

fn first(spec: &str) -> String {
    errors(spec).remove(0)
}

#[test]
fn syntax_errors_point_at_the_token() {
    assert_eq!(
        first("p: never send(_, _, {a, ).\n"),
        "t.tspec:1:25: syntax error before: ')': expected an expression"
    );
    assert_eq!(
        first("p: never send(_, _, x)\n"),
        "t.tspec:2:1: syntax error before: end of input: expected '.' ending the statement"
    );
    assert!(first("p: at most send(_, _, x).")
        .starts_with("t.tspec:1:12: syntax error before: send: expected a count"));
    assert!(first("p: every send(_, _, x) is sent by send(_, _, y).")
        .contains("expected 'followed by' or 'preceded by'"));
    assert!(first("p: never send(_, _, x) while send(_, _, y).")
        .contains("expected a scope (before, after, between)"));
    assert!(first("p: nope send(_, _, x).")
        .contains("t.tspec:1:4: syntax error before: nope: expected a pattern"));
}

/// An empty statement (a lone '.', at the start, between properties or
/// doubled) is a syntax error at that dot, not a crash.
#[test]
fn empty_statements_are_syntax_errors() {
    let want = "syntax error before: '.': expected a property (NAME: BODY.), a built-in's \
                name or a declaration";
    assert_eq!(first("."), format!("t.tspec:1:1: {want}"));
    assert_eq!(
        errors("p: never send(_, _, x).\n\n  .\nq: never send(_, _, y). .\n"),
        vec![
            format!("t.tspec:3:3: {want}"),
            format!("t.tspec:4:25: {want}")
        ]
    );
}

#[test]
fn common_mistakes_get_a_hint() {
    // A scope written first, as one says it in English.
    assert_eq!(
        first("p: between send(P, _, a) and send(P, _, b): never exit(_, crash)."),
        "t.tspec:1:4: syntax error before: between: expected a pattern first: a scope comes \
         after it, at the end of the property (NAME: never E between Q and R.)"
    );
    assert!(first("p: after receive(_, _, go): always send(_, _, x).")
        .contains("a scope comes after it"));
    // A process named as replay names it, without the brackets a
    // specification needs.
    assert_eq!(
        first("p: always receive(P.1, _, _)."),
        "t.tspec:1:20: syntax error before: '.': expected ',' or ')' \
         (a process is written <P.1> in a specification)"
    );
    // Every bad statement is reported, after a syntax error too.
    let all = errors(
        "a: between send(P, _, x) and send(P, _, y): never exit(_, c).\n\
         b: never send(_, _, {a, ).\n\
         c: never sned(_, _, x).\n",
    );
    assert_eq!(all.len(), 3, "{all:?}");
    assert!(all[1].starts_with("t.tspec:2:"), "{all:?}");
    assert!(all[2].starts_with("t.tspec:3:"), "{all:?}");
}

#[test]
fn events_and_their_arguments() {
    assert_eq!(
        first("p: never sned(_, _, x)."),
        "t.tspec:1:10: unknown event sned: events are spawn, send, receive, deliver, timeout, \
         exit, link, unlink, monitor, demonitor, exit_signal, down, killed, nondet, blocked, ets, unreceived"
    );
    assert_eq!(
        first("p: never send(A, B)."),
        "t.tspec:1:10: send/2 is not an event: write send(From, To, Msg)"
    );
    assert_eq!(
        first("p: never ets(P, t)."),
        "t.tspec:1:10: ets/2 is not an event: write ets(P, Table, Op, Key) or ets(P, Table, Op)"
    );
    assert!(first("p: never send({a}, _, _).").starts_with("t.tspec:1:15: expected a process"));
    assert!(first("p: never send(_, _, f(X)).").starts_with("t.tspec:1:21: illegal pattern"));
    assert!(first("p: never send(_, _, X) when foo(X).").contains("foo/1 is not a guard function"));
}

#[test]
fn variables_and_names() {
    assert!(first("p: never send(_, _, X) when Y > 1.")
        .starts_with("t.tspec:1:29: variable 'Y' is unbound"));
    // A registered name needs no declaration: the log says who held it.
    assert!(trace_check::load_str(Path::new("t.tspec"), "p: never send(_, server, _).").is_ok());
    // The closing event's variables are seen by nobody.
    let e = first("p: never send(S, _, x) before receive(S, y).");
    assert!(
        e.contains("variable 'S' is bound both by the event closing the scope"),
        "{e}"
    );
    assert!(first("-registered(server, foo).").contains("expected a process"));
    assert!(first("-register(server, <P.1>).").contains("unknown declaration -register"));
}

#[test]
fn statements_and_builtins() {
    assert!(first("deadlock.").contains("no built-in check named deadlock; the built-ins are all_received, no_deadlock, no_abnormal_exit"));
    assert_eq!(
        first("p: never send(_, _, x).\np: never send(_, _, y)."),
        "t.tspec:2:1: property p is defined twice (first at line 1)"
    );
}

#[test]
fn histories() {
    assert!(first("h: history <P.1>: [{_, maybe, [], []}].")
        .contains("what a step consumed is none, timeout, _ or {From, Msg}"));
    assert!(first("h: history <P.1>: [{_, none, [hello], []}].")
        .contains("a message a step sent is written {To, Msg}"));
    assert!(first("h: history _: [*].").contains("a history is of a process"));
    assert!(
        first("h: history <P.1> [*].").contains("expected ':' before the history's list of steps")
    );
}

#[test]
fn every_bad_statement_is_reported() {
    let e = errors("a: never send(_, _, {.\nb: ok.\nc: never nope(_).\nd: never send(_, _, x).\n");
    assert_eq!(e.len(), 3, "{e:?}");
    assert!(e[0].starts_with("t.tspec:1:"));
    assert!(e[1].starts_with("t.tspec:2:"));
    assert!(e[2].starts_with("t.tspec:3:"));
}

#[test]
fn a_good_specification_compiles() {
    let spec = "
%% comments, quoted names, registered names, all patterns
-registered(srv, <P.1>).
'a b': never send(srv, _, {error, _}).
b: eventually receive(<P>, {ok, _}) after spawn(<P>, _).
c: always receive(srv, M) when is_tuple(M), element(1, M) =/= stop.
d: at least 2 send(_, srv, _) between receive(srv, start) and receive(srv, stop).
e: every send(C, srv, {req, R}) then receive(C, srv, {ack, R}) is followed by send(srv, C, {done, R}).
f: every exit(P, R) when R =/= normal is preceded by spawn(_, P) after spawn(<P>, _) until exit(<P>).
g: history global: [{<P>, none, _, [+]}, *].
h: history W: [{W, _, [*, {_, [_ | _]}, *], _}, *].
no_deadlock.
";
    let c = trace_check::load_str(Path::new("t.tspec"), spec).unwrap();
    assert_eq!(c.properties.len(), 9);
    assert_eq!(c.properties[0].name, "a b");
    assert!(c.properties[2].local.is_some(), "about srv's order");
    assert!(c.properties[5].local.is_none(), "across processes");
}
