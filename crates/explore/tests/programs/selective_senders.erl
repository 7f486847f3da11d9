%% Three senders to one mailbox, each taken by its own pattern: every
%% order of arrival ends the same. Clean.
%% explore: clean
%% interleavings: 1
-module(selective_senders).
-export([main/0]).

main() ->
    Self = self(),
    Ps = [spawn(fun() -> Self ! {self(), I} end) || I <- [1, 2, 3]],
    [receive {P, I} -> I end || P <- Ps],
    ok.
