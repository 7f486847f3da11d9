%% main sets a timer for itself and cancels it at once; it crashes if
%% the timer's message is there all the same. With virtual timeouts the
%% timer may fire before the cancel (cancel_timer then says false);
%% with --timeouts real it cannot, for no time passes in between.
%% explore: fails 1
%% interleavings: 2
-module(cancel_race).
-export([main/0]).

main() ->
    T = erlang:send_after(10, self(), tick),
    Left = erlang:cancel_timer(T),
    receive
        tick -> exit({ticked, Left})
    after 0 -> ok
    end.
