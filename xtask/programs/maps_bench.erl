%% Maps: building a large map key by key, lookups, updates with :=, maps
%% module functions (fold, get/3, update_with, merge), and a word count.
-module(maps_bench).
-export([main/0]).

main() ->
    N = 100000,
    M = build(N, #{}),
    Hits = lookups(N, M, 0),
    M2 = bump(N, M),
    Total = maps:fold(fun(_K, V, Acc) -> Acc + V end, 0, M2),
    Words = [list_to_atom([$a + (I * 7919) rem 26, $a + (I * 104729) rem 26]) || I <- lists:seq(1, 50000)],
    Counts = lists:foldl(fun(W, Acc) -> maps:update_with(W, fun(C) -> C + 1 end, 1, Acc) end, #{}, Words),
    Small = lists:foldl(fun(I, Acc) -> Acc#{I rem 20 => I} end, #{}, lists:seq(1, 200000)),
    Merged = maps:merge(M, #{-1 => x, -2 => y}),
    io:format("~p~n", [[map_size(M), Hits, Total, map_size(Counts), maps:get(aa, Counts, 0),
                        map_size(Small), map_size(Merged)]]).

build(0, M) -> M;
build(I, M) -> build(I - 1, M#{I => I * 2}).

lookups(0, _, Acc) -> Acc;
lookups(I, M, Acc) ->
    case M of
        #{I := V} -> lookups(I - 1, M, Acc + V);
        #{} -> lookups(I - 1, M, Acc)
    end.

bump(0, M) -> M;
bump(I, M) -> bump(I - 1, M#{I := maps:get(I, M) + 1}).
