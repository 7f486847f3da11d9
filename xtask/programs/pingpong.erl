%% Benchmark: request/reply with a fresh reference per request and a
%% selective receive on it (the gen_server:call pattern), N round trips,
%% while Noise unrelated messages wait in the caller's mailbox (the receive
%% must pass over them; BEAM's receive marker lets it start after them).
-module(pingpong).
-export([main/0, main/2]).

main() -> main(500000, 100).

main(N, Noise) ->
    Server = spawn(fun server/0),
    [self() ! {unrelated, I} || I <- count(Noise)],
    ping(Server, N),
    Server ! stop,
    Left = length(flush()),
    io:format("~p round trips, ~p other messages left waiting~n", [N, Left]).

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

count(0) -> [];
count(K) -> [K | count(K - 1)].

flush() ->
    receive M -> [M | flush()] after 0 -> [] end.
