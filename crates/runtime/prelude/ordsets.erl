%% ordsets: sets as ordered lists without duplicates, as OTP 25 has them.
%% Elements are compared with < and > (1 and 1.0 are the same element; the
%% one already in the set is kept, and union/2 and intersection/2 keep the
%% one from the list they were walking ahead in, as OTP's do). Functions walk
%% their lists directly, so a non-list ends in function_clause as on BEAM.
-module(ordsets).
-export([new/0, is_set/1, size/1, is_empty/1, to_list/1, from_list/1,
         is_element/2, add_element/2, del_element/2, union/2, union/1,
         intersection/2, intersection/1, is_disjoint/2, subtract/2,
         is_subset/2, fold/3, filter/2]).

new() -> [].

is_set([E | Es]) -> ascending(Es, E);
is_set([]) -> true;
is_set(_) -> false.

ascending([E | Es], Prev) when Prev < E -> ascending(Es, E);
ascending([_ | _], _) -> false;
ascending([], _) -> true.

size(S) -> length(S).

is_empty(S) -> S =:= [].

to_list(S) -> S.

from_list(L) -> lists:usort(L).

is_element(E, [H | Es]) when E > H -> is_element(E, Es);
is_element(E, [H | _]) when E < H -> false;
is_element(_, [_ | _]) -> true;
is_element(_, []) -> false.

add_element(E, [H | Es]) when E > H -> [H | add_element(E, Es)];
add_element(E, [H | _] = Set) when E < H -> [E | Set];
add_element(_, [_ | _] = Set) -> Set;
add_element(E, []) -> [E].

del_element(E, [H | Es]) when E > H -> [H | del_element(E, Es)];
del_element(E, [H | _] = Set) when E < H -> Set;
del_element(_, [_ | Es]) -> Es;
del_element(_, []) -> [].

union([E1 | Es1], [E2 | _] = Set2) when E1 < E2 -> [E1 | union(Es1, Set2)];
union([E1 | _] = Set1, [E2 | Es2]) when E1 > E2 -> [E2 | union(Es2, Set1)];
union([E1 | Es1], [_ | Es2]) -> [E1 | union(Es1, Es2)];
union([], Set2) -> Set2;
union(Set1, []) -> Set1.

union(Sets) -> lists:umerge(Sets).

intersection([E1 | Es1], [E2 | _] = Set2) when E1 < E2 -> intersection(Es1, Set2);
intersection([E1 | _] = Set1, [E2 | Es2]) when E1 > E2 -> intersection(Es2, Set1);
intersection([E1 | Es1], [_ | Es2]) -> [E1 | intersection(Es1, Es2)];
intersection([], _) -> [];
intersection(_, []) -> [].

intersection([S | Ss]) -> lists:foldl(fun(S1, Acc) -> intersection(Acc, S1) end, S, Ss).

is_disjoint([E1 | Es1], [E2 | _] = Set2) when E1 < E2 -> is_disjoint(Es1, Set2);
is_disjoint([E1 | _] = Set1, [E2 | Es2]) when E1 > E2 -> is_disjoint(Set1, Es2);
is_disjoint([_ | _], [_ | _]) -> false;
is_disjoint([], _) -> true;
is_disjoint(_, []) -> true.

subtract([E1 | Es1], [E2 | _] = Set2) when E1 < E2 -> [E1 | subtract(Es1, Set2)];
subtract([E1 | _] = Set1, [E2 | Es2]) when E1 > E2 -> subtract(Set1, Es2);
subtract([_ | Es1], [_ | Es2]) -> subtract(Es1, Es2);
subtract([], _) -> [];
subtract(Set1, []) -> Set1.

is_subset([E1 | _], [E2 | _]) when E1 < E2 -> false;
is_subset([E1 | _] = Set1, [E2 | Es2]) when E1 > E2 -> is_subset(Set1, Es2);
is_subset([_ | Es1], [_ | Es2]) -> is_subset(Es1, Es2);
is_subset([], _) -> true;
is_subset(_, []) -> false.

fold(F, Acc, Set) -> lists:foldl(F, Acc, Set).

filter(Pred, Set) -> lists:filter(Pred, Set).
