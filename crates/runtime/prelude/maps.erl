%% maps: the higher-order functions, in Erlang (the rest are built-ins).
-module(maps).
-export([fold/3, map/2, filter/2, filtermap/2, foreach/2, update_with/3,
         update_with/4, groups_from_list/2, groups_from_list/3]).

fold(F, Acc, M) when is_function(F, 3), is_map(M) -> fold_list(F, Acc, maps:to_list(M));
fold(F, Acc, M) -> erlang:error(badarg_or_badmap(M), [F, Acc, M]).

fold_list(F, Acc, [{K, V} | T]) -> fold_list(F, F(K, V, Acc), T);
fold_list(_, Acc, []) -> Acc.

map(F, M) when is_function(F, 2), is_map(M) ->
    maps:from_list([{K, F(K, V)} || {K, V} <- maps:to_list(M)]);
map(F, M) -> erlang:error(badarg_or_badmap(M), [F, M]).

filter(P, M) when is_function(P, 2), is_map(M) ->
    maps:from_list([{K, V} || {K, V} <- maps:to_list(M), P(K, V)]);
filter(P, M) -> erlang:error(badarg_or_badmap(M), [P, M]).

filtermap(F, M) when is_function(F, 2), is_map(M) ->
    maps:from_list(filtermap_list(F, maps:to_list(M)));
filtermap(F, M) -> erlang:error(badarg_or_badmap(M), [F, M]).

filtermap_list(F, [{K, V} | T]) ->
    case F(K, V) of
        true -> [{K, V} | filtermap_list(F, T)];
        {true, V2} -> [{K, V2} | filtermap_list(F, T)];
        false -> filtermap_list(F, T)
    end;
filtermap_list(_, []) -> [].

foreach(F, M) when is_function(F, 2), is_map(M) ->
    lists:foreach(fun({K, V}) -> F(K, V) end, maps:to_list(M));
foreach(F, M) -> erlang:error(badarg_or_badmap(M), [F, M]).

update_with(K, F, M) when is_function(F, 1), is_map(M) ->
    case M of
        #{K := V} -> M#{K := F(V)};
        #{} -> erlang:error({badkey, K}, [K, F, M])
    end;
update_with(K, F, M) -> erlang:error(badarg_or_badmap(M), [K, F, M]).

update_with(K, F, Init, M) when is_function(F, 1), is_map(M) ->
    case M of
        #{K := V} -> M#{K := F(V)};
        #{} -> M#{K => Init}
    end;
update_with(K, F, Init, M) -> erlang:error(badarg_or_badmap(M), [K, F, Init, M]).

groups_from_list(KF, L) -> groups_from_list(KF, fun(X) -> X end, L).

groups_from_list(KF, VF, L) when is_function(KF, 1), is_function(VF, 1) ->
    G = lists:foldl(fun(E, Acc) ->
                            K = KF(E),
                            case Acc of
                                #{K := Vs} -> Acc#{K := [VF(E) | Vs]};
                                #{} -> Acc#{K => [VF(E)]}
                            end
                    end, #{}, L),
    maps:map(fun(_, Vs) -> lists:reverse(Vs) end, G).

badarg_or_badmap(M) when is_map(M) -> badarg;
badarg_or_badmap(M) -> {badmap, M}.
