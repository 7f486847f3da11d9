%% Benchmark: K independent ping-pong pairs, each making R round trips;
%% no process talks to another pair, so the pairs can run in parallel.
-module(pairs).
-export([main/0, main/2]).

main() -> main(16, 20000).

main(K, R) ->
    Me = self(),
    start(K, R, Me),
    wait(K),
    io:format("~p round trips~n", [K * R]).

start(0, _, _) -> ok;
start(K, R, Me) ->
    Pong = spawn(fun pong/0),
    spawn(fun() -> ping(Pong, R), Me ! done end),
    start(K - 1, R, Me).

ping(Pong, 0) -> Pong ! stop;
ping(Pong, R) ->
    Pong ! {ping, self()},
    receive pong -> ping(Pong, R - 1) end.

pong() ->
    receive
        {ping, From} -> From ! pong, pong();
        stop -> ok
    end.

wait(0) -> ok;
wait(K) -> receive done -> wait(K - 1) end.
