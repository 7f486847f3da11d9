%% proplists, in Erlang: property lists are short, and OTP's own module is
%% Erlang code, so writing it the same way gives the same errors
%% (function_clause on a non-list) for free.
%%
%% A property is an atom K (short for {K, true}) or a tuple whose first
%% element is its key; anything else in a list is ignored.
-module(proplists).
-export([property/1, property/2, unfold/1, compact/1, lookup/2, lookup_all/2,
         is_defined/2, get_value/2, get_value/3, get_all_values/2,
         append_values/2, get_bool/2, get_keys/1, delete/2,
         substitute_aliases/2, substitute_negations/2, expand/2,
         normalize/2, split/2, to_map/1, to_map/2, from_map/1]).

property({Key, true}) when is_atom(Key) -> Key;
property(P) -> P.

property(Key, true) when is_atom(Key) -> Key;
property(Key, Value) -> {Key, Value}.

unfold([P | Ps]) when is_atom(P) -> [{P, true} | unfold(Ps)];
unfold([P | Ps]) -> [P | unfold(Ps)];
unfold([]) -> [].

compact(Ps) -> [property(P) || P <- Ps].

%% Whether P is a property with key K.
is_key(K, P) when is_atom(P) -> P =:= K;
is_key(K, P) when tuple_size(P) >= 1 -> element(1, P) =:= K;
is_key(_, _) -> false.

lookup(K, [P | Ps]) ->
    case is_key(K, P) of
        true when is_atom(P) -> {K, true};
        true -> P;
        false -> lookup(K, Ps)
    end;
lookup(_, []) -> none.

lookup_all(K, [P | Ps]) ->
    case is_key(K, P) of
        true when is_atom(P) -> [{K, true} | lookup_all(K, Ps)];
        true -> [P | lookup_all(K, Ps)];
        false -> lookup_all(K, Ps)
    end;
lookup_all(_, []) -> [].

is_defined(K, [P | Ps]) ->
    case is_key(K, P) of
        true -> true;
        false -> is_defined(K, Ps)
    end;
is_defined(_, []) -> false.

get_value(K, Ps) -> get_value(K, Ps, undefined).

get_value(K, [P | Ps], Default) ->
    case is_key(K, P) of
        true when is_atom(P) -> true;
        true ->
            case P of
                {_, V} -> V;
                _ -> Default
            end;
        false -> get_value(K, Ps, Default)
    end;
get_value(_, [], Default) -> Default.

get_all_values(K, [P | Ps]) ->
    case P of
        K when is_atom(P) -> [true | get_all_values(K, Ps)];
        {K, V} -> [V | get_all_values(K, Ps)];
        _ -> get_all_values(K, Ps)
    end;
get_all_values(_, []) -> [].

append_values(K, [P | Ps]) ->
    case P of
        K when is_atom(P) -> [true | append_values(K, Ps)];
        {K, V} when is_list(V) -> V ++ append_values(K, Ps);
        {K, V} -> [V | append_values(K, Ps)];
        _ -> append_values(K, Ps)
    end;
append_values(_, []) -> [].

get_bool(K, Ps) ->
    case lookup(K, Ps) of
        {K, true} -> true;
        _ -> false
    end.

%% The keys in the order they first appear. (OTP returns them in the order
%% of its `sets` hashing, which the engine does not reproduce.)
%% In the order of a sets (version 1) set of the keys, as OTP gives them.
get_keys(Ps) -> sets:to_list(get_keys(Ps, sets:new())).

get_keys([P | Ps], Keys) when is_atom(P) -> get_keys(Ps, sets:add_element(P, Keys));
get_keys([P | Ps], Keys) when tuple_size(P) >= 1 ->
    get_keys(Ps, sets:add_element(element(1, P), Keys));
get_keys([_ | Ps], Keys) -> get_keys(Ps, Keys);
get_keys([], Keys) -> Keys.

delete(K, [P | Ps]) ->
    case is_key(K, P) of
        true -> delete(K, Ps);
        false -> [P | delete(K, Ps)]
    end;
delete(_, []) -> [].

substitute_aliases(As, Ps) -> [rename_all(As, P) || P <- Ps].

rename_all([{K, K1} | As], P) -> rename_all(As, rename(K, K1, P));
rename_all([], P) -> P.

rename(K, K1, K) when is_atom(K) -> K1;
rename(K, K1, P) when tuple_size(P) >= 1, element(1, P) =:= K -> setelement(1, P, K1);
rename(_, _, P) -> P.

substitute_negations(Ns, Ps) -> [negate_all(Ns, P) || P <- Ps].

negate_all([{K, K1} | Ns], P) -> negate_all(Ns, negate(K, K1, P));
negate_all([], P) -> P.

%% K and {K, true} become {K1, false}; any other property with key K
%% (including {K, false}) becomes K1.
negate(K, K1, K) when is_atom(K) -> {K1, false};
negate(K, K1, {K, true}) -> {K1, false};
negate(K, K1, P) when tuple_size(P) >= 1, element(1, P) =:= K -> K1;
negate(_, _, P) -> P.

%% Each expansion replaces the first property with its key when that
%% property is equivalent to the expansion's, and deletes the later ones
%% with the same key. Inserted terms are not expanded again.
expand(Es, Ps) when is_list(Ps) ->
    Es1 = uniq_keys([{property(P), V} || {P, V} <- Es]),
    lists:flatten(expand_all(Es1, Ps)).

uniq_keys(Es) -> uniq_keys(Es, #{}).

uniq_keys([{P, _} = E | Es], Seen) ->
    K = key_of(P),
    case Seen of
        #{K := _} -> uniq_keys(Es, Seen);
        #{} -> [E | uniq_keys(Es, Seen#{K => true})]
    end;
uniq_keys([], _) -> [].

key_of(P) when is_atom(P) -> P;
key_of(P) -> element(1, P).

expand_all([{P, L} | Es], Ps) -> expand_all(Es, expand_one(key_of(P), P, L, Ps));
expand_all([], Ps) -> Ps.

expand_one(K, P, L, [Q | Qs]) when is_list(Q) -> [Q | expand_one(K, P, L, Qs)];
expand_one(K, P, L, [Q | Qs]) ->
    case is_key(K, Q) of
        true ->
            case property(Q) =:= P of
                true -> [L | delete(K, Qs)];
                false -> [Q | delete(K, Qs)]
            end;
        false -> [Q | expand_one(K, P, L, Qs)]
    end;
expand_one(_, _, _, []) -> [].

normalize(Ps, [{aliases, As} | Ss]) -> normalize(substitute_aliases(As, Ps), Ss);
normalize(Ps, [{expand, Es} | Ss]) -> normalize(expand(Es, Ps), Ss);
normalize(Ps, [{negations, Ns} | Ss]) -> normalize(substitute_negations(Ns, Ps), Ss);
normalize(Ps, []) -> compact(Ps).

split(Ps, Keys) ->
    {Store, Rest} = split(Ps, maps:from_keys(Keys, []), []),
    {[lists:reverse(maps:get(K, Store)) || K <- Keys], lists:reverse(Rest)}.

split([P | Ps], Store, Rest) when is_atom(P) -> split_into(P, P, Ps, Store, Rest);
split([P | Ps], Store, Rest) when tuple_size(P) >= 1 -> split_into(element(1, P), P, Ps, Store, Rest);
split([P | Ps], Store, Rest) -> split(Ps, Store, [P | Rest]);
split([], Store, Rest) -> {Store, Rest}.

split_into(K, P, Ps, Store, Rest) ->
    case Store of
        #{K := L} -> split(Ps, Store#{K := [P | L]}, Rest);
        #{} -> split(Ps, Store, [P | Rest])
    end.

%% The first value of each key wins.
to_map(Ps) ->
    lists:foldr(fun(P, M) when is_atom(P) -> M#{P => true};
                   ({K, V}, M) -> M#{K => V};
                   (_, M) -> M
                end, #{}, Ps).

to_map(Ps, Stages) -> to_map(normalize(Ps, Stages)).

from_map(M) -> maps:to_list(M).
