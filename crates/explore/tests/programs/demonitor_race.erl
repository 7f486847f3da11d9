%% The parent monitors a child that ends at once, then demonitors it
%% without flush: a 'DOWN' that came first stays in the mailbox.
%% explore: fails 1
%% interleavings: 3
-module(demonitor_race).
-export([main/0]).

main() ->
    C = spawn(fun() -> ok end),
    Ref = monitor(process, C),
    demonitor(Ref),
    receive
        {'DOWN', Ref, process, _, _} -> exit(late_down)
    after 0 -> ok
    end.
