%% N independent senders to one mailbox, each message taken by a pattern
%% that names its sender: the arrival order never matters, so one
%% interleaving stands for all N! (the benchmark runs N = 2..8).
%% explore: clean
%% interleavings: 1
-module(senders).
-export([main/0, main/1]).

main() -> main(3).

main(N) ->
    Self = self(),
    Ps = [spawn(fun() -> Self ! {self(), I} end) || I <- lists:seq(1, N)],
    [receive {P, _} -> ok end || P <- Ps],
    ok.
