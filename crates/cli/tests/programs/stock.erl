%% The stock server of seed 001 (Fig. 1): customers add to and take from a
%% stock; a take {del, M, C} is served only when the stock is at least M
%% (the guard N >= M), so the server never answers a negative stock.
-module(stock).
-export([main/0, customer1/1, customer2/1]).

main() ->
    spawn(?MODULE, customer1, [self()]),
    spawn(?MODULE, customer2, [self()]),
    server(0).

server(N) ->
    receive
        {add, M} ->
            server(N + M);
        {del, M, C} when N >= M ->
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
