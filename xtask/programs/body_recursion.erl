%% Body recursion: functions that are not tail recursive (the natural way
%% to write map, append or a length count in Erlang), a million calls deep,
%% so the process stack grows and shrinks by a million frames.
-module(body_recursion).
-export([main/0]).

main() ->
    L = lists:seq(1, 1000000),
    Doubled = double(L),
    Len = len(Doubled),
    Sum = sum(Doubled),
    Evens = evens(L),
    io:format("~p~n", [[Len, Sum, length(Evens), depth(1000000)]]).

double([H | T]) -> [2 * H | double(T)];
double([]) -> [].

len([_ | T]) -> 1 + len(T);
len([]) -> 0.

sum([H | T]) -> H + sum(T);
sum([]) -> 0.

evens([H | T]) when H rem 2 =:= 0 -> [H | evens(T)];
evens([_ | T]) -> evens(T);
evens([]) -> [].

depth(0) -> 0;
depth(N) -> 1 + depth(N - 1).
