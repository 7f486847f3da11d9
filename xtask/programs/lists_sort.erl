%% List-heavy: sorting (lists:sort, a comprehension quicksort, a merge sort
%% written in Erlang), comprehensions, map/filter/foldl, reverse and ++ on
%% pseudo-random integers.
-module(lists_sort).
-export([main/0]).

main() ->
    L = random_list(200000, 12345, []),
    S1 = lists:sort(L),
    S2 = qsort(lists:sublist(L, 100000)),
    S3 = msort(lists:sublist(L, 100000)),
    Squares = [X * X || X <- L, X rem 3 =:= 0],
    Pairs = [{X, Y} || X <- lists:seq(1, 300), Y <- lists:seq(1, 300), (X + Y) rem 7 =:= 0],
    Sum = lists:foldl(fun(X, Acc) -> X + Acc end, 0, lists:map(fun(X) -> X div 2 end, L)),
    Rev = lists:reverse(lists:filter(fun(X) -> X band 1 =:= 0 end, L)),
    U = lists:usort([X rem 1000 || X <- L]),
    K = lists:keysort(2, [{I, X rem 97} || {I, X} <- lists:zip(lists:seq(1, 50000), lists:sublist(L, 50000))]),
    io:format("~p~n", [[hd(S1), lists:last(S1), hd(S2), lists:last(S3), length(Squares),
                        length(Pairs), Sum, length(Rev), length(U), element(1, hd(K))]]).

%% A linear congruential generator, so erl and trace sort the same numbers.
random_list(0, _, Acc) -> Acc;
random_list(N, Seed, Acc) ->
    Next = (Seed * 1103515245 + 12345) rem 2147483648,
    random_list(N - 1, Next, [Next rem 1000000 | Acc]).

qsort([]) -> [];
qsort([P | T]) -> qsort([X || X <- T, X < P]) ++ [P | qsort([X || X <- T, X >= P])].

msort([]) -> [];
msort([X]) -> [X];
msort(L) ->
    {A, B} = lists:split(length(L) div 2, L),
    merge(msort(A), msort(B)).

merge([], B) -> B;
merge(A, []) -> A;
merge([X | Xs] = A, [Y | Ys] = B) ->
    if X =< Y -> [X | merge(Xs, B)];
       true -> [Y | merge(A, Ys)]
    end.
