%% Random operations on gb_trees: insertions (which rebalance), deletions,
%% lookups, iterators and map/2, on trees of up to 80 keys with 1 and 1.0
%% among them.
-module(shape_gb_trees).
-export([main/1]).
m(orig) -> gb_trees; m(mine) -> trace_gb_trees.
main(Steps) ->
    shape_check:run(gb_trees, Steps, gb_trees:empty(), fun step/1).
key() -> case rand:uniform(15) of 1 -> 3.0; _ -> rand:uniform(60) end.
step(T0) ->
    T = case rand:uniform(400) of 1 -> foo; 2 -> gb_trees:empty(); 3 -> {x, nil}; 4 -> gb_trees:from_orddict([{K, K} || K <- lists:seq(1, rand:uniform(30))]); _ -> T0 end,
    K = key(), V = rand:uniform(100),
    It = catch gb_trees:iterator(T),
    OD = orddict:from_list([{key(), x} || _ <- lists:seq(1, V rem 20)]),
    Ops = [
      {insert, fun(W) -> (m(W)):insert(K, V, T) end}, {insert, fun(W) -> (m(W)):insert(K, V, T) end}, {insert, fun(W) -> (m(W)):insert(K, V, T) end},
      {enter, fun(W) -> (m(W)):enter(K, V, T) end}, {enter, fun(W) -> (m(W)):enter(K, V, T) end},
      {delete, fun(W) -> (m(W)):delete(K, T) end}, {delete_any, fun(W) -> (m(W)):delete_any(K, T) end},
      {take, fun(W) -> (m(W)):take(K, T) end}, {take_any, fun(W) -> (m(W)):take_any(K, T) end},
      {update, fun(W) -> (m(W)):update(K, V, T) end},
      {lookup, fun(W) -> (m(W)):lookup(K, T) end}, {get, fun(W) -> (m(W)):get(K, T) end}, {is_defined, fun(W) -> (m(W)):is_defined(K, T) end},
      {empty, fun(W) -> (m(W)):empty() end}, {is_empty, fun(W) -> (m(W)):is_empty(T) end}, {size, fun(W) -> (m(W)):size(T) end},
      {balance, fun(W) -> (m(W)):balance(T) end},
      {from_orddict, fun(W) -> (m(W)):from_orddict(OD) end},
      {from_orddict_bad, fun(W) -> (m(W)):from_orddict([a, b]) end},
      {to_list, fun(W) -> (m(W)):to_list(T) end}, {keys, fun(W) -> (m(W)):keys(T) end}, {values, fun(W) -> (m(W)):values(T) end},
      {smallest, fun(W) -> (m(W)):smallest(T) end}, {largest, fun(W) -> (m(W)):largest(T) end},
      {take_smallest, fun(W) -> (m(W)):take_smallest(T) end}, {take_largest, fun(W) -> (m(W)):take_largest(T) end},
      {iterator, fun(W) -> (m(W)):iterator(T) end}, {iterator_from, fun(W) -> (m(W)):iterator_from(K, T) end},
      {next, fun(W) -> (m(W)):next(It) end},
      {next2, fun(W) -> M = m(W), walk(M, M:iterator_from(K, T), 5) end},
      {map, fun(W) -> (m(W)):map(shape_check:logf2(fun(A, B) -> {A, B} end), T) end},
      {map_bad, fun(W) -> (m(W)):map(x, T) end}
    ],
    {Name, F} = lists:nth(rand:uniform(length(Ops)), Ops),
    {{Name, K, V, T}, F, fun({ok, {S, _} = R}, _) when is_integer(S), S < 80 -> R; ({ok, {_, _, {S, _} = R}}, _) when is_integer(S) -> R; ({ok, {_, {S, _} = R}}, _) when is_integer(S) -> R; (_, _) -> T end}.
walk(_, I, 0) -> I;
walk(M, I, N) -> case M:next(I) of none -> none; {K, V, I1} -> [{K, V} | walk(M, I1, N - 1)] end.
