%% 300,000 round trips between two processes: the densest event stream a
%% recording sees (every send and every receive is an event).
-module(pingpong_record).
-export([main/0]).

main() ->
    Self = self(),
    P = spawn(fun() -> pong() end),
    ping(P, 300000, Self),
    io:format("done~n").

ping(P, 0, _) -> P ! stop;
ping(P, N, Self) ->
    P ! {ping, Self, N},
    receive {pong, N} -> ok end,
    ping(P, N - 1, Self).

pong() ->
    receive
        {ping, From, N} -> From ! {pong, N}, pong();
        stop -> ok
    end.
