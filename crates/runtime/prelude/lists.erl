%% lists: the higher-order functions, written in Erlang so that they call
%% funs like any other code (the first-order ones are native built-ins).
%% Each checks its arguments where OTP 25 does, so bad arguments raise the
%% same errors: function_clause for a bad fun or an improper list,
%% case_clause for a non-list or a predicate that returns a non-boolean.
-module(lists).
-export([map/2, filter/2, foldl/3, foldr/3, foreach/2, all/2, any/2,
         mapfoldl/3, mapfoldr/3, filtermap/2, zf/2, flatmap/2,
         takewhile/2, dropwhile/2, splitwith/2, partition/2, search/2,
         sort/2, usort/2, merge/3, umerge/3, keymap/3,
         zipwith/3, zipwith3/4, uniq/2, rmerge/2, rmerge/3, rumerge/2,
         rumerge/3, rmerge3/3, rumerge3/3, rkeymerge/3, rukeymerge/3]).

map(F, L) when is_function(F, 1) ->
    case L of
        [H | T] -> [F(H) | map_1(F, T)];
        [] -> []
    end.

map_1(F, [H | T]) -> [F(H) | map_1(F, T)];
map_1(_, []) -> [].

filter(P, L) when is_function(P, 1) -> [E || E <- L, P(E)].

foldl(F, Acc, L) when is_function(F, 2) ->
    case L of
        [H | T] -> foldl_1(F, F(H, Acc), T);
        [] -> Acc
    end.

foldl_1(F, Acc, [H | T]) -> foldl_1(F, F(H, Acc), T);
foldl_1(_, Acc, []) -> Acc.

foldr(F, Acc, [H | T]) -> F(H, foldr(F, Acc, T));
foldr(F, Acc, []) when is_function(F, 2) -> Acc.

foreach(F, L) when is_function(F, 1) -> foreach_1(F, L).

foreach_1(F, [H | T]) -> F(H), foreach_1(F, T);
foreach_1(_, []) -> ok.

all(P, L) when is_function(P, 1) ->
    case L of
        [H | T] ->
            case P(H) of
                true -> all_1(P, T);
                false -> false
            end;
        [] -> true
    end.

all_1(P, [H | T]) ->
    case P(H) of
        true -> all_1(P, T);
        false -> false
    end;
all_1(_, []) -> true.

any(P, L) when is_function(P, 1) ->
    case L of
        [H | T] ->
            case P(H) of
                true -> true;
                false -> any_1(P, T)
            end;
        [] -> false
    end.

any_1(P, [H | T]) ->
    case P(H) of
        true -> true;
        false -> any_1(P, T)
    end;
any_1(_, []) -> false.

mapfoldl(F, Acc, L) when is_function(F, 2) -> mapfoldl_1(F, Acc, L).

mapfoldl_1(F, Acc0, [H | T]) ->
    {R, Acc1} = F(H, Acc0),
    {Rs, Acc2} = mapfoldl_1(F, Acc1, T),
    {[R | Rs], Acc2};
mapfoldl_1(_, Acc, []) -> {[], Acc}.

mapfoldr(F, Acc, L) when is_function(F, 2) -> mapfoldr_1(F, Acc, L).

mapfoldr_1(F, Acc0, [H | T]) ->
    {Rs, Acc1} = mapfoldr_1(F, Acc0, T),
    {R, Acc2} = F(H, Acc1),
    {[R | Rs], Acc2};
mapfoldr_1(_, Acc, []) -> {[], Acc}.

filtermap(F, L) when is_function(F, 1) -> filtermap_1(F, L).

filtermap_1(F, [H | T]) ->
    case F(H) of
        false -> filtermap_1(F, T);
        true -> [H | filtermap_1(F, T)];
        {true, V} -> [V | filtermap_1(F, T)]
    end;
filtermap_1(_, []) -> [].

zf(F, L) -> filtermap(F, L).

flatmap(F, L) when is_function(F, 1) -> flatmap_1(F, L).

flatmap_1(F, [H | T]) -> F(H) ++ flatmap_1(F, T);
flatmap_1(_, []) -> [].

takewhile(P, L) when is_function(P, 1) -> takewhile_1(P, L).

takewhile_1(P, [H | T]) ->
    case P(H) of
        true -> [H | takewhile_1(P, T)];
        false -> []
    end;
takewhile_1(_, []) -> [].

dropwhile(P, L) when is_function(P, 1) -> dropwhile_1(P, L).

dropwhile_1(P, [H | T] = L) ->
    case P(H) of
        true -> dropwhile_1(P, T);
        false -> L
    end;
dropwhile_1(_, []) -> [].

splitwith(P, L) when is_function(P, 1) -> splitwith(P, L, []).

splitwith(P, [H | T], Acc) ->
    case P(H) of
        true -> splitwith(P, T, [H | Acc]);
        false -> {lists:reverse(Acc), [H | T]}
    end;
splitwith(_, [], Acc) -> {lists:reverse(Acc), []}.

partition(P, L) when is_function(P, 1) -> partition(P, L, [], []).

partition(P, [H | T], In, Out) ->
    case P(H) of
        true -> partition(P, T, [H | In], Out);
        false -> partition(P, T, In, [H | Out])
    end;
partition(_, [], In, Out) -> {lists:reverse(In), lists:reverse(Out)}.

search(P, L) when is_function(P, 1) -> search_1(P, L).

search_1(P, [H | T]) ->
    case P(H) of
        true -> {value, H};
        false -> search_1(P, T)
    end;
search_1(_, []) -> false.

%% Stable merge sort with an ordering fun (F(A, B) true when A may come first).
sort(F, L) when is_function(F, 2) ->
    case len(L, 0) of
        N when N < 2 -> L;
        N -> msort(F, L, N)
    end.

%% The length of a proper list (function_clause for an improper one).
len([_ | T], N) -> len(T, N + 1);
len([], N) -> N.

msort(_, L, 1) -> [hd(L)];
msort(F, L, N) ->
    H = N div 2,
    {A, B} = lists:split(H, L),
    merge_1(F, msort(F, A, H), msort(F, B, N - H)).

usort(F, L) when is_function(F, 2) -> dedup(F, sort(F, L)).

dedup(F, [A, B | T]) ->
    case F(B, A) of
        true -> dedup(F, [A | T]);
        false -> [A | dedup(F, [B | T])]
    end;
dedup(_, L) -> L.

merge(F, La, Lb) when is_function(F, 2) -> merge_1(F, La, Lb).

merge_1(F, [A | Ta] = La, [B | Tb] = Lb) ->
    case F(A, B) of
        true -> [A | merge_1(F, Ta, Lb)];
        false -> [B | merge_1(F, La, Tb)]
    end;
merge_1(_, [], Lb) -> Lb;
merge_1(_, La, []) -> La.

umerge(F, La, Lb) when is_function(F, 2) -> umerge_1(F, La, Lb).

%% On equal elements (F both ways) the one from the first list is kept.
umerge_1(F, [A | Ta] = La, [B | Tb] = Lb) ->
    case F(A, B) of
        true ->
            case F(B, A) of
                true -> [A | umerge_1(F, Ta, Tb)];
                false -> [A | umerge_1(F, Ta, Lb)]
            end;
        false -> [B | umerge_1(F, La, Tb)]
    end;
umerge_1(_, [], Lb) -> Lb;
umerge_1(_, La, []) -> La.

keymap(F, N, [H | T]) -> [setelement(N, H, F(element(N, H))) | keymap(F, N, T)];
keymap(F, N, []) when is_function(F, 1), is_integer(N), N >= 1 -> [].

zipwith(F, [X | Xs], [Y | Ys]) -> [F(X, Y) | zipwith(F, Xs, Ys)];
zipwith(F, [], []) when is_function(F, 2) -> [].

zipwith3(F, [X | Xs], [Y | Ys], [Z | Zs]) -> [F(X, Y, Z) | zipwith3(F, Xs, Ys, Zs)];
zipwith3(F, [], [], []) when is_function(F, 3) -> [].

uniq(F, L) when is_function(F, 1) -> uniq(F, L, #{}).

uniq(F, [H | T], Seen) ->
    K = F(H),
    case Seen of
        #{K := _} -> uniq(F, T, Seen);
        #{} -> [H | uniq(F, T, Seen#{K => true})]
    end;
uniq(_, [], _) -> [].

%% The r*merge functions merge lists sorted in descending order (OTP's sort
%% uses them). Merging the reversed lists and reversing the result keeps
%% equal elements in OTP's order: on a tie the second list's comes first,
%% and the u* variants keep the first list's.
rmerge(L1, L2) when is_list(L1), is_list(L2) ->
    rev(lists:merge(rev(L1), rev(L2))).

rumerge(L1, L2) when is_list(L1), is_list(L2) ->
    rev(lists:umerge(rev(L1), rev(L2))).

rmerge3(L1, L2, L3) when is_list(L1), is_list(L2), is_list(L3) ->
    rev(lists:merge3(rev(L1), rev(L2), rev(L3))).

rumerge3(L1, L2, L3) when is_list(L1), is_list(L2), is_list(L3) ->
    rev(lists:umerge3(rev(L1), rev(L2), rev(L3))).

rkeymerge(N, L1, L2) when is_integer(N), N > 0, is_list(L1), is_list(L2) ->
    rev(lists:keymerge(N, rev(L1), rev(L2))).

rukeymerge(N, L1, L2) when is_integer(N), N > 0, is_list(L1), is_list(L2) ->
    rev(lists:ukeymerge(N, rev(L1), rev(L2))).

%% reverse/2 is the one that raises badarg on an improper list, as OTP's
%% r*merge functions do.
rev(L) -> lists:reverse(L, []).

%% An improper rest is badarg, as OTP's merges find when they reverse it.
proper(L) ->
    _ = length(L),
    L.

%% With an ordering fun F (F(A, B) when A may come first in ascending
%% order), the larger head goes first; on a tie the second list's.
rmerge(F, L1, L2) when is_function(F, 2), is_list(L1), is_list(L2) -> rmerge_f(F, L1, L2).

rmerge_f(F, [H1 | T1] = L1, [H2 | T2] = L2) ->
    case F(H1, H2) of
        true -> [H2 | rmerge_f(F, L1, T2)];
        false -> [H1 | rmerge_f(F, T1, L2)]
    end;
rmerge_f(_, [], L2) -> proper(L2);
rmerge_f(_, L1, []) -> proper(L1).

%% The same without duplicates between the lists, deciding as OTP does:
%% a head of the second list that is not below the first list's head is
%% held back until a smaller one shows whether it equals that head (then
%% only the first list's is kept).
rumerge(F, L1, L2) when is_function(F, 2), is_list(L1), is_list(L2) -> rumerge_f(F, L1, L2).

rumerge_f(F, [H1 | T1] = L1, [H2 | T2] = L2) ->
    case F(H1, H2) of
        true -> rumerge_held(F, L1, H2, T2);
        false -> [H1 | rumerge_f(F, T1, L2)]
    end;
rumerge_f(_, [], L2) -> proper(L2);
rumerge_f(_, L1, []) -> proper(L1).

rumerge_held(F, [H1 | T1] = L1, Held, [H2 | T2] = L2) ->
    case F(H1, H2) of
        true -> [Held | rumerge_held(F, L1, H2, T2)];
        false ->
            Settled = rumerge_settle(F, Held, H1),
            Settled ++ rumerge_f(F, T1, L2)
    end;
rumerge_held(F, [H1 | T1], Held, []) -> rumerge_settle(F, Held, H1) ++ proper(T1).

rumerge_settle(F, Held, H1) ->
    case F(Held, H1) of
        true -> [H1];
        false -> [Held, H1]
    end.
