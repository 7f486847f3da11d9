%% A child sends hello; the parent takes it only if it is already there
%% (after 0), and gives up otherwise.
%% explore: fails 1
%% interleavings: 2
-module(after_zero).
-export([main/0]).

main() ->
    Self = self(),
    spawn(fun() -> Self ! hello end),
    receive
        hello -> ok
    after 0 -> exit(too_early)
    end.
