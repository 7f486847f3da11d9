%% Two senders race to one mailbox; the receiver takes whatever came
%% first and is fine with either. Clean, in two interleavings.
%% explore: clean
%% interleavings: 2
-module(first_wins).
-export([main/0]).

main() ->
    Self = self(),
    spawn(fun() -> Self ! a end),
    spawn(fun() -> Self ! b end),
    receive X when X == a; X == b -> ok end,
    receive Y when Y == a; Y == b -> ok end.
