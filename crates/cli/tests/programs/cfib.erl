%% Concurrent Fibonacci of seed 000 (Fig. 2) with its bug: add/2 multiplies,
%% so cfib(N) is 0 for every N >= 2. Each cfib process spawns two children,
%% receives their results in whichever order they come, and sends the sum.
-module(cfib).
-export([main/0, cfib/2]).

main() ->
    spawn(?MODULE, cfib, [3, self()]),
    receive
        R -> io:format("~p~n", [R])
    end.

cfib(0, P) -> P ! 0;
cfib(1, P) -> P ! 1;
cfib(M, P) ->
    S = self(),
    spawn(?MODULE, cfib, [M - 1, S]),
    spawn(?MODULE, cfib, [M - 2, S]),
    receive
        A ->
            receive
                B -> P ! add(A, B)
            end
    end.

add(X, Y) -> X * Y.
