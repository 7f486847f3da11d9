%% Random operations on dict: stores, erasures and filters that grow and
%% shrink the hash table past 80 keys, and every other function.
-module(shape_dict).
-export([main/1]).
m(orig) -> dict; m(mine) -> trace_dict.
main(Steps) ->
    shape_check:run(dict, Steps, dict:new(), fun step/1).
key() -> case rand:uniform(20) of 1 -> 3.0; 2 -> {k, rand:uniform(5)}; 3 -> [rand:uniform(200)]; _ -> rand:uniform(200) end.
rdict() -> case rand:uniform(20) of 1 -> foo; _ -> dict:from_list([{key(), rand:uniform(5)} || _ <- lists:seq(1, rand:uniform(120) - 1)]) end.
step(T0) ->
    T = case rand:uniform(500) of 1 -> foo; 2 -> dict:new(); 3 -> dict:from_list([{K, K} || K <- lists:seq(1, rand:uniform(300))]); _ -> T0 end,
    K = key(), V = rand:uniform(9), D2 = rdict(),
    L = case rand:uniform(20) of 1 -> [a]; 2 -> b; _ -> [{key(), rand:uniform(5)} || _ <- lists:seq(1, rand:uniform(10))] end,
    Many = rand:uniform(5) =:= 1,
    Ks = [key() || _ <- lists:seq(1, 20)],
    Ops = [
      {new, fun(W) -> (m(W)):new() end},
      {is_key, fun(W) -> (m(W)):is_key(K, T) end},
      {to_list, fun(W) -> (m(W)):to_list(T) end}, {from_list, fun(W) -> (m(W)):from_list(L) end},
      {size, fun(W) -> (m(W)):size(T) end}, {is_empty, fun(W) -> (m(W)):is_empty(T) end},
      {fetch, fun(W) -> (m(W)):fetch(K, T) end}, {find, fun(W) -> (m(W)):find(K, T) end},
      {fetch_keys, fun(W) -> (m(W)):fetch_keys(T) end},
      {erase, fun(W) -> (m(W)):erase(K, T) end}, {take, fun(W) -> (m(W)):take(K, T) end},
      {erase_many, fun(W) -> M = m(W), lists:foldl(fun(X, A) -> M:erase(X, A) end, T, Ks) end},
      {store, fun(W) -> (m(W)):store(K, V, T) end}, {store, fun(W) -> (m(W)):store(K, V, T) end},
      {store_many, fun(W) -> M = m(W), lists:foldl(fun(X, A) -> M:store(X, x, A) end, T, Ks) end},
      {append, fun(W) -> (m(W)):append(K, V, T) end}, {append_list, fun(W) -> (m(W)):append_list(K, [V, V], T) end},
      {update, fun(W) -> (m(W)):update(K, shape_check:logf(fun(X) -> {X} end), T) end},
      {update4, fun(W) -> (m(W)):update(K, shape_check:logf(fun(X) -> {X} end), init, T) end},
      {update_bad, fun(W) -> (m(W)):update(K, x, T) end}, {update4_bad, fun(W) -> (m(W)):update(K, x, i, T) end},
      {update_counter, fun(W) -> (m(W)):update_counter(K, V, T) end},
      {update_counter_bad, fun(W) -> (m(W)):update_counter(K, x, T) end},
      {fold, fun(W) -> (m(W)):fold(fun(A, B, C) -> shape_check:log({A, B}), [A | C] end, [], T) end},
      {fold_bad, fun(W) -> (m(W)):fold(x, [], T) end},
      {map, fun(W) -> (m(W)):map(shape_check:logf2(fun(A, B) -> {A, B} end), T) end},
      {map_bad, fun(W) -> (m(W)):map(x, T) end},
      {filter, fun(W) -> (m(W)):filter(shape_check:logf2(fun(A, _) -> Many orelse (A > K) end), T) end},
      {filter_bad, fun(W) -> (m(W)):filter(shape_check:logf2(fun(_, _) -> x end), T) end},
      {filter_bad2, fun(W) -> (m(W)):filter(x, T) end},
      {merge, fun(W) -> (m(W)):merge(fun(A, B, C) -> shape_check:log({A, B, C}), {B, C} end, T, D2) end},
      {merge2, fun(W) -> (m(W)):merge(fun(A, B, C) -> shape_check:log({A, B, C}), {B, C} end, D2, T) end},
      {merge_bad, fun(W) -> (m(W)):merge(x, T, D2) end}
    ],
    {Name, F} = lists:nth(rand:uniform(length(Ops)), Ops),
    {{Name, K, T, D2}, F, fun({ok, R}, _) when element(1, R) =:= dict, element(2, R) < 400 -> R; ({ok, {_, R}}, _) when element(1, R) =:= dict -> R; (_, _) -> T end}.
