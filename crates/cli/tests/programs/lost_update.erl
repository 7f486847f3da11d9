%% Two workers add one to a counter in a public ETS table by reading it and
%% writing the sum back. When both read before either writes, one update is
%% lost and main/0 returns 1 instead of 2. On a plain run each worker reads
%% and writes in one go; chaos scheduling, which may preempt a process before
%% any table operation, finds the lost update.
-module(lost_update).
-export([main/0]).

main() ->
    counters = ets:new(counters, [named_table, public]),
    true = ets:insert(counters, {hits, 0}),
    Main = self(),
    [spawn(fun() -> add_one(), Main ! done end) || _ <- [1, 2]],
    [receive done -> ok end || _ <- [1, 2]],
    [{hits, N}] = ets:lookup(counters, hits),
    io:format("~p~n", [N]),
    N.

add_one() ->
    [{hits, N}] = ets:lookup(counters, hits),
    true = ets:insert(counters, {hits, N + 1}).
