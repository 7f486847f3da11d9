%% A worker says it is ready after waiting 10 ms; main gives it 1000 ms.
%% With virtual timeouts main's `after` may fire first (too_slow); with
%% --timeouts real it cannot, for the worker's 10 ms run out first.
%% explore: fails 1
%% interleavings: 2
-module(slow_ready).
-export([main/0]).

main() ->
    Self = self(),
    spawn(fun() -> receive after 10 -> Self ! ready end end),
    receive
        ready -> ok
    after 1000 -> exit(too_slow)
    end.
