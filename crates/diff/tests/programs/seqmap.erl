%% map of seed 002 (Fig. 3): a mapper computes the list in place and sends
%% it to the observer, the entry process.
-module(seqmap).
-export([main/0]).

main() ->
    Observer = self(),
    spawn(fun() -> Observer ! {result, map(fun(X) -> X + 1 end, [1, 2, 3, 4])} end),
    receive {result, R} -> io:format("~p~n", [R]) end.

map(_F, []) -> [];
map(F, [H | T]) -> [F(H) | map(F, T)].
