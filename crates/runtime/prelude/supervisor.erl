%% supervisor: the supervisor behaviour, written from OTP 25's
%% documentation. A supervisor is a gen_server (its requests are
%% gen_server calls, as in OTP) that traps exits, starts its children in
%% order, restarts them by its strategy (one_for_one, one_for_all,
%% rest_for_one, simple_one_for_one) within its restart intensity, and
%% stops them in reverse order with their shutdown (a timeout, infinity or
%% brutal_kill). Errors are logged as OTP's SUPERVISOR REPORTs (on
%% stderr). Significant children and automatic shutdown are not supported.
-module(supervisor).
-behaviour(gen_server).
-export([start_link/2, start_link/3, start_child/2, restart_child/2,
         delete_child/2, terminate_child/2, which_children/1,
         count_children/1, check_childspecs/1, check_childspecs/2,
         get_childspec/2, get_callback_module/1, format_log/1,
         format_log/2]).
-export([init/1, handle_call/3, handle_cast/2, handle_info/2,
         terminate/2, code_change/3, format_status/2]).

-record(child, {pid = undefined,   % pid | undefined | {restarting, Old}
                id,
                mfargs,
                restart_type,
                shutdown,
                child_type,
                modules = []}).

-record(state, {name,
                strategy,
                children = [],      % static children, in start order
                dynamics = #{},     % simple_one_for_one: Pid => Args
                intensity,
                period,
                %% Restart times within the period: {Count, Oldest first,
                %% Newest first}, so that each restart costs O(1).
                restarts = {0, [], []},
                module,
                args}).

-define(SIMPLE(State), State#state.strategy =:= simple_one_for_one).

%%% API

start_link(Mod, Args) ->
    gen_server:start_link(supervisor, {self, Mod, Args}, []).

start_link(SupName, Mod, Args) ->
    gen_server:start_link(SupName, supervisor, {SupName, Mod, Args}, []).

start_child(Sup, ChildSpecOrArgs) ->
    call(Sup, {start_child, ChildSpecOrArgs}).

restart_child(Sup, Id) -> call(Sup, {restart_child, Id}).
delete_child(Sup, Id) -> call(Sup, {delete_child, Id}).
terminate_child(Sup, IdOrPid) -> call(Sup, {terminate_child, IdOrPid}).
which_children(Sup) -> call(Sup, which_children).
count_children(Sup) -> call(Sup, count_children).
get_childspec(Sup, Id) -> call(Sup, {get_childspec, Id}).

get_callback_module(Pid) ->
    State = sys:get_state(Pid),
    State#state.module.

call(Sup, Req) -> gen_server:call(Sup, Req, infinity).

check_childspecs(ChildSpecs) -> check_childspecs(ChildSpecs, never).

check_childspecs(ChildSpecs, AutoShutdown) when is_list(ChildSpecs) ->
    case check_auto_shutdown(AutoShutdown) of
        ok ->
            case check_startspec(ChildSpecs) of
                {ok, _} -> ok;
                Error -> {error, Error}
            end;
        Error -> {error, Error}
    end;
check_childspecs(X, _AutoShutdown) ->
    {error, {badarg, X}}.

%%% gen_server callbacks

init({SupName, Mod, Args}) ->
    process_flag(trap_exit, true),
    case Mod:init(Args) of
        {ok, {SupFlags, StartSpec}} ->
            case init_state(SupName, SupFlags, Mod, Args) of
                {ok, State} when ?SIMPLE(State) -> init_dynamic(State, StartSpec);
                {ok, State} -> init_children(State, StartSpec);
                Error -> {stop, {supervisor_data, Error}}
            end;
        ignore ->
            ignore;
        Error ->
            {stop, {bad_return, {Mod, init, Error}}}
    end.

init_children(State, StartSpec) ->
    case check_startspec(StartSpec) of
        {ok, Children} ->
            case start_children(Children, State#state.name) of
                {ok, Started} ->
                    {ok, State#state{children = Started}};
                {error, Started, Reason} ->
                    terminate_children(Started, State#state.name),
                    {stop, {shutdown, Reason}}
            end;
        Error ->
            {stop, {start_spec, Error}}
    end.

init_dynamic(State, [StartSpec]) ->
    case check_startspec([StartSpec]) of
        {ok, Children} -> {ok, State#state{children = Children}};
        Error -> {stop, {start_spec, Error}}
    end;
init_dynamic(_State, StartSpec) ->
    {stop, {bad_start_spec, StartSpec}}.

%% Starts children in order; on a failure the ones started are returned
%% for the caller to stop.
start_children(Children, SupName) ->
    start_children(Children, [], SupName).

start_children([Child | Rest], Started, SupName) ->
    case do_start_child(SupName, Child) of
        {ok, Pid} ->
            start_children(Rest, [Child#child{pid = Pid} | Started], SupName);
        {ok, Pid, _Extra} ->
            start_children(Rest, [Child#child{pid = Pid} | Started], SupName);
        {error, Reason} ->
            report_error(start_error, Reason, Child, SupName),
            {error, lists:reverse(Started),
             {failed_to_start_child, Child#child.id, Reason}}
    end;
start_children([], Started, _SupName) ->
    {ok, lists:reverse(Started)}.

do_start_child(SupName, Child) ->
    #child{mfargs = {M, F, Args}} = Child,
    case do_start_child_i(M, F, Args) of
        {ok, Pid} when is_pid(Pid) ->
            report_progress(Child#child{pid = Pid}, SupName),
            {ok, Pid};
        {ok, Pid, Extra} when is_pid(Pid) ->
            report_progress(Child#child{pid = Pid}, SupName),
            {ok, Pid, Extra};
        Other ->
            Other
    end.

do_start_child_i(M, F, A) ->
    case catch apply(M, F, A) of
        {ok, Pid} when is_pid(Pid) -> {ok, Pid};
        {ok, Pid, Extra} when is_pid(Pid) -> {ok, Pid, Extra};
        ignore -> {ok, undefined};
        {error, Error} -> {error, Error};
        What -> {error, What}
    end.

handle_call({start_child, EArgs}, _From, State) when ?SIMPLE(State) ->
    [Child] = State#state.children,
    #child{mfargs = {M, F, A}} = Child,
    Args = A ++ EArgs,
    case do_start_child_i(M, F, Args) of
        {ok, undefined} ->
            {reply, {ok, undefined}, State};
        {ok, Pid} ->
            {reply, {ok, Pid}, add_dynamic(Pid, Args, State)};
        {ok, Pid, Extra} ->
            {reply, {ok, Pid, Extra}, add_dynamic(Pid, Args, State)};
        What ->
            {reply, What, State}
    end;
handle_call({start_child, ChildSpec}, _From, State) ->
    case check_childspec(ChildSpec) of
        {ok, Child} ->
            {Resp, NState} = handle_start_child(Child, State),
            {reply, Resp, NState};
        What ->
            {reply, {error, What}, State}
    end;
handle_call({terminate_child, Pid}, _From, State)
  when is_pid(Pid), ?SIMPLE(State) ->
    case State#state.dynamics of
        #{Pid := _} ->
            [Child] = State#state.children,
            do_terminate(Child#child{pid = Pid}, State#state.name),
            {reply, ok, State#state{
                          dynamics = maps:remove(Pid, State#state.dynamics)}};
        _ ->
            %% As in OTP: a process that has ended counts as terminated.
            case is_process_alive(Pid) of
                true -> {reply, {error, not_found}, State};
                false -> {reply, ok, State}
            end
    end;
handle_call({terminate_child, _Id}, _From, State) when ?SIMPLE(State) ->
    {reply, {error, simple_one_for_one}, State};
handle_call({terminate_child, IdOrPid}, _From, State) ->
    case find_child(IdOrPid, State) of
        {ok, Child} ->
            do_terminate(Child, State#state.name),
            {reply, ok, del_child(Child, State)};
        error ->
            {reply, {error, not_found}, State}
    end;
handle_call({restart_child, _Id}, _From, State) when ?SIMPLE(State) ->
    {reply, {error, simple_one_for_one}, State};
handle_call({restart_child, Id}, _From, State) ->
    case stopped_child(Id, State) of
        {ok, Child} ->
            case do_start_child(State#state.name, Child) of
                {ok, Pid} ->
                    {reply, {ok, Pid}, replace_child(Child#child{pid = Pid}, State)};
                {ok, Pid, Extra} ->
                    {reply, {ok, Pid, Extra},
                     replace_child(Child#child{pid = Pid}, State)};
                Error ->
                    {reply, Error, State}
            end;
        Error ->
            {reply, Error, State}
    end;
handle_call({delete_child, _Id}, _From, State) when ?SIMPLE(State) ->
    {reply, {error, simple_one_for_one}, State};
handle_call({delete_child, Id}, _From, State) ->
    case stopped_child(Id, State) of
        {ok, Child} -> {reply, ok, remove_child(Child, State)};
        Error -> {reply, Error, State}
    end;
handle_call({get_childspec, Id}, _From, State) when ?SIMPLE(State) ->
    [Child] = State#state.children,
    Known = Id =:= Child#child.id orelse maps:is_key(Id, State#state.dynamics),
    case Known of
        true -> {reply, {ok, child_to_spec(Child)}, State};
        false -> {reply, {error, not_found}, State}
    end;
handle_call({get_childspec, Id}, _From, State) ->
    case find_child(Id, State) of
        {ok, Child} -> {reply, {ok, child_to_spec(Child)}, State};
        error -> {reply, {error, not_found}, State}
    end;
handle_call(which_children, _From, State) when ?SIMPLE(State) ->
    [#child{child_type = CT, modules = Mods}] = State#state.children,
    Reply = [{undefined, Pid, CT, Mods}
             || Pid <- lists:sort(maps:keys(State#state.dynamics))],
    {reply, Reply, State};
handle_call(which_children, _From, State) ->
    Reply = [{Id, shown_pid(Pid), CT, Mods}
             || #child{id = Id, pid = Pid, child_type = CT, modules = Mods}
                    <- lists:reverse(State#state.children)],
    {reply, Reply, State};
handle_call(count_children, _From, State) when ?SIMPLE(State) ->
    [#child{child_type = CT}] = State#state.children,
    N = maps:size(State#state.dynamics),
    Reply = case CT of
                supervisor -> [{specs, 1}, {active, N}, {supervisors, N},
                               {workers, 0}];
                worker -> [{specs, 1}, {active, N}, {supervisors, 0},
                           {workers, N}]
            end,
    {reply, Reply, State};
handle_call(count_children, _From, State) ->
    Children = State#state.children,
    Active = length([C || #child{pid = P} = C <- Children, is_pid(P)]),
    Sups = length([C || #child{child_type = supervisor} = C <- Children]),
    Workers = length(Children) - Sups,
    {reply, [{specs, length(Children)}, {active, Active},
             {supervisors, Sups}, {workers, Workers}], State}.

shown_pid({restarting, _}) -> restarting;
shown_pid(Pid) -> Pid.

handle_start_child(Child, State) ->
    case find_child(Child#child.id, State) of
        error ->
            case do_start_child(State#state.name, Child) of
                {ok, undefined} when Child#child.restart_type =:= temporary ->
                    {{ok, undefined}, State};
                {ok, Pid} ->
                    {{ok, Pid}, add_child(Child#child{pid = Pid}, State)};
                {ok, Pid, Extra} ->
                    {{ok, Pid, Extra}, add_child(Child#child{pid = Pid}, State)};
                {error, What} ->
                    {{error, What}, State}
            end;
        {ok, #child{pid = undefined}} ->
            {{error, already_present}, State};
        {ok, #child{pid = Pid}} ->
            {{error, {already_started, Pid}}, State}
    end.

handle_cast({try_again_restart, Id}, State) ->
    case find_child_and_args(Id, State) of
        {ok, Child = #child{pid = {restarting, _}}} ->
            case restart(Child, State) of
                {ok, State1} -> {noreply, State1};
                {shutdown, State1} -> {stop, shutdown, State1}
            end;
        _ ->
            {noreply, State}
    end.

handle_info({'EXIT', Pid, Reason}, State) ->
    case restart_child(Pid, Reason, State) of
        {ok, State1} -> {noreply, State1};
        {shutdown, State1} -> {stop, shutdown, State1}
    end;
handle_info(Msg, State) ->
    logger:error("Supervisor received unexpected message: ~tp~n", [Msg],
                 #{domain => [otp], error_logger => #{tag => error}}),
    {noreply, State}.

terminate(_Reason, State) when ?SIMPLE(State) ->
    [Child] = State#state.children,
    terminate_dynamic_children(Child, maps:keys(State#state.dynamics),
                               State#state.name);
terminate(_Reason, State) ->
    terminate_children(State#state.children, State#state.name).

code_change(_OldVsn, State, _Extra) ->
    {ok, State}.

format_status(terminate, [_PDict, State]) ->
    State;
format_status(_Opt, [_PDict, State]) ->
    [{data, [{"State", State}]},
     {supervisor, [{"Callback", State#state.module}]}].

%%% Restarting

restart_child(Pid, Reason, State) when ?SIMPLE(State) ->
    case State#state.dynamics of
        #{Pid := Args} ->
            [Child] = State#state.children,
            #child{mfargs = {M, F, _}} = Child,
            do_restart(Reason, Child#child{pid = Pid, mfargs = {M, F, Args}},
                       State);
        _ ->
            {ok, State}
    end;
restart_child(Pid, Reason, State) ->
    case [C || #child{pid = P} = C <- State#state.children, P =:= Pid] of
        [Child] -> do_restart(Reason, Child, State);
        [] -> {ok, State}
    end.

do_restart(Reason, #child{restart_type = permanent} = Child, State) ->
    report_error(child_terminated, Reason, Child, State#state.name),
    restart(Child, State);
do_restart(Reason, #child{restart_type = transient} = Child, State) ->
    case normal_exit(Reason) of
        true -> {ok, del_child(Child, State)};
        false ->
            report_error(child_terminated, Reason, Child, State#state.name),
            restart(Child, State)
    end;
do_restart(Reason, #child{restart_type = temporary} = Child, State) ->
    case normal_exit(Reason) of
        true -> ok;
        false -> report_error(child_terminated, Reason, Child, State#state.name)
    end,
    {ok, del_child(Child, State)}.

normal_exit(normal) -> true;
normal_exit(shutdown) -> true;
normal_exit({shutdown, _}) -> true;
normal_exit(_) -> false.

restart(Child, State) ->
    case add_restart(State) of
        {ok, NState} ->
            case restart(NState#state.strategy, Child, NState) of
                {{try_again, Id}, NState2} ->
                    %% Tried again through the mailbox, so that other
                    %% requests are served meanwhile.
                    gen_server:cast(self(), {try_again_restart, Id}),
                    {ok, NState2};
                Other ->
                    Other
            end;
        {terminate, NState} ->
            report_error(shutdown, reached_max_restart_intensity, Child,
                         State#state.name),
            {shutdown, del_child(Child, NState)}
    end.

restart(simple_one_for_one, Child, State) ->
    #child{pid = OldPid, mfargs = {M, F, A}} = Child,
    Dynamics = maps:remove(OldPid,
                           maps:remove(old_pid(OldPid), State#state.dynamics)),
    case do_start_child_i(M, F, A) of
        {ok, Pid} ->
            {ok, State#state{dynamics = Dynamics#{Pid => A}}};
        {ok, Pid, _Extra} ->
            {ok, State#state{dynamics = Dynamics#{Pid => A}}};
        {error, Error} ->
            report_error(start_error, Error, Child, State#state.name),
            %% The restarting child keeps its arguments under a key that
            %% is not a pid until it is started again.
            Key = {restarting, old_pid(OldPid)},
            {{try_again, Key},
             State#state{dynamics = Dynamics#{Key => A}}}
    end;
restart(one_for_one, Child, State) ->
    case do_start_child(State#state.name, Child) of
        {ok, Pid} ->
            {ok, replace_child(Child#child{pid = Pid}, State)};
        {ok, Pid, _Extra} ->
            {ok, replace_child(Child#child{pid = Pid}, State)};
        {error, Reason} ->
            report_error(start_error, Reason, Child, State#state.name),
            {{try_again, Child#child.id},
             replace_child(Child#child{pid = restarting(Child#child.pid)},
                           State)}
    end;
restart(rest_for_one, Child, State) ->
    {Before, [_ | After]} = split_at(Child#child.id, State#state.children),
    After1 = terminate_children(After, State#state.name),
    restart_in_order(Before, [Child | After1], State);
restart(one_for_all, Child, State) ->
    Others = [C || C <- State#state.children, C#child.id =/= Child#child.id],
    Left = terminate_children(Others, State#state.name),
    %% As in OTP, every child left is started again, in order.
    Restart = [case C#child.id =:= Child#child.id of
                   true -> C;
                   false -> hd([L || L <- Left, L#child.id =:= C#child.id] ++ [none])
               end || C <- State#state.children],
    restart_in_order([], [C || C <- Restart, C =/= none], State).

%% Starts the children in ToStart (in order) after the untouched Before.
restart_in_order(Before, ToStart, State) ->
    start_in_order(ToStart, lists:reverse(Before), State).

start_in_order([], Done, State) ->
    {ok, State#state{children = lists:reverse(Done)}};
start_in_order([C | Rest], Done, State) ->
    case do_start_child(State#state.name, C) of
        {ok, Pid} ->
            start_in_order(Rest, [C#child{pid = Pid} | Done], State);
        {ok, Pid, _Extra} ->
            start_in_order(Rest, [C#child{pid = Pid} | Done], State);
        {error, Reason} ->
            report_error(start_error, Reason, C, State#state.name),
            Left = [X#child{pid = undefined} || X <- Rest],
            Children = lists:reverse(Done) ++
                [C#child{pid = {restarting, undefined}} | Left],
            {{try_again, C#child.id}, State#state{children = Children}}
    end.

restarting(Pid) when is_pid(Pid) -> {restarting, Pid};
restarting(Other) -> Other.

old_pid({restarting, Pid}) -> old_pid(Pid);
old_pid(Pid) -> Pid.

split_at(Id, Children) ->
    lists:splitwith(fun(#child{id = X}) -> X =/= Id end, Children).

add_restart(State) ->
    Now = erlang:monotonic_time(second),
    {N, Old, New} = drop_old(State#state.restarts, Now - State#state.period),
    Restarts = {N + 1, Old, [Now | New]},
    NState = State#state{restarts = Restarts},
    case N + 1 =< State#state.intensity of
        true -> {ok, NState};
        false -> {terminate, NState}
    end.

%% Forgets the restarts at or before Since.
drop_old({0, _, _}, _Since) -> {0, [], []};
drop_old({N, [], New}, Since) -> drop_old({N, lists:reverse(New), []}, Since);
drop_old({N, [T | Old], New}, Since) when T =< Since ->
    drop_old({N - 1, Old, New}, Since);
drop_old(Restarts, _Since) -> Restarts.

%%% Stopping children

%% Stops children in reverse start order; returns them as they are left
%% (temporary children are gone).
terminate_children(Children, SupName) ->
    Left = lists:foldl(
             fun(Child, Acc) ->
                     do_terminate(Child, SupName),
                     case Child#child.restart_type of
                         temporary -> Acc;
                         _ -> [Child#child{pid = undefined} | Acc]
                     end
             end, [], lists:reverse(Children)),
    Left.

do_terminate(#child{pid = Pid} = Child, SupName) when is_pid(Pid) ->
    case shutdown(Child) of
        ok -> ok;
        {error, normal} when Child#child.restart_type =/= permanent -> ok;
        {error, OtherReason} ->
            report_error(shutdown_error, OtherReason, Child, SupName)
    end,
    ok;
do_terminate(_Child, _SupName) ->
    ok.

%% The child may have died before we unlinked: its 'EXIT' says how.
monitor_child(Pid) ->
    erlang:monitor(process, Pid),
    unlink(Pid),
    receive
        {'EXIT', Pid, Reason} ->
            receive {'DOWN', _, process, Pid, _} -> {error, Reason} end
    after 0 -> ok
    end.

shutdown(#child{pid = Pid, shutdown = brutal_kill}) ->
    case monitor_child(Pid) of
        ok ->
            exit(Pid, kill),
            receive
                {'DOWN', _, process, Pid, killed} -> ok;
                {'DOWN', _, process, Pid, Other} -> {error, Other}
            end;
        Error -> Error
    end;
shutdown(#child{pid = Pid, shutdown = Time}) ->
    case monitor_child(Pid) of
        ok ->
            exit(Pid, shutdown),
            receive
                {'DOWN', _, process, Pid, shutdown} -> ok;
                {'DOWN', _, process, Pid, Other} -> {error, Other}
            after Time ->
                    exit(Pid, kill),
                    receive
                        {'DOWN', _, process, Pid, Other} -> {error, Other}
                    end
            end;
        Error -> Error
    end.

%% simple_one_for_one: every child is told at once, then waited for.
terminate_dynamic_children(Child, Pids, SupName) ->
    Monitored = [Pid || Pid <- Pids, is_pid(Pid),
                        monitor_child(Pid) =:= ok],
    Sig = case Child#child.shutdown of
              brutal_kill -> kill;
              _ -> shutdown
          end,
    [exit(P, Sig) || P <- Monitored],
    Timer = case Child#child.shutdown of
                Time when is_integer(Time) ->
                    erlang:start_timer(Time, self(), kill);
                _ -> undefined
            end,
    wait_dynamic_children(Child, Monitored, Timer, Sig, SupName).

wait_dynamic_children(_Child, [], Timer, _Sig, _SupName) ->
    case Timer of
        undefined -> ok;
        _ ->
            erlang:cancel_timer(Timer),
            receive {timeout, Timer, kill} -> ok after 0 -> ok end
    end;
wait_dynamic_children(Child, Pids, Timer, Sig, SupName) ->
    receive
        {'DOWN', _, process, Pid, Reason} ->
            case lists:member(Pid, Pids) of
                true ->
                    expected_reason(Sig, Reason, Child)
                        orelse report_error(shutdown_error, Reason,
                                            Child#child{pid = Pid}, SupName),
                    wait_dynamic_children(Child, lists:delete(Pid, Pids),
                                          Timer, Sig, SupName);
                false ->
                    wait_dynamic_children(Child, Pids, Timer, Sig, SupName)
            end;
        {timeout, Timer, kill} ->
            [exit(P, kill) || P <- Pids],
            wait_dynamic_children(Child, Pids, undefined, kill, SupName)
    end.

expected_reason(shutdown, shutdown, _) -> true;
expected_reason(kill, killed, _) -> true;
expected_reason(_, normal, #child{restart_type = R}) -> R =/= permanent;
expected_reason(_, _, _) -> false.

%%% The children

add_dynamic(Pid, Args, State) ->
    State#state{dynamics = (State#state.dynamics)#{Pid => Args}}.

add_child(Child, State) ->
    State#state{children = State#state.children ++ [Child]}.

replace_child(Child, State) ->
    State#state{children = [case C#child.id =:= Child#child.id of
                                true -> Child;
                                false -> C
                            end || C <- State#state.children]}.

remove_child(Child, State) ->
    State#state{children = [C || C <- State#state.children,
                                 C#child.id =/= Child#child.id]}.

%% A child that has ended: a temporary one is forgotten, another keeps its
%% spec with no process (simple_one_for_one children are forgotten).
del_child(#child{pid = Pid}, State) when ?SIMPLE(State) ->
    State#state{dynamics = maps:remove(old_pid(Pid), State#state.dynamics)};
del_child(#child{restart_type = temporary} = Child, State) ->
    remove_child(Child, State);
del_child(Child, State) ->
    replace_child(Child#child{pid = undefined}, State).

find_child(Pid, State) when is_pid(Pid), ?SIMPLE(State) ->
    case State#state.dynamics of
        #{Pid := Args} ->
            [Child] = State#state.children,
            {M, F, _} = Child#child.mfargs,
            {ok, Child#child{pid = Pid, mfargs = {M, F, Args}}};
        _ -> error
    end;
find_child(_Id, State) when ?SIMPLE(State) ->
    error;
find_child(Pid, State) when is_pid(Pid) ->
    case [C || #child{pid = P} = C <- State#state.children, P =:= Pid] of
        [Child] -> {ok, Child};
        [] -> error
    end;
find_child(Id, State) ->
    case [C || #child{id = X} = C <- State#state.children, X =:= Id] of
        [Child] -> {ok, Child};
        [] -> error
    end.

%% The child `Id` names, when it is stopped (restart_child and delete_child
%% act only on those); otherwise the error both reply with.
stopped_child(Id, State) ->
    case find_child(Id, State) of
        {ok, #child{pid = undefined} = Child} -> {ok, Child};
        {ok, #child{pid = {restarting, _}}} -> {error, restarting};
        {ok, _} -> {error, running};
        error -> {error, not_found}
    end.

find_child_and_args({restarting, _} = Key, State) when ?SIMPLE(State) ->
    case State#state.dynamics of
        #{Key := Args} ->
            [Child] = State#state.children,
            {M, F, _} = Child#child.mfargs,
            {ok, Child#child{pid = Key, mfargs = {M, F, Args}}};
        _ -> error
    end;
find_child_and_args(Id, State) ->
    find_child(Id, State).

child_to_spec(#child{id = Id, mfargs = Func, restart_type = RestartType,
                     shutdown = Shutdown, child_type = ChildType,
                     modules = Mods}) ->
    #{id => Id, start => Func, restart => RestartType, significant => false,
      shutdown => Shutdown, type => ChildType, modules => Mods}.

%%% Checking flags and specs

init_state(SupName, Flags, Mod, Args) ->
    case catch supervisor_flags(Flags) of
        {ok, Strategy, MaxR, MaxT} ->
            {ok, #state{name = supname(SupName, Mod), strategy = Strategy,
                        intensity = MaxR, period = MaxT, module = Mod,
                        args = Args}};
        Error -> Error
    end.

supname(self, Mod) -> {self(), Mod};
supname(N, _) -> N.

supervisor_flags({Strategy, MaxR, MaxT}) ->
    supervisor_flags(#{strategy => Strategy, intensity => MaxR,
                       period => MaxT});
supervisor_flags(Flags) when is_map(Flags) ->
    Strategy = maps:get(strategy, Flags, one_for_one),
    MaxR = maps:get(intensity, Flags, 1),
    MaxT = maps:get(period, Flags, 5),
    valid_strategy(Strategy),
    valid_intensity(MaxR),
    valid_period(MaxT),
    ok = check_auto_shutdown(maps:get(auto_shutdown, Flags, never)),
    {ok, Strategy, MaxR, MaxT};
supervisor_flags(What) ->
    {bad_flags, What}.

valid_strategy(simple_one_for_one) -> true;
valid_strategy(one_for_one) -> true;
valid_strategy(one_for_all) -> true;
valid_strategy(rest_for_one) -> true;
valid_strategy(What) -> throw({invalid_strategy, What}).

valid_intensity(Max) when is_integer(Max), Max >= 0 -> true;
valid_intensity(What) -> throw({invalid_intensity, What}).

valid_period(Period) when is_integer(Period), Period > 0 -> true;
valid_period(What) -> throw({invalid_period, What}).

check_auto_shutdown(never) -> ok;
check_auto_shutdown(What)
  when What =:= any_significant; What =:= all_significant ->
    trace_prelude:unsupported(
      io_lib:format("supervisor flag auto_shutdown => ~tw", [What]));
check_auto_shutdown(What) ->
    {invalid_auto_shutdown, What}.

check_startspec(Children) -> check_startspec(Children, [], []).

check_startspec([ChildSpec | T], Ids, Res) ->
    case check_childspec(ChildSpec) of
        {ok, #child{id = Id} = Child} ->
            case lists:member(Id, Ids) of
                true -> {duplicate_child_name, Id};
                false -> check_startspec(T, [Id | Ids], [Child | Res])
            end;
        Error -> Error
    end;
check_startspec([], _Ids, Res) ->
    {ok, lists:reverse(Res)};
check_startspec(X, _Ids, _Res) ->
    {invalid_start_spec, X}.

check_childspec(Spec) when is_map(Spec) ->
    catch do_check_childspec(Spec);
check_childspec({Id, Func, RestartType, Shutdown, ChildType, Mods}) ->
    check_childspec(#{id => Id, start => Func, restart => RestartType,
                      shutdown => Shutdown, type => ChildType,
                      modules => Mods});
check_childspec(X) ->
    {invalid_child_spec, X}.

do_check_childspec(Spec) ->
    Id = case Spec of
             #{id := I} -> I;
             _ -> throw(missing_id)
         end,
    Func = case Spec of
               #{start := F} -> F;
               _ -> throw(missing_start)
           end,
    valid_func(Func),
    RestartType = maps:get(restart, Spec, permanent),
    valid_restart_type(RestartType),
    case maps:get(significant, Spec, false) of
        false -> ok;
        true ->
            trace_prelude:unsupported(
              "significant children (child spec significant => true)");
        Sig -> throw({invalid_significant, Sig})
    end,
    ChildType = maps:get(type, Spec, worker),
    valid_child_type(ChildType),
    Shutdown = maps:get(shutdown, Spec, case ChildType of
                                            worker -> 5000;
                                            supervisor -> infinity
                                        end),
    valid_shutdown(Shutdown),
    {M, _, _} = Func,
    Mods = maps:get(modules, Spec, [M]),
    valid_mods(Mods),
    {ok, #child{id = Id, mfargs = Func, restart_type = RestartType,
                shutdown = Shutdown, child_type = ChildType, modules = Mods}}.

valid_func({M, F, A}) when is_atom(M), is_atom(F), is_list(A) -> true;
valid_func(Func) -> throw({invalid_mfa, Func}).

valid_restart_type(permanent) -> true;
valid_restart_type(temporary) -> true;
valid_restart_type(transient) -> true;
valid_restart_type(What) -> throw({invalid_restart_type, What}).

valid_child_type(supervisor) -> true;
valid_child_type(worker) -> true;
valid_child_type(What) -> throw({invalid_child_type, What}).

valid_shutdown(Shutdown) when is_integer(Shutdown), Shutdown > 0 -> true;
valid_shutdown(infinity) -> true;
valid_shutdown(brutal_kill) -> true;
valid_shutdown(Shutdown) -> throw({invalid_shutdown, Shutdown}).

valid_mods(dynamic) -> true;
valid_mods(Mods) when is_list(Mods) ->
    lists:foreach(fun(Mod) when is_atom(Mod) -> ok;
                     (Mod) -> throw({invalid_module, Mod})
                  end, Mods),
    true;
valid_mods(Mods) -> throw({invalid_modules, Mods}).

%%% Reports

report_error(Error, Reason, Child, SupName) ->
    logger:error(#{label => {supervisor, Error},
                   report => [{supervisor, SupName},
                              {errorContext, Error},
                              {reason, Reason},
                              {offender, extract_child(Child)}]},
                 #{domain => [otp, sasl],
                   report_cb => fun supervisor:format_log/2,
                   logger_formatter => #{title => "SUPERVISOR REPORT"},
                   error_logger => #{tag => error_report,
                                     type => supervisor_report}}).

report_progress(Child, SupName) ->
    logger:info(#{label => {supervisor, progress},
                  report => [{supervisor, SupName},
                             {started, extract_child(Child)}]},
                #{domain => [otp, sasl],
                  report_cb => fun supervisor:format_log/2,
                  logger_formatter => #{title => "PROGRESS REPORT"},
                  error_logger => #{tag => info_report, type => progress}}).

extract_child(Child) ->
    [{pid, old_pid(Child#child.pid)},
     {id, Child#child.id},
     {mfargs, Child#child.mfargs},
     {restart_type, Child#child.restart_type},
     {significant, false},
     {shutdown, Child#child.shutdown},
     {child_type, Child#child.child_type}].

format_log(Report) ->
    {"~ts", [format_log(Report, #{})]}.

format_log(#{label := {supervisor, progress},
             report := [{supervisor, SupName}, {started, Child}]}, _Config) ->
    io_lib:format("    supervisor: ~tp~n    started: ~tp~n", [SupName, Child]);
format_log(#{label := {supervisor, _Error},
             report := [{supervisor, SupName}, {errorContext, Error},
                        {reason, Reason}, {offender, Child}]}, _Config) ->
    io_lib:format("    supervisor: ~tp~n    errorContext: ~tp~n"
                  "    reason: ~tp~n    offender: ~tp~n",
                  [SupName, Error, Reason, Child]).
