%% Two timers of 100 and 50 ms: their messages must arrive 50 ms one
%% first. With virtual timeouts either timer may fire first; with
%% --timeouts real the 50 ms one always does.
%% explore: fails 1
%% interleavings: 2
-module(timer_order).
-export([main/0]).

main() ->
    erlang:send_after(100, self(), second),
    erlang:send_after(50, self(), first),
    A = receive X -> X end,
    B = receive Y -> Y end,
    {first, second} = {A, B},
    ok.
