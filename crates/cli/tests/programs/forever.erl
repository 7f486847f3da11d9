%% Ping-pong forever, printing a line every 100,000 rounds: a recording that
%% only stops when it is killed or interrupted.
-module(forever).
-export([main/0]).

main() ->
    Self = self(),
    P = spawn(fun() -> pong() end),
    ping(P, 0, Self).

ping(P, N, Self) ->
    P ! {ping, Self, N},
    receive {pong, N} -> ok end,
    case N rem 100000 of 0 -> io:format("~p~n", [N]); _ -> ok end,
    ping(P, N + 1, Self).

pong() ->
    receive {ping, From, N} -> From ! {pong, N} end,
    pong().
