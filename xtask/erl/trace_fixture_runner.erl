%% Runs a fixture on the real VM the way `trace run` runs it, so that their
%% standard output and exit status can be compared:
%% - the entry runs in its own process; crash reports are not printed (trace
%%   prints them on stderr, erl's logger would print them on stdout);
%% - after the entry ends, the run goes on until every other process has
%%   exited or stays blocked in receive;
%% - exit status: 0 the entry returned (servers left idle in receive are
%%   normal, as on BEAM), 1 the entry crashed, 5 the entry itself was left
%%   blocked forever. (trace also calls a run a deadlock when a process is
%%   left waiting for something particular, a reply or one process's
%%   message, which this runner cannot see: fixtures leave such cases to the
%%   engine's own tests.)
-module(trace_fixture_runner).
-export([run/1]).

run(Module) ->
    logger:set_primary_config(level, none),
    %% The timer module's server is OTP's, not the program's: started first,
    %% it is not counted among the program's processes.
    ok = timer:start(),
    Before = erlang:processes(),
    {Pid, Ref} = spawn_monitor(Module, main, []),
    case wait_entry(Before, Ref, Pid, {0, []}) of
        blocked ->
            %% The entry itself waits forever (with the rest): a deadlock.
            erlang:halt(5, [{flush, true}]);
        Crashed ->
            _Idle = settle(Before, {0, []}),
            Status = if Crashed -> 1; true -> 0 end,
            erlang:halt(Status, [{flush, true}])
    end.

%% Waits for the entry to end (true if it crashed); `blocked` when it and
%% every other process of the program stay waiting in receive.
wait_entry(Before, Ref, Pid, Quiet) ->
    receive
        {'DOWN', Ref, process, Pid, normal} -> false;
        {'DOWN', Ref, process, Pid, _} -> true
    after 25 ->
            case check(Before, Quiet) of
                {N, _} when N >= 10 -> blocked;
                Quiet1 -> wait_entry(Before, Ref, Pid, Quiet1)
            end
    end.

%% Waits until the program's remaining processes have all been waiting in
%% receive for several checks in a row (timers shorter than that fire first).
settle(Before, {N, _}) when N >= 10 ->
    alive(Before);
settle(Before, Quiet) ->
    timer:sleep(25),
    settle(Before, check(Before, Quiet)).

%% One more check: {checks in a row that found the program quiet, what
%% its processes had done at the last one}. Quiet means every process of
%% the program waits in receive, nothing is runnable, and no process has
%% run since the check before (a timer that fired in between woke one).
check(Before, {N, Done}) ->
    Done1 = [{P, R} || P <- erlang:processes() -- Before,
                       {reductions, R} <- [process_info(P, reductions)]],
    Waiting = lists:all(fun(P) ->
                                process_info(P, status) =:= {status, waiting}
                        end, alive(Before)),
    case Waiting andalso erlang:statistics(total_run_queue_lengths) =:= 0
        andalso Done1 =:= Done of
        true -> {N + 1, Done1};
        false -> {0, Done1}
    end.

alive(Before) ->
    [P || P <- erlang:processes() -- Before, is_process_alive(P)].
