%% Processes known by registered names: `server` answers numbers, `worker`
%% is held by one process, then another.
-module(registered).
-export([main/0]).

server() ->
    receive
        {From, N} -> From ! {reply, N * 2}, server();
        stop -> ok
    end.

worker() ->
    receive stop -> ok end.

main() ->
    register(server, spawn(fun server/0)),
    [begin server ! {self(), N}, receive {reply, R} -> io:format("~p~n", [R]) end end
     || N <- [1, 2, 3]],
    server ! stop,
    W1 = spawn(fun worker/0),
    register(worker, W1),
    unregister(worker),
    W1 ! stop,
    register(worker, spawn(fun worker/0)),
    worker ! stop,
    ok.
