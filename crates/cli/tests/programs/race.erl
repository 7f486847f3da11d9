%% Two processes race to message the entry, which expects `a` before `b`:
%% the result is {a, b} or {b, a} depending on scheduling.
-module(race).
-export([main/0]).

main() ->
    Self = self(),
    spawn(fun() -> Self ! a end),
    spawn(fun() -> Self ! b end),
    receive X -> receive Y -> io:format("~p then ~p~n", [X, Y]), {X, Y} end end.
