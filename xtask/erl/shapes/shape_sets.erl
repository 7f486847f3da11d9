%% Random operations on sets: both versions and their mixes, growing and
%% shrinking version 1's hash table.
-module(shape_sets).
-export([main/1]).
m(orig) -> sets; m(mine) -> trace_sets.
main(Steps) ->
    shape_check:run(sets, Steps, sets:new(), fun step/1).
key() -> case rand:uniform(20) of 1 -> 3.0; 2 -> {k, rand:uniform(5)}; 3 -> [rand:uniform(200)]; _ -> rand:uniform(200) end.
rset() -> V = rand:uniform(2), case rand:uniform(20) of 1 -> foo; _ -> sets:from_list([key() || _ <- lists:seq(1, rand:uniform(120) - 1)], [{version, V}]) end.
step(T0) ->
    T = case rand:uniform(500) of 1 -> foo; 2 -> sets:new(); 3 -> sets:from_list(lists:seq(1, rand:uniform(300))); 4 -> sets:new([{version, 2}]); _ -> T0 end,
    K = key(), S2 = rset(), S3 = rset(),
    L = case rand:uniform(20) of 1 -> [a|b]; 2 -> b; _ -> [key() || _ <- lists:seq(1, rand:uniform(10))] end,
    Many = rand:uniform(5) =:= 1,
    Ks = [key() || _ <- lists:seq(1, 20)],
    Opts = case rand:uniform(8) of 1 -> foo; 2 -> [{version, 3}]; 3 -> []; 4 -> [{version, 1}]; _ -> [{version, 2}] end,
    Ops = [
      {new, fun(W) -> (m(W)):new() end}, {new1, fun(W) -> (m(W)):new(Opts) end},
      {is_element, fun(W) -> (m(W)):is_element(K, T) end}, {is_set, fun(W) -> (m(W)):is_set(T) end},
      {to_list, fun(W) -> (m(W)):to_list(T) end}, {from_list, fun(W) -> (m(W)):from_list(L) end},
      {from_list2, fun(W) -> (m(W)):from_list(L, Opts) end},
      {size, fun(W) -> (m(W)):size(T) end}, {is_empty, fun(W) -> (m(W)):is_empty(T) end},
      {del_element, fun(W) -> (m(W)):del_element(K, T) end},
      {del_many, fun(W) -> M = m(W), lists:foldl(fun(X, A) -> M:del_element(X, A) end, T, Ks) end},
      {add_element, fun(W) -> (m(W)):add_element(K, T) end}, {add_element, fun(W) -> (m(W)):add_element(K, T) end},
      {add_many, fun(W) -> M = m(W), lists:foldl(fun(X, A) -> M:add_element(X, A) end, T, Ks) end},
      {union, fun(W) -> (m(W)):union(T, S2) end}, {union2, fun(W) -> (m(W)):union(S2, T) end},
      {unionl, fun(W) -> (m(W)):union([T, S2, S3]) end}, {unionl0, fun(W) -> (m(W)):union([]) end},
      {intersection, fun(W) -> (m(W)):intersection(T, S2) end}, {intersection2, fun(W) -> (m(W)):intersection(S2, T) end},
      {intersectionl, fun(W) -> (m(W)):intersection([T, S2, S3]) end}, {intersectionl0, fun(W) -> (m(W)):intersection([]) end},
      {subtract, fun(W) -> (m(W)):subtract(T, S2) end}, {subtract2, fun(W) -> (m(W)):subtract(S2, T) end},
      {is_disjoint, fun(W) -> (m(W)):is_disjoint(T, S2) end}, {is_disjoint2, fun(W) -> (m(W)):is_disjoint(S2, T) end},
      {is_subset, fun(W) -> (m(W)):is_subset(T, S2) end}, {is_subset2, fun(W) -> (m(W)):is_subset(S2, T) end},
      {fold, fun(W) -> (m(W)):fold(shape_check:logf2(fun(A, C) -> [A | C] end), [], T) end},
      {fold_bad, fun(W) -> (m(W)):fold(x, [], T) end},
      {filter, fun(W) -> (m(W)):filter(shape_check:logf(fun(A) -> Many orelse (A > K) end), T) end},
      {filter_bad, fun(W) -> (m(W)):filter(shape_check:logf(fun(_) -> x end), T) end},
      {filter_bad2, fun(W) -> (m(W)):filter(x, T) end}
    ],
    {Name, F} = lists:nth(rand:uniform(length(Ops)), Ops),
    {{Name, K, T, S2}, F, fun({ok, R}, _) when is_tuple(R), element(1, R) =:= set, element(2, R) < 400 -> R; ({ok, R}, _) when is_map(R), map_size(R) < 400 -> R; (_, _) -> T end}.
