%% The parent traps exits and links to a child that ends at once: it gets
%% {'EXIT', C, normal} if the link came first, {'EXIT', C, noproc}
%% otherwise, and only accepts the first.
%% explore: fails 1
%% interleavings: 2
-module(link_race).
-export([main/0]).

main() ->
    process_flag(trap_exit, true),
    C = spawn(fun() -> ok end),
    link(C),
    receive
        {'EXIT', C, normal} -> ok;
        {'EXIT', C, noproc} -> exit(missed_it)
    end.
