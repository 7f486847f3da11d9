%% Benchmark: N processes alive at once, each suspended in receive; then
%% all are told to stop. Measures spawning at scale and memory per process.
-module(idle).
-export([main/0, main/1]).

main() -> main(1000000).

main(N) ->
    Me = self(),
    Ps = start(N, Me, []),
    wait(N),
    io:format("~p processes waiting in receive~n", [N]),
    stop(Ps),
    wait(N).

start(0, _, Acc) -> Acc;
start(K, Me, Acc) ->
    P = spawn(fun() -> Me ! up, receive stop -> Me ! down end end),
    start(K - 1, Me, [P | Acc]).

stop([]) -> ok;
stop([P | Ps]) -> P ! stop, stop(Ps).

wait(0) -> ok;
wait(K) -> receive _ -> wait(K - 1) end.
