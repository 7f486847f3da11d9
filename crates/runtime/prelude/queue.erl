%% queue: FIFO queues as OTP 25 represents them, so that a queue prints and
%% compares as on BEAM. A queue is {Rear, Front}: Front holds the oldest items
%% first, Rear the newest first. When one side runs out the other is cut in
%% two, which keeps in/out amortised O(1). A side holding a single item while
%% the other is empty is kept where OTP keeps it ({[X], []} after in/2,
%% {[], [X]} after in_r/2), because the shape is visible to programs.
%%
%% Every function checks that both sides are lists and raises badarg
%% otherwise; taking from an empty queue with the extended API raises empty.
-module(queue).
-export([new/0, is_queue/1, is_empty/1, len/1, to_list/1, from_list/1,
         member/2, in/2, in_r/2, out/1, out_r/1, get/1, get_r/1, peek/1,
         peek_r/1, drop/1, drop_r/1, reverse/1, join/2, split/2, filter/2,
         filtermap/2, fold/3, any/2, all/2, delete/2, delete_r/2,
         delete_with/2, delete_with_r/2, cons/2, head/1, tail/1, snoc/2,
         daeh/1, last/1, liat/1, init/1, lait/1]).

-define(IS_QUEUE(R, F), is_list(R), is_list(F)).

new() -> {[], []}.

is_queue({R, F}) when ?IS_QUEUE(R, F) -> true;
is_queue(_) -> false.

is_empty({[], []}) -> true;
is_empty({R, F}) when ?IS_QUEUE(R, F) -> false;
is_empty(Q) -> erlang:error(badarg, [Q]).

len({R, F}) when ?IS_QUEUE(R, F) -> length(R) + length(F);
len(Q) -> erlang:error(badarg, [Q]).

to_list({R, F}) when ?IS_QUEUE(R, F) -> F ++ lists:reverse(R, []);
to_list(Q) -> erlang:error(badarg, [Q]).

from_list(L) when is_list(L) -> front_to_queue(L);
from_list(L) -> erlang:error(badarg, [L]).

member(X, {R, F}) when ?IS_QUEUE(R, F) ->
    lists:member(X, R) orelse lists:member(X, F);
member(X, Q) -> erlang:error(badarg, [X, Q]).

%% --- Adding and taking ----------------------------------------------------

in(X, {[_] = R, []}) -> {[X], R};
in(X, {R, F}) when ?IS_QUEUE(R, F) -> {[X | R], F};
in(X, Q) -> erlang:error(badarg, [X, Q]).

in_r(X, {[], [_] = F}) -> {F, [X]};
in_r(X, {R, F}) when ?IS_QUEUE(R, F) -> {R, [X | F]};
in_r(X, Q) -> erlang:error(badarg, [X, Q]).

out({[], []} = Q) -> {empty, Q};
out({R, F} = Q) when ?IS_QUEUE(R, F) ->
    {V, Q1} = take_front(Q),
    {{value, V}, Q1};
out(Q) -> erlang:error(badarg, [Q]).

out_r({[], []} = Q) -> {empty, Q};
out_r({R, F} = Q) when ?IS_QUEUE(R, F) ->
    {V, Q1} = take_rear(Q),
    {{value, V}, Q1};
out_r(Q) -> erlang:error(badarg, [Q]).

get(Q) -> oldest(Q).

%% get/1 under a name of its own: a local call to get/1 would be erlang:get/1.
oldest({[], []} = Q) -> erlang:error(empty, [Q]);
oldest({R, F}) when ?IS_QUEUE(R, F) -> first(R, F);
oldest(Q) -> erlang:error(badarg, [Q]).

get_r({[], []} = Q) -> erlang:error(empty, [Q]);
get_r({R, F}) when ?IS_QUEUE(R, F) -> first(F, R);
get_r(Q) -> erlang:error(badarg, [Q]).

peek({[], []}) -> empty;
peek({R, F}) when ?IS_QUEUE(R, F) -> {value, first(R, F)};
peek(Q) -> erlang:error(badarg, [Q]).

peek_r({[], []}) -> empty;
peek_r({R, F}) when ?IS_QUEUE(R, F) -> {value, first(F, R)};
peek_r(Q) -> erlang:error(badarg, [Q]).

drop({[], []} = Q) -> erlang:error(empty, [Q]);
drop({R, F} = Q) when ?IS_QUEUE(R, F) -> element(2, take_front(Q));
drop(Q) -> erlang:error(badarg, [Q]).

drop_r({[], []} = Q) -> erlang:error(empty, [Q]);
drop_r({R, F} = Q) when ?IS_QUEUE(R, F) -> element(2, take_rear(Q));
drop_r(Q) -> erlang:error(badarg, [Q]).

%% The first item seen from the side whose list is Near (Far holds the rest,
%% newest-first from Near's point of view).
first(_, [X | _]) -> X;
first([X], []) -> X;
first([_ | Far], []) -> lists:last(Far).

%% Takes the oldest item of a non-empty queue. An emptied front is refilled
%% from half of the rear; a rear of several items with no front keeps its
%% newest item as the new rear.
take_front({[X], []}) -> {X, {[], []}};
take_front({[Newest | Rest], []}) ->
    [X | F] = lists:reverse(Rest, []),
    {X, {[Newest], F}};
take_front({R, [X]}) -> {X, rear_to_queue(R)};
take_front({R, [X | F]}) -> {X, {R, F}}.

%% Takes the newest item, symmetrically.
take_rear({[], [X]}) -> {X, {[], []}};
take_rear({[], [Oldest | Rest]}) ->
    [X | R] = lists:reverse(Rest, []),
    {X, {R, [Oldest]}};
take_rear({[X], F}) -> {X, front_to_queue(F)};
take_rear({[X | R], F}) -> {X, {R, F}}.

%% A queue from a list in queue order: the first half becomes the front.
front_to_queue([]) -> {[], []};
front_to_queue([_] = L) -> {L, []};
front_to_queue([X, Y]) -> {[Y], [X]};
front_to_queue(L) ->
    {F, R} = lists:split(length(L) div 2, L),
    {lists:reverse(R, []), F}.

%% A queue from a list newest first: the newest half stays the rear.
rear_to_queue([]) -> {[], []};
rear_to_queue([_] = L) -> {[], L};
rear_to_queue([X, Y]) -> {[X], [Y]};
rear_to_queue(L) ->
    {R, F} = lists:split(length(L) div 2, L),
    {R, lists:reverse(F, [])}.

%% --- Whole queues ------------------------------------------------------------

reverse({R, F}) when ?IS_QUEUE(R, F) -> {F, R};
reverse(Q) -> erlang:error(badarg, [Q]).

join({R1, F1}, {[], []}) when ?IS_QUEUE(R1, F1) -> {R1, F1};
join({[], []}, {R2, F2}) when ?IS_QUEUE(R2, F2) -> {R2, F2};
join({R1, F1}, {R2, F2}) when ?IS_QUEUE(R1, F1), ?IS_QUEUE(R2, F2) ->
    {R2, F1 ++ lists:reverse(R1, F2)};
join(Q1, Q2) -> erlang:error(badarg, [Q1, Q2]).

%% The first N items and the rest. Items move one at a time from the side
%% that holds the cut, so the work is proportional to the shorter distance
%% from the cut to an end of that side.
split(0, {R, F} = Q) when ?IS_QUEUE(R, F) -> {{[], []}, Q};
split(N, {R, F} = Q) when is_integer(N), N >= 1, ?IS_QUEUE(R, F) ->
    InFront = length(F),
    if
        N < InFront ->
            [X | F1] = F,
            move_front(N - 1, R, F1, [], [X]);
        N > InFront ->
            Keep = length(R) - (N - InFront),
            if
                Keep < 0 -> erlang:error(badarg, [N, Q]);
                Keep =:= 0 -> {Q, {[], []}};
                true ->
                    [X | R1] = R,
                    move_rear(Keep - 1, R1, F, [X], [])
            end;
        true ->
            {front_to_queue(F), rear_to_queue(R)}
    end;
split(N, Q) -> erlang:error(badarg, [N, Q]).

%% Moves N more items from the front of {R1, F1} to the rear of {R2, F2}.
move_front(0, R1, F1, R2, F2) -> {{R2, F2}, {R1, F1}};
move_front(N, R1, [X | F1], R2, F2) -> move_front(N - 1, R1, F1, [X | R2], F2).

%% Moves N more items from the rear of {R1, F1} to the front of {R2, F2}.
move_rear(0, R1, F1, R2, F2) -> {{R1, F1}, {R2, F2}};
move_rear(N, [X | R1], F1, R2, F2) -> move_rear(N - 1, R1, F1, R2, [X | F2]).

%% --- Higher-order ------------------------------------------------------------

%% Fun returns true, false or a list of items to put in the item's place.
filter(Fun, {R, F}) when is_function(Fun, 1), ?IS_QUEUE(R, F) ->
    F1 = filter_front(Fun, F),
    R1 = filter_rear(Fun, R),
    rebalance(R1, F1);
filter(Fun, Q) -> erlang:error(badarg, [Fun, Q]).

filter_front(Fun, [X | F]) ->
    case Fun(X) of
        true -> [X | filter_front(Fun, F)];
        false -> filter_front(Fun, F);
        L when is_list(L) -> L ++ filter_front(Fun, F)
    end;
filter_front(_, []) -> [].

%% The rear is newest first, but Fun sees its items oldest first.
filter_rear(Fun, [X | R0]) ->
    R = filter_rear(Fun, R0),
    case Fun(X) of
        true -> [X | R];
        false -> R;
        L when is_list(L) -> lists:reverse(L, R)
    end;
filter_rear(_, []) -> [].

rebalance([], F) -> front_to_queue(F);
rebalance(R, []) -> rear_to_queue(R);
rebalance(R, F) -> {R, F}.

filtermap(Fun, {R, F}) when is_function(Fun, 1), ?IS_QUEUE(R, F) ->
    F1 = lists:filtermap(Fun, F),
    R1 = lists:reverse(lists:filtermap(Fun, lists:reverse(R, [])), []),
    rebalance(R1, F1);
filtermap(Fun, Q) -> erlang:error(badarg, [Fun, Q]).

fold(Fun, Acc, {R, F}) when is_function(Fun, 2), ?IS_QUEUE(R, F) ->
    lists:foldr(Fun, lists:foldl(Fun, Acc, F), R);
fold(Fun, Acc, Q) -> erlang:error(badarg, [Fun, Acc, Q]).

any(Pred, {R, F}) when is_function(Pred, 1), ?IS_QUEUE(R, F) ->
    lists:any(Pred, F) orelse lists:any(Pred, R);
any(Pred, Q) -> erlang:error(badarg, [Pred, Q]).

all(Pred, {R, F}) when is_function(Pred, 1), ?IS_QUEUE(R, F) ->
    lists:all(Pred, F) andalso lists:all(Pred, R);
all(Pred, Q) -> erlang:error(badarg, [Pred, Q]).

%% --- Deleting one item ---------------------------------------------------------

delete(X, {R, F}) when ?IS_QUEUE(R, F) ->
    delete_with_front(fun(Y) -> Y =:= X end, R, F);
delete(X, Q) -> erlang:error(badarg, [X, Q]).

delete_r(X, {R, F}) when ?IS_QUEUE(R, F) ->
    {F1, R1} = delete_with_front(fun(Y) -> Y =:= X end, F, R),
    {R1, F1};
delete_r(X, Q) -> erlang:error(badarg, [X, Q]).

delete_with(Pred, {R, F}) when is_function(Pred, 1), ?IS_QUEUE(R, F) ->
    delete_with_front(Pred, R, F);
delete_with(Pred, Q) -> erlang:error(badarg, [Pred, Q]).

delete_with_r(Pred, {R, F}) when is_function(Pred, 1), ?IS_QUEUE(R, F) ->
    {F1, R1} = delete_with_front(Pred, F, R),
    {R1, F1};
delete_with_r(Pred, Q) -> erlang:error(badarg, [Pred, Q]).

%% Removes the first item of the queue {R, F} (in queue order) for which Pred
%% holds; an emptied side is refilled from the other.
delete_with_front(Pred, R, F) ->
    case delete_first(Pred, F) of
        false ->
            case delete_last(Pred, R) of
                false -> {R, F};
                [] -> front_to_queue(F);
                R1 -> {R1, F}
            end;
        [] -> rear_to_queue(R);
        F1 -> {R, F1}
    end.

%% The list without its first item for which Pred holds, or false.
delete_first(Pred, [X | L]) ->
    case Pred(X) of
        true -> L;
        false ->
            case delete_first(Pred, L) of
                false -> false;
                L1 -> [X | L1]
            end
    end;
delete_first(_, []) -> false.

%% The list without its last item for which Pred holds, or false; Pred sees
%% the items from the end.
delete_last(Pred, [X | L]) ->
    case delete_last(Pred, L) of
        false ->
            case Pred(X) of
                true -> L;
                false -> false
            end;
        L1 -> [X | L1]
    end;
delete_last(_, []) -> false.

%% --- Okasaki's API ---------------------------------------------------------------

cons(X, Q) -> in_r(X, Q).
head(Q) -> oldest(Q).
tail(Q) -> drop(Q).
snoc(Q, X) -> in(X, Q).
daeh(Q) -> get_r(Q).
last(Q) -> get_r(Q).
liat(Q) -> drop_r(Q).
init(Q) -> drop_r(Q).
lait(Q) -> drop_r(Q).
