%% Random operations on gb_sets: as gb_trees, plus the set algebra against
%% random other sets (which takes either of OTP's two ways depending on the
%% sizes).
-module(shape_gb_sets).
-export([main/1]).
m(orig) -> gb_sets; m(mine) -> trace_gb_sets.
main(Steps) ->
    shape_check:run(gb_sets, Steps, gb_sets:empty(), fun step/1).
key() -> case rand:uniform(15) of 1 -> 3.0; _ -> rand:uniform(60) end.
rset() -> N = rand:uniform(40) - 1, L = [key() || _ <- lists:seq(1, N)],
    case rand:uniform(3) of 1 -> gb_sets:from_list(L); _ -> lists:foldl(fun gb_sets:add/2, gb_sets:new(), L) end.
step(T0) ->
    T = case rand:uniform(400) of 1 -> foo; 2 -> gb_sets:empty(); 3 -> foo; 4 -> gb_sets:from_list(lists:seq(1, rand:uniform(30))); _ -> T0 end,
    K = key(), V = rand:uniform(100),
    It = catch gb_sets:iterator(T),
    S2 = rset(), S3 = rset(), L = [key() || _ <- lists:seq(1, V rem 20)],
    Ops = [
      {insert, fun(W) -> (m(W)):insert(K, T) end}, {add, fun(W) -> (m(W)):add(K, T) end}, {add_element, fun(W) -> (m(W)):add_element(K, T) end},
      {delete, fun(W) -> (m(W)):delete(K, T) end}, {delete_any, fun(W) -> (m(W)):delete_any(K, T) end}, {del_element, fun(W) -> (m(W)):del_element(K, T) end},
      {is_member, fun(W) -> (m(W)):is_member(K, T) end}, {is_element, fun(W) -> (m(W)):is_element(K, T) end},
      {empty, fun(W) -> (m(W)):empty() end}, {new, fun(W) -> (m(W)):new() end}, {is_empty, fun(W) -> (m(W)):is_empty(T) end}, {size, fun(W) -> (m(W)):size(T) end},
      {singleton, fun(W) -> (m(W)):singleton(K) end},
      {balance, fun(W) -> (m(W)):balance(T) end},
      {from_list, fun(W) -> (m(W)):from_list(L) end}, {from_list_bad, fun(W) -> (m(W)):from_list(a) end},
      {from_ordset, fun(W) -> (m(W)):from_ordset(lists:usort(L)) end},
      {to_list, fun(W) -> (m(W)):to_list(T) end},
      {smallest, fun(W) -> (m(W)):smallest(T) end}, {largest, fun(W) -> (m(W)):largest(T) end},
      {take_smallest, fun(W) -> (m(W)):take_smallest(T) end}, {take_largest, fun(W) -> (m(W)):take_largest(T) end},
      {iterator, fun(W) -> (m(W)):iterator(T) end}, {iterator_from, fun(W) -> (m(W)):iterator_from(K, T) end},
      {next, fun(W) -> (m(W)):next(It) end},
      {next2, fun(W) -> M = m(W), walk(M, M:iterator_from(K, T), 5) end},
      {union, fun(W) -> (m(W)):union(T, S2) end}, {union2, fun(W) -> (m(W)):union(S2, T) end},
      {unionl, fun(W) -> (m(W)):union([T, S2, S3]) end}, {unionl0, fun(W) -> (m(W)):union([]) end},
      {intersection, fun(W) -> (m(W)):intersection(T, S2) end}, {intersection2, fun(W) -> (m(W)):intersection(S2, T) end},
      {intersectionl, fun(W) -> (m(W)):intersection([T, S2, S3]) end}, {intersectionl0, fun(W) -> (m(W)):intersection([]) end},
      {difference, fun(W) -> (m(W)):difference(T, S2) end}, {subtract, fun(W) -> (m(W)):subtract(S2, T) end},
      {is_disjoint, fun(W) -> (m(W)):is_disjoint(T, S2) end}, {is_disjoint2, fun(W) -> (m(W)):is_disjoint(S2, T) end},
      {is_subset, fun(W) -> (m(W)):is_subset(T, S2) end}, {is_subset2, fun(W) -> (m(W)):is_subset(S2, T) end},
      {is_subset3, fun(W) -> (m(W)):is_subset(gb_sets:intersection(T, S2), T) end},
      {filter, fun(W) -> (m(W)):filter(shape_check:logf(fun(X) -> X > K end), T) end},
      {filter_bad, fun(W) -> (m(W)):filter(shape_check:logf(fun(X) -> x end), T) end},
      {fold, fun(W) -> (m(W)):fold(shape_check:logf2(fun(X, A) -> [X | A] end), [], T) end},
      {fold_bad, fun(W) -> (m(W)):fold(x, [], T) end},
      {is_set, fun(W) -> (m(W)):is_set(T) end}, {is_set2, fun(W) -> (m(W)):is_set({1, nil}) end}
    ],
    {Name, F} = lists:nth(rand:uniform(length(Ops)), Ops),
    {{Name, K, V, T, S2}, F, fun({ok, R}, _) -> case valid(R) of true -> R; false -> case R of {_, R2} -> case valid(R2) of true -> R2; false -> T end; _ -> T end end; (_, _) -> T end}.
valid({S, _} = R) when is_integer(S), S < 80 -> gb_sets:is_set(R) andalso length(gb_sets:to_list(R)) =:= S; valid(_) -> false.
walk(_, I, 0) -> I;
walk(M, I, N) -> case M:next(I) of none -> none; {K, I1} -> [K | walk(M, I1, N - 1)] end.
