%% A worker takes `go` if it is already there (after 0), and gives up
%% otherwise; its parent sends `go` right after spawning it.
%% explore: fails 1
%% interleavings: 2
-module(late_go).
-export([main/0]).

main() ->
    W = spawn(fun() -> receive go -> ok after 0 -> exit(too_early) end end),
    W ! go.
