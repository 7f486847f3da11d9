%% Random operations on lists' r*merge functions on lists sorted in
%% descending order (with ties and 1 and 1.0), the fun versions' calls
%% included. (Unsorted lists are left out: the order they come out in
%% differs, see docs/library.md.)
-module(shape_lists).
-export([main/1]).
m(orig) -> lists; m(mine) -> trace_lists.
main(Steps) -> shape_check:run(lists, Steps, x, fun step/1).
el() -> case rand:uniform(6) of 1 -> 1.0; 2 -> 2.0; _ -> rand:uniform(6) end.
rl() -> case rand:uniform(25) of 1 -> [5,3,1]; 2 -> [1,1,1.0]; 3 -> [x, 1]; _ -> lists:reverse(lists:sort([el() || _ <- lists:seq(1, rand:uniform(6) - 1)])) end.
kl() -> case rand:uniform(25) of 1 -> [{3,1},{1,2}]; 2 -> [{1,a}]; 3 -> [{2,x}]; _ -> lists:reverse(lists:keysort(1, [{el(), rand:uniform(3)} || _ <- lists:seq(1, rand:uniform(6) - 1)])) end.
step(_) ->
    A = rl(), B = rl(), C = rl(), KA = kl(), KB = kl(), N = case rand:uniform(4) of 1 -> 0; _ -> 1 end,
    F = case rand:uniform(10) of 1 -> fun(X, Y) -> shape_check:log({X, Y}), X > Y end; 2 -> fun(X, Y) -> shape_check:log({X, Y}), X < Y end; _ -> fun(X, Y) -> shape_check:log({X, Y}), X =< Y end end,
    RF = case rand:uniform(10) of 1 -> fun(X, Y) -> shape_check:log({X, Y}), X < Y end; 2 -> fun(X, Y) -> shape_check:log({X, Y}), X > Y end; _ -> fun(X, Y) -> shape_check:log({X, Y}), X >= Y end end,
    Ops = [{rmerge, fun(W) -> (m(W)):rmerge(A, B) end}, {rumerge, fun(W) -> (m(W)):rumerge(A, B) end},
           {rmerge3, fun(W) -> (m(W)):rmerge3(A, B, C) end}, {rumerge3, fun(W) -> (m(W)):rumerge3(A, B, C) end},
           {rkeymerge, fun(W) -> (m(W)):rkeymerge(N, KA, KB) end}, {rukeymerge, fun(W) -> (m(W)):rukeymerge(N, KA, KB) end},
           {rmergef, fun(W) -> (m(W)):rmerge(F, A, B) end}, {rumergef, fun(W) -> (m(W)):rumerge(F, A, B) end},
           {rmergerf, fun(W) -> (m(W)):rmerge(RF, lists:reverse(A), lists:reverse(B)) end}, {rumergerf, fun(W) -> (m(W)):rumerge(RF, lists:reverse(A), lists:reverse(B)) end}],
    {Name, Op} = lists:nth(rand:uniform(length(Ops)), Ops),
    {{Name, A, B, C, KA, KB, N}, Op, fun(_, S) -> S end}.
