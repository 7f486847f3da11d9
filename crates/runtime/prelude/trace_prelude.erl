%% The engine's own helpers, compiled with every program.
-module(trace_prelude).
-export([apply/3]).

%% Processes spawned on a built-in or an undefined function start here.
apply(M, F, A) -> erlang:apply(M, F, A).
