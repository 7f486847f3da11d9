%% Two workers increment a counter in a public table by lookup then
%% insert: one update can be lost.
%% explore: fails 1
%% interleavings: 90
-module(ets_lost_update).
-export([main/0]).

main() ->
    T = ets:new(t, [public, set]),
    ets:insert(T, {n, 0}),
    Self = self(),
    W = fun() ->
            [{n, V}] = ets:lookup(T, n),
            ets:insert(T, {n, V + 1}),
            Self ! done
        end,
    spawn(W),
    spawn(W),
    receive done -> ok end,
    receive done -> ok end,
    [{n, 2}] = ets:lookup(T, n),
    ok.
