%% fghi.erl with its bug fixed (h adds): the good run for the good-run
%% oracle. The module keeps its name so both runs have the same entry.
-module(fghi).
-export([main/0, i/1]).

main() ->
    io:format("f(4) = ~p~n", [f(4)]).

f(X) -> g(X).

g(X) ->
    Pid = spawn(?MODULE, i, [self()]),
    h(X, Pid).

h(X, Pid) ->
    receive
        {Pid, M} -> M + X
    end.

i(X) -> X ! {self(), 3}.
