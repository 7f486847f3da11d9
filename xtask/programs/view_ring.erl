%% `cargo xtask view`'s large page: a token goes round a ring of processes
%% many times (each pass a send and a receive), so a run of
%% main(Procs, Rounds) has about 2 * Procs * Rounds events.
-module(view_ring).
-export([main/0, main/2]).

main() -> main(40, 1300).

main(Procs, Rounds) ->
    Me = self(),
    First = lists:foldl(fun(_, Next) -> spawn(fun() -> node(Next, Me) end) end, Me, lists:seq(1, Procs)),
    First ! {token, Rounds},
    wait(First).

%% Passes the token on; the entry process closes the ring.
node(Next, Entry) ->
    receive
        {token, N} ->
            Next ! {token, N},
            node(Next, Entry);
        stop ->
            Next ! stop
    end.

wait(First) ->
    receive
        {token, 0} ->
            First ! stop,
            receive stop -> ok end;
        {token, N} ->
            First ! {token, N - 1},
            wait(First)
    end.
