%% Random operations on ordsets and orddict, on lists with 1 and 1.0 among
%% the elements and a few that are not sets or dictionaries.
-module(shape_ordered).
-export([main/1]).
m(orig, X) -> X; m(mine, ordsets) -> trace_ordsets; m(mine, orddict) -> trace_orddict.
main(Steps) ->
    shape_check:run(ordsets, Steps, [], fun sstep/1)
        + shape_check:run(orddict, Steps, [], fun dstep/1).
key() -> case rand:uniform(15) of 1 -> 3.0; _ -> rand:uniform(30) end.
rset() -> case rand:uniform(30) of 1 -> foo; 2 -> [3, 1]; 3 -> [1|2]; _ -> ordsets:from_list([key() || _ <- lists:seq(1, rand:uniform(15) - 1)]) end.
sstep(T0) ->
    T = case rand:uniform(100) of 1 -> foo; 2 -> [2, 1]; 3 -> [x | y]; _ -> T0 end,
    K = key(), S2 = rset(), S3 = rset(), L = [key() || _ <- lists:seq(1, rand:uniform(10))],
    Ops = [
      {new, fun(W) -> (m(W, ordsets)):new() end},
      {is_set, fun(W) -> (m(W, ordsets)):is_set(T) end}, {is_set2, fun(W) -> (m(W, ordsets)):is_set(L) end},
      {size, fun(W) -> (m(W, ordsets)):size(T) end}, {is_empty, fun(W) -> (m(W, ordsets)):is_empty(T) end},
      {to_list, fun(W) -> (m(W, ordsets)):to_list(T) end}, {from_list, fun(W) -> (m(W, ordsets)):from_list(L) end},
      {from_list_bad, fun(W) -> (m(W, ordsets)):from_list(S2) end},
      {is_element, fun(W) -> (m(W, ordsets)):is_element(K, T) end},
      {add_element, fun(W) -> (m(W, ordsets)):add_element(K, T) end}, {add_element, fun(W) -> (m(W, ordsets)):add_element(K, T) end},
      {del_element, fun(W) -> (m(W, ordsets)):del_element(K, T) end},
      {union, fun(W) -> (m(W, ordsets)):union(T, S2) end}, {unionl, fun(W) -> (m(W, ordsets)):union([T, S2, S3]) end},
      {unionl0, fun(W) -> (m(W, ordsets)):union([]) end},
      {intersection, fun(W) -> (m(W, ordsets)):intersection(T, S2) end}, {intersectionl, fun(W) -> (m(W, ordsets)):intersection([T, S2, S3]) end},
      {intersectionl0, fun(W) -> (m(W, ordsets)):intersection([]) end}, {intersectionl1, fun(W) -> (m(W, ordsets)):intersection([T]) end},
      {is_disjoint, fun(W) -> (m(W, ordsets)):is_disjoint(T, S2) end},
      {subtract, fun(W) -> (m(W, ordsets)):subtract(T, S2) end}, {subtract2, fun(W) -> (m(W, ordsets)):subtract(S2, T) end},
      {is_subset, fun(W) -> (m(W, ordsets)):is_subset(T, S2) end}, {is_subset2, fun(W) -> (m(W, ordsets)):is_subset(S2, T) end},
      {fold, fun(W) -> (m(W, ordsets)):fold(shape_check:logf2(fun(X, A) -> [X | A] end), [], T) end},
      {fold_bad, fun(W) -> (m(W, ordsets)):fold(x, [], T) end},
      {filter, fun(W) -> (m(W, ordsets)):filter(shape_check:logf(fun(X) -> X > K end), T) end},
      {filter_bad, fun(W) -> (m(W, ordsets)):filter(x, T) end}
    ],
    {Name, F} = lists:nth(rand:uniform(length(Ops)), Ops),
    {{Name, K, T, S2, S3}, F, fun({ok, R}, _) when is_list(R), length(R) < 50 -> R; (_, _) -> T end}.
rdict() -> case rand:uniform(30) of 1 -> foo; 2 -> [{3, a}, {1, b}]; 3 -> [a]; _ -> orddict:from_list([{key(), rand:uniform(5)} || _ <- lists:seq(1, rand:uniform(15) - 1)]) end.
dstep(T0) ->
    T = case rand:uniform(100) of 1 -> foo; 2 -> [{2, a}, {1, b}]; 3 -> [x | y]; _ -> T0 end,
    K = key(), V = rand:uniform(9), D2 = rdict(),
    L = case rand:uniform(20) of 1 -> [a]; 2 -> b; _ -> [{key(), rand:uniform(5)} || _ <- lists:seq(1, rand:uniform(10))] end,
    Ops = [
      {new, fun(W) -> (m(W, orddict)):new() end},
      {is_key, fun(W) -> (m(W, orddict)):is_key(K, T) end},
      {to_list, fun(W) -> (m(W, orddict)):to_list(T) end}, {from_list, fun(W) -> (m(W, orddict)):from_list(L) end},
      {size, fun(W) -> (m(W, orddict)):size(T) end}, {is_empty, fun(W) -> (m(W, orddict)):is_empty(T) end},
      {fetch, fun(W) -> (m(W, orddict)):fetch(K, T) end}, {find, fun(W) -> (m(W, orddict)):find(K, T) end},
      {fetch_keys, fun(W) -> (m(W, orddict)):fetch_keys(T) end},
      {erase, fun(W) -> (m(W, orddict)):erase(K, T) end}, {take, fun(W) -> (m(W, orddict)):take(K, T) end},
      {store, fun(W) -> (m(W, orddict)):store(K, V, T) end}, {store, fun(W) -> (m(W, orddict)):store(K, V, T) end},
      {append, fun(W) -> (m(W, orddict)):append(K, V, T) end}, {append_list, fun(W) -> (m(W, orddict)):append_list(K, [V, V], T) end},
      {update, fun(W) -> (m(W, orddict)):update(K, shape_check:logf(fun(X) -> {X} end), T) end},
      {update4, fun(W) -> (m(W, orddict)):update(K, shape_check:logf(fun(X) -> {X} end), init, T) end},
      {update_bad, fun(W) -> (m(W, orddict)):update(K, x, T) end}, {update4_bad, fun(W) -> (m(W, orddict)):update(K, x, i, T) end},
      {update_counter, fun(W) -> (m(W, orddict)):update_counter(K, V, T) end},
      {fold, fun(W) -> (m(W, orddict)):fold(fun(A, B, C) -> shape_check:log({A, B}), [A | C] end, [], T) end},
      {fold_bad, fun(W) -> (m(W, orddict)):fold(x, [], T) end},
      {map, fun(W) -> (m(W, orddict)):map(shape_check:logf2(fun(A, B) -> {A, B} end), T) end},
      {map_bad, fun(W) -> (m(W, orddict)):map(x, T) end},
      {filter, fun(W) -> (m(W, orddict)):filter(shape_check:logf2(fun(A, _) -> A > K end), T) end},
      {filter_bad, fun(W) -> (m(W, orddict)):filter(shape_check:logf2(fun(_, _) -> x end), T) end},
      {merge, fun(W) -> (m(W, orddict)):merge(fun(A, B, C) -> shape_check:log({A, B, C}), B + C end, T, D2) end},
      {merge_bad, fun(W) -> (m(W, orddict)):merge(x, T, D2) end}
    ],
    {Name, F} = lists:nth(rand:uniform(length(Ops)), Ops),
    {{Name, K, T, D2}, F, fun({ok, R}, _) when is_list(R), length(R) < 50 -> R; ({ok, {_, R}}, _) when is_list(R) -> R; (_, _) -> T end}.
