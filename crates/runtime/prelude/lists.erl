%% lists: the higher-order functions, written in Erlang so that they call
%% funs like any other code (the first-order ones are native built-ins).
-module(lists).
-export([map/2, filter/2, foldl/3, foldr/3, foreach/2, all/2, any/2,
         mapfoldl/3, mapfoldr/3, filtermap/2, zf/2, flatmap/2,
         takewhile/2, dropwhile/2, splitwith/2, partition/2, search/2,
         sort/2, usort/2, merge/3, umerge/3, keymap/3,
         zipwith/3, zipwith3/4, uniq/2, foldl_1/3]).

map(F, [H | T]) -> [F(H) | map(F, T)];
map(F, []) when is_function(F, 1) -> [].

filter(P, L) when is_function(P, 1) -> [E || E <- L, P(E)].

foldl(F, Acc, [H | T]) -> foldl(F, F(H, Acc), T);
foldl(F, Acc, []) when is_function(F, 2) -> Acc.

%% Kept for symmetry with OTP's internal helper name; same as foldl/3.
foldl_1(F, Acc, L) -> foldl(F, Acc, L).

foldr(F, Acc, [H | T]) -> F(H, foldr(F, Acc, T));
foldr(F, Acc, []) when is_function(F, 2) -> Acc.

foreach(F, [H | T]) -> F(H), foreach(F, T);
foreach(F, []) when is_function(F, 1) -> ok.

all(P, [H | T]) ->
    case P(H) of
        true -> all(P, T);
        false -> false
    end;
all(P, []) when is_function(P, 1) -> true.

any(P, [H | T]) ->
    case P(H) of
        true -> true;
        false -> any(P, T)
    end;
any(P, []) when is_function(P, 1) -> false.

mapfoldl(F, Acc0, [H | T]) ->
    {R, Acc1} = F(H, Acc0),
    {Rs, Acc2} = mapfoldl(F, Acc1, T),
    {[R | Rs], Acc2};
mapfoldl(F, Acc, []) when is_function(F, 2) -> {[], Acc}.

mapfoldr(F, Acc0, [H | T]) ->
    {Rs, Acc1} = mapfoldr(F, Acc0, T),
    {R, Acc2} = F(H, Acc1),
    {[R | Rs], Acc2};
mapfoldr(F, Acc, []) when is_function(F, 2) -> {[], Acc}.

filtermap(F, [H | T]) ->
    case F(H) of
        false -> filtermap(F, T);
        true -> [H | filtermap(F, T)];
        {true, V} -> [V | filtermap(F, T)]
    end;
filtermap(F, []) when is_function(F, 1) -> [].

zf(F, L) -> filtermap(F, L).

flatmap(F, [H | T]) -> F(H) ++ flatmap(F, T);
flatmap(F, []) when is_function(F, 1) -> [].

takewhile(P, [H | T]) ->
    case P(H) of
        true -> [H | takewhile(P, T)];
        false -> []
    end;
takewhile(P, []) when is_function(P, 1) -> [].

dropwhile(P, [H | T] = L) ->
    case P(H) of
        true -> dropwhile(P, T);
        false -> L
    end;
dropwhile(P, []) when is_function(P, 1) -> [].

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

search(P, [H | T]) ->
    case P(H) of
        true -> {value, H};
        false -> search(P, T)
    end;
search(P, []) when is_function(P, 1) -> false.

%% Stable merge sort with an ordering fun (F(A, B) true when A comes first).
sort(F, L) when is_function(F, 2) ->
    case L of
        [] -> [];
        [_] -> L;
        _ -> msort(F, L, length(L))
    end.

msort(_, L, 1) -> [hd(L)];
msort(F, L, N) ->
    H = N div 2,
    {A, B} = lists:split(H, L),
    merge(F, msort(F, A, H), msort(F, B, N - H)).

usort(F, L) when is_function(F, 2) -> dedup(F, sort(F, L)).

dedup(F, [A, B | T]) ->
    case F(A, B) andalso F(B, A) of
        true -> dedup(F, [A | T]);
        false -> [A | dedup(F, [B | T])]
    end;
dedup(_, L) -> L.

merge(F, [A | Ta] = La, [B | Tb] = Lb) ->
    case F(A, B) of
        true -> [A | merge(F, Ta, Lb)];
        false -> [B | merge(F, La, Tb)]
    end;
merge(F, [], Lb) when is_function(F, 2) -> Lb;
merge(F, La, []) when is_function(F, 2) -> La.

umerge(F, La, Lb) -> dedup(F, merge(F, La, Lb)).

keymap(F, N, [H | T]) -> [setelement(N, H, F(element(N, H))) | keymap(F, N, T)];
keymap(F, N, []) when is_function(F, 1), is_integer(N) -> [].

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
