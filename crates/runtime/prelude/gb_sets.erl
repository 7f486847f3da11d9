%% gb_sets: ordered sets as general balanced trees, in the shape OTP 25 gives
%% them, so that a set prints and compares as on BEAM. A set is
%% {Size, Node}; a node is {Element, Smaller, Bigger} or nil. Elements are
%% compared with < and > (1 and 1.0 are the same element).
%%
%% Insertion rebalances as gb_trees does (the lowest subtree that grew too
%% deep for its size is rebuilt); deletion never does. Union, intersection
%% and difference walk both sets as sorted lists and rebuild, unless one set
%% is so much larger than the other that looking each element of the small
%% one up in the large one is cheaper.
-module(gb_sets).
-export([empty/0, new/0, is_empty/1, size/1, singleton/1, is_member/2,
         is_element/2, insert/2, add/2, add_element/2, delete/2,
         delete_any/2, del_element/2, balance/1, union/2, union/1,
         intersection/2, intersection/1, is_disjoint/2, difference/2,
         subtract/2, is_subset/2, to_list/1, from_list/1, from_ordset/1,
         smallest/1, largest/1, take_smallest/1, take_largest/1,
         iterator/1, iterator_from/2, next/1, filter/2, fold/3, is_set/1]).

empty() -> {0, nil}.

new() -> empty().

is_empty({0, nil}) -> true;
is_empty(_) -> false.

size({Size, _}) -> Size.

singleton(X) -> {1, {X, nil, nil}}.

is_element(X, {_, Node}) -> member(X, Node).

is_member(X, Set) -> is_element(X, Set).

member(X, {X1, Smaller, _}) when X < X1 -> member(X, Smaller);
member(X, {X1, _, Bigger}) when X > X1 -> member(X, Bigger);
member(_, {_, _, _}) -> true;
member(_, nil) -> false.

%% --- Insertion and deletion -----------------------------------------------------

insert(X, {Size, Node}) ->
    Size1 = Size + 1,
    {Size1, insert_node(X, Node, Size1 * Size1)}.

%% As gb_trees: a leaf placed where the budget (halved per level) has run
%% out carries {Node, DoubledHeight, Size} back up until a subtree too high
%% for its size is found and rebuilt. (A node is a 3-tuple too, but never
%% has an integer in second place.)
insert_node(X, {X1, Smaller, Bigger}, Budget) when X < X1 ->
    case insert_node(X, Smaller, Budget bsr 1) of
        {Smaller1, H1, S1} when is_integer(H1) ->
            {H2, S2} = measure(Bigger),
            rebalance_if_deep({X1, Smaller1, Bigger}, H1, H2, S1 + S2 + 1);
        Smaller1 ->
            {X1, Smaller1, Bigger}
    end;
insert_node(X, {X1, Smaller, Bigger}, Budget) when X > X1 ->
    case insert_node(X, Bigger, Budget bsr 1) of
        {Bigger1, H1, S1} when is_integer(H1) ->
            {H2, S2} = measure(Smaller),
            rebalance_if_deep({X1, Smaller, Bigger1}, H1, H2, S1 + S2 + 1);
        Bigger1 ->
            {X1, Smaller, Bigger1}
    end;
insert_node(X, nil, 0) -> {{X, nil, nil}, 1, 1};
insert_node(X, nil, _) -> {X, nil, nil};
insert_node(X, _, _) -> erlang:error({key_exists, X}).

rebalance_if_deep(Node, H1, H2, Size) ->
    H = 2 * erlang:max(H1, H2),
    case H > Size * Size of
        true -> rebuild(Node, Size);
        false -> {Node, H, Size}
    end.

%% {DoubledHeight, Size} of a subtree.
measure({_, nil, nil}) -> {1, 1};
measure({_, Smaller, Bigger}) ->
    {H1, S1} = measure(Smaller),
    {H2, S2} = measure(Bigger),
    {2 * erlang:max(H1, H2), S1 + S2 + 1};
measure(nil) -> {1, 0}.

add_element(X, Set) ->
    case is_element(X, Set) of
        true -> Set;
        false -> insert(X, Set)
    end.

add(X, Set) -> add_element(X, Set).

delete(X, {Size, Node}) when is_integer(Size), Size >= 0 ->
    {Size - 1, delete_node(X, Node)}.

delete_node(X, {X1, Smaller, Bigger}) when X < X1 -> {X1, delete_node(X, Smaller), Bigger};
delete_node(X, {X1, Smaller, Bigger}) when X > X1 -> {X1, Smaller, delete_node(X, Bigger)};
delete_node(_, {_, Smaller, Bigger}) -> join(Smaller, Bigger).

join(Smaller, nil) -> Smaller;
join(nil, Bigger) -> Bigger;
join(Smaller, Bigger) ->
    {X, Bigger1} = cut_smallest(Bigger),
    {X, Smaller, Bigger1}.

delete_any(X, Set) ->
    case is_element(X, Set) of
        true -> delete(X, Set);
        false -> Set
    end.

del_element(X, Set) -> delete_any(X, Set).

%% --- Building ------------------------------------------------------------------

balance({Size, Node}) -> {Size, rebuild(Node, Size)}.

rebuild(Node, Size) -> from_sorted(to_list(Node, []), Size).

from_ordset(L) ->
    Size = length(L),
    {Size, from_sorted(L, Size)}.

from_list(L) -> from_ordset(ordsets:from_list(L)).

%% A perfectly balanced tree of the first Size elements of a sorted list;
%% the smaller side takes the larger half when the rest is odd.
from_sorted(L, Size) ->
    {Node, []} = build(L, Size),
    Node.

build(L, Size) when Size > 1 ->
    Rest = Size - 1,
    Right = Rest div 2,
    {Smaller, [X | L1]} = build(L, Rest - Right),
    {Bigger, L2} = build(L1, Right),
    {{X, Smaller, Bigger}, L2};
build([X | L], 1) -> {{X, nil, nil}, L};
build(L, 0) -> {nil, L}.

%% The same from a list sorted largest first: here the bigger side takes the
%% larger half.
from_reversed(L, Size) ->
    {Node, _} = build_reversed(L, Size),
    Node.

build_reversed(L, Size) when Size > 1 ->
    Rest = Size - 1,
    Left = Rest div 2,
    {Bigger, [X | L1]} = build_reversed(L, Rest - Left),
    {Smaller, L2} = build_reversed(L1, Left),
    {{X, Smaller, Bigger}, L2};
build_reversed([X | L], 1) -> {{X, nil, nil}, L};
build_reversed(L, 0) -> {nil, L}.

to_list({_, Node}) -> to_list(Node, []).

to_list({X, Smaller, Bigger}, Acc) -> to_list(Smaller, [X | to_list(Bigger, Acc)]);
to_list(nil, Acc) -> Acc.

%% --- Set algebra ----------------------------------------------------------------

%% Whether a set of size Big should be searched element by element (true)
%% rather than merged as a sorted list, given Small elements to look for.
search_large(Small, Big) ->
    Big >= 10 andalso Big >= Small * round(1.46 * math:log(Big)).

union({N1, T1}, {N2, T2}) when N2 < N1 -> union_sorted(to_list(T2, []), N2, T1, N1);
union({N1, T1}, {N2, T2}) -> union_sorted(to_list(T1, []), N1, T2, N2).

union_sorted(L, N1, T2, N2) ->
    case search_large(N1, N2) of
        true -> lists:foldl(fun add_element/2, {N2, T2}, L);
        false -> merge_union(L, to_list(T2, []), [], N1 + N2)
    end.

%% Merges two sorted lists into a reversed one; of two equal elements the
%% one from the list in first position is kept (the lists change places
%% when the second is ahead). Size counts the duplicates out.
merge_union([X | Xs], [Y | _] = Ys, Acc, Size) when X < Y ->
    merge_union(Xs, Ys, [X | Acc], Size);
merge_union([X | _] = Xs, [Y | Ys], Acc, Size) when X > Y ->
    merge_union(Ys, Xs, [Y | Acc], Size);
merge_union([X | Xs], [_ | Ys], Acc, Size) ->
    merge_union(Xs, Ys, [X | Acc], Size - 1);
merge_union([], Ys, Acc, Size) -> {Size, from_reversed(lists:reverse(Ys, Acc), Size)};
merge_union(Xs, [], Acc, Size) -> {Size, from_reversed(lists:reverse(Xs, Acc), Size)}.

union([S | Ss]) -> lists:foldl(fun(S1, Acc) -> union(Acc, S1) end, S, Ss);
union([]) -> empty().

intersection({N1, T1}, {N2, T2}) when N2 < N1 ->
    intersection_sorted(to_list(T2, []), N2, T1, N1);
intersection({N1, T1}, {N2, T2}) ->
    intersection_sorted(to_list(T1, []), N1, T2, N2).

intersection_sorted(L, N1, T2, N2) ->
    case search_large(N1, N2) of
        true ->
            Kept = [X || X <- L, member(X, T2)],
            reversed_set(lists:reverse(Kept));
        false ->
            merge_intersection(L, to_list(T2, []), [], 0)
    end.

merge_intersection([X | Xs], [Y | _] = Ys, Acc, Size) when X < Y ->
    merge_intersection(Xs, Ys, Acc, Size);
merge_intersection([X | _] = Xs, [Y | Ys], Acc, Size) when X > Y ->
    merge_intersection(Ys, Xs, Acc, Size);
merge_intersection([X | Xs], [_ | Ys], Acc, Size) ->
    merge_intersection(Xs, Ys, [X | Acc], Size + 1);
merge_intersection([], _, Acc, Size) -> {Size, from_reversed(Acc, Size)};
merge_intersection(_, [], Acc, Size) -> {Size, from_reversed(Acc, Size)}.

reversed_set(Rev) ->
    Size = length(Rev),
    {Size, from_reversed(Rev, Size)}.

intersection([S | Ss]) -> lists:foldl(fun(S1, Acc) -> intersection(Acc, S1) end, S, Ss).

is_disjoint({N1, T1}, {N2, T2}) when N1 < N2 -> disjoint(T1, T2);
is_disjoint({_, T1}, {_, T2}) -> disjoint(T2, T1).

%% No element of the first tree is in the second.
disjoint(nil, _) -> true;
disjoint(_, nil) -> true;
disjoint({X, Smaller, Bigger}, T2) ->
    not member(X, T2) andalso disjoint(Smaller, T2) andalso disjoint(Bigger, T2).

difference({N1, T1}, {N2, T2}) ->
    L = to_list(T1, []),
    case search_large(N1, N2) of
        true -> reversed_set(lists:reverse([X || X <- L, not member(X, T2)]));
        false -> merge_difference(L, to_list(T2, []), [], N1)
    end.

merge_difference([X | Xs], [Y | _] = Ys, Acc, Size) when X < Y ->
    merge_difference(Xs, Ys, [X | Acc], Size);
merge_difference([X | _] = Xs, [Y | Ys], Acc, Size) when X > Y ->
    merge_difference(Xs, Ys, Acc, Size);
merge_difference([_ | Xs], [_ | Ys], Acc, Size) ->
    merge_difference(Xs, Ys, Acc, Size - 1);
merge_difference([], _, Acc, Size) -> {Size, from_reversed(Acc, Size)};
merge_difference(Xs, [], Acc, Size) -> {Size, from_reversed(lists:reverse(Xs, Acc), Size)}.

subtract(S1, S2) -> difference(S1, S2).

is_subset({_, T1}, {_, T2}) -> subset(T1, T2).

subset(nil, _) -> true;
subset({X, Smaller, Bigger}, T2) ->
    member(X, T2) andalso subset(Smaller, T2) andalso subset(Bigger, T2).

%% --- Ends, iterators, higher-order -------------------------------------------------

smallest({_, Node}) -> smallest_node(Node).

smallest_node({X, nil, _}) -> X;
smallest_node({_, Smaller, _}) -> smallest_node(Smaller).

largest({_, Node}) -> largest_node(Node).

largest_node({X, _, nil}) -> X;
largest_node({_, _, Bigger}) -> largest_node(Bigger).

take_smallest({Size, Node}) ->
    {X, Node1} = cut_smallest(Node),
    {X, {Size - 1, Node1}}.

cut_smallest({X, nil, Bigger}) -> {X, Bigger};
cut_smallest({X, Smaller, Bigger}) ->
    {X1, Smaller1} = cut_smallest(Smaller),
    {X1, {X, Smaller1, Bigger}}.

take_largest({Size, Node}) ->
    {X, Node1} = cut_largest(Node),
    {X, {Size - 1, Node1}}.

cut_largest({X, Smaller, nil}) -> {X, Smaller};
cut_largest({X, Smaller, Bigger}) ->
    {X1, Bigger1} = cut_largest(Bigger),
    {X1, {X, Smaller, Bigger1}}.

iterator({_, Node}) -> descend(Node, []).

descend({_, nil, _} = Node, Path) -> [Node | Path];
descend({_, Smaller, _} = Node, Path) -> descend(Smaller, [Node | Path]);
descend(nil, Path) -> Path.

iterator_from(X, {_, Node}) -> descend_from(X, Node, []).

descend_from(X, {X1, _, Bigger}, Path) when X1 < X -> descend_from(X, Bigger, Path);
descend_from(_, {_, nil, _} = Node, Path) -> [Node | Path];
descend_from(X, {_, Smaller, _} = Node, Path) -> descend_from(X, Smaller, [Node | Path]);
descend_from(_, nil, Path) -> Path.

next([{X, _, Bigger} | Path]) -> {X, descend(Bigger, Path)};
next([]) -> none.

filter(Pred, Set) -> from_ordset([X || X <- to_list(Set), Pred(X)]).

fold(F, Acc, {_, Node}) when is_function(F, 2) -> fold_node(F, Acc, Node).

fold_node(F, Acc, {X, Smaller, Bigger}) ->
    fold_node(F, F(X, fold_node(F, Acc, Smaller)), Bigger);
fold_node(_, Acc, _) -> Acc.

is_set({0, nil}) -> true;
is_set({Size, {_, _, _}}) when is_integer(Size), Size >= 0 -> true;
is_set(_) -> false.
