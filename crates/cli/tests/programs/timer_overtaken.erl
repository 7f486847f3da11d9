%% A timer's message is sent (and named) when the timer starts but arrives
%% when it fires: here after a message sent later by the same process.
-module(timer_overtaken).
-export([main/0]).

main() ->
    Me = self(),
    erlang:send_after(30, Me, late),
    Me ! early,
    receive early -> ok end,
    receive late -> ok end,
    io:format("done~n").
