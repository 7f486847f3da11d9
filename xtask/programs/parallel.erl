%% Benchmark: K independent CPU-bound processes (naive fib), to see the
%% scheduler threads run processes in parallel.
-module(parallel).
-export([main/0, main/2]).

main() -> main(8, 30).

main(K, N) ->
    Me = self(),
    start(K, N, Me),
    Sum = collect(K, 0),
    io:format("~p~n", [Sum]).

start(0, _, _) -> ok;
start(K, N, Me) ->
    spawn(fun() -> Me ! {fib, fib(N)} end),
    start(K - 1, N, Me).

collect(0, Acc) -> Acc;
collect(K, Acc) -> receive {fib, F} -> collect(K - 1, Acc + F) end.

fib(0) -> 0;
fib(1) -> 1;
fib(N) -> fib(N - 1) + fib(N - 2).
