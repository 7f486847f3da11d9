%% The parent asks whether a child that ends at once is still alive: it is
%% in some interleavings and not in others; the parent insists it is.
%% explore: fails 1
%% interleavings: 2
-module(alive_race).
-export([main/0]).

main() ->
    C = spawn(fun() -> ok end),
    true = is_process_alive(C),
    ok.
