%% Benchmark: a simple_one_for_one supervisor starts N workers, every one
%% is killed, and the supervisor restarts them all (N restarts within its
%% intensity); then the tree is stopped. Reports are off on both sides
%% (logger's primary level), as they would be N supervisor reports.
-module(supervisor_restarts).
-behaviour(supervisor).
-export([main/0, main/1, init/1, start_worker/0]).

main() -> main(10000).

main(N) ->
    logger:set_primary_config(level, none),
    {ok, Sup} = supervisor:start_link(?MODULE, N),
    Old = [begin {ok, P} = supervisor:start_child(Sup, []), P end
           || _ <- lists:seq(1, N)],
    [exit(P, kill) || P <- Old],
    wait_restarted(Sup, Old),
    unlink(Sup),
    Ref = monitor(process, Sup),
    exit(Sup, shutdown),
    receive {'DOWN', Ref, process, Sup, _} -> ok end,
    io:format("~p workers restarted~n", [N]).

init(N) ->
    {ok, {#{strategy => simple_one_for_one, intensity => N, period => 3600},
          [#{id => worker, start => {?MODULE, start_worker, []},
             shutdown => brutal_kill}]}}.

start_worker() ->
    {ok, spawn_link(fun() -> receive stop -> ok end end)}.

%% Every old worker is gone from the supervisor's children, and as many
%% new ones are there.
wait_restarted(Sup, Old) ->
    Now = [P || {_, P, _, _} <- supervisor:which_children(Sup), is_pid(P)],
    case length(Now) =:= length(Old) andalso not lists:any(fun is_old/1, mark(Now, Old)) of
        true -> ok;
        false -> timer:sleep(5), wait_restarted(Sup, Old)
    end.

%% Which of the current children are old ones (sorted merge, no sets).
mark(Now, Old) -> merge(lists:sort(Now), lists:sort(Old)).

merge([P | Now], [P | Old]) -> [old | merge(Now, Old)];
merge([A | Now], [B | _] = Old) when A < B -> [new | merge(Now, Old)];
merge([_ | _] = Now, [_ | Old]) -> merge(Now, Old);
merge(Now, []) -> [new || _ <- Now];
merge([], _) -> [].

is_old(X) -> X =:= old.
