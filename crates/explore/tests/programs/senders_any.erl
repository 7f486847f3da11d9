%% N senders to one mailbox, messages taken in arrival order: every order
%% is a different run (the list it returns), so all N! are explored.
%% explore: clean
%% interleavings: 6
-module(senders_any).
-export([main/0, main/1]).

main() -> main(3).

main(N) ->
    Self = self(),
    [spawn(fun() -> Self ! I end) || I <- lists:seq(1, N)],
    [receive I -> I end || _ <- lists:seq(1, N)].
