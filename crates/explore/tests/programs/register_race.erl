%% A child registers itself; the parent sends to the name. If the parent
%% runs first the name is not there yet and the send raises badarg.
%% explore: fails 1
%% interleavings: 2
-module(register_race).
-export([main/0]).

main() ->
    spawn(fun() -> register(child, self()), receive stop -> ok end end),
    child ! stop,
    ok.
