%% Benchmark: a ring of N processes passing one token around Laps times
%% (N * Laps messages, each to a process waiting in receive).
-module(ring).
-export([main/0, main/2]).

main() -> main(1000, 2000).

main(N, Laps) ->
    Me = self(),
    First = spawn(fun() -> receive {next, Next} -> relay(Next, Me) end end),
    Last = build(N - 1, First, Me),
    First ! {next, Last},
    First ! {token, N * Laps},
    receive done -> ok end,
    First ! stop,
    io:format("~p hops~n", [N * Laps]).

build(0, Prev, _) -> Prev;
build(K, Prev, Me) -> build(K - 1, spawn(fun() -> relay(Prev, Me) end), Me).

relay(Next, Main) ->
    receive
        {token, 0} -> Main ! done, relay(Next, Main);
        {token, K} -> Next ! {token, K - 1}, relay(Next, Main);
        stop -> Next ! stop
    end.
