%% dict: key-value dictionaries as OTP 25 represents them, so that a dict
%% prints and compares as on BEAM: a linear hash table (Litwin, Larson) of
%% N active slots, stored in segments of 16 buckets. A bucket is a list of
%% [Key | Value] cells in the order the keys arrived. Keys match with =:=.
%%
%% A key's slot is erlang:phash(Key, MaxN), folded back into the first half
%% when it lies beyond the active slots. When the size passes 5 per slot the
%% table grows by one slot, splitting one bucket; below 3 per slot it
%% shrinks by one, joining two (never below 16 slots). MaxN doubles or
%% halves, with the segments, when N reaches it. Every operation is O(1)
%% expected but fold, map, filter and the conversions, which walk it all.
-module(dict).
-export([new/0, is_key/2, to_list/1, from_list/1, size/1, is_empty/1,
         fetch/2, find/2, fetch_keys/1, erase/2, take/2, store/3,
         append/3, append_list/3, update/3, update/4, update_counter/3,
         fold/3, map/2, filter/2, merge/3]).

-define(SEG_SIZE, 16).
-define(EXPAND_LOAD, 5).
-define(CONTRACT_LOAD, 3).

-record(dict, {size = 0, n = ?SEG_SIZE, maxn = ?SEG_SIZE, bso = ?SEG_SIZE div 2,
               exp_size = ?SEG_SIZE * ?EXPAND_LOAD,
               con_size = ?SEG_SIZE * ?CONTRACT_LOAD, empty, segs}).

new() ->
    Empty = erlang:make_tuple(?SEG_SIZE, []),
    #dict{empty = Empty, segs = {Empty}}.

is_key(Key, D) -> bucket_has(Key, bucket(D, slot(D, Key))).

bucket_has(Key, [[Key | _] | _]) -> true;
bucket_has(Key, [_ | Bkt]) -> bucket_has(Key, Bkt);
bucket_has(_, []) -> false.

to_list(D) -> fold(fun(Key, Value, Acc) -> [{Key, Value} | Acc] end, [], D).

from_list(L) -> lists:foldl(fun({Key, Value}, D) -> store(Key, Value, D) end, new(), L).

size(#dict{size = Size}) -> Size.

is_empty(#dict{size = Size}) -> Size =:= 0.

fetch(Key, D) ->
    case bucket_find(Key, bucket(D, slot(D, Key))) of
        {ok, Value} -> Value;
        error -> erlang:error(badarg, [Key, D])
    end.

find(Key, D) -> bucket_find(Key, bucket(D, slot(D, Key))).

bucket_find(Key, [[Key | Value] | _]) -> {ok, Value};
bucket_find(Key, [_ | Bkt]) -> bucket_find(Key, Bkt);
bucket_find(_, []) -> error.

fetch_keys(D) -> fold(fun(Key, _, Keys) -> [Key | Keys] end, [], D).

%% --- Changing one key ----------------------------------------------------------

erase(Key, D) ->
    Slot = slot(D, Key),
    {D1, Removed} = on_bucket(D, Slot, fun(Bkt) -> bucket_erase(Key, Bkt) end),
    shrink_by(D1, Removed).

bucket_erase(Key, [[Key | _] | Bkt]) -> {Bkt, 1};
bucket_erase(Key, [Cell | Bkt]) ->
    {Bkt1, Removed} = bucket_erase(Key, Bkt),
    {[Cell | Bkt1], Removed};
bucket_erase(_, []) -> {[], 0}.

take(Key, D) ->
    Slot = slot(D, Key),
    case on_bucket(D, Slot, fun(Bkt) -> bucket_take(Key, Bkt) end) of
        {_, error} -> error;
        {D1, {value, Value}} -> {Value, shrink_by(D1, 1)}
    end.

bucket_take(Key, [[Key | Value] | Bkt]) -> {Bkt, {value, Value}};
bucket_take(Key, [Cell | Bkt]) ->
    case bucket_take(Key, Bkt) of
        {_, error} = Missing -> Missing;
        {Bkt1, Found} -> {[Cell | Bkt1], Found}
    end;
bucket_take(_, []) -> {[], error}.

store(Key, Value, D) ->
    change(D, Key, fun(Old) -> {Old, Value} end, fun() -> Value end).

append(Key, Value, D) ->
    change(D, Key, fun(Old) -> {Old, Old ++ [Value]} end, fun() -> [Value] end).

append_list(Key, Values, D) ->
    change(D, Key, fun(Old) -> {Old, Old ++ Values} end, fun() -> Values end).

update(Key, F, D) ->
    Slot = slot(D, Key),
    case on_bucket(D, Slot, fun(Bkt) -> bucket_update(Key, F, Bkt) end) of
        {_, missing} -> erlang:error(badarg, [Key, F, D]);
        {D1, found} -> D1
    end.

bucket_update(Key, F, [[Key | Value] | Bkt]) -> {[[Key | F(Value)] | Bkt], found};
bucket_update(Key, F, [Cell | Bkt]) ->
    case bucket_update(Key, F, Bkt) of
        {_, missing} = Missing -> Missing;
        {Bkt1, found} -> {[Cell | Bkt1], found}
    end;
bucket_update(_, _, []) -> {[], missing}.

update(Key, F, Init, D) ->
    change(D, Key, fun(Old) -> {Old, F(Old)} end, fun() -> initial(F, Init) end).

%% A bad fun is refused even when it would not be called.
initial(F, Init) when is_function(F, 1) -> Init.

update_counter(Key, Incr, D) when is_number(Incr) ->
    change(D, Key, fun(Old) -> {Old, Old + Incr} end, fun() -> Incr end).

%% Sets Key's value to what Present makes of the old one ({Old, New}), or
%% adds Key with Absent() at the end of its bucket, growing the table when
%% it has passed its load.
change(D, Key, Present, Absent) ->
    Slot = slot(D, Key),
    {D1, Added} = on_bucket(D, Slot, fun(Bkt) -> bucket_change(Key, Present, Absent, Bkt) end),
    grow_by(D1, Added).

bucket_change(Key, Present, _, [[Key | Old] | Bkt]) ->
    {_, New} = Present(Old),
    {[[Key | New] | Bkt], 0};
bucket_change(Key, Present, Absent, [Cell | Bkt]) ->
    {Bkt1, Added} = bucket_change(Key, Present, Absent, Bkt),
    {[Cell | Bkt1], Added};
bucket_change(Key, _, Absent, []) -> {[[Key | Absent()]], 1}.

%% --- Whole dictionaries ------------------------------------------------------------

%% Buckets from the last slot to the first, each in its own order.
%% A bad fun fails where it is first used (badfun) or on the first empty
%% bucket (function_clause), as on BEAM.
fold(F, Acc, #dict{segs = Segs}) -> fold_segs(F, Acc, Segs, tuple_size(Segs));
fold(_, _, D) -> erlang:error({badrecord, D}).

fold_segs(F, Acc, Segs, I) when I >= 1 ->
    Seg = element(I, Segs),
    fold_segs(F, fold_seg(F, Acc, Seg, tuple_size(Seg)), Segs, I - 1);
fold_segs(_, Acc, _, _) -> Acc.

fold_seg(F, Acc, Seg, I) when I >= 1 ->
    fold_seg(F, fold_bucket(F, Acc, element(I, Seg)), Seg, I - 1);
fold_seg(_, Acc, _, _) -> Acc.

fold_bucket(F, Acc, [[Key | Value] | Bkt]) -> fold_bucket(F, F(Key, Value, Acc), Bkt);
fold_bucket(F, Acc, []) when is_function(F, 3) -> Acc.

map(F, #dict{segs = Segs} = D) ->
    D#dict{segs = map_tuple(fun(Seg) -> map_tuple(fun(Bkt) -> map_bucket(F, Bkt) end, Seg) end, Segs)};
map(_, D) -> erlang:error({badrecord, D}).

map_bucket(F, [[Key | Value] | Bkt]) ->
    Value1 = F(Key, Value),
    [[Key | Value1] | map_bucket(F, Bkt)];
map_bucket(F, []) when is_function(F, 2) -> [].

%% Applies F to each element, first to last.
map_tuple(F, T) -> list_to_tuple(lists:map(F, tuple_to_list(T))).

filter(F, #dict{size = 0} = D) when is_function(F, 2) -> D;
filter(F, #dict{segs = Segs} = D) ->
    {Segs1, Removed} = filter_segs(F, tuple_to_list(Segs), [], 0),
    %% OTP shrinks by at most one slot here, however many keys went.
    shrink_by(D#dict{segs = list_to_tuple(Segs1)}, Removed);
filter(_, D) -> erlang:error({badrecord, D}).

filter_segs(F, [Seg | Segs], Acc, Removed) ->
    {Bkts, Removed1} = filter_buckets(F, tuple_to_list(Seg), [], Removed),
    filter_segs(F, Segs, [list_to_tuple(Bkts) | Acc], Removed1);
filter_segs(_, [], Acc, Removed) -> {lists:reverse(Acc), Removed}.

filter_buckets(F, [Bkt | Bkts], Acc, Removed) ->
    {Bkt1, Removed1} = filter_bucket(F, Bkt, [], Removed),
    filter_buckets(F, Bkts, [Bkt1 | Acc], Removed1);
filter_buckets(_, [], Acc, Removed) -> {lists:reverse(Acc), Removed}.

filter_bucket(F, [[Key | Value] = Cell | Bkt], Acc, Removed) ->
    case F(Key, Value) of
        true -> filter_bucket(F, Bkt, [Cell | Acc], Removed);
        false -> filter_bucket(F, Bkt, Acc, Removed + 1)
    end;
filter_bucket(F, [], Acc, Removed) when is_function(F, 2) -> {lists:reverse(Acc), Removed}.

%% The smaller dict is folded into the larger one.
merge(F, D1, D2) when D1#dict.size < D2#dict.size ->
    fold(fun(Key, V1, D) -> update(Key, fun(V2) -> F(Key, V1, V2) end, V1, D) end, D2, D1);
merge(F, D1, D2) ->
    fold(fun(Key, V2, D) -> update(Key, fun(V1) -> F(Key, V1, V2) end, V2, D) end, D1, D2).

%% --- The table -------------------------------------------------------------------------

slot(#dict{n = N, maxn = MaxN, bso = Bso}, Key) ->
    case erlang:phash(Key, MaxN) of
        H when H > N -> H - Bso;
        H -> H
    end;
slot(D, _) -> erlang:error({badrecord, D}).

bucket(#dict{segs = Segs}, Slot) ->
    element(bucket_index(Slot), element(seg_index(Slot), Segs)).

seg_index(Slot) -> (Slot - 1) div ?SEG_SIZE + 1.

bucket_index(Slot) -> (Slot - 1) rem ?SEG_SIZE + 1.

%% Runs Change on a slot's bucket; Change gives {NewBucket, Result}.
on_bucket(#dict{segs = Segs} = D, Slot, Change) ->
    SegI = seg_index(Slot),
    BktI = bucket_index(Slot),
    Seg = element(SegI, Segs),
    {Bkt, Result} = Change(element(BktI, Seg)),
    {D#dict{segs = setelement(SegI, Segs, setelement(BktI, Seg, Bkt))}, Result}.

put_bucket(Segs, Slot, Bkt) ->
    SegI = seg_index(Slot),
    setelement(SegI, Segs, setelement(bucket_index(Slot), element(SegI, Segs), Bkt)).

%% After Added (0 or 1) new keys: one more slot when past the load (which
%% is checked even when no key was added, as on BEAM).
grow_by(#dict{size = Size, exp_size = Exp} = D, Added) when Size + Added > Exp ->
    grow(D#dict{size = Size + Added});
grow_by(#dict{size = Size} = D, Added) -> D#dict{size = Size + Added}.

grow(#dict{n = N, maxn = MaxN, bso = Bso, segs = Segs, empty = Empty} = D) ->
    {MaxN1, Bso1, Segs1} =
        case N =:= MaxN of
            true -> {2 * MaxN, 2 * Bso, double_segs(Segs, Empty)};
            false -> {MaxN, Bso, Segs}
        end,
    N1 = N + 1,
    From = N1 - Bso1,
    {Stay, Move} = split_bucket(element(bucket_index(From), element(seg_index(From), Segs1)),
                                From, MaxN1),
    Segs2 = put_bucket(put_bucket(Segs1, From, Stay), N1, Move),
    D#dict{n = N1, maxn = MaxN1, bso = Bso1, exp_size = N1 * ?EXPAND_LOAD,
           con_size = N1 * ?CONTRACT_LOAD, segs = Segs2}.

%% The cells of a bucket that hash to its own slot, and the others, each
%% in their order.
split_bucket(Bkt, Slot, MaxN) ->
    lists:partition(fun([Key | _]) -> erlang:phash(Key, MaxN) =:= Slot end, Bkt).

double_segs(Segs, Empty) ->
    list_to_tuple(tuple_to_list(Segs) ++ lists:duplicate(tuple_size(Segs), Empty)).

%% After Removed keys: one slot fewer when below the load (checked even
%% when no key was removed, as on BEAM).
shrink_by(#dict{size = Size, con_size = Con, n = N} = D, Removed)
  when Size - Removed < Con, N > ?SEG_SIZE ->
    shrink(D#dict{size = Size - Removed});
shrink_by(#dict{size = Size} = D, Removed) -> D#dict{size = Size - Removed}.

shrink(#dict{n = N, maxn = MaxN, bso = Bso, segs = Segs} = D) ->
    Into = N - Bso,
    Joined = bucket(D, Into) ++ bucket(D, N),
    Segs1 = put_bucket(put_bucket(Segs, N, []), Into, Joined),
    N1 = N - 1,
    D1 = D#dict{n = N1, exp_size = N1 * ?EXPAND_LOAD, con_size = N1 * ?CONTRACT_LOAD},
    case N1 =:= Bso of
        true ->
            D1#dict{maxn = MaxN div 2, bso = Bso div 2,
                    segs = list_to_tuple(lists:sublist(tuple_to_list(Segs1), tuple_size(Segs1) div 2))};
        false ->
            D1#dict{segs = Segs1}
    end.
