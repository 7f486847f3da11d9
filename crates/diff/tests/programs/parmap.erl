%% pmap of seed 002 (Fig. 4), in our own words: the mapper splits the list,
%% spawns a helper for the first half, maps the second half itself and
%% hands it to the helper, which sends the whole result to the observer.
%% The observer gets the same list as from seqmap, from another sender.
-module(parmap).
-export([main/0]).

main() ->
    Observer = self(),
    spawn(fun() -> pmap(Observer, fun(X) -> X + 1 end, [1, 2, 3, 4], 2) end),
    receive {result, R} -> io:format("~p~n", [R]) end.

pmap(Observer, F, L, I) ->
    {L1, L2} = lists:split(I, L),
    Helper = spawn(fun() ->
        Mine = map(F, L1),
        receive {rest, Rest} -> Observer ! {result, Mine ++ Rest} end
    end),
    Helper ! {rest, map(F, L2)}.

map(_F, []) -> [];
map(F, [H | T]) -> [F(H) | map(F, T)].
