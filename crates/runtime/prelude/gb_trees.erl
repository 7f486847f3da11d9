%% gb_trees: Andersson's general balanced trees, in the shape OTP 25 gives
%% them, so that a tree prints and compares as on BEAM. A tree is
%% {Size, Node}; a node is {Key, Value, Smaller, Bigger} or nil. Keys are
%% compared with < and > (1 and 1.0 are the same key).
%%
%% Insertion does not rebalance on every step: it lets a path grow until
%% its height passes the bound the tree's size allows (2^h > size^2 in the
%% doubled heights counted below), then rebuilds the lowest subtree that is
%% too deep, perfectly balanced. Deletion never rebalances. Operations are
%% O(log n) amortised. A key that is not there, where one is needed, ends in
%% function_clause as on BEAM; inserting a key twice raises {key_exists, K}.
-module(gb_trees).
-export([empty/0, is_empty/1, size/1, lookup/2, get/2, is_defined/2,
         insert/3, update/3, enter/3, delete/2, delete_any/2, take/2,
         take_any/2, balance/1, from_orddict/1, to_list/1, keys/1,
         values/1, smallest/1, largest/1, take_smallest/1, take_largest/1,
         iterator/1, iterator_from/2, next/1, map/2]).

empty() -> {0, nil}.

is_empty({0, nil}) -> true;
is_empty(_) -> false.

size({Size, _}) when is_integer(Size), Size >= 0 -> Size.

lookup(Key, {_, Node}) -> lookup_node(Key, Node).

lookup_node(Key, {Key1, _, Smaller, _}) when Key < Key1 -> lookup_node(Key, Smaller);
lookup_node(Key, {Key1, _, _, Bigger}) when Key > Key1 -> lookup_node(Key, Bigger);
lookup_node(_, {_, Value, _, _}) -> {value, Value};
lookup_node(_, nil) -> none.

get(Key, {_, Node}) -> fetch(Key, Node).

%% A missing key ends in function_clause (no clause for nil).
fetch(Key, {Key1, _, Smaller, _}) when Key < Key1 -> fetch(Key, Smaller);
fetch(Key, {Key1, _, _, Bigger}) when Key > Key1 -> fetch(Key, Bigger);
fetch(_, {_, Value, _, _}) -> Value.

is_defined(Key, {_, Node}) -> lookup_node(Key, Node) =/= none.

%% --- Insertion -----------------------------------------------------------------

insert(Key, Value, {Size, Node}) when is_integer(Size), Size >= 0 ->
    Size1 = Size + 1,
    {Size1, insert_node(Key, Value, Node, Size1 * Size1)}.

%% Budget halves at each level down; a new leaf placed where it has run out
%% is too deep, and the way back up then carries {Node, DoubledHeight, Size}
%% until a subtree is found that is too high for its size, which is rebuilt.
insert_node(Key, Value, {Key1, V1, Smaller, Bigger}, Budget) when Key < Key1 ->
    case insert_node(Key, Value, Smaller, Budget bsr 1) of
        {Smaller1, H1, S1} ->
            {H2, S2} = measure(Bigger),
            rebalance_if_deep({Key1, V1, Smaller1, Bigger}, H1, H2, S1 + S2 + 1);
        Smaller1 ->
            {Key1, V1, Smaller1, Bigger}
    end;
insert_node(Key, Value, {Key1, V1, Smaller, Bigger}, Budget) when Key > Key1 ->
    case insert_node(Key, Value, Bigger, Budget bsr 1) of
        {Bigger1, H1, S1} ->
            {H2, S2} = measure(Smaller),
            rebalance_if_deep({Key1, V1, Smaller, Bigger1}, H1, H2, S1 + S2 + 1);
        Bigger1 ->
            {Key1, V1, Smaller, Bigger1}
    end;
insert_node(Key, Value, nil, 0) -> {{Key, Value, nil, nil}, 1, 1};
insert_node(Key, Value, nil, _) -> {Key, Value, nil, nil};
insert_node(Key, _, _, _) -> erlang:error({key_exists, Key}).

rebalance_if_deep(Node, H1, H2, Size) ->
    H = 2 * erlang:max(H1, H2),
    case H > Size * Size of
        true -> rebuild(Node, Size);
        false -> {Node, H, Size}
    end.

%% {DoubledHeight, Size} of a subtree.
measure({_, _, nil, nil}) -> {1, 1};
measure({_, _, Smaller, Bigger}) ->
    {H1, S1} = measure(Smaller),
    {H2, S2} = measure(Bigger),
    {2 * erlang:max(H1, H2), S1 + S2 + 1};
measure(nil) -> {1, 0}.

update(Key, Value, {Size, Node}) -> {Size, update_node(Key, Value, Node)}.

update_node(Key, Value, {Key1, V, Smaller, Bigger}) when Key < Key1 ->
    {Key1, V, update_node(Key, Value, Smaller), Bigger};
update_node(Key, Value, {Key1, V, Smaller, Bigger}) when Key > Key1 ->
    {Key1, V, Smaller, update_node(Key, Value, Bigger)};
update_node(Key, Value, {_, _, Smaller, Bigger}) ->
    {Key, Value, Smaller, Bigger}.

enter(Key, Value, Tree) ->
    case is_defined(Key, Tree) of
        true -> update(Key, Value, Tree);
        false -> insert(Key, Value, Tree)
    end.

%% --- Deletion -------------------------------------------------------------------

delete(Key, {Size, Node}) when is_integer(Size), Size >= 0 ->
    {Size - 1, delete_node(Key, Node)}.

delete_node(Key, {Key1, V, Smaller, Bigger}) when Key < Key1 ->
    {Key1, V, delete_node(Key, Smaller), Bigger};
delete_node(Key, {Key1, V, Smaller, Bigger}) when Key > Key1 ->
    {Key1, V, Smaller, delete_node(Key, Bigger)};
delete_node(_, {_, _, Smaller, Bigger}) -> join(Smaller, Bigger).

%% The two subtrees of a removed node, as one: the smallest of Bigger takes
%% the node's place.
join(Smaller, nil) -> Smaller;
join(nil, Bigger) -> Bigger;
join(Smaller, Bigger) ->
    {Key, Value, Bigger1} = cut_smallest(Bigger),
    {Key, Value, Smaller, Bigger1}.

delete_any(Key, Tree) ->
    case is_defined(Key, Tree) of
        true -> delete(Key, Tree);
        false -> Tree
    end.

take(Key, {Size, Node}) when is_integer(Size), Size >= 0 ->
    {Value, Node1} = take_node(Key, Node),
    {Value, {Size - 1, Node1}}.

take_node(Key, {Key1, V, Smaller, Bigger}) when Key < Key1 ->
    {Value, Smaller1} = take_node(Key, Smaller),
    {Value, {Key1, V, Smaller1, Bigger}};
take_node(Key, {Key1, V, Smaller, Bigger}) when Key > Key1 ->
    {Value, Bigger1} = take_node(Key, Bigger),
    {Value, {Key1, V, Smaller, Bigger1}};
take_node(_, {_, Value, Smaller, Bigger}) -> {Value, join(Smaller, Bigger)}.

take_any(Key, Tree) ->
    case is_defined(Key, Tree) of
        true -> take(Key, Tree);
        false -> error
    end.

%% --- Balancing and lists ----------------------------------------------------------

balance({Size, Node}) -> {Size, rebuild(Node, Size)}.

rebuild(Node, Size) -> from_pairs(to_list(Node, []), Size).

from_orddict(Pairs) ->
    Size = length(Pairs),
    {Size, from_pairs(Pairs, Size)}.

%% A perfectly balanced tree of the first Size pairs of a sorted list; the
%% smaller side takes the larger half when the rest is odd.
from_pairs(Pairs, Size) ->
    {Node, []} = build(Pairs, Size),
    Node.

build(Pairs, Size) when Size > 1 ->
    Rest = Size - 1,
    Right = Rest div 2,
    {Smaller, [{Key, Value} | Pairs1]} = build(Pairs, Rest - Right),
    {Bigger, Pairs2} = build(Pairs1, Right),
    {{Key, Value, Smaller, Bigger}, Pairs2};
build([{Key, Value} | Pairs], 1) -> {{Key, Value, nil, nil}, Pairs};
build(Pairs, 0) -> {nil, Pairs}.

to_list({_, Node}) -> to_list(Node, []).

to_list({Key, Value, Smaller, Bigger}, Acc) ->
    to_list(Smaller, [{Key, Value} | to_list(Bigger, Acc)]);
to_list(nil, Acc) -> Acc.

keys({_, Node}) -> keys(Node, []).

keys({Key, _, Smaller, Bigger}, Acc) -> keys(Smaller, [Key | keys(Bigger, Acc)]);
keys(nil, Acc) -> Acc.

values({_, Node}) -> values(Node, []).

values({_, Value, Smaller, Bigger}, Acc) -> values(Smaller, [Value | values(Bigger, Acc)]);
values(nil, Acc) -> Acc.

%% --- Ends ------------------------------------------------------------------------------

smallest({_, Node}) -> smallest_node(Node).

smallest_node({Key, Value, nil, _}) -> {Key, Value};
smallest_node({_, _, Smaller, _}) -> smallest_node(Smaller).

largest({_, Node}) -> largest_node(Node).

largest_node({Key, Value, _, nil}) -> {Key, Value};
largest_node({_, _, _, Bigger}) -> largest_node(Bigger).

take_smallest({Size, Node}) ->
    {Key, Value, Node1} = cut_smallest(Node),
    {Key, Value, {Size - 1, Node1}}.

cut_smallest({Key, Value, nil, Bigger}) -> {Key, Value, Bigger};
cut_smallest({Key, Value, Smaller, Bigger}) ->
    {Key1, Value1, Smaller1} = cut_smallest(Smaller),
    {Key1, Value1, {Key, Value, Smaller1, Bigger}}.

take_largest({Size, Node}) ->
    {Key, Value, Node1} = cut_largest(Node),
    {Key, Value, {Size - 1, Node1}}.

cut_largest({Key, Value, Smaller, nil}) -> {Key, Value, Smaller};
cut_largest({Key, Value, Smaller, Bigger}) ->
    {Key1, Value1, Bigger1} = cut_largest(Bigger),
    {Key1, Value1, {Key, Value, Smaller, Bigger1}}.

%% --- Iterators: the path of nodes still to visit, nearest first ----------------

iterator({_, Node}) -> descend(Node, []).

descend({_, _, nil, _} = Node, Path) -> [Node | Path];
descend({_, _, Smaller, _} = Node, Path) -> descend(Smaller, [Node | Path]);
descend(nil, Path) -> Path.

iterator_from(Key, {_, Node}) -> descend_from(Key, Node, []).

descend_from(Key, {Key1, _, _, Bigger}, Path) when Key1 < Key ->
    descend_from(Key, Bigger, Path);
descend_from(_, {_, _, nil, _} = Node, Path) -> [Node | Path];
descend_from(Key, {_, _, Smaller, _} = Node, Path) ->
    descend_from(Key, Smaller, [Node | Path]);
descend_from(_, nil, Path) -> Path.

next([{Key, Value, _, Bigger} | Path]) -> {Key, Value, descend(Bigger, Path)};
next([]) -> none.

map(F, {Size, Node}) when is_function(F, 2) -> {Size, map_node(F, Node)}.

map_node(F, {Key, Value, Smaller, Bigger}) ->
    Value1 = F(Key, Value),
    Smaller1 = map_node(F, Smaller),
    Bigger1 = map_node(F, Bigger),
    {Key, Value1, Smaller1, Bigger1};
map_node(_, nil) -> nil.
