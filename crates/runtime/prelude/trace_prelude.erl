%% The engine's own helpers, compiled with every program.
-module(trace_prelude).
-export([apply/3, hibernate_wake/3]).

%% Processes spawned on a built-in or an undefined function start here.
apply(M, F, A) -> erlang:apply(M, F, A).

%% A hibernating process goes on here (its stack is gone, see
%% erlang:hibernate/3) once a message has arrived.
hibernate_wake(M, F, A) ->
    trace_prelude:await_message(),
    erlang:apply(M, F, A).
