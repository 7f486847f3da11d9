%% array: functional arrays as OTP 25 represents them, so that an array
%% prints and compares as on BEAM: {array, Size, Max, Default, Tree}.
%%
%% The tree has a fan-out of 10. A leaf is a tuple of 10 entries; a node is
%% a tuple of 10 subtrees followed by the capacity of each subtree; a subtree
%% nobody has written to is just its capacity (an integer), read as the
%% default everywhere. The whole tree's capacity is the smallest power of 10
%% (at least 10) that holds the array, and grows tenfold at a time, the old
%% tree becoming the first subtree of a new root. Max is that capacity for
%% an array that grows on demand, 0 for one of fixed size. Shrinking an array
%% only lowers Size (entries past it stay in the tree, as on BEAM). Indices
%% are integers from 0; anything else, or an index past a fixed size, is
%% badarg.
-module(array).
-export([new/0, new/1, new/2, is_array/1, size/1, default/1, fix/1,
         is_fix/1, relax/1, resize/1, resize/2, set/3, get/2, reset/2,
         to_list/1, sparse_to_list/1, to_orddict/1, sparse_to_orddict/1,
         from_list/1, from_list/2, from_orddict/1, from_orddict/2,
         sparse_size/1, map/2, sparse_map/2, foldl/3, foldr/3,
         sparse_foldl/3, sparse_foldr/3]).

-define(LEAF, 10).

-record(array, {size, max, default, elements}).

%% --- Making arrays ---------------------------------------------------------------

new() -> new([]).

new(Options) -> make(Options, 0, false).

new(Size, Options) when is_integer(Size), Size >= 0 -> make(Options, Size, true);
new(Size, Options) -> erlang:error(badarg, [Size, Options]).

make(Options, Size, Fixed) when is_list(Options) -> options(Options, Size, Fixed, undefined);
make(Option, Size, Fixed) -> options([Option], Size, Fixed, undefined).

options([N | Os], _, _, Default) when is_integer(N), N >= 0 -> options(Os, N, true, Default);
options([{size, N} | Os], _, _, Default) when is_integer(N), N >= 0 -> options(Os, N, true, Default);
options([fixed | Os], Size, _, Default) -> options(Os, Size, true, Default);
options([{fixed, F} | Os], Size, _, Default) when is_boolean(F) -> options(Os, Size, F, Default);
options([{default, D} | Os], Size, Fixed, _) -> options(Os, Size, Fixed, D);
options([], Size, Fixed, Default) ->
    Cap = capacity_for(Size),
    #array{size = Size, max = max_for(Fixed, Cap), default = Default, elements = Cap};
options(Os, Size, Fixed, Default) -> erlang:error(badarg, [Os, Size, Fixed, Default]).

max_for(true, _) -> 0;
max_for(false, Cap) -> Cap.

%% The smallest power of 10, at least 10, that holds Size entries.
capacity_for(Size) -> capacity_for(Size, ?LEAF).

capacity_for(Size, Cap) when Size > Cap -> capacity_for(Size, Cap * 10);
capacity_for(_, Cap) -> Cap.

from_list(L) -> from_list(L, undefined).

from_list([], Default) -> #array{size = 0, max = ?LEAF, default = Default, elements = ?LEAF};
from_list(L, Default) when is_list(L) ->
    Size = try length(L) catch error:badarg -> erlang:error(badarg, [L, Default]) end,
    Cap = capacity_for(Size),
    {Tree, []} = build_list(Cap, L, Default),
    #array{size = Size, max = Cap, default = Default, elements = Tree};
from_list(L, Default) -> erlang:error(badarg, [L, Default]).

%% A tree of capacity Cap holding the front of a list: leaves padded with
%% the default, subtrees past the list's end left empty.
build_list(Cap, [], _) -> {Cap, []};
build_list(?LEAF, L, Default) -> take_leaf(?LEAF, L, Default, []);
build_list(Cap, L, Default) ->
    Child = Cap div 10,
    {Children, Rest} = build_children(10, Child, L, Default, []),
    {list_to_tuple(Children ++ [Child]), Rest}.

build_children(0, _, L, _, Acc) -> {lists:reverse(Acc), L};
build_children(K, Child, L, Default, Acc) ->
    {T, Rest} = build_list(Child, L, Default),
    build_children(K - 1, Child, Rest, Default, [T | Acc]).

take_leaf(0, L, _, Acc) -> {list_to_tuple(lists:reverse(Acc)), L};
take_leaf(K, [X | L], Default, Acc) -> take_leaf(K - 1, L, Default, [X | Acc]);
take_leaf(K, [], Default, Acc) -> take_leaf(K - 1, [], Default, [Default | Acc]).

from_orddict(L) -> from_orddict(L, undefined).

from_orddict([], Default) -> from_list([], Default);
from_orddict(L, Default) when is_list(L) ->
    Size = check_orddict(L, -1) + 1,
    Tree = build_nodes(orddict_leaves(L, 0, Default), ?LEAF),
    #array{size = Size, max = capacity_for(Size), default = Default, elements = Tree};
from_orddict(L, Default) -> erlang:error(badarg, [L, Default]).

%% The last index of a list of {Index, Value} with indices rising from 0;
%% where it goes wrong, {badarg, TheRest}.
check_orddict([{I, _} | L], Prev) when is_integer(I), I > Prev -> check_orddict(L, I);
check_orddict([], Prev) -> Prev;
check_orddict(Bad, _) -> erlang:error({badarg, Bad}).

%% The leaves from index Pos on, up to the last entry's. A gap of more than
%% a leaf's width before the next entry becomes empty leaves; a gap of
%% exactly one leaf becomes a leaf of defaults, as on BEAM.
orddict_leaves([], _, _) -> [];
orddict_leaves([{I, _} | _] = L, Pos, Default) when I - Pos > ?LEAF ->
    Skip = (I - Pos) div ?LEAF,
    lists:duplicate(Skip, ?LEAF) ++ orddict_leaves(L, Pos + Skip * ?LEAF, Default);
orddict_leaves(L, Pos, Default) ->
    {Leaf, Rest} = leaf_pairs(0, Pos, L, Default, []),
    [Leaf | orddict_leaves(Rest, Pos + ?LEAF, Default)].

leaf_pairs(?LEAF, _, L, _, Acc) -> {list_to_tuple(lists:reverse(Acc)), L};
leaf_pairs(K, Base, [{I, V} | L], Default, Acc) when I =:= Base + K ->
    leaf_pairs(K + 1, Base, L, Default, [V | Acc]);
leaf_pairs(K, Base, L, Default, Acc) -> leaf_pairs(K + 1, Base, L, Default, [Default | Acc]).

%% Groups subtrees of capacity Child by ten into nodes, level by level, up
%% to one root; a node of empty subtrees is empty itself.
build_nodes([Root], _) -> Root;
build_nodes(Trees, Child) -> build_nodes(group(Trees, Child), Child * 10).

group([], _) -> [];
group(Trees, Child) ->
    {Ten, Rest} = take_ten(Trees, 10, []),
    Children = Ten ++ lists:duplicate(10 - length(Ten), Child),
    Node = case lists:all(fun is_integer/1, Children) of
               true -> Child * 10;
               false -> list_to_tuple(Children ++ [Child])
           end,
    [Node | group(Rest, Child)].

take_ten(Rest, 0, Acc) -> {lists:reverse(Acc), Rest};
take_ten([T | Ts], K, Acc) -> take_ten(Ts, K - 1, [T | Acc]);
take_ten([], _, Acc) -> {lists:reverse(Acc), []}.

%% --- Properties ---------------------------------------------------------------------

is_array(#array{}) -> true;
is_array(_) -> false.

size(#array{size = Size}) -> Size;
size(A) -> erlang:error(badarg, [A]).

default(#array{default = Default}) -> Default;
default(A) -> erlang:error(badarg, [A]).

fix(#array{} = A) -> A#array{max = 0}.

is_fix(#array{max = 0}) -> true;
is_fix(#array{}) -> false.

%% Max comes from the size, whatever the tree's capacity, as on BEAM.
relax(#array{size = N} = A) -> A#array{max = capacity_for(N)}.

resize(Size, #array{size = N, max = Max, elements = E} = A) when is_integer(Size), Size >= 0 ->
    if
        Size > N ->
            %% A fixed array's tree is taken to be as large as its old size
            %% needs, whatever it really holds, as on BEAM.
            Cap0 = case Max of
                       0 -> capacity_for(N);
                       _ -> Max
                   end,
            {E1, Cap} = grow(Size - 1, E, Cap0),
            A#array{size = Size, max = max_for(Max =:= 0, Cap), elements = E1};
        true ->
            A#array{size = Size}
    end;
resize(Size, A) -> erlang:error(badarg, [Size, A]).

resize(A) -> resize(sparse_size(A), A).

%% A tree that holds index I, given the capacity Cap it is taken to have:
%% an empty tree just gets large enough; a real one becomes the first
%% subtree of a new root as often as needed.
grow(I, E, _) when is_integer(E) ->
    Cap = capacity_for(I + 1, E),
    {Cap, Cap};
grow(I, E, Cap) when I >= Cap ->
    grow(I, list_to_tuple([E | lists:duplicate(10, Cap)]), Cap * 10);
grow(_, E, Cap) -> {E, Cap}.

%% --- Entries ---------------------------------------------------------------------------

set(I, V, #array{size = N, max = Max, default = D, elements = E} = A)
  when is_integer(I), I >= 0 ->
    if
        I < N ->
            A#array{elements = set_in(I, E, D, V)};
        I < Max ->
            A#array{size = I + 1, elements = set_in(I, E, D, V)};
        Max > 0 ->
            {E1, Max1} = grow(I, E, Max),
            A#array{size = I + 1, max = Max1, elements = set_in(I, E1, D, V)};
        true ->
            erlang:error(badarg, [I, V, A])
    end;
set(I, V, A) -> erlang:error(badarg, [I, V, A]).

%% An empty subtree on the way is made real: a leaf of defaults, or a node
%% of empty subtrees.
set_in(I, ?LEAF, D, V) -> setelement(I + 1, erlang:make_tuple(?LEAF, D), V);
set_in(I, Cap, D, V) when is_integer(Cap) ->
    Child = Cap div 10,
    set_in(I, erlang:make_tuple(?LEAF + 1, Child), D, V);
set_in(I, Leaf, _, V) when tuple_size(Leaf) =:= ?LEAF -> setelement(I + 1, Leaf, V);
set_in(I, Node, D, V) ->
    Child = element(?LEAF + 1, Node),
    K = I div Child + 1,
    setelement(K, Node, set_in(I rem Child, element(K, Node), D, V)).

get(I, #array{size = N, max = Max, default = D, elements = E}) when is_integer(I), I >= 0 ->
    if
        I < N -> get_in(I, E, D);
        Max > 0 -> D;
        true -> erlang:error(badarg, [I, E])
    end;
get(I, A) -> erlang:error(badarg, [I, A]).

get_in(_, Cap, D) when is_integer(Cap) -> D;
get_in(I, Leaf, _) when tuple_size(Leaf) =:= ?LEAF -> element(I + 1, Leaf);
get_in(I, Node, D) ->
    Child = element(?LEAF + 1, Node),
    get_in(I rem Child, element(I div Child + 1, Node), D).

%% Back to the default; an empty subtree stays empty.
reset(I, #array{size = N, max = Max, default = D, elements = E} = A) when is_integer(I), I >= 0 ->
    if
        I < N -> A#array{elements = reset_in(I, E, D)};
        Max > 0 -> A;
        true -> erlang:error(badarg, [I, A])
    end;
reset(I, A) -> erlang:error(badarg, [I, A]).

reset_in(_, Cap, _) when is_integer(Cap) -> Cap;
reset_in(I, Leaf, D) when tuple_size(Leaf) =:= ?LEAF -> setelement(I + 1, Leaf, D);
reset_in(I, Node, D) ->
    Child = element(?LEAF + 1, Node),
    K = I div Child + 1,
    setelement(K, Node, reset_in(I rem Child, element(K, Node), D)).

%% --- Whole arrays -----------------------------------------------------------------------

to_list(A) -> foldr(fun(_, V, Acc) -> [V | Acc] end, [], A).

sparse_to_list(A) -> sparse_foldr(fun(_, V, Acc) -> [V | Acc] end, [], A).

to_orddict(A) -> foldr(fun(I, V, Acc) -> [{I, V} | Acc] end, [], A).

sparse_to_orddict(A) -> sparse_foldr(fun(I, V, Acc) -> [{I, V} | Acc] end, [], A).

sparse_size(#array{size = N, default = D, elements = E}) -> last_set(E, 0, N, D) + 1;
sparse_size(A) -> erlang:error(badarg, [A]).

%% The highest index below N whose entry differs from the default, or -1.
last_set(_, Base, N, _) when Base >= N -> -1;
last_set(Cap, _, _, _) when is_integer(Cap) -> -1;
last_set(Leaf, Base, N, D) when tuple_size(Leaf) =:= ?LEAF ->
    last_in_leaf(Leaf, Base, erlang:min(?LEAF, N - Base), D);
last_set(Node, Base, N, D) ->
    Child = element(?LEAF + 1, Node),
    last_in_node(Node, Base, Child, 10, N, D).

last_in_leaf(_, _, 0, _) -> -1;
last_in_leaf(Leaf, Base, K, D) ->
    case element(K, Leaf) of
        D -> last_in_leaf(Leaf, Base, K - 1, D);
        _ -> Base + K - 1
    end.

last_in_node(_, _, _, 0, _, _) -> -1;
last_in_node(Node, Base, Child, K, N, D) ->
    case last_set(element(K, Node), Base + (K - 1) * Child, N, D) of
        -1 -> last_in_node(Node, Base, Child, K - 1, N, D);
        I -> I
    end.

foldl(F, Acc, #array{size = N, default = D, elements = E}) when is_function(F, 3) ->
    fold_up(E, 0, N, F, Acc, D, false);
foldl(F, Acc, A) -> erlang:error(badarg, [F, Acc, A]).

sparse_foldl(F, Acc, #array{size = N, default = D, elements = E}) when is_function(F, 3) ->
    fold_up(E, 0, N, F, Acc, D, true);
sparse_foldl(F, Acc, A) -> erlang:error(badarg, [F, Acc, A]).

foldr(F, Acc, #array{size = N, default = D, elements = E}) when is_function(F, 3) ->
    fold_down(E, 0, N, F, Acc, D, false);
foldr(F, Acc, A) -> erlang:error(badarg, [F, Acc, A]).

sparse_foldr(F, Acc, #array{size = N, default = D, elements = E}) when is_function(F, 3) ->
    fold_down(E, 0, N, F, Acc, D, true);
sparse_foldr(F, Acc, A) -> erlang:error(badarg, [F, Acc, A]).

%% The entries of a subtree starting at index Base, below N, rising; Sparse
%% leaves out those equal to the default.
fold_up(_, Base, N, _, Acc, _, _) when Base >= N -> Acc;
fold_up(Cap, _, _, _, Acc, _, true) when is_integer(Cap) -> Acc;
fold_up(Cap, Base, N, F, Acc, D, false) when is_integer(Cap) ->
    defaults_up(Base, erlang:min(Base + Cap, N), F, Acc, D);
fold_up(Leaf, Base, N, F, Acc, D, Sparse) when tuple_size(Leaf) =:= ?LEAF ->
    leaf_up(Leaf, 1, Base, erlang:min(?LEAF, N - Base), F, Acc, D, Sparse);
fold_up(Node, Base, N, F, Acc, D, Sparse) ->
    Child = element(?LEAF + 1, Node),
    node_up(Node, 1, Base, Child, N, F, Acc, D, Sparse).

defaults_up(I, End, F, Acc, D) when I < End -> defaults_up(I + 1, End, F, F(I, D, Acc), D);
defaults_up(_, _, _, Acc, _) -> Acc.

leaf_up(_, K, _, Last, _, Acc, _, _) when K > Last -> Acc;
leaf_up(Leaf, K, Base, Last, F, Acc, D, Sparse) ->
    Acc1 = case element(K, Leaf) of
               D when Sparse -> Acc;
               V -> F(Base + K - 1, V, Acc)
           end,
    leaf_up(Leaf, K + 1, Base, Last, F, Acc1, D, Sparse).

node_up(_, 11, _, _, _, _, Acc, _, _) -> Acc;
node_up(Node, K, Base, Child, N, F, Acc, D, Sparse) ->
    Acc1 = fold_up(element(K, Node), Base + (K - 1) * Child, N, F, Acc, D, Sparse),
    node_up(Node, K + 1, Base, Child, N, F, Acc1, D, Sparse).

%% The same, falling.
fold_down(_, Base, N, _, Acc, _, _) when Base >= N -> Acc;
fold_down(Cap, _, _, _, Acc, _, true) when is_integer(Cap) -> Acc;
fold_down(Cap, Base, N, F, Acc, D, false) when is_integer(Cap) ->
    defaults_down(erlang:min(Base + Cap, N) - 1, Base, F, Acc, D);
fold_down(Leaf, Base, N, F, Acc, D, Sparse) when tuple_size(Leaf) =:= ?LEAF ->
    leaf_down(Leaf, erlang:min(?LEAF, N - Base), Base, F, Acc, D, Sparse);
fold_down(Node, Base, N, F, Acc, D, Sparse) ->
    Child = element(?LEAF + 1, Node),
    node_down(Node, 10, Base, Child, N, F, Acc, D, Sparse).

defaults_down(I, First, F, Acc, D) when I >= First -> defaults_down(I - 1, First, F, F(I, D, Acc), D);
defaults_down(_, _, _, Acc, _) -> Acc.

leaf_down(_, 0, _, _, Acc, _, _) -> Acc;
leaf_down(Leaf, K, Base, F, Acc, D, Sparse) ->
    Acc1 = case element(K, Leaf) of
               D when Sparse -> Acc;
               V -> F(Base + K - 1, V, Acc)
           end,
    leaf_down(Leaf, K - 1, Base, F, Acc1, D, Sparse).

node_down(_, 0, _, _, _, _, Acc, _, _) -> Acc;
node_down(Node, K, Base, Child, N, F, Acc, D, Sparse) ->
    Acc1 = fold_down(element(K, Node), Base + (K - 1) * Child, N, F, Acc, D, Sparse),
    node_down(Node, K - 1, Base, Child, N, F, Acc1, D, Sparse).

%% Every entry below Size, rising; empty subtrees below Size are made real.
map(F, #array{size = N, default = D, elements = E} = A) when is_function(F, 2) ->
    A#array{elements = map_tree(F, E, 0, N, D)};
map(F, A) -> erlang:error(badarg, [F, A]).

map_tree(_, T, Base, N, _) when Base >= N -> T;
map_tree(F, ?LEAF, Base, N, D) -> map_tree(F, erlang:make_tuple(?LEAF, D), Base, N, D);
map_tree(F, Cap, Base, N, D) when is_integer(Cap) ->
    map_tree(F, erlang:make_tuple(?LEAF + 1, Cap div 10), Base, N, D);
map_tree(F, Leaf, Base, N, D) when tuple_size(Leaf) =:= ?LEAF ->
    list_to_tuple(clear_past(map_leaf(F, tuple_to_list(Leaf), Base, N), Base, N, D));
map_tree(F, Node, Base, N, D) ->
    Child = element(?LEAF + 1, Node),
    list_to_tuple(map_children(F, tuple_to_list(Node), Base, Child, N, D)).

map_leaf(F, [V | Vs], I, N) when I < N ->
    V1 = F(I, V),
    [V1 | map_leaf(F, Vs, I + 1, N)];
map_leaf(_, Vs, _, _) -> Vs.

%% Entries past the size in the last leaf become the default.
clear_past(Vs, I, N, D) ->
    [case J < N of true -> V; false -> D end || {J, V} <- lists:zip(lists:seq(I, I + length(Vs) - 1), Vs)].

map_children(_, [Child], _, Child, _, _) -> [Child];
map_children(F, [T | Ts], Base, Child, N, D) ->
    T1 = map_tree(F, T, Base, N, D),
    [T1 | map_children(F, Ts, Base + Child, Child, N, D)].

%% Entries that differ from the default in the leaves that reach below
%% Size (the last one whole, as on BEAM); empty subtrees stay.
sparse_map(F, #array{size = N, default = D, elements = E} = A) when is_function(F, 2) ->
    A#array{elements = sparse_map_tree(F, E, 0, N, D)};
sparse_map(F, A) -> erlang:error(badarg, [F, A]).

sparse_map_tree(_, T, Base, N, _) when Base >= N -> T;
sparse_map_tree(_, Cap, _, _, _) when is_integer(Cap) -> Cap;
sparse_map_tree(F, Leaf, Base, N, D) when tuple_size(Leaf) =:= ?LEAF ->
    list_to_tuple(sparse_map_leaf(F, tuple_to_list(Leaf), Base, N, D));
sparse_map_tree(F, Node, Base, N, D) ->
    Child = element(?LEAF + 1, Node),
    list_to_tuple(sparse_map_children(F, tuple_to_list(Node), Base, Child, N, D)).

sparse_map_leaf(F, [V | Vs], I, N, D) ->
    V1 = case V of
             D -> D;
             _ -> F(I, V)
         end,
    [V1 | sparse_map_leaf(F, Vs, I + 1, N, D)];
sparse_map_leaf(_, [], _, _, _) -> [].

sparse_map_children(_, [Child], _, Child, _, _) -> [Child];
sparse_map_children(F, [T | Ts], Base, Child, N, D) ->
    T1 = sparse_map_tree(F, T, Base, N, D),
    [T1 | sparse_map_children(F, Ts, Base + Child, Child, N, D)].
