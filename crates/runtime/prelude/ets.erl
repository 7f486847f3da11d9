%% ets: the parts written in Erlang (the rest are built-ins).
-module(ets).
-export([foldl/3, foldr/3]).

%% Folds over a copy of the table taken in one operation, so the fun may
%% change the table as it goes. foldr walks an ordered_set from its end;
%% other tables have no order to reverse (as on BEAM, where last/prev are
%% first/next for them).
foldl(F, Acc, T) -> fold(F, Acc, ets:tab2list(T)).

foldr(F, Acc, T) ->
    Objects = ets:tab2list(T),
    case ets:info(T, type) of
        ordered_set -> fold(F, Acc, lists:reverse(Objects));
        _ -> fold(F, Acc, Objects)
    end.

fold(F, Acc, [X | Xs]) -> fold(F, F(X, Acc), Xs);
fold(_, Acc, []) -> Acc.
