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
    Before = erlang:processes(),
    {Pid, Ref} = spawn_monitor(Module, main, []),
    case wait_entry(Before, Ref, Pid, 0) of
        blocked ->
            %% The entry itself waits forever (with the rest): a deadlock.
            erlang:halt(5, [{flush, true}]);
        Crashed ->
            _Idle = settle(Before, 0),
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
            case quiet(Before) of
                true when Quiet >= 10 -> blocked;
                true -> wait_entry(Before, Ref, Pid, Quiet + 1);
                false -> wait_entry(Before, Ref, Pid, 0)
            end
    end.

%% Waits until the program's remaining processes have all been waiting in
%% receive for several checks in a row (timers shorter than that fire first).
settle(Before, Quiet) when Quiet >= 10 ->
    alive(Before);
settle(Before, Quiet) ->
    timer:sleep(25),
    case quiet(Before) of
        true -> settle(Before, Quiet + 1);
        false -> settle(Before, 0)
    end.

%% Every process of the program waits in receive and nothing is runnable.
quiet(Before) ->
    Waiting = lists:all(fun(P) ->
                                process_info(P, status) =:= {status, waiting}
                        end, alive(Before)),
    Waiting andalso erlang:statistics(total_run_queue_lengths) =:= 0.

alive(Before) ->
    [P || P <- erlang:processes() -- Before, is_process_alive(P)].
