%% The small example of Caballero et al. 2016 (§5.6, declarative debugging
%% of concurrent Erlang), in our own words, with a bug planted:
%% f(4) calls g(4), which spawns a process running i(Self) and waits in h
%% for its message {Pid, 3}; h should answer M + X = 7, but subtracts.
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
        {Pid, M} -> M - X                               % the bug: M + X
    end.

i(X) -> X ! {self(), 3}.
