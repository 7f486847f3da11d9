%% timer: the parts written in Erlang (the rest are built-ins).
-module(timer).
-export([sleep/1, tc/1, tc/2, tc/3, seconds/1, minutes/1, hours/1, hms/3]).

sleep(T) -> receive after T -> ok end.

tc(F) ->
    T0 = erlang:monotonic_time(microsecond),
    V = F(),
    {erlang:monotonic_time(microsecond) - T0, V}.

tc(F, A) ->
    T0 = erlang:monotonic_time(microsecond),
    V = apply(F, A),
    {erlang:monotonic_time(microsecond) - T0, V}.

tc(M, F, A) ->
    T0 = erlang:monotonic_time(microsecond),
    V = apply(M, F, A),
    {erlang:monotonic_time(microsecond) - T0, V}.

seconds(S) -> 1000 * S.
minutes(M) -> 60000 * M.
hours(H) -> 3600000 * H.
hms(H, M, S) -> hours(H) + minutes(M) + seconds(S).
