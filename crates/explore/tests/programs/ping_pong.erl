%% A server answers three pings in turn. Clean.
%% explore: clean
%% interleavings: 1
-module(ping_pong).
-export([main/0]).

main() ->
    S = spawn(fun loop/0),
    [begin S ! {ping, self()}, receive pong -> ok end end || _ <- [1, 2, 3]],
    S ! stop,
    ok.

loop() ->
    receive
        {ping, From} -> From ! pong, loop();
        stop -> ok
    end.
