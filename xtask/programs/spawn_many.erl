%% Benchmark: N short-lived processes, each spawned, sending one message
%% and ending.
-module(spawn_many).
-export([main/0, main/1]).

main() -> main(200000).

main(N) ->
    Me = self(),
    start(N, Me),
    wait(N),
    io:format("~p processes~n", [N]).

start(0, _) -> ok;
start(K, Me) ->
    spawn(fun() -> Me ! done end),
    start(K - 1, Me).

wait(0) -> ok;
wait(K) -> receive done -> wait(K - 1) end.
