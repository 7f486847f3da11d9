%% Benchmark: 4 processes share one public ETS table and make N operations
%% on it in all: update_counter on 1,000 shared counters, lookup of them,
%% and insert of keys of their own, in turn. Prints what must hold in any
%% interleaving: the counters' sum and the table's size.
-module(ets_shared).
-export([main/0, main/1]).

main() -> main(1000000).

main(N) ->
    T = ets:new(bench, [set, public, {write_concurrency, true}]),
    ets:insert(T, [{K, 0} || K <- lists:seq(0, 999)]),
    Me = self(),
    Workers = 4,
    Each = N div Workers,
    [spawn(fun() -> work(T, W, 0, Each), Me ! done end) || W <- lists:seq(1, Workers)],
    [receive done -> ok end || _ <- lists:seq(1, Workers)],
    Sum = lists:sum([ets:lookup_element(T, K, 2) || K <- lists:seq(0, 999)]),
    io:format("~p updates counted, ~p objects~n", [Sum, ets:info(T, size)]).

work(_, _, Each, Each) -> ok;
work(T, W, I, Each) ->
    K = I rem 1000,
    case I rem 3 of
        0 -> ets:update_counter(T, K, 1);
        1 -> [{K, _}] = ets:lookup(T, K);
        2 -> ets:insert(T, {{W, I rem 5000}, I})
    end,
    work(T, W, I + 1, Each).
