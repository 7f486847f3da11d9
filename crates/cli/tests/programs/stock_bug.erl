%% The stock server of seed 001 without the guard N >= M: a take that
%% arrives before enough adds is answered with a negative stock, which happens
%% when the adds have not arrived yet.
-module(stock_bug).
-export([main/0, customer1/1, customer2/1]).

main() ->
    spawn(?MODULE, customer1, [self()]),
    spawn(?MODULE, customer2, [self()]),
    server(0).

server(N) ->
    receive
        {add, M} ->
            server(N + M);
        {del, M, C} ->
            K = N - M,
            C ! K,
            server(K);
        stop ->
            ok
    end.

customer1(S) ->
    S ! {add, 3},
    S ! {del, 10, self()},
    receive
        N -> io:format("Stock: ~p~n", [N])
    end,
    S ! stop.

customer2(S) ->
    S ! {add, 5},
    S ! {add, 1},
    S ! {add, 4}.
