%% Benchmark: request/reply with a fresh reference per request and a
%% selective receive on it (the gen_server:call pattern), N round trips.
-module(pingpong).
-export([main/0, main/1]).

main() -> main(500000).

main(N) ->
    Server = spawn(fun server/0),
    ping(Server, N),
    Server ! stop,
    io:format("~p round trips~n", [N]).

ping(_, 0) -> ok;
ping(Server, N) ->
    Ref = make_ref(),
    Server ! {ping, self(), Ref},
    receive {pong, Ref} -> ping(Server, N - 1) end.

server() ->
    receive
        {ping, From, Ref} -> From ! {pong, Ref}, server();
        stop -> ok
    end.
