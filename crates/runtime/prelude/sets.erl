%% sets: unordered sets as OTP 25 represents them, so that a set prints and
%% compares as on BEAM. Elements match with =:=.
%%
%% Version 1 (what new/0 and from_list/1 still give in OTP 25) is a linear
%% hash table like dict's: N active slots in segments of 16 buckets, a
%% bucket being the list of its elements, newest first. An element's slot is
%% erlang:phash(E, MaxN), folded into the first half when it lies beyond the
%% active slots; past 5 elements per slot the table grows by a slot, below 3
%% it shrinks by one (never below 16). Version 2 ({version, 2}) is a map from
%% each element to []. Operations on a set of each version follow the first
%% argument where they filter it, and the larger set where they add the
%% smaller one's elements to it, as OTP's do.
-module(sets).
-export([new/0, new/1, is_set/1, size/1, is_empty/1, to_list/1,
         from_list/1, from_list/2, is_element/2, add_element/2,
         del_element/2, union/2, union/1, intersection/2, intersection/1,
         is_disjoint/2, subtract/2, is_subset/2, fold/3, filter/2]).

-define(SEG_SIZE, 16).
-define(EXPAND_LOAD, 5).
-define(CONTRACT_LOAD, 3).

-record(set, {size = 0, n = ?SEG_SIZE, maxn = ?SEG_SIZE, bso = ?SEG_SIZE div 2,
              exp_size = ?SEG_SIZE * ?EXPAND_LOAD,
              con_size = ?SEG_SIZE * ?CONTRACT_LOAD, empty, segs}).

new() ->
    Empty = erlang:make_tuple(?SEG_SIZE, []),
    #set{empty = Empty, segs = {Empty}}.

new(Opts) ->
    case proplists:get_value(version, Opts, 1) of
        1 -> new();
        2 -> #{}
    end.

from_list(L) -> lists:foldl(fun add_element/2, new(), L).

from_list(L, Opts) ->
    case proplists:get_value(version, Opts, 1) of
        1 -> from_list(L);
        2 -> maps:from_keys(L, [])
    end.

is_set(#{}) -> true;
is_set(#set{}) -> true;
is_set(_) -> false.

size(S) -> set_size(S).

%% size/1 under a name of its own: a local call to size/1 would be erlang:size/1.
set_size(#{} = S) -> map_size(S);
set_size(#set{size = Size}) -> Size.

is_empty(#{} = S) -> map_size(S) =:= 0;
is_empty(#set{size = Size}) -> Size =:= 0.

to_list(#{} = S) -> maps:keys(S);
to_list(#set{} = S) -> fold(fun(E, Acc) -> [E | Acc] end, [], S).

is_element(E, #{} = S) -> is_map_key(E, S);
is_element(E, #set{} = S) -> lists:member(E, bucket(S, slot(S, E))).

add_element(E, #{} = S) -> S#{E => []};
add_element(E, #set{} = S) ->
    {S1, Added} = on_bucket(S, slot(S, E),
                            fun(Bkt) ->
                                    case lists:member(E, Bkt) of
                                        true -> {Bkt, 0};
                                        false -> {[E | Bkt], 1}
                                    end
                            end),
    grow_by(S1, Added).

del_element(E, #{} = S) -> maps:remove(E, S);
del_element(E, #set{} = S) ->
    case on_bucket(S, slot(S, E), fun(Bkt) -> bucket_delete(E, Bkt) end) of
        {_, 0} -> S;
        {S1, 1} -> shrink_by(S1, 1)
    end.

bucket_delete(E, [E | Bkt]) -> {Bkt, 1};
bucket_delete(E, [X | Bkt]) ->
    {Bkt1, Removed} = bucket_delete(E, Bkt),
    {[X | Bkt1], Removed};
bucket_delete(_, []) -> {[], 0}.

%% --- Set algebra -----------------------------------------------------------------

union(#{} = S1, #{} = S2) -> maps:merge(S1, S2);
union(S1, S2) ->
    case set_size(S1) < set_size(S2) of
        true -> fold(fun add_element/2, S2, S1);
        false -> fold(fun add_element/2, S1, S2)
    end.

union([S | Ss]) -> lists:foldl(fun(S1, Acc) -> union(Acc, S1) end, S, Ss);
union([]) -> new().

intersection(S1, S2) ->
    case set_size(S1) < set_size(S2) of
        true -> filter(fun(E) -> is_element(E, S2) end, S1);
        false -> filter(fun(E) -> is_element(E, S1) end, S2)
    end.

intersection([S | Ss]) -> lists:foldl(fun(S1, Acc) -> intersection(Acc, S1) end, S, Ss).

is_disjoint(S1, S2) ->
    case set_size(S1) < set_size(S2) of
        true -> none_in(S1, S2);
        false -> none_in(S2, S1)
    end.

%% No element of Small is in Big.
none_in(Small, Big) ->
    fold(fun(_, false) -> false;
            (E, true) -> not is_element(E, Big)
         end, true, Small).

subtract(S1, S2) -> filter(fun(E) -> not is_element(E, S2) end, S1).

is_subset(S1, S2) ->
    fold(fun(E, Sub) -> Sub andalso is_element(E, S2) end, true, S1).

%% --- Higher-order ---------------------------------------------------------------

%% Version 1 visits buckets from the last slot to the first; version 2 goes
%% in the map's order.
fold(F, Acc, #{} = S) when is_function(F, 2) ->
    fold_keys(F, Acc, maps:next(maps:iterator(S)));
fold(F, Acc, #set{segs = Segs}) when is_function(F, 2) ->
    fold_segs(F, Acc, Segs, tuple_size(Segs)).

fold_keys(F, Acc, {E, _, I}) -> fold_keys(F, F(E, Acc), maps:next(I));
fold_keys(_, Acc, none) -> Acc.

fold_segs(F, Acc, Segs, I) when I >= 1 ->
    Seg = element(I, Segs),
    fold_segs(F, fold_seg(F, Acc, Seg, tuple_size(Seg)), Segs, I - 1);
fold_segs(_, Acc, _, _) -> Acc.

fold_seg(F, Acc, Seg, I) when I >= 1 ->
    fold_seg(F, lists:foldl(F, Acc, element(I, Seg)), Seg, I - 1);
fold_seg(_, Acc, _, _) -> Acc.

filter(F, #{} = S) when is_function(F, 1) ->
    maps:from_keys(filter_keys(F, maps:next(maps:iterator(S))), []);
filter(F, #set{segs = Segs} = S) when is_function(F, 1) ->
    {Segs1, Removed} = filter_segs(F, tuple_to_list(Segs), [], 0),
    %% OTP shrinks by at most one slot here, however many elements went.
    shrink_by(S#set{segs = list_to_tuple(Segs1)}, Removed).

filter_keys(F, {E, _, I}) ->
    case F(E) of
        true -> [E | filter_keys(F, maps:next(I))];
        false -> filter_keys(F, maps:next(I))
    end;
filter_keys(_, none) -> [].

filter_segs(F, [Seg | Segs], Acc, Removed) ->
    {Bkts, Removed1} = filter_buckets(F, tuple_to_list(Seg), [], Removed),
    filter_segs(F, Segs, [list_to_tuple(Bkts) | Acc], Removed1);
filter_segs(_, [], Acc, Removed) -> {lists:reverse(Acc), Removed}.

filter_buckets(F, [Bkt | Bkts], Acc, Removed) ->
    {Bkt1, Removed1} = filter_bucket(F, Bkt, [], Removed),
    filter_buckets(F, Bkts, [Bkt1 | Acc], Removed1);
filter_buckets(_, [], Acc, Removed) -> {lists:reverse(Acc), Removed}.

filter_bucket(F, [E | Bkt], Acc, Removed) ->
    case F(E) of
        true -> filter_bucket(F, Bkt, [E | Acc], Removed);
        false -> filter_bucket(F, Bkt, Acc, Removed + 1)
    end;
%% The kept elements come out in reverse order, as they do on BEAM.
filter_bucket(_, [], Acc, Removed) -> {Acc, Removed}.

%% --- The version 1 table ---------------------------------------------------------

slot(#set{n = N, maxn = MaxN, bso = Bso}, E) ->
    case erlang:phash(E, MaxN) of
        H when H > N -> H - Bso;
        H -> H
    end.

bucket(#set{segs = Segs}, Slot) ->
    element(bucket_index(Slot), element(seg_index(Slot), Segs)).

seg_index(Slot) -> (Slot - 1) div ?SEG_SIZE + 1.

bucket_index(Slot) -> (Slot - 1) rem ?SEG_SIZE + 1.

%% Runs Change on a slot's bucket; Change gives {NewBucket, Result}.
on_bucket(#set{segs = Segs} = S, Slot, Change) ->
    SegI = seg_index(Slot),
    BktI = bucket_index(Slot),
    Seg = element(SegI, Segs),
    {Bkt, Result} = Change(element(BktI, Seg)),
    {S#set{segs = setelement(SegI, Segs, setelement(BktI, Seg, Bkt))}, Result}.

put_bucket(Segs, Slot, Bkt) ->
    SegI = seg_index(Slot),
    setelement(SegI, Segs, setelement(bucket_index(Slot), element(SegI, Segs), Bkt)).

%% After Added (0 or 1) new elements: one more slot when past the load
%% (checked even when nothing was added, as on BEAM).
grow_by(#set{size = Size, exp_size = Exp} = S, Added) when Size + Added > Exp ->
    grow(S#set{size = Size + Added});
grow_by(#set{size = Size} = S, Added) -> S#set{size = Size + Added}.

grow(#set{n = N, maxn = MaxN, bso = Bso, segs = Segs, empty = Empty} = S) ->
    {MaxN1, Bso1, Segs1} =
        case N =:= MaxN of
            true -> {2 * MaxN, 2 * Bso, double_segs(Segs, Empty)};
            false -> {MaxN, Bso, Segs}
        end,
    N1 = N + 1,
    From = N1 - Bso1,
    {Stay, Move} = lists:partition(fun(E) -> erlang:phash(E, MaxN1) =:= From end,
                                   element(bucket_index(From), element(seg_index(From), Segs1))),
    Segs2 = put_bucket(put_bucket(Segs1, From, Stay), N1, Move),
    S#set{n = N1, maxn = MaxN1, bso = Bso1, exp_size = N1 * ?EXPAND_LOAD,
          con_size = N1 * ?CONTRACT_LOAD, segs = Segs2}.

double_segs(Segs, Empty) ->
    list_to_tuple(tuple_to_list(Segs) ++ lists:duplicate(tuple_size(Segs), Empty)).

%% After Removed elements: one slot fewer when below the load (checked even
%% when nothing was removed, as on BEAM, but for del_element/2).
shrink_by(#set{size = Size, con_size = Con, n = N} = S, Removed)
  when Size - Removed < Con, N > ?SEG_SIZE ->
    shrink(S#set{size = Size - Removed});
shrink_by(#set{size = Size} = S, Removed) -> S#set{size = Size - Removed}.

shrink(#set{n = N, maxn = MaxN, bso = Bso, segs = Segs} = S) ->
    Into = N - Bso,
    Joined = bucket(S, Into) ++ bucket(S, N),
    Segs1 = put_bucket(put_bucket(Segs, N, []), Into, Joined),
    N1 = N - 1,
    S1 = S#set{n = N1, exp_size = N1 * ?EXPAND_LOAD, con_size = N1 * ?CONTRACT_LOAD},
    case N1 =:= Bso of
        true ->
            S1#set{maxn = MaxN div 2, bso = Bso div 2,
                   segs = list_to_tuple(lists:sublist(tuple_to_list(Segs1), tuple_size(Segs1) div 2))};
        false ->
            S1#set{segs = Segs1}
    end.
