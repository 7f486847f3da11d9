%% timer, in Erlang on top of what the engine already records: erlang's
%% timers, processes, messages and receive ... after.
%%
%% send_after/3 to a pid is an erlang:send_after/3 timer ({send_local, Ref}).
%% Every other timer is a helper process that waits in receive ... after
%% (as OTP's timer server does conceptually) and then acts: sends, spawns
%% the applied function, or sends the exit signal. A time of 0 acts at once
%% in the caller ({instant, Ref}). Repeating timers stop when the process
%% they are tied to ends, as OTP's do: send_interval/3 with the pid it sends
%% to, apply_interval/4 with the caller. The timer reference names the
%% helper (trace_prelude:timer_ref/1), so cancel/1 can stop it from any
%% process; once it returns, the timer does nothing more. Bad arguments give
%% {error, badarg}, as in OTP.
-module(timer).
-export([sleep/1, tc/1, tc/2, tc/3, seconds/1, minutes/1, hours/1, hms/3,
         send_after/2, send_after/3, send_interval/2, send_interval/3,
         apply_after/4, apply_interval/4, exit_after/2, exit_after/3,
         kill_after/1, kill_after/2, cancel/1, now_diff/2, start/0]).

%% The longest wait one receive ... after can take.
-define(MAX_WAIT, 16#ffffffff).

-define(IS_TIME(T), is_integer(T), T >= 0).
-define(IS_NAME(D), (is_atom(D) orelse (is_tuple(D) andalso tuple_size(D) =:= 2
                                       andalso is_atom(element(1, D))
                                       andalso is_atom(element(2, D))))).

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

now_diff({A2, B2, C2}, {A1, B1, C1}) -> ((A2 - A1) * 1000000 + B2 - B1) * 1000000 + C2 - C1.

%% There is no server to start.
start() -> ok.

%% --- Timers ------------------------------------------------------------------

send_after(0, Dest, Msg) when is_pid(Dest); ?IS_NAME(Dest) ->
    catch Dest ! Msg,
    {ok, {instant, make_ref()}};
send_after(Time, Pid, Msg) when ?IS_TIME(Time), Time =< ?MAX_WAIT, is_pid(Pid) ->
    {ok, {send_local, erlang:send_after(Time, Pid, Msg)}};
send_after(Time, Pid, Msg) when ?IS_TIME(Time), is_pid(Pid) ->
    %% Longer than an erlang timer takes here (BEAM's take a little more).
    once(Time, Pid, fun() -> Pid ! Msg end);
send_after(Time, Dest, Msg) when ?IS_TIME(Time), ?IS_NAME(Dest) ->
    once(Time, none, fun() -> catch Dest ! Msg end);
send_after(_, _, _) -> {error, badarg}.

send_after(Time, Msg) -> send_after(Time, self(), Msg).

apply_after(0, M, F, A) when is_atom(M), is_atom(F), is_list(A) ->
    spawn(M, F, A),
    {ok, {instant, make_ref()}};
apply_after(Time, M, F, A) when ?IS_TIME(Time), is_atom(M), is_atom(F), is_list(A) ->
    once(Time, none, fun() -> spawn(M, F, A) end);
apply_after(_, _, _, _) -> {error, badarg}.

exit_after(0, Dest, Reason) ->
    catch exit(resolve(Dest), Reason),
    {ok, {instant, make_ref()}};
exit_after(Time, Pid, Reason) when ?IS_TIME(Time), is_pid(Pid) ->
    %% Once Pid has ended the signal would do nothing: wait no longer.
    once(Time, Pid, fun() -> exit(Pid, Reason) end);
exit_after(Time, Dest, Reason) when ?IS_TIME(Time) ->
    once(Time, none, fun() -> catch exit(resolve(Dest), Reason) end);
exit_after(_, _, _) -> {error, badarg}.

exit_after(Time, Reason) -> exit_after(Time, self(), Reason).

kill_after(Time) -> exit_after(Time, self(), kill).

kill_after(Time, Pid) -> exit_after(Time, Pid, kill).

resolve(Name) when is_atom(Name) -> whereis(Name);
resolve(Dest) -> Dest.

send_interval(Time, Pid, Msg) when ?IS_TIME(Time), is_pid(Pid) ->
    interval(Time, Pid, fun() -> Pid ! Msg end);
send_interval(Time, Dest, Msg) when ?IS_TIME(Time), ?IS_NAME(Dest) ->
    interval(Time, none, fun() -> catch Dest ! Msg end);
send_interval(_, _, _) -> {error, badarg}.

send_interval(Time, Msg) -> send_interval(Time, self(), Msg).

apply_interval(Time, M, F, A) when ?IS_TIME(Time), is_atom(M), is_atom(F), is_list(A) ->
    interval(Time, self(), fun() -> spawn(M, F, A) end);
apply_interval(_, _, _, _) -> {error, badarg}.

cancel({send_local, Ref}) when is_reference(Ref) ->
    erlang:cancel_timer(Ref),
    {ok, cancel};
cancel({Kind, Ref}) when (Kind =:= once orelse Kind =:= interval), is_reference(Ref) ->
    case trace_prelude:timer_process(Ref) of
        false -> ok;
        Helper -> stop(Helper)
    end,
    {ok, cancel};
cancel({instant, Ref}) when is_reference(Ref) -> {ok, cancel};
cancel(_) -> {error, badarg}.

%% Waits for the helper to confirm (or to be gone), so that nothing fires
%% after cancel/1 has returned.
stop(Helper) ->
    MRef = erlang:monitor(process, Helper),
    Helper ! {'$trace_timer_cancel', self(), MRef},
    receive
        {MRef, cancelled} -> erlang:demonitor(MRef, [flush]);
        {'DOWN', MRef, _, _, _} -> ok
    end.

%% --- Helper processes -------------------------------------------------------

%% Act once, Time ms from now, unless cancelled first or Watch (a pid, or
%% none) ends first.
once(Time, Watch, Action) ->
    Helper = spawn(fun() ->
                           case wait(Time, watch(Watch)) of
                               fire -> Action();
                               stop -> ok
                           end
                   end),
    {ok, {once, trace_prelude:timer_ref(Helper)}}.

%% Act every Time ms until cancelled or Watch ends.
interval(Time, Watch, Action) ->
    Helper = spawn(fun() -> repeat(Time, watch(Watch), Action) end),
    {ok, {interval, trace_prelude:timer_ref(Helper)}}.

repeat(Time, MRef, Action) ->
    case wait(Time, MRef) of
        fire ->
            Action(),
            repeat(Time, MRef, Action);
        stop ->
            ok
    end.

watch(none) -> none;
watch(Pid) -> erlang:monitor(process, Pid).

%% fire after Time ms; stop on a cancel request or when the watched process
%% ends. Waits longer than one receive can take are taken in parts.
wait(Time, MRef) when Time > ?MAX_WAIT ->
    case wait_part(?MAX_WAIT, MRef) of
        fire -> wait(Time - ?MAX_WAIT, MRef);
        stop -> stop
    end;
wait(Time, MRef) -> wait_part(Time, MRef).

wait_part(Time, MRef) ->
    receive
        {'$trace_timer_cancel', From, Tag} ->
            From ! {Tag, cancelled},
            stop;
        {'DOWN', MRef, process, _, _} ->
            stop
    after Time ->
            fire
    end.
