%% Output of several processes, in the order the schedule gives it. On BEAM
%% a write waits for the io server's reply, so the processes queued behind
%% the writer run before its next line: erl prints "after spawn",
%% "spawned runs", "sender continues", "receiver".
-module(print_order).
-export([main/0]).
main() ->
    P = spawn(fun() -> receive go -> io:format("receiver~n") end end),
    spawn(fun() -> io:format("spawned runs~n") end),
    io:format("after spawn~n"),
    P ! go,
    io:format("sender continues~n"),
    timer:sleep(10).
