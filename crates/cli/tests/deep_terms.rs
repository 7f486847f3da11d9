//! Terms nested tens of thousands of levels deep, as BEAM handles them: a
//! program builds them, compares, hashes, sends, encodes, prints and frees
//! them, and crashes with one as its reason, without overflowing a stack.
//! (Each of these walked the nesting on an 8 MB stack and aborted the run.)

mod common;
use common::{text, trace_cmd, Scratch};

const DEEP: &str = r#"-module(deep).
-export([main/0]).

main() ->
    L = head(50000, []),
    T = tuple(50000, {}),
    true = (L == head(50000, [])),
    true = (T < tuple(50001, {})),
    _ = erlang:phash2(L),
    _ = term_to_binary(T),
    Me = self(),
    P = spawn(fun() -> receive X -> Me ! {back, X} end end),
    P ! {L, T},
    receive {back, {L2, T2}} -> true = (L2 == L), true = (T2 == T) end,
    io:format("~w~n", [length(lists:flatten(io_lib:format("~p", [L])))]),
    {_, Ref} = spawn_monitor(fun() -> error({deep, T}) end),
    receive {'DOWN', Ref, process, _, _} -> ok end,
    exit({deep, L}).

head(0, A) -> A;
head(N, A) -> head(N - 1, [A]).

tuple(0, A) -> A;
tuple(N, A) -> tuple(N - 1, {A}).
"#;

#[test]
fn deeply_nested_terms_are_compared_sent_printed_and_freed() {
    let d = Scratch::new("deep-terms");
    let src = d.write("deep.erl", DEEP);
    let out = trace_cmd().arg("run").arg(&src).output().unwrap();
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    // The entry crashes on purpose, with the deep list in its reason.
    assert_eq!(out.status.code(), Some(1), "stderr: {stderr}");
    // `[[[...]]]`, 50,000 lists around `[]`, prints as 100,002 brackets (as on erl).
    assert_eq!(stdout, "100002\n");
    // The other process's crash report prints the deep tuple.
    assert!(
        stderr.contains("{deep,{{{{"),
        "crash report: {}",
        &stderr[..stderr.len().min(300)]
    );
}
