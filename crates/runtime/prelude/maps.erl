%% maps: the higher-order functions, in Erlang (the rest are built-ins).
-module(maps).
-export([fold/3, map/2, filter/2, filtermap/2, foreach/2, update_with/3,
         update_with/4, groups_from_list/2, groups_from_list/3,
         merge_with/3, intersect_with/3]).

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

groups_from_list(KF, L) when is_function(KF, 1) -> groups_from_list(KF, fun(X) -> X end, L);
groups_from_list(KF, L) -> erlang:error(badarg, [KF, L]).

groups_from_list(KF, VF, L) when is_function(KF, 1), is_function(VF, 1), is_list(L) ->
    G = lists:foldl(fun(E, Acc) ->
                            K = KF(E),
                            case Acc of
                                #{K := Vs} -> Acc#{K := [VF(E) | Vs]};
                                #{} -> Acc#{K => [VF(E)]}
                            end
                    end, #{}, L),
    maps:map(fun(_, Vs) -> lists:reverse(Vs) end, G);
groups_from_list(KF, VF, L) -> erlang:error(badarg, [KF, VF, L]).

merge_with(F, M1, M2) when is_function(F, 3), is_map(M1), is_map(M2) ->
    maps:fold(fun(K, V2, Acc) ->
                      case Acc of
                          #{K := V1} -> Acc#{K := F(K, V1, V2)};
                          #{} -> Acc#{K => V2}
                      end
              end, M1, M2);
merge_with(F, M1, M2) -> erlang:error(two_maps_error(M1, M2), [F, M1, M2]).

intersect_with(F, M1, M2) when is_function(F, 3), is_map(M1), is_map(M2) ->
    maps:fold(fun(K, V2, Acc) ->
                      case M1 of
                          #{K := V1} -> Acc#{K => F(K, V1, V2)};
                          #{} -> Acc
                      end
              end, #{}, M2);
intersect_with(F, M1, M2) -> erlang:error(two_maps_error(M1, M2), [F, M1, M2]).

two_maps_error(M1, _) when not is_map(M1) -> {badmap, M1};
two_maps_error(_, M2) when not is_map(M2) -> {badmap, M2};
two_maps_error(_, _) -> badarg.

badarg_or_badmap(M) when is_map(M) -> badarg;
badarg_or_badmap(M) -> {badmap, M}.
