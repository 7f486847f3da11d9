%% A request with a deadline kept by a timer: main takes the reply or the
%% timer's message, whichever is there first. With virtual timeouts the
%% timer may fire before the worker replies (no_reply); when the reply
%% wins, main ends and its end cancels the timer, so the timer takes no
%% step in that run: its race with the end must be seen for the other
%% order to be tried at all.
%% explore: fails 1
%% interleavings: 3
-module(timer_deadline).
-export([main/0]).

main() ->
    Self = self(),
    erlang:send_after(1000, Self, deadline),
    spawn(fun() -> Self ! {reply, 42} end),
    receive
        {reply, N} -> N;
        deadline -> exit(no_reply)
    end.
